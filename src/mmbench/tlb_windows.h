/* TLB shootdown IPIs over time: a thread that reads the TLB row of
 * /proc/interrupts (summed over CPUs, as counters.c reads it) at the end of
 * every fixed window, and the peak and mean rates of those samples. The
 * rate computation is pure, so the unit tests feed it arrays. */
#ifndef MMBENCH_TLB_WINDOWS_H
#define MMBENCH_TLB_WINDOWS_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define MB_TLB_WINDOW_NS (100 * 1000000ULL) /* the seed's peak: per 100 ms */

/* Peak and mean rate (count per second) of n samples taken at t_ns[i]
 * (strictly increasing) of a counter count[i] (never decreasing): the
 * peak is the largest rate of one window (between neighbouring samples),
 * the mean the whole span's. 0, or -EINVAL for n < 2 or samples that go
 * backwards (a CPU went offline and the row lost a column). */
int mb_rate_windows(const uint64_t *t_ns, const uint64_t *count, size_t n, double *ret_peak,
		    double *ret_mean);

struct mb_tlb_sampler {
	pthread_t tid;
	uint64_t period_ns;
	size_t n, cap;
	uint64_t *t_ns, *count;
	int stop;       /* set by mb_tlb_sampler_stop */
	int err;        /* negative errno of the sampler thread */
	int started;
};

/* Takes the first sample now, then one at the end of every period_ns
 * window until stopped. 0, -ENOENT without a TLB row, or -errno. */
int mb_tlb_sampler_start(struct mb_tlb_sampler *s, uint64_t period_ns);
/* Lets the current window end (its sample is the last), joins the thread.
 * Returns the thread's error or 0; the samples stay in s until _free. */
int mb_tlb_sampler_stop(struct mb_tlb_sampler *s);
/* The samples taken so far; safe while the sampler runs. */
size_t mb_tlb_sampler_samples(const struct mb_tlb_sampler *s);
void mb_tlb_sampler_free(struct mb_tlb_sampler *s);

#endif
