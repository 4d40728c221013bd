/* Statistics for mmbench: medians, a percentile-bootstrap 95% confidence
 * interval for the difference of medians, and the better/same/worse verdict
 * that compare prints. Pure functions, no I/O: the unit tests drive them. */
#ifndef MMBENCH_STATS_H
#define MMBENCH_STATS_H

#include <stddef.h>
#include <stdint.h>

#define MB_BOOTSTRAP_RESAMPLES 2000
#define MB_BOOTSTRAP_SEED 0x6d6d62656e6368ULL /* fixed: same inputs, same CI */

/* Which direction is an improvement. */
enum mb_better { MB_BETTER_NONE = 0, MB_BETTER_HIGHER = 1, MB_BETTER_LOWER = -1 };

enum mb_verdict {
	MB_VERDICT_SAME,    /* the CI of the change contains zero: noise */
	MB_VERDICT_BETTER,
	MB_VERDICT_WORSE,
	MB_VERDICT_INFO,    /* metric has no better direction: not judged */
	MB_VERDICT_UNKNOWN, /* fewer than 2 repetitions on a side: no noise estimate */
};

struct mb_comparison {
	double median_a, median_b;
	double change_pct;          /* (b - a) / |a| * 100; NAN when a == 0 != b */
	double ci_lo, ci_hi;        /* 95% CI of median(b) - median(a), absolute units */
	double ci_lo_pct, ci_hi_pct;/* the same relative to |median_a| (NAN when a == 0) */
	enum mb_verdict verdict;
	int regression;             /* worse, and beyond the threshold */
};

/* Median of n values (n >= 1); does not modify v. */
double mb_median(const double *v, size_t n);

/* Deterministic PRNG used by the bootstrap (xorshift64*). */
uint64_t mb_rand_next(uint64_t *state);

/* Percentile bootstrap: 95% CI of median(B*) - median(A*). */
int mb_bootstrap_diff_ci(const double *a, size_t na, const double *b, size_t nb,
			 double *ret_lo, double *ret_hi);

/* Compares two samples of one metric. threshold_pct >= 0. */
int mb_compare(const double *a, size_t na, const double *b, size_t nb,
	       enum mb_better better, double threshold_pct, struct mb_comparison *ret);

const char *mb_verdict_name(enum mb_verdict v);

#endif
