/* TLB IPIs per window (see tlb_windows.h). */
#include "tlb_windows.h"
#include "counters.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int mb_rate_windows(const uint64_t *t_ns, const uint64_t *count, size_t n, double *ret_peak,
		    double *ret_mean)
{
	double peak = 0;

	if (n < 2)
		return -EINVAL;
	for (size_t i = 1; i < n; i++) {
		double rate;

		if (t_ns[i] <= t_ns[i - 1] || count[i] < count[i - 1])
			return -EINVAL;
		rate = (double)(count[i] - count[i - 1]) / ((double)(t_ns[i] - t_ns[i - 1]) / 1e9);
		if (rate > peak)
			peak = rate;
	}
	*ret_peak = peak;
	*ret_mean = (double)(count[n - 1] - count[0]) / ((double)(t_ns[n - 1] - t_ns[0]) / 1e9);
	return 0;
}

static int sample(struct mb_tlb_sampler *s)
{
	char *text;
	uint64_t v;
	int r;

	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		uint64_t *t = realloc(s->t_ns, cap * sizeof(*t)), *c;

		if (!t)
			return -ENOMEM;
		s->t_ns = t;
		c = realloc(s->count, cap * sizeof(*c));
		if (!c)
			return -ENOMEM;
		s->count = c;
		s->cap = cap;
	}
	r = mb_read_file("/proc/interrupts", &text, NULL);
	if (r < 0)
		return r;
	r = mb_parse_tlb(text, &v);
	free(text);
	if (r < 0)
		return r;
	/* the time after the read: reading the file takes a while on big boxes,
	 * and the count is the one of that moment */
	s->t_ns[s->n] = mb_now_ns();
	s->count[s->n] = v;
	/* published last, so mb_tlb_sampler_samples() may read it meanwhile */
	__atomic_store_n(&s->n, s->n + 1, __ATOMIC_RELEASE);
	return 0;
}

static void *sampler_main(void *arg)
{
	struct mb_tlb_sampler *s = arg;
	uint64_t next = s->t_ns[0];

	/* absolute deadlines: the windows do not drift with the reads */
	while (s->err == 0) {
		next += s->period_ns;
		mb_sleep_until_ns(next);
		s->err = sample(s);
		if (__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE))
			break;
	}
	return NULL;
}

int mb_tlb_sampler_start(struct mb_tlb_sampler *s, uint64_t period_ns)
{
	int r;

	memset(s, 0, sizeof(*s));
	s->period_ns = period_ns;
	r = sample(s);
	if (r == 0) {
		r = -pthread_create(&s->tid, NULL, sampler_main, s);
		s->started = r == 0;
	}
	return r;
}

size_t mb_tlb_sampler_samples(const struct mb_tlb_sampler *s)
{
	return __atomic_load_n(&s->n, __ATOMIC_ACQUIRE);
}

int mb_tlb_sampler_stop(struct mb_tlb_sampler *s)
{
	if (!s->started)
		return s->err;
	__atomic_store_n(&s->stop, 1, __ATOMIC_RELEASE);
	pthread_join(s->tid, NULL);
	s->started = 0;
	return s->err;
}

void mb_tlb_sampler_free(struct mb_tlb_sampler *s)
{
	(void)mb_tlb_sampler_stop(s);
	free(s->t_ns);
	free(s->count);
	s->t_ns = s->count = NULL;
	s->n = s->cap = 0;
}
