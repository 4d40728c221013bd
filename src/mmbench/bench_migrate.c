/* migrate: the main thread moves a buffer between two NUMA nodes with
 * move_pages(2) while one thread on every other CPU keeps the process's mm
 * active there, so each unmap for migration needs remote TLB flushes. With
 * migration TLB batching (6.3+ or our series) the flushes per 1000 pages
 * drop from ~1000 to ~2. Needs two nodes with memory: exits 77 otherwise. */
#include "mmbench.h"
#include "numa.h"
#include "topology.h"
#include "util.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

struct spinner {
	pthread_t tid;
	int cpu;
	int *stop;
};

static void *spin_main(void *arg)
{
	struct spinner *s = arg;

	(void)mb_pin_to_cpu(s->cpu);
	while (!__atomic_load_n(s->stop, __ATOMIC_RELAXED))
		__asm__ __volatile__("" ::: "memory");
	return NULL;
}

struct migrate_buf {
	char *mem;
	size_t bytes, count;
	void **pages;
	int *nodes, *status;
};

static void buf_free(struct migrate_buf *b)
{
	if (b->mem && b->mem != MAP_FAILED)
		munmap(b->mem, b->bytes);
	free(b->pages);
	free(b->nodes);
	free(b->status);
}

static int buf_init(struct migrate_buf *b, size_t bytes, int na, int nb)
{
	int r;

	b->bytes = bytes;
	b->count = bytes / MB_PAGE;
	b->mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	b->pages = calloc(b->count, sizeof(*b->pages));
	b->nodes = calloc(b->count, sizeof(*b->nodes));
	b->status = calloc(b->count, sizeof(*b->status));
	if (b->mem == MAP_FAILED || !b->pages || !b->nodes || !b->status)
		return -ENOMEM;
	(void)madvise(b->mem, bytes, MADV_NOHUGEPAGE);
	r = mb_mbind_two(b->mem, bytes, na, nb);
	if (r < 0)
		return r;
	for (size_t i = 0; i < b->count; i++) {
		b->mem[i * MB_PAGE] = (char)i;
		b->pages[i] = b->mem + i * MB_PAGE;
	}
	return 0;
}

static int measure(struct mb_result *r, struct migrate_buf *b, int na, int nb, int *m)
{
	struct mb_counters *before = malloc(sizeof(*before)), *after = malloc(sizeof(*after)),
			   *d = malloc(sizeof(*d));
	int ret = 0;

	if (!before || !after || !d) {
		ret = -ENOMEM;
		goto out;
	}
	for (int rep = 0; rep < r->reps && ret == 0; rep++) {
		size_t there = 0, back = 0;
		uint64_t t0, ns, ok = 0, fail = 0;

		ret = mb_counters_snapshot(before);
		t0 = mb_now_ns();
		if (ret == 0)
			ret = mb_move_pages_to(b->pages, b->nodes, b->status, b->count, nb, &there);
		if (ret == 0)
			ret = mb_move_pages_to(b->pages, b->nodes, b->status, b->count, na, &back);
		ns = mb_now_ns() - t0;
		if (ret == 0)
			ret = mb_counters_snapshot(after);
		if (ret < 0)
			break;
		mb_counters_delta(before, after, d);
		(void)mb_vmstat_get(d, "pgmigrate_success", &ok);
		(void)mb_vmstat_get(d, "pgmigrate_fail", &fail);
		mb_metric_push(r, m[0], (double)(there + back) / ((double)ns / 1e9));
		if (d->has_tlb && there + back > 0)
			mb_metric_push(r, m[1], (double)d->tlb * 1000.0 / (double)(there + back));
		mb_metric_push(r, m[2], (double)ok);
		mb_metric_push(r, m[3], (double)fail);
		mb_metric_push(r, m[4], (double)(there + back));
	}
out:
	free(before);
	free(after);
	free(d);
	return ret;
}

int bench_migrate(const struct mb_opts *o, struct mb_result *r)
{
	size_t bytes = (size_t)(o->size_mib ? o->size_mib : o->quick ? 16 : 64) << 20;
	int ncpus = mb_online_cpus(), na, nb, stop = 0, started = 0, ret, m[5];
	struct spinner *sp = NULL;
	struct migrate_buf b = { 0 };

	r->reps = mb_reps(o, 5, 3);
	mb_param_num(r, "size_mib", (double)(bytes >> 20));
	mb_param_num(r, "spinner_threads", ncpus > 1 ? ncpus - 1 : 0);
	ret = mb_pick_two_nodes(r, &na, &nb);
	if (ret != 0)
		return ret < 0 ? ret : 0;
	m[0] = mb_metric_add(r, "pages_per_s", "pages/s", MB_BETTER_HIGHER);
	m[1] = mb_metric_add(r, "tlb_ipis_per_1000_pages", "IPIs/1000 pages", MB_BETTER_LOWER);
	m[2] = mb_metric_add(r, "pgmigrate_success", "pages", MB_BETTER_NONE);
	m[3] = mb_metric_add(r, "pgmigrate_fail", "pages", MB_BETTER_NONE);
	m[4] = mb_metric_add(r, "pages_moved", "pages", MB_BETTER_NONE);

	ret = buf_init(&b, bytes, na, nb);
	if (ret == 0) {
		size_t moved;

		ret = mb_move_pages_to(b.pages, b.nodes, b.status, b.count, na, &moved);
	}
	(void)mb_pin_to_cpu(0);
	sp = calloc((size_t)ncpus, sizeof(*sp));
	if (!sp && ret == 0)
		ret = -ENOMEM;
	for (int cpu = 1; cpu < ncpus && ret == 0; cpu++) {
		sp[started] = (struct spinner){ .cpu = cpu, .stop = &stop };
		ret = -pthread_create(&sp[started].tid, NULL, spin_main, &sp[started]);
		if (ret == 0)
			started++;
	}
	if (ret == 0)
		ret = mb_run_begin(r);
	if (ret == 0)
		ret = measure(r, &b, na, nb, m);
	if (ret == 0)
		ret = mb_run_end(r);
	if (mb_move_pages_last_error)
		mb_param_str(r, "move_pages_page_error", strerror(-mb_move_pages_last_error));
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < started; i++)
		pthread_join(sp[i].tid, NULL);
	free(sp);
	buf_free(&b);
	return ret;
}
