/* munmap: threads sharing one mm unmap memory they just touched.
 *
 * Two shapes (docs/developing/bench-shapes.md). The default: mmap → touch
 * one byte per page → munmap and, in a second variant, the same with
 * MADV_DONTNEED on a mapping kept for the whole run (will-it-scale
 * tlb_flush-style). ebizzy (ebizzy -m): twice as many threads as CPUs copy
 * a randomly chosen chunk of a shared table into a freshly mapped buffer,
 * look a random record up in the copy by binary search and unmap the
 * buffer; the 2019 mmu_gather force-flush thread measured this.
 *
 * With every CPU running the same mm, each unmap must shoot down the other
 * CPUs' TLBs: the mmu_gather batching decides how many IPIs that costs. */
#include "mmbench.h"
#include "util.h"
#include "workers.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* ebizzy's defaults: 10 chunks of 64 Ki 8-byte records (512 KiB, mmbench's
 * default --op-kib too) and twice as many threads as CPUs. */
#define EBIZZY_CHUNKS 10
#define EBIZZY_THREADS_PER_CPU 2

struct munmap_ctx {
	size_t bytes;
	long ops;
	int dontneed;
	/* ebizzy: the shared chunks, their records 0, 1, 2, ... so that record
	 * k sits at index k and a lookup can tell a good copy from a bad one */
	uint64_t *chunks[EBIZZY_CHUNKS];
	uint64_t *misses;  /* per thread: lookups that did not find their key */
};

static void touch(char *p, size_t bytes)
{
	for (size_t off = 0; off < bytes; off += MB_PAGE)
		p[off] = 1;
}

static void munmap_work(struct mb_worker *w)
{
	const struct munmap_ctx *c = w->ctx;
	char *keep = NULL;

	if (c->dontneed) {
		keep = mmap(NULL, c->bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (keep == MAP_FAILED) {
			w->err = -errno;
			return;
		}
		(void)madvise(keep, c->bytes, MADV_NOHUGEPAGE);
	}
	for (long i = 0; i < c->ops; i++) {
		char *p = keep;

		if (!c->dontneed) {
			p = mmap(NULL, c->bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (p == MAP_FAILED) {
				w->err = -errno;
				return;
			}
			(void)madvise(p, c->bytes, MADV_NOHUGEPAGE);
		}
		touch(p, c->bytes);
		if (c->dontneed ? madvise(p, c->bytes, MADV_DONTNEED) : munmap(p, c->bytes)) {
			w->err = -errno;
			break;
		}
		w->count++;
	}
	if (keep)
		munmap(keep, c->bytes);
}

/* Index of key in the sorted records a[0..n), or n when it is absent. */
static size_t find_record(const uint64_t *a, size_t n, uint64_t key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a[mid] == key)
			return mid;
		if (a[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return n;
}

static void ebizzy_work(struct mb_worker *w)
{
	const struct munmap_ctx *c = w->ctx;
	size_t records = c->bytes / sizeof(uint64_t);
	/* each thread its own sequence (ebizzy's threads all start from one seed) */
	uint64_t rng = 0x9e3779b97f4a7c15ULL * (uint64_t)(w->index + 1);

	for (long i = 0; i < c->ops; i++) {
		const uint64_t *src = c->chunks[mb_rand_next(&rng) % EBIZZY_CHUNKS];
		uint64_t key = mb_rand_next(&rng) % records;
		uint64_t *copy = mmap(NULL, c->bytes, PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (copy == MAP_FAILED) {
			w->err = -errno;
			return;
		}
		(void)madvise(copy, c->bytes, MADV_NOHUGEPAGE);
		memcpy(copy, src, c->bytes);
		if (find_record(copy, records, key) == records)
			c->misses[w->index]++;
		if (munmap(copy, c->bytes)) {
			w->err = -errno;
			return;
		}
		w->count++;
	}
}

static int run_variant(struct mb_result *r, struct munmap_ctx *c, int threads,
		       struct mb_worker *w, void (*work)(struct mb_worker *), const char *prefix)
{
	struct mb_counters *before = malloc(sizeof(*before)), *after = malloc(sizeof(*after)),
			   *d = malloc(sizeof(*d));
	char name[48];
	int m_rate, m_sys, m_tlb, ret = 0;

	if (!before || !after || !d) {
		ret = -ENOMEM;
		goto out;
	}
	snprintf(name, sizeof(name), "%s_ops_per_s", prefix);
	m_rate = mb_metric_add(r, name, "ops/s", MB_BETTER_HIGHER);
	snprintf(name, sizeof(name), "%s_sys_s", prefix);
	m_sys = mb_metric_add(r, name, "s", MB_BETTER_LOWER);
	snprintf(name, sizeof(name), "%s_tlb_ipis_per_op", prefix);
	m_tlb = mb_metric_add(r, name, "IPIs/op", MB_BETTER_LOWER);

	for (int rep = 0; rep < r->reps && ret == 0; rep++) {
		uint64_t ns, ops = 0;
		double sys0 = mb_sys_seconds();

		ret = mb_counters_snapshot(before);
		if (ret == 0)
			ret = mb_run_workers(threads, work, c, w, &ns);
		if (ret == 0)
			ret = mb_counters_snapshot(after);
		if (ret < 0)
			break;
		mb_counters_delta(before, after, d);
		for (int i = 0; i < threads; i++)
			ops += w[i].count;
		mb_metric_push(r, m_rate, (double)ops / ((double)ns / 1e9));
		mb_metric_push(r, m_sys, mb_sys_seconds() - sys0);
		if (d->has_tlb)
			mb_metric_push(r, m_tlb, (double)d->tlb / (double)ops);
	}
out:
	free(before);
	free(after);
	free(d);
	return ret;
}

/* The ebizzy shape: the shared chunks, the run, and the data check (ebizzy
 * exits when a lookup fails; here the result fails). */
static int run_ebizzy(struct mb_result *r, struct munmap_ctx *c, int threads, struct mb_worker *w)
{
	size_t records = c->bytes / sizeof(uint64_t);
	uint64_t misses = 0;
	int ret = 0;

	c->misses = calloc((size_t)threads, sizeof(*c->misses));
	if (!c->misses)
		return -ENOMEM;
	for (int k = 0; k < EBIZZY_CHUNKS && ret == 0; k++) {
		c->chunks[k] = mmap(NULL, c->bytes, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (c->chunks[k] == MAP_FAILED) {
			c->chunks[k] = NULL;
			ret = -errno;
			break;
		}
		for (size_t j = 0; j < records; j++)
			c->chunks[k][j] = j;
	}
	if (ret == 0)
		ret = run_variant(r, c, threads, w, ebizzy_work, "munmap");
	for (int i = 0; i < threads; i++)
		misses += c->misses[i];
	if (ret == 0 && misses)
		mb_fail(r, "%llu of the lookups did not find their record in the copied chunk",
			(unsigned long long)misses);
	for (int k = 0; k < EBIZZY_CHUNKS; k++)
		if (c->chunks[k])
			munmap(c->chunks[k], c->bytes);
	free(c->misses);
	c->misses = NULL;
	return ret;
}

int bench_munmap(const struct mb_opts *o, struct mb_result *r)
{
	int ebizzy = o->shape && strcmp(o->shape, MB_SHAPE_EBIZZY) == 0;
	int threads = o->threads ? o->threads :
		      ebizzy ? EBIZZY_THREADS_PER_CPU * mb_online_cpus() : mb_thread_count(0);
	struct munmap_ctx c = {
		.bytes = (size_t)(o->op_kib ? o->op_kib : 512) << 10,
		.ops = o->ops ? o->ops : o->quick ? 300 : 2000,
	};
	struct mb_worker *w = calloc((size_t)threads, sizeof(*w));
	int ret;

	if (!w)
		return -ENOMEM;
	c.bytes = (c.bytes + MB_PAGE - 1) / MB_PAGE * MB_PAGE;
	r->reps = mb_reps(o, 5, 3);
	mb_param_num(r, "threads", threads);
	mb_param_num(r, "op_kib", (double)(c.bytes >> 10));
	mb_param_num(r, "ops_per_thread", (double)c.ops);
	/* without --shape the parameters stay as they always were */
	if (o->shape)
		mb_param_str(r, "shape", o->shape);
	if (ebizzy)
		mb_param_num(r, "chunks", EBIZZY_CHUNKS);
	ret = mb_run_begin(r);
	if (ret == 0 && ebizzy) {
		ret = run_ebizzy(r, &c, threads, w);
	} else {
		if (ret == 0)
			ret = run_variant(r, &c, threads, w, munmap_work, "munmap");
		c.dontneed = 1;
		if (ret == 0)
			ret = run_variant(r, &c, threads, w, munmap_work, "dontneed");
	}
	if (ret == 0)
		ret = mb_run_end(r);
	free(w);
	return ret;
}
