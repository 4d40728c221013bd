/* Start N pinned worker threads together and time them from the common
 * start to the last join: the multi-threaded benchmarks' shared harness. */
#ifndef MMBENCH_WORKERS_H
#define MMBENCH_WORKERS_H

#include <stdint.h>

struct mb_worker {
	int index;
	void *ctx;       /* the benchmark's parameters, shared */
	uint64_t count;  /* work done (pages, ops), summed by the caller */
	int err;         /* negative errno on failure */
};

/* Runs work() in n threads (thread i pinned to CPU i % ncpus), fills
 * workers[0..n), returns elapsed ns in *ret_ns; 0 or the first -errno. */
int mb_run_workers(int n, void (*work)(struct mb_worker *), void *ctx,
		   struct mb_worker *workers, uint64_t *ret_ns);

/* Default thread count: o->threads or one per CPU. */
int mb_thread_count(int requested);

#endif
