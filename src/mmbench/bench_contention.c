/* contention: migration of folios that other tasks keep locked. A shared
 * memfd (shmem) region; writer threads rewrite its pages with pwrite(2) in
 * 512-byte chunks, 8 calls a page (shmem holds the folio locked from
 * write_begin to write_end, and every reader or writer holds a reference,
 * also while it waits for the lock), a forked toucher process faults the pages
 * in through its own mapping and drops them again with MADV_DONTNEED (each
 * fault locks the folio). All of them run on the CPUs other than the
 * mover's. The mover (CPU 0) calls move_pages(2) with MPOL_MF_MOVE_ALL
 * (the pages are mapped by two processes; without CAP_SYS_NICE it falls
 * back to MPOL_MF_MOVE and says so in the params) back and forth between two
 * nodes for --rounds rounds, and counts per round the pages requested (not
 * on the target yet), the pages on the target afterwards (queried), the
 * -EAGAIN/-EBUSY/other statuses and the pages the call says it did not
 * migrate. How persistently the kernel retries a locked or referenced folio
 * shows up as moved_fraction and pgmigrate_fail.
 *
 * The writers check every page before rewriting it (through pread(2) and
 * through the mapping), and every page is checked again at the end: a lost
 * write or a corrupt byte makes the result "failed" (exit 1). Needs two
 * nodes: exits 77 otherwise (--inject-corruption, test only, then runs on
 * the one node without moving, to show the check). */
#include "contention.h"
#include "mmbench.h"
#include "numa.h"
#include "topology.h"
#include "util.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define MB_MPOL_MF_MOVE (1 << 1)
#define MB_MPOL_MF_MOVE_ALL (1 << 2)

/* ---- the pure parts (contention.h) ---- */

int mb_cont_config(const struct mb_opts *o, int ncpus, struct mb_cont_cfg *c, char *err,
		   size_t err_size)
{
	long mib = o->size_mib ? o->size_mib : o->quick ? MB_CONT_SIZE_MIB_QUICK : MB_CONT_SIZE_MIB;
	int others = ncpus > 1 ? ncpus - 1 : 1;

	c->pages = (size_t)mib * ((1UL << 20) / MB_CONT_PAGE_BYTES);
	c->rounds = o->rounds ? o->rounds : o->quick ? MB_CONT_ROUNDS_QUICK : MB_CONT_ROUNDS;
	c->writers = o->writers ? (int)o->writers : MB_CONT_WRITERS_PER_CPU * others;
	c->reps = mb_reps(o, 5, 3);
	if ((size_t)c->writers > c->pages) {
		snprintf(err, err_size, "option '--writers': %d writers for %zu pages (at most one per page)",
			 c->writers, c->pages);
		return -EINVAL;
	}
	return 0;
}

int mb_cont_check_opts(const struct mb_opts *o, char *err, size_t err_size)
{
	struct mb_cont_cfg c;

	return mb_cont_config(o, mb_online_cpus(), &c, err, err_size);
}

void mb_cont_count(const int *status, const int *after, size_t n, int target, long ret,
		   struct mb_cont_round *c)
{
	c->requested += n;
	if (ret < 0)
		c->calls_failed++;
	else
		c->not_migrated += (uint64_t)ret;
	for (size_t i = 0; i < n; i++) {
		if (after[i] == target)
			c->moved++;
		if (status[i] == MB_CONT_STATUS_UNSET)
			c->unreported++;
		else if (status[i] == -EAGAIN)
			c->eagain++;
		else if (status[i] == -EBUSY)
			c->ebusy++;
		else if (status[i] < 0)
			c->other_err++;
	}
}

double mb_cont_moved_fraction(const struct mb_cont_round *c)
{
	return c->requested ? (double)c->moved / (double)c->requested : 1.0;
}

static uint64_t mix(uint64_t pageno, uint64_t seq, uint64_t word)
{
	uint64_t x = (pageno << 40 ^ seq << 12 ^ word) * 0x9E3779B97F4A7C15ULL;

	return x ^ x >> 29;
}

#define CONT_MAGIC 0x6d6d636f6e74ULL /* "mmcont" */

void mb_cont_fill(uint64_t *page, uint64_t pageno, uint64_t seq)
{
	page[0] = CONT_MAGIC << 16 ^ pageno;
	page[1] = seq;
	for (size_t w = 2; w < MB_CONT_WORDS; w++)
		page[w] = mix(pageno, seq, w);
}

enum mb_cont_verdict mb_cont_check(const uint64_t *page, uint64_t pageno, uint64_t seq,
				   uint64_t *ret_bad_bytes)
{
	uint64_t bad = mb_diff_bytes(page[0], CONT_MAGIC << 16 ^ pageno) + mb_diff_bytes(page[1], seq);
	int older;

	for (size_t w = 2; w < MB_CONT_WORDS; w++)
		bad += mb_diff_bytes(page[w], mix(pageno, seq, w));
	*ret_bad_bytes = 0;
	if (bad == 0)
		return MB_CONT_OK;
	/* an earlier write of this page, whole: the later ones were lost */
	older = page[0] == (CONT_MAGIC << 16 ^ pageno) && page[1] < seq;
	for (size_t w = 2; older && w < MB_CONT_WORDS; w++)
		older = page[w] == mix(pageno, page[1], w);
	if (older)
		return MB_CONT_LOST;
	*ret_bad_bytes = bad;
	return MB_CONT_CORRUPT;
}

/* ---- the run ---- */

/* Shared with the toucher child (MAP_SHARED|MAP_ANONYMOUS). */
struct cont_ctl {
	int stop;
	uint64_t faults;
};

struct cont {
	int fd;
	char *mem;              /* the mover's (and writers') mapping */
	size_t pages, bytes;
	int nwriters;
	int na, nb, move;       /* move 0: one node, --inject-corruption only */
	int flags;              /* MPOL_MF_MOVE_ALL or MPOL_MF_MOVE */
	uint64_t *seq;          /* last sequence number written, per page */
	int stop;
	int mover_cpu;
	/* the writers' findings */
	uint64_t lost, corrupt_bytes, writes, io_errors;
	pthread_mutex_t lock;
	char first[200];
};

struct writer {
	pthread_t tid;
	struct cont *g;
	int index, cpu;
};

static int contention_cpu(int i)
{
	int n = mb_online_cpus();

	return n > 1 ? 1 + i % (n - 1) : 0;
}

static void note(struct cont *g, const char *how, size_t page, uint64_t seq,
		 enum mb_cont_verdict v, uint64_t bad)
{
	pthread_mutex_lock(&g->lock);
	if (v == MB_CONT_LOST)
		g->lost++;
	else
		g->corrupt_bytes += bad;
	if (!g->first[0])
		snprintf(g->first, sizeof(g->first), "page %zu (%s): %s, expected sequence %llu",
			 page, how, v == MB_CONT_LOST ? "an earlier write, a later one lost" :
			 "corrupt bytes", (unsigned long long)seq);
	pthread_mutex_unlock(&g->lock);
}

static int pread_page(int fd, void *buf, size_t page)
{
	size_t done = 0;

	while (done < MB_CONT_PAGE_BYTES) {
		ssize_t n = pread(fd, (char *)buf + done, MB_CONT_PAGE_BYTES - done,
				  (off_t)(page * MB_CONT_PAGE_BYTES + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		done += (size_t)n;
	}
	return 0;
}

static int pwrite_page(int fd, const void *buf, size_t page)
{
	size_t done = 0;

	while (done < MB_CONT_PAGE_BYTES) {
		ssize_t n = pwrite(fd, (const char *)buf + done, MB_CONT_PAGE_BYTES - done,
				   (off_t)(page * MB_CONT_PAGE_BYTES + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		done += (size_t)n;
	}
	return 0;
}

/* A page written in MB_CONT_CHUNK_BYTES chunks: each pwrite(2) takes a
 * reference and the folio lock again, so a page being written stays busy
 * for several calls. */
static int pwrite_chunks(int fd, const void *buf, size_t page)
{
	const size_t chunk = MB_CONT_CHUNK_BYTES;

	for (size_t off = 0; off < MB_CONT_PAGE_BYTES; off += chunk) {
		ssize_t n = pwrite(fd, (const char *)buf + off, chunk,
				   (off_t)(page * MB_CONT_PAGE_BYTES + off));

		if (n < 0 && errno == EINTR) {
			off -= chunk;
			continue;
		}
		if (n != (ssize_t)chunk)
			return n < 0 ? -errno : -EIO;
	}
	return 0;
}

/* Checks one page through the file and through the mapping; counts what
 * it finds (once per page). Returns -errno when pread failed. */
static int check_page(struct cont *g, uint64_t *buf, size_t page)
{
	uint64_t seq = g->seq[page], bad;
	enum mb_cont_verdict v;
	int r = pread_page(g->fd, buf, page);

	if (r < 0)
		return r;
	v = mb_cont_check(buf, page, seq, &bad);
	if (v != MB_CONT_OK) {
		note(g, "pread", page, seq, v, bad);
		return 0;
	}
	memcpy(buf, g->mem + page * MB_CONT_PAGE_BYTES, MB_CONT_PAGE_BYTES);
	v = mb_cont_check(buf, page, seq, &bad);
	if (v != MB_CONT_OK)
		note(g, "mapping", page, seq, v, bad);
	return 0;
}

static void *writer_main(void *arg)
{
	struct writer *wr = arg;
	struct cont *g = wr->g;
	uint64_t *buf = aligned_alloc(MB_CONT_PAGE_BYTES, MB_CONT_PAGE_BYTES), writes = 0, errs = 0;

	(void)mb_pin_to_cpu(wr->cpu);
	while (buf && !__atomic_load_n(&g->stop, __ATOMIC_RELAXED)) {
		for (size_t i = (size_t)wr->index; i < g->pages; i += (size_t)g->nwriters) {
			if (check_page(g, buf, i) < 0) {
				errs++;
				continue;
			}
			mb_cont_fill(buf, i, g->seq[i] + 1);
			if (pwrite_chunks(g->fd, buf, i) < 0) {
				errs++;
				continue;
			}
			g->seq[i]++;
			writes++;
			if (__atomic_load_n(&g->stop, __ATOMIC_RELAXED))
				break;
		}
	}
	if (!buf)
		errs++;
	free(buf);
	__atomic_fetch_add(&g->writes, writes, __ATOMIC_RELAXED);
	__atomic_fetch_add(&g->io_errors, errs, __ATOMIC_RELAXED);
	return NULL;
}

/* The forked toucher: reads one byte of every page through its own mapping
 * (a fault, which locks the folio) and drops them again in chunks of 16
 * pages with MADV_DONTNEED, until told to stop. */
static void toucher_main(struct cont *g, struct cont_ctl *ctl, int cpu)
{
	char *m = mmap(NULL, g->bytes, PROT_READ, MAP_SHARED, g->fd, 0);
	uint64_t faults = 0;
	volatile char sink = 0;

	if (m == MAP_FAILED)
		_exit(1);
	(void)mb_pin_to_cpu(cpu);
	while (!__atomic_load_n(&ctl->stop, __ATOMIC_RELAXED)) {
		for (size_t i = 0; i < g->pages; i += 16) {
			size_t n = g->pages - i < 16 ? g->pages - i : 16;

			for (size_t j = 0; j < n; j++)
				sink = (char)(sink + m[(i + j) * MB_CONT_PAGE_BYTES + 8]);
			faults += n;
			(void)madvise(m + i * MB_CONT_PAGE_BYTES, n * MB_CONT_PAGE_BYTES, MADV_DONTNEED);
			if (__atomic_load_n(&ctl->stop, __ATOMIC_RELAXED))
				break;
		}
	}
	__atomic_store_n(&ctl->faults, faults, __ATOMIC_RELAXED);
	_exit(0);
}

struct cont_metrics {
	int fraction, not_moved, eagain, ebusy, other, unreported, not_migrated, pg_fail, pg_ok,
	    requested, lost, corrupt, writes, faults, move_s;
};

struct mover_bufs {
	void **all, **req;
	int *where, *nodes, *status, *after;
};

static int query(void **pages, size_t n, int *where)
{
	if (n && syscall(SYS_move_pages, 0, (unsigned long)n, pages, NULL, where, 0) < 0)
		return -errno;
	return 0;
}

/* One round towards target: the pages not there yet, moved, counted. */
static int move_round(struct cont *g, struct mover_bufs *b, int target, struct mb_cont_round *c,
		      uint64_t *ns)
{
	size_t n = 0;
	uint64_t t0;
	long ret;
	int r = query(b->all, g->pages, b->where);

	if (r < 0)
		return r;
	for (size_t i = 0; i < g->pages; i++)
		if (b->where[i] != target) {
			b->req[n] = b->all[i];
			b->nodes[n] = target;
			b->status[n] = MB_CONT_STATUS_UNSET;
			n++;
		}
	if (n == 0)
		return 0;
	t0 = mb_now_ns();
	ret = syscall(SYS_move_pages, 0, (unsigned long)n, b->req, b->nodes, b->status, g->flags);
	if (ret < 0 && errno == EPERM && g->flags == MB_MPOL_MF_MOVE_ALL) {
		g->flags = MB_MPOL_MF_MOVE; /* no CAP_SYS_NICE */
		for (size_t i = 0; i < n; i++)
			b->status[i] = MB_CONT_STATUS_UNSET;
		ret = syscall(SYS_move_pages, 0, (unsigned long)n, b->req, b->nodes, b->status,
			      g->flags);
	}
	if (ret < 0)
		ret = -errno;
	*ns += mb_now_ns() - t0;
	if (ret < 0 && ret != -EBUSY && ret != -EAGAIN && ret != -ENOMEM)
		return (int)ret;
	r = query(b->req, n, b->after);
	if (r < 0)
		return r;
	mb_cont_count(b->status, b->after, n, target, ret, c);
	return 0;
}

static void inject(struct cont *g)
{
	/* page 0: one byte flipped; page 1: its last write undone */
	g->mem[100] ^= 0x5a;
	if (g->pages > 1) {
		mb_cont_fill((uint64_t *)(g->mem + MB_CONT_PAGE_BYTES), 1, g->seq[1]);
		g->seq[1]++;
	}
}

static int one_rep(struct mb_result *r, struct cont *g, long rounds, int inject_corruption,
		   const struct cont_metrics *m, struct mb_cont_round *total)
{
	struct writer *wr = calloc((size_t)g->nwriters, sizeof(*wr));
	struct mb_counters *before = malloc(sizeof(*before)), *after = malloc(sizeof(*after)),
			   *d = malloc(sizeof(*d));
	struct mover_bufs b = {
		.all = calloc(g->pages, sizeof(void *)), .req = calloc(g->pages, sizeof(void *)),
		.where = calloc(g->pages, sizeof(int)), .nodes = calloc(g->pages, sizeof(int)),
		.status = calloc(g->pages, sizeof(int)), .after = calloc(g->pages, sizeof(int)),
	};
	struct cont_ctl *ctl = mmap(NULL, sizeof(*ctl), PROT_READ | PROT_WRITE,
				    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct mb_cont_round c = { 0 };
	uint64_t *buf = aligned_alloc(MB_CONT_PAGE_BYTES, MB_CONT_PAGE_BYTES), move_ns = 0;
	uint64_t pg_ok = 0, pg_fail = 0;
	pid_t child = -1;
	int started = 0, ret = 0;

	g->fd = -1;
	g->mem = MAP_FAILED;
	g->seq = calloc(g->pages, sizeof(*g->seq));
	if (!wr || !before || !after || !d || !b.all || !b.req || !b.where || !b.nodes ||
	    !b.status || !b.after || ctl == MAP_FAILED || !buf || !g->seq) {
		ret = -ENOMEM;
		goto out;
	}
	g->fd = memfd_create("mmbench-contention", MFD_CLOEXEC);
	if (g->fd < 0 || ftruncate(g->fd, (off_t)g->bytes) < 0) {
		ret = -errno;
		goto out;
	}
	g->mem = mmap(NULL, g->bytes, PROT_READ | PROT_WRITE, MAP_SHARED, g->fd, 0);
	if (g->mem == MAP_FAILED) {
		ret = -errno;
		goto out;
	}
	(void)madvise(g->mem, g->bytes, MADV_NOHUGEPAGE);
	/* both nodes allowed; NUMA balancing leaves a bound range alone */
	ret = mb_mbind_two(g->mem, g->bytes, g->na, g->nb);
	if (ret < 0)
		goto out;
	for (size_t i = 0; i < g->pages; i++) {
		mb_cont_fill(buf, i, 0);
		ret = pwrite_page(g->fd, buf, i);
		if (ret < 0)
			goto out;
		b.all[i] = g->mem + i * MB_CONT_PAGE_BYTES;
		(void)*(volatile char *)b.all[i]; /* mapped here: move_pages needs the PTE */
	}
	/* start every repetition from node a */
	if (g->move) {
		struct mb_cont_round warm = { 0 };
		uint64_t ns = 0;

		ret = move_round(g, &b, g->na, &warm, &ns);
		if (ret < 0)
			goto out;
	}
	g->stop = 0;
	g->lost = g->corrupt_bytes = g->writes = g->io_errors = 0;
	ctl->stop = 0;
	ctl->faults = 0;

	ret = mb_counters_snapshot(before);
	if (ret < 0)
		goto out;
	child = fork();
	if (child < 0) {
		ret = -errno;
		goto out;
	}
	if (child == 0)
		toucher_main(g, ctl, contention_cpu(g->nwriters));
	for (int i = 0; i < g->nwriters && ret == 0; i++) {
		wr[i] = (struct writer){ .g = g, .index = i, .cpu = contention_cpu(i) };
		ret = -pthread_create(&wr[i].tid, NULL, writer_main, &wr[i]);
		if (ret == 0)
			started++;
	}
	(void)mb_pin_to_cpu(g->mover_cpu);
	/* let the writers and the toucher get going */
	mb_sleep_until_ns(mb_now_ns() + 50 * 1000000ULL);
	for (long k = 0; k < rounds && ret == 0; k++) {
		if (g->move)
			ret = move_round(g, &b, k % 2 == 0 ? g->nb : g->na, &c, &move_ns);
		else
			mb_sleep_until_ns(mb_now_ns() + 20 * 1000000ULL);
	}
	__atomic_store_n(&g->stop, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&ctl->stop, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < started; i++)
		pthread_join(wr[i].tid, NULL);
	if (child > 0) {
		int st = 0;

		while (waitpid(child, &st, 0) < 0 && errno == EINTR)
			;
		if (ret == 0 && !(WIFEXITED(st) && WEXITSTATUS(st) == 0))
			ret = -ECHILD;
		child = -1;
	}
	if (ret == 0 && g->io_errors)
		ret = -EIO;
	if (ret < 0)
		goto out;
	if (inject_corruption)
		inject(g);
	/* the final check: every page, every byte, both ways */
	for (size_t i = 0; i < g->pages && ret == 0; i++)
		ret = check_page(g, buf, i);
	if (ret == 0)
		ret = mb_counters_snapshot(after);
	if (ret < 0)
		goto out;
	mb_counters_delta(before, after, d);
	(void)mb_vmstat_get(d, "pgmigrate_success", &pg_ok);
	(void)mb_vmstat_get(d, "pgmigrate_fail", &pg_fail);
	mb_metric_push(r, m->fraction, mb_cont_moved_fraction(&c));
	mb_metric_push(r, m->not_moved, (double)(c.requested - c.moved));
	mb_metric_push(r, m->eagain, (double)c.eagain);
	mb_metric_push(r, m->ebusy, (double)c.ebusy);
	mb_metric_push(r, m->other, (double)c.other_err);
	mb_metric_push(r, m->unreported, (double)c.unreported);
	mb_metric_push(r, m->not_migrated, (double)c.not_migrated);
	mb_metric_push(r, m->pg_fail, (double)pg_fail);
	mb_metric_push(r, m->pg_ok, (double)pg_ok);
	mb_metric_push(r, m->requested, (double)c.requested);
	mb_metric_push(r, m->lost, (double)g->lost);
	mb_metric_push(r, m->corrupt, (double)g->corrupt_bytes);
	mb_metric_push(r, m->writes, (double)g->writes);
	mb_metric_push(r, m->faults, (double)ctl->faults);
	mb_metric_push(r, m->move_s, (double)move_ns / 1e9);
	total->requested += c.requested;
	total->moved += c.moved;
	total->eagain += c.eagain;
	total->ebusy += c.ebusy;
	total->other_err += c.other_err;
	total->unreported += c.unreported;
	total->not_migrated += c.not_migrated;
	total->calls_failed += c.calls_failed;
out:
	if (child > 0) {
		kill(child, SIGKILL);
		while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
			;
	}
	if (g->mem != MAP_FAILED)
		munmap(g->mem, g->bytes);
	if (g->fd >= 0)
		close(g->fd);
	if (ctl != MAP_FAILED)
		munmap(ctl, sizeof(*ctl));
	free(g->seq);
	g->seq = NULL;
	free(wr);
	free(before);
	free(after);
	free(d);
	free(b.all);
	free(b.req);
	free(b.where);
	free(b.nodes);
	free(b.status);
	free(b.after);
	free(buf);
	return ret;
}

/* The one memory node of this machine (--inject-corruption on one node). */
static int first_node(void)
{
	uint64_t mask = 0;

	if (mb_memory_nodes(&mask) < 0 || !mask)
		return 0;
	return __builtin_ctzll(mask);
}

int bench_contention(const struct mb_opts *o, struct mb_result *r)
{
	struct mb_cont_cfg cfg;
	struct cont g = { .lock = PTHREAD_MUTEX_INITIALIZER, .move = 1 };
	struct mb_cont_round total = { 0 };
	struct cont_metrics m;
	uint64_t lost = 0, corrupt = 0;
	char err[200];
	int ret;

	ret = mb_cont_config(o, mb_online_cpus(), &cfg, err, sizeof(err));
	if (ret < 0)
		return ret; /* main checked it already */
	r->reps = cfg.reps;
	ret = mb_pick_two_nodes(r, &g.na, &g.nb);
	if (ret < 0)
		return ret;
	if (ret == 1 && o->inject_corruption) {
		/* test only: the check's seam works on one node, nothing moves */
		mb_result_init(r, "contention");
		r->reps = cfg.reps;
		g.na = g.nb = first_node();
		g.move = 0;
		mb_param_str(r, "moving", "no: one node (--inject-corruption)");
	}
	mb_param_num(r, "size_mib", (double)(cfg.pages * MB_CONT_PAGE_BYTES >> 20));
	mb_param_num(r, "pages", (double)cfg.pages);
	mb_param_num(r, "rounds_per_rep", (double)cfg.rounds);
	mb_param_num(r, "writers", cfg.writers);
	mb_param_str(r, "region", "memfd (shmem), MAP_SHARED; a forked toucher maps it too");
	if (ret == 1 && !o->inject_corruption)
		return 0; /* skipped */
	if (o->inject_corruption)
		mb_param_str(r, "inject_corruption", "yes (test only)");
	g.pages = cfg.pages;
	g.bytes = cfg.pages * MB_CONT_PAGE_BYTES;
	g.nwriters = cfg.writers;
	g.mover_cpu = 0;
	g.flags = geteuid() == 0 ? MB_MPOL_MF_MOVE_ALL : MB_MPOL_MF_MOVE;

	m.fraction = mb_metric_add(r, "moved_fraction", "fraction", MB_BETTER_HIGHER);
	m.not_moved = mb_metric_add(r, "not_moved_pages", "pages", MB_BETTER_LOWER);
	m.eagain = mb_metric_add(r, "eagain_pages", "pages", MB_BETTER_LOWER);
	m.ebusy = mb_metric_add(r, "ebusy_pages", "pages", MB_BETTER_LOWER);
	m.other = mb_metric_add(r, "other_error_pages", "pages", MB_BETTER_LOWER);
	m.unreported = mb_metric_add(r, "unreported_pages", "pages", MB_BETTER_NONE);
	m.not_migrated = mb_metric_add(r, "move_pages_not_migrated", "pages", MB_BETTER_LOWER);
	m.pg_fail = mb_metric_add(r, "pgmigrate_fail", "pages", MB_BETTER_LOWER);
	m.pg_ok = mb_metric_add(r, "pgmigrate_success", "pages", MB_BETTER_NONE);
	m.requested = mb_metric_add(r, "requested_pages", "pages", MB_BETTER_NONE);
	m.lost = mb_metric_add(r, "lost_writes", "writes", MB_BETTER_LOWER);
	m.corrupt = mb_metric_add(r, "corrupt_bytes", "bytes", MB_BETTER_LOWER);
	m.writes = mb_metric_add(r, "writer_writes", "writes", MB_BETTER_NONE);
	m.faults = mb_metric_add(r, "toucher_faults", "faults", MB_BETTER_NONE);
	m.move_s = mb_metric_add(r, "move_pages_s", "s", MB_BETTER_NONE);

	ret = mb_run_begin(r);
	for (int rep = 0; rep < cfg.reps && ret == 0; rep++) {
		ret = one_rep(r, &g, cfg.rounds, o->inject_corruption, &m, &total);
		lost += g.lost;
		corrupt += g.corrupt_bytes;
	}
	if (ret == 0)
		ret = mb_run_end(r);
	if (g.move)
		mb_param_str(r, "move_flags", g.flags == MB_MPOL_MF_MOVE_ALL ? "MPOL_MF_MOVE_ALL" :
			     "MPOL_MF_MOVE (no CAP_SYS_NICE: pages the toucher maps too stay, -EACCES)");
	if (ret < 0)
		return ret;
	mb_param_num(r, "total_requested_pages", (double)total.requested);
	mb_param_num(r, "total_moved_pages", (double)total.moved);
	if (lost || corrupt)
		mb_fail(r, "%llu lost writes, %llu corrupt bytes; first: %s",
			(unsigned long long)lost, (unsigned long long)corrupt, g.first);
	else if (o->min_moved_text && g.move &&
		 mb_cont_moved_fraction(&total) < o->min_moved_fraction)
		mb_fail(r, "moved fraction %.4f (%llu of %llu pages) below --min-moved-fraction %s",
			mb_cont_moved_fraction(&total), (unsigned long long)total.moved,
			(unsigned long long)total.requested, o->min_moved_text);
	return 0;
}
