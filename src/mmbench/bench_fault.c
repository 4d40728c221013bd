/* fault: N threads (one per CPU) map anonymous memory, touch every page and
 * unmap it, in a loop (will-it-scale page_fault1-style). Each fault adds a
 * page to a per-CPU LRU batch and each unmap frees through the LRU, so the
 * batch size shows up as lru_lock acquisitions per 1000 pages on
 * CONFIG_LOCK_STAT kernels. */
#include "mmbench.h"
#include "util.h"
#include "workers.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>

struct fault_ctx {
	size_t bytes;
	long loops;
	int thp;
};

static void fault_work(struct mb_worker *w)
{
	const struct fault_ctx *c = w->ctx;

	for (long l = 0; l < c->loops; l++) {
		char *p = mmap(NULL, c->bytes, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			w->err = -errno;
			return;
		}
		/* 4 KiB pages unless --thp: THP would hide the per-page paths */
		if (madvise(p, c->bytes, c->thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE) < 0 &&
		    errno != EINVAL) {
			w->err = -errno;
			munmap(p, c->bytes);
			return;
		}
		for (size_t off = 0; off < c->bytes; off += MB_PAGE)
			p[off] = 1;
		munmap(p, c->bytes);
		w->count += c->bytes / MB_PAGE;
	}
}

int bench_fault(const struct mb_opts *o, struct mb_result *r)
{
	int threads = mb_thread_count(o->threads);
	struct fault_ctx c = {
		.bytes = (size_t)(o->size_mib ? o->size_mib : o->quick ? 16 : 64) << 20,
		.loops = o->loops ? o->loops : o->quick ? 2 : 4,
		.thp = o->thp,
	};
	struct mb_worker *w = calloc((size_t)threads, sizeof(*w));
	struct mb_counters *before = malloc(sizeof(*before)), *after = malloc(sizeof(*after)),
			   *d = malloc(sizeof(*d));
	int m_rate, m_sys, m_lru, m_tlb, ret = 0;

	if (!w || !before || !after || !d) {
		ret = -ENOMEM;
		goto out;
	}
	r->reps = mb_reps(o, 5, 3);
	mb_param_num(r, "threads", threads);
	mb_param_num(r, "size_mib_per_thread", (double)(c.bytes >> 20));
	mb_param_num(r, "loops", (double)c.loops);
	mb_param_str(r, "pages", c.thp ? "thp-allowed" : "4k");
	m_rate = mb_metric_add(r, "pages_per_s", "pages/s", MB_BETTER_HIGHER);
	m_sys = mb_metric_add(r, "sys_s", "s", MB_BETTER_LOWER);
	m_lru = mb_metric_add(r, "lru_lock_acq_per_1000_pages", "acq/1000 pages", MB_BETTER_LOWER);
	m_tlb = mb_metric_add(r, "tlb_ipis_per_1000_pages", "IPIs/1000 pages", MB_BETTER_NONE);

	ret = mb_run_begin(r);
	for (int rep = 0; rep < r->reps && ret == 0; rep++) {
		uint64_t ns, pages = 0;
		double sys0 = mb_sys_seconds();

		ret = mb_counters_snapshot(before);
		if (ret == 0)
			ret = mb_run_workers(threads, fault_work, &c, w, &ns);
		if (ret == 0)
			ret = mb_counters_snapshot(after);
		if (ret < 0)
			break;
		mb_counters_delta(before, after, d);
		for (int i = 0; i < threads; i++)
			pages += w[i].count;
		mb_metric_push(r, m_rate, (double)pages / ((double)ns / 1e9));
		mb_metric_push(r, m_sys, mb_sys_seconds() - sys0);
		if (d->has_lru)
			mb_metric_push(r, m_lru, (double)d->lru_acq * 1000.0 / (double)pages);
		if (d->has_tlb)
			mb_metric_push(r, m_tlb, (double)d->tlb * 1000.0 / (double)pages);
	}
	if (ret == 0)
		ret = mb_run_end(r);
out:
	free(w);
	free(before);
	free(after);
	free(d);
	return ret;
}
