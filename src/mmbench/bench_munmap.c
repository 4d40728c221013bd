/* munmap: threads sharing one mm unmap memory they just touched (mmap →
 * touch → munmap) and, in a second variant, zap it with MADV_DONTNEED
 * (will-it-scale tlb_flush-style). With every CPU running the same mm,
 * each unmap must shoot down the other CPUs' TLBs: the mmu_gather batching
 * decides how many IPIs that costs. */
#include "mmbench.h"
#include "util.h"
#include "workers.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

struct munmap_ctx {
	size_t bytes;
	long ops;
	int dontneed;
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

static int run_variant(const struct mb_opts *o, struct mb_result *r, struct munmap_ctx *c,
		       int threads, struct mb_worker *w, const char *prefix)
{
	struct mb_counters *before = malloc(sizeof(*before)), *after = malloc(sizeof(*after)),
			   *d = malloc(sizeof(*d));
	char name[48];
	int m_rate, m_sys, m_tlb, ret = 0;

	(void)o;
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
			ret = mb_run_workers(threads, munmap_work, c, w, &ns);
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

int bench_munmap(const struct mb_opts *o, struct mb_result *r)
{
	int threads = mb_thread_count(o->threads);
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
	ret = mb_run_begin(r);
	if (ret == 0)
		ret = run_variant(o, r, &c, threads, w, "munmap");
	c.dontneed = 1;
	if (ret == 0)
		ret = run_variant(o, r, &c, threads, w, "dontneed");
	if (ret == 0)
		ret = mb_run_end(r);
	free(w);
	return ret;
}
