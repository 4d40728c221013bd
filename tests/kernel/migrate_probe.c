// SPDX-License-Identifier: GPL-2.0
/*
 * migrate_probe: guest-side proof for the batched migration TLB flush patch.
 *
 *   migrate_probe bench [MIB] [ROUNDS]
 *	Moves a MIB MiB buffer of 4 KiB pages (THP off) between node 0 and
 *	node 1 with move_pages(2), ROUNDS times, while a second thread of the
 *	process spins on the other CPU.  Prints migrated pages, remote TLB
 *	flushes (nr_tlb_remote_flush, needs CONFIG_DEBUG_TLBFLUSH and
 *	CONFIG_VM_EVENT_COUNTERS, else "n/a"), TLB
 *	shootdown interrupts (/proc/interrupts "TLB" row), both per 1000
 *	migrated pages, and pages/s.
 *
 *   migrate_probe stress [PAGES] [MIGRATIONS] [WRITERS]
 *	Writer threads keep writing known values into a PAGES-page buffer
 *	while the main thread moves the buffer between the two nodes, with
 *	move_pages(2) and mbind(MPOL_MF_MOVE) in turn, until MIGRATIONS page
 *	migrations are done (pages seen on the new node afterwards, so the
 *	count needs no CONFIG_VM_EVENT_COUNTERS).  Every writer checks each
 *	word before it overwrites it; at the end every byte is compared with
 *	the writers' private shadow copy.  Prints lost writes and corrupt
 *	bytes; exits 1 if any.
 *
 *   migrate_probe stress-thp [PAGES] [MIGRATIONS] [WRITERS]
 *	The same with a 2 MiB aligned buffer and MADV_HUGEPAGE, so large
 *	folios take the unbatched path (THP must be enabled: "madvise").
 *
 * Static build for a busybox initramfs:
 *   gcc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -static -pthread \
 *       -o migrate_probe migrate_probe.c
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/mempolicy.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PAGE_SZ 4096UL
#define WORDS_PER_PAGE (PAGE_SZ / sizeof(uint64_t))
/* Words each writer rewrites per page and sweep: a few cache lines. */
#define WORDS_PER_VISIT 8

struct counters {
	unsigned long long pgmigrate;		/* ~0ULL if not available */
	unsigned long long remote_flush;	/* ~0ULL if not available */
	unsigned long long tlb_irqs;		/* ~0ULL if not available */
};

static int read_vmstat(const char *key, unsigned long long *ret_val)
{
	char line[256];
	size_t klen = strlen(key);
	FILE *f = fopen("/proc/vmstat", "re");
	int ret = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, klen) == 0 && line[klen] == ' ') {
			*ret_val = strtoull(line + klen + 1, NULL, 10);
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}

/* Sum of the per-CPU columns of the "TLB:" row of /proc/interrupts. */
static int read_tlb_irqs(unsigned long long *ret_val)
{
	char line[4096];
	FILE *f = fopen("/proc/interrupts", "re");
	int ret = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *p = line;
		unsigned long long sum = 0;

		while (*p == ' ')
			p++;
		if (strncmp(p, "TLB:", 4) != 0)
			continue;
		p += 4;
		for (;;) {
			char *end;
			unsigned long long v = strtoull(p, &end, 10);

			if (end == p)
				break;
			sum += v;
			p = end;
		}
		*ret_val = sum;
		ret = 0;
		break;
	}
	fclose(f);
	return ret;
}

static int read_counters(struct counters *c)
{
	if (read_vmstat("pgmigrate_success", &c->pgmigrate) < 0)
		c->pgmigrate = ~0ULL;
	if (read_vmstat("nr_tlb_remote_flush", &c->remote_flush) < 0)
		c->remote_flush = ~0ULL;
	if (read_tlb_irqs(&c->tlb_irqs) < 0)
		c->tlb_irqs = ~0ULL;
	return 0;
}

/* Prints the AnonHugePages line of /proc/meminfo (THP in use). */
static void print_anon_huge(const char *when)
{
	char line[256];
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "AnonHugePages:", 14) == 0)
			printf("%s %s", when, line);
	fclose(f);
}

static int pin_to_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0)
		return -errno;
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#define THP_SZ (2UL << 20)

/*
 * 4 KiB pages unless use_thp: a THP is migrated with one PMD flush and would
 * hide the per-page flushes.  With use_thp the buffer starts on a 2 MiB
 * boundary (the slack around it stays mapped, unused).
 */
static void *map_buffer(size_t len, int use_thp)
{
	size_t maplen = len + (use_thp ? THP_SZ : 0);
	char *p = mmap(NULL, maplen, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if (use_thp)
		p = (char *)(((uintptr_t)p + THP_SZ - 1) & ~(THP_SZ - 1));
	if (madvise(p, len, use_thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE) < 0)
		return NULL;
	return p;
}

/* Moves every page of buf to node; returns pages reported moved or -errno. */
static long move_all(void **pages, int *nodes, int *status,
		     unsigned long nr, int node)
{
	long moved = 0;

	for (unsigned long i = 0; i < nr; i++)
		nodes[i] = node;
	if (syscall(SYS_move_pages, 0, nr, pages, nodes, status,
		    MPOL_MF_MOVE) < 0)
		return -errno;
	for (unsigned long i = 0; i < nr; i++)
		moved += status[i] == node;
	return moved;
}

/* Number of pages of buf on node (move_pages(2) query), or -errno. */
static long count_on_node(void **pages, int *status, unsigned long nr,
			  int node)
{
	long n = 0;

	if (syscall(SYS_move_pages, 0, nr, pages, NULL, status, 0) < 0)
		return -errno;
	for (unsigned long i = 0; i < nr; i++)
		n += status[i] == node;
	return n;
}

static int mbind_move(void *buf, size_t len, int node)
{
	unsigned long mask = 1UL << node;

	if (syscall(SYS_mbind, buf, len, MPOL_BIND, &mask,
		    sizeof(mask) * 8, MPOL_MF_MOVE) < 0)
		return -errno;
	/* Default policy again, so NUMA balancing may move the pages too. */
	if (syscall(SYS_mbind, buf, len, MPOL_DEFAULT, NULL, 0, 0) < 0)
		return -errno;
	return 0;
}

static atomic_int stop;

static void *spin_thread(void *arg)
{
	volatile unsigned long *counter = arg;

	(void)pin_to_cpu(1);
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		(*counter)++;
	return NULL;
}

static void print_per_1000(const char *name, unsigned long long before,
			   unsigned long long after, unsigned long long pages)
{
	if (before == ~0ULL || after == ~0ULL) {
		printf("%s: n/a\n", name);
		return;
	}
	printf("%s: %llu (%.1f per 1000 migrated pages)\n", name,
	       after - before, pages ? 1000.0 * (after - before) / pages : 0.0);
}

static int run_bench(unsigned long mib, unsigned long rounds)
{
	unsigned long nr = mib * 1024 * 1024 / PAGE_SZ;
	size_t len = nr * PAGE_SZ;
	void **pages = calloc(nr, sizeof(*pages));
	int *nodes = calloc(nr, sizeof(*nodes));
	int *status = calloc(nr, sizeof(*status));
	volatile unsigned long spins = 0;
	struct counters c0, c1;
	pthread_t spinner;
	char *buf;
	double t0, t1;
	long moved_total = 0;
	int ret;

	buf = map_buffer(len, 0);
	if (!buf || !pages || !nodes || !status) {
		fprintf(stderr, "migrate_probe: cannot allocate %lu MiB\n", mib);
		return -ENOMEM;
	}
	for (unsigned long i = 0; i < nr; i++) {
		pages[i] = buf + i * PAGE_SZ;
		buf[i * PAGE_SZ] = (char)i;
	}
	ret = pin_to_cpu(0);
	if (ret < 0) {
		fprintf(stderr, "migrate_probe: sched_setaffinity: %s\n",
			strerror(-ret));
		return ret;
	}
	ret = move_all(pages, nodes, status, nr, 0);
	if (ret < 0) {
		fprintf(stderr, "migrate_probe: move_pages: %s\n", strerror(-ret));
		return ret;
	}
	ret = pthread_create(&spinner, NULL, spin_thread, (void *)&spins);
	if (ret) {
		fprintf(stderr, "migrate_probe: pthread_create: %s\n", strerror(ret));
		return -ret;
	}
	/* Let the spinner reach CPU 1, so the mm is live there. */
	usleep(100000);

	ret = read_counters(&c0);
	t0 = now_s();
	for (unsigned long r = 0; r < rounds && ret >= 0; r++) {
		long m = move_all(pages, nodes, status, nr, (int)((r + 1) % 2));

		if (m < 0)
			ret = (int)m;
		else
			moved_total += m;
	}
	t1 = now_s();
	if (ret >= 0)
		ret = read_counters(&c1);
	atomic_store(&stop, 1);
	pthread_join(spinner, NULL);
	if (ret < 0) {
		fprintf(stderr, "migrate_probe: bench: %s\n", strerror(-ret));
		return ret;
	}

	/* move_pages(2) status: pages found on the target node afterwards */
	unsigned long long migrated = moved_total;

	printf("bench: buffer %lu MiB (%lu pages), %lu rounds, %.3f s\n",
	       mib, nr, rounds, t1 - t0);
	printf("pages moved (move_pages status): %ld\n", moved_total);
	if (c0.pgmigrate != ~0ULL && c1.pgmigrate != ~0ULL)
		printf("pgmigrate_success: %llu\n", c1.pgmigrate - c0.pgmigrate);
	else
		printf("pgmigrate_success: n/a\n");
	print_per_1000("nr_tlb_remote_flush", c0.remote_flush, c1.remote_flush,
		       migrated);
	print_per_1000("TLB shootdown irqs", c0.tlb_irqs, c1.tlb_irqs,
		       migrated);
	printf("pages/s: %.0f\n", migrated / (t1 - t0));
	munmap(buf, len);
	free(pages);
	free(nodes);
	free(status);
	return 0;
}

struct writer {
	pthread_t thread;
	uint64_t *buf;		/* shared, migrated */
	uint64_t *shadow;	/* private copy of what this writer wrote */
	unsigned long nr_pages;
	int id;
	int nr_writers;
	unsigned long long lost;	/* words that did not hold our last write */
	unsigned long long writes;
};

static void *writer_thread(void *arg)
{
	struct writer *w = arg;
	unsigned long sweep = 0;

	/* Writer 0 away from the migrating thread on CPU 0, writer 1 beside it. */
	(void)pin_to_cpu((1 + w->id) % 2);
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		for (unsigned long p = w->id; p < w->nr_pages; p += w->nr_writers) {
			for (unsigned long j = 0; j < WORDS_PER_VISIT; j++) {
				unsigned long idx = p * WORDS_PER_PAGE +
					(sweep * WORDS_PER_VISIT + j) % WORDS_PER_PAGE;
				volatile uint64_t *word = &w->buf[idx];
				uint64_t expect = w->shadow[idx];

				if (*word != expect)
					w->lost++;
				/* Unique value: page, word and sequence. */
				expect = (expect & ~0xffffffffULL) + 0x100000000ULL +
					 (idx & 0xffffffffULL);
				*word = expect;
				w->shadow[idx] = expect;
				w->writes++;
			}
		}
		sweep++;
	}
	return NULL;
}

static int run_stress(unsigned long nr, unsigned long long target,
		      int nr_writers, int use_thp)
{
	size_t len = nr * PAGE_SZ;
	void **pages = calloc(nr, sizeof(*pages));
	int *nodes = calloc(nr, sizeof(*nodes));
	int *status = calloc(nr, sizeof(*status));
	uint64_t *shadow = calloc(nr * WORDS_PER_PAGE, sizeof(uint64_t));
	struct writer *writers = calloc(nr_writers, sizeof(*writers));
	unsigned long long cur_mig = 0, lost = 0, writes = 0;
	unsigned long long corrupt = 0, calls = 0;
	uint64_t *buf;
	double t0 = now_s();
	int ret, node = 0;

	buf = map_buffer(len, use_thp);
	if (!buf || !pages || !nodes || !status || !shadow || !writers) {
		fprintf(stderr, "migrate_probe: stress: cannot allocate\n");
		return -ENOMEM;
	}
	for (unsigned long i = 0; i < nr * WORDS_PER_PAGE; i++) {
		shadow[i] = i & 0xffffffffULL;
		buf[i] = shadow[i];
	}
	for (unsigned long i = 0; i < nr; i++)
		pages[i] = (char *)buf + i * PAGE_SZ;
	ret = pin_to_cpu(0);
	if (ret < 0)
		return ret;
	ret = move_all(pages, nodes, status, nr, 0);
	if (ret < 0) {
		fprintf(stderr, "migrate_probe: move_pages: %s\n", strerror(-ret));
		return ret;
	}
	atomic_store(&stop, 0);
	for (int i = 0; i < nr_writers; i++) {
		writers[i] = (struct writer){ .buf = buf, .shadow = shadow,
			.nr_pages = nr, .id = i, .nr_writers = nr_writers };
		ret = pthread_create(&writers[i].thread, NULL, writer_thread,
				     &writers[i]);
		if (ret) {
			fprintf(stderr, "migrate_probe: pthread_create: %s\n",
				strerror(ret));
			atomic_store(&stop, 1);
			nr_writers = i;
			ret = -ret;
			goto join;
		}
	}

	if (use_thp)
		print_anon_huge("before:");
	t0 = now_s();
	while (cur_mig < target) {
		long before, after;

		node = !node;
		before = count_on_node(pages, status, nr, node);
		if (before < 0) {
			ret = (int)before;
			break;
		}
		if (calls % 2 == 0) {
			long m = move_all(pages, nodes, status, nr, node);

			ret = m < 0 ? (int)m : 0;
		} else {
			ret = mbind_move(buf, len, node);
		}
		if (ret < 0) {
			fprintf(stderr, "migrate_probe: %s: %s\n",
				calls % 2 ? "mbind" : "move_pages", strerror(-ret));
			break;
		}
		calls++;
		after = count_on_node(pages, status, nr, node);
		if (after < 0) {
			ret = (int)after;
			break;
		}
		if (after > before)
			cur_mig += after - before;
	}
	if (use_thp)
		print_anon_huge("after:");
	atomic_store(&stop, 1);
join:
	for (int i = 0; i < nr_writers; i++) {
		pthread_join(writers[i].thread, NULL);
		lost += writers[i].lost;
		writes += writers[i].writes;
	}
	/* Every byte against what the writers last wrote. */
	for (unsigned long i = 0; i < nr * WORDS_PER_PAGE; i++) {
		uint64_t got = buf[i], want = shadow[i];

		for (int b = 0; b < 8; b++)
			corrupt += ((got >> (8 * b)) & 0xff) != ((want >> (8 * b)) & 0xff);
	}
	printf("stress%s: %lu pages, %d writer(s), %llu calls (move_pages + mbind), %.1f s\n",
	       use_thp ? "-thp" : "", nr, nr_writers, calls, now_s() - t0);
	printf("page migrations (pages seen on the new node): %llu\n", cur_mig);
	printf("writes: %llu\n", writes);
	printf("lost writes: %llu\n", lost);
	printf("corrupt bytes: %llu\n", corrupt);
	free(pages);
	free(nodes);
	free(status);
	free(shadow);
	free(writers);
	if (ret < 0)
		return ret;
	return lost || corrupt ? 1 : 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: migrate_probe bench [MIB] [ROUNDS]\n"
		"       migrate_probe stress|stress-thp [PAGES] [MIGRATIONS] [WRITERS]\n");
}

static int parse_ulong(const char *s, unsigned long *ret_val)
{
	char *end;

	errno = 0;
	*ret_val = strtoul(s, &end, 10);
	if (errno || end == s || *end || *ret_val == 0) {
		fprintf(stderr, "migrate_probe: bad number '%s'\n", s);
		return -EINVAL;
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long a = 0, b = 0, c = 0;
	int ret;

	if (argc < 2 || argc > 5) {
		usage();
		return 2;
	}
	if ((argc > 2 && parse_ulong(argv[2], &a) < 0) ||
	    (argc > 3 && parse_ulong(argv[3], &b) < 0) ||
	    (argc > 4 && parse_ulong(argv[4], &c) < 0))
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (strcmp(argv[1], "bench") == 0 && argc <= 4) {
		ret = run_bench(a ? a : 64, b ? b : 4);
	} else if (strcmp(argv[1], "stress") == 0 ||
		   strcmp(argv[1], "stress-thp") == 0) {
		if (c > 64) {
			fprintf(stderr, "migrate_probe: at most 64 writers\n");
			return 2;
		}
		ret = run_stress(a ? a : 256, b ? b : 1000000, c ? (int)c : 1,
				 strcmp(argv[1], "stress-thp") == 0);
	} else {
		usage();
		return 2;
	}
	if (ret < 0)
		return 1;
	return ret;
}
