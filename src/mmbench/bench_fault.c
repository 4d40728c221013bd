/* fault: N threads (one per CPU) map memory, write every page and unmap it,
 * in a loop. Each fault adds a page to a per-CPU LRU batch and each unmap
 * frees through the LRU, so the batch size shows up as lru_lock
 * acquisitions per 1000 pages on CONFIG_LOCK_STAT kernels.
 *
 * Two shapes (docs/developing/bench-shapes.md), after will-it-scale:
 * page_fault1 (the default): private anonymous memory, every fault a new
 * zeroed page. page_fault2: a private mapping of a per-thread file (a memfd,
 * i.e. tmpfs), so every write fault copies a page-cache page into a new
 * anonymous page (do_cow_fault): the path the 2020 pagevec thread's LKP
 * figure came from. */
#include "mmbench.h"
#include "util.h"
#include "workers.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct fault_ctx {
	size_t bytes;
	long loops;
	int thp;
	const int *fds; /* page_fault2: one file per thread (index), else NULL */
};

static void fault_work(struct mb_worker *w)
{
	const struct fault_ctx *c = w->ctx;
	int fd = c->fds ? c->fds[w->index] : -1;
	int flags = c->fds ? MAP_PRIVATE : MAP_PRIVATE | MAP_ANONYMOUS;

	for (long l = 0; l < c->loops; l++) {
		char *p = mmap(NULL, c->bytes, PROT_READ | PROT_WRITE, flags, fd, 0);

		if (p == MAP_FAILED) {
			w->err = -errno;
			return;
		}
		/* 4 KiB pages unless --thp: THP would hide the per-page paths
		 * (the copies of page_fault2 are 4 KiB pages anyway) */
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

/* page_fault2's files: one memfd per thread, its pages allocated up front.
 * will-it-scale's loop runs long enough that its file stays in the page
 * cache after the first pass; allocating the pages here, outside the timed
 * part, measures that steady state (one page-cache lookup and one copy per
 * fault) rather than the first pass. Returns 0, 1 when this kernel has no
 * memfd (r is then skipped), or a negative errno. */
static int open_files(struct mb_result *r, int *fds, int n, size_t bytes)
{
	for (int i = 0; i < n; i++) {
		fds[i] = memfd_create("mmbench-page_fault2", MFD_CLOEXEC);
		if (fds[i] < 0 && (errno == ENOSYS || errno == EINVAL) && i == 0) {
			mb_skip(r, "--shape page_fault2 needs memfd_create(2), which this kernel "
				"lacks (%s)", strerror(errno));
			return 1;
		}
		if (fds[i] < 0)
			return -errno;
		if (ftruncate(fds[i], (off_t)bytes) < 0 || fallocate(fds[i], 0, 0, (off_t)bytes) < 0)
			return -errno;
	}
	return 0;
}

static void close_files(int *fds, int n)
{
	for (int i = 0; fds && i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

int bench_fault(const struct mb_opts *o, struct mb_result *r)
{
	int threads = mb_thread_count(o->threads);
	int file = o->shape && strcmp(o->shape, MB_SHAPE_PAGE_FAULT2) == 0;
	struct fault_ctx c = {
		.bytes = (size_t)(o->size_mib ? o->size_mib : o->quick ? 16 : 64) << 20,
		.loops = o->loops ? o->loops : o->quick ? 2 : 4,
		.thp = o->thp,
	};
	struct mb_worker *w = calloc((size_t)threads, sizeof(*w));
	struct mb_counters *before = malloc(sizeof(*before)), *after = malloc(sizeof(*after)),
			   *d = malloc(sizeof(*d));
	int *fds = file ? malloc((size_t)threads * sizeof(*fds)) : NULL;
	int m_rate, m_sys, m_lru, m_tlb, ret = 0;

	if (!w || !before || !after || !d || (file && !fds)) {
		ret = -ENOMEM;
		goto out;
	}
	for (int i = 0; file && i < threads; i++)
		fds[i] = -1;
	r->reps = mb_reps(o, 5, 3);
	mb_param_num(r, "threads", threads);
	mb_param_num(r, "size_mib_per_thread", (double)(c.bytes >> 20));
	mb_param_num(r, "loops", (double)c.loops);
	mb_param_str(r, "pages", c.thp ? "thp-allowed" : "4k");
	/* without --shape the parameters stay as they always were */
	if (o->shape)
		mb_param_str(r, "shape", o->shape);
	if (file)
		mb_param_str(r, "backing", "memfd, MAP_PRIVATE");
	m_rate = mb_metric_add(r, "pages_per_s", "pages/s", MB_BETTER_HIGHER);
	m_sys = mb_metric_add(r, "sys_s", "s", MB_BETTER_LOWER);
	m_lru = mb_metric_add(r, "lru_lock_acq_per_1000_pages", "acq/1000 pages", MB_BETTER_LOWER);
	m_tlb = mb_metric_add(r, "tlb_ipis_per_1000_pages", "IPIs/1000 pages", MB_BETTER_NONE);

	ret = mb_run_begin(r);
	if (ret == 0 && file) {
		ret = open_files(r, fds, threads, c.bytes);
		if (ret > 0) { /* skipped */
			ret = 0;
			goto out;
		}
		c.fds = fds;
	}
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
	close_files(fds, threads);
	free(fds);
	free(w);
	free(before);
	free(after);
	free(d);
	return ret;
}
