/* Statistics for mmbench (see stats.h for the rules). */
#include "stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

static double median_sorted(const double *s, size_t n)
{
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2.0;
}

double mb_median(const double *v, size_t n)
{
	double *s, m;

	if (n == 0)
		return NAN;
	s = malloc(n * sizeof(*s));
	if (!s)
		return NAN;
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	m = median_sorted(s, n);
	free(s);
	return m;
}

uint64_t mb_rand_next(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

static double resampled_median(const double *v, size_t n, double *scratch, uint64_t *rng)
{
	for (size_t i = 0; i < n; i++)
		scratch[i] = v[mb_rand_next(rng) % n];
	qsort(scratch, n, sizeof(*scratch), cmp_double);
	return median_sorted(scratch, n);
}

int mb_bootstrap_diff_ci(const double *a, size_t na, const double *b, size_t nb,
			 double *ret_lo, double *ret_hi)
{
	double *diffs, *scratch;
	uint64_t rng = MB_BOOTSTRAP_SEED;
	size_t r = MB_BOOTSTRAP_RESAMPLES;

	if (na == 0 || nb == 0)
		return -EINVAL;
	diffs = malloc(r * sizeof(*diffs));
	scratch = malloc((na > nb ? na : nb) * sizeof(*scratch));
	if (!diffs || !scratch) {
		free(diffs);
		free(scratch);
		return -ENOMEM;
	}
	for (size_t i = 0; i < r; i++) {
		double ma = resampled_median(a, na, scratch, &rng);
		double mbv = resampled_median(b, nb, scratch, &rng);

		diffs[i] = mbv - ma;
	}
	qsort(diffs, r, sizeof(*diffs), cmp_double);
	/* 2.5th and 97.5th percentiles */
	*ret_lo = diffs[(size_t)(0.025 * (double)(r - 1) + 0.5)];
	*ret_hi = diffs[(size_t)(0.975 * (double)(r - 1) + 0.5)];
	free(diffs);
	free(scratch);
	return 0;
}

int mb_compare(const double *a, size_t na, const double *b, size_t nb,
	       enum mb_better better, double threshold_pct, struct mb_comparison *ret)
{
	struct mb_comparison c = { 0 };
	double scale;
	int r;

	if (na == 0 || nb == 0 || threshold_pct < 0)
		return -EINVAL;
	c.median_a = mb_median(a, na);
	c.median_b = mb_median(b, nb);
	scale = fabs(c.median_a);
	if (scale > 0)
		c.change_pct = (c.median_b - c.median_a) / scale * 100.0;
	else
		c.change_pct = c.median_b == c.median_a ? 0.0 : NAN;

	r = mb_bootstrap_diff_ci(a, na, b, nb, &c.ci_lo, &c.ci_hi);
	if (r < 0)
		return r;
	c.ci_lo_pct = scale > 0 ? c.ci_lo / scale * 100.0 : NAN;
	c.ci_hi_pct = scale > 0 ? c.ci_hi / scale * 100.0 : NAN;

	if (better == MB_BETTER_NONE)
		c.verdict = MB_VERDICT_INFO;
	else if (na < 2 || nb < 2)
		c.verdict = MB_VERDICT_UNKNOWN;
	else if (c.ci_lo <= 0.0 && c.ci_hi >= 0.0)
		c.verdict = MB_VERDICT_SAME;
	else if ((c.ci_lo > 0.0) == (better == MB_BETTER_HIGHER))
		c.verdict = MB_VERDICT_BETTER;
	else
		c.verdict = MB_VERDICT_WORSE;

	/* A regression must be both real (CI excludes zero) and large: a change
	 * from zero counts as infinitely large. */
	c.regression = c.verdict == MB_VERDICT_WORSE &&
		       (isnan(c.change_pct) || fabs(c.change_pct) > threshold_pct);
	*ret = c;
	return 0;
}

const char *mb_verdict_name(enum mb_verdict v)
{
	switch (v) {
	case MB_VERDICT_SAME: return "same";
	case MB_VERDICT_BETTER: return "better";
	case MB_VERDICT_WORSE: return "worse";
	case MB_VERDICT_INFO: return "info";
	case MB_VERDICT_UNKNOWN: return "unknown";
	}
	return "?";
}
