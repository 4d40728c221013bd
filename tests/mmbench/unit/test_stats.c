/* Unit tests for stats.c: medians, the bootstrap CI, and the verdicts that
 * compare prints (known inputs → known verdicts). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>

#include "stats.h"

#define N 10
/* two draws of the same noise: ~100 ± 1.5, no shift between them */
static const double noise_a[N] = { 100.3, 99.1, 101.2, 98.7, 100.9, 99.6, 100.1, 101.5, 98.9, 100.0 };
static const double noise_b[N] = { 99.8, 100.7, 98.8, 101.1, 100.2, 99.3, 101.4, 99.9, 100.6, 98.6 };

static void scaled(const double *in, double f, double *out)
{
	for (int i = 0; i < N; i++)
		out[i] = in[i] * f;
}

static struct mb_comparison cmp(const double *a, const double *b, enum mb_better better,
				double threshold)
{
	struct mb_comparison c;

	assert_int_equal(mb_compare(a, N, b, N, better, threshold, &c), 0);
	printf("    medians %.4g -> %.4g change %+.2f%% CI [%+.2f%%, %+.2f%%] verdict %s%s\n",
	       c.median_a, c.median_b, c.change_pct, c.ci_lo_pct, c.ci_hi_pct,
	       mb_verdict_name(c.verdict), c.regression ? " regression" : "");
	return c;
}

static void test_median(void **state)
{
	const double odd[] = { 5, 1, 3 }, even[] = { 4, 1, 3, 2 };

	(void)state;
	assert_true(mb_median(odd, 3) == 3.0);
	assert_true(mb_median(even, 4) == 2.5);
	assert_true(odd[0] == 5 && odd[1] == 1); /* input untouched */
	assert_true(isnan(mb_median(odd, 0)));
}

static void test_bootstrap_deterministic_and_covers(void **state)
{
	double lo1, hi1, lo2, hi2, d;

	(void)state;
	assert_int_equal(mb_bootstrap_diff_ci(noise_a, N, noise_b, N, &lo1, &hi1), 0);
	assert_int_equal(mb_bootstrap_diff_ci(noise_a, N, noise_b, N, &lo2, &hi2), 0);
	assert_true(lo1 == lo2 && hi1 == hi2);
	d = mb_median(noise_b, N) - mb_median(noise_a, N);
	printf("    CI [%g, %g] around %g\n", lo1, hi1, d);
	assert_true(lo1 <= d && d <= hi1);
	assert_true(lo1 < hi1);
}

static void test_same_on_noise(void **state)
{
	struct mb_comparison c;

	(void)state;
	c = cmp(noise_a, noise_b, MB_BETTER_HIGHER, 5.0);
	assert_int_equal(c.verdict, MB_VERDICT_SAME);
	assert_false(c.regression);
	c = cmp(noise_a, noise_b, MB_BETTER_LOWER, 0.0);
	assert_int_equal(c.verdict, MB_VERDICT_SAME);
	assert_false(c.regression);
}

static void test_worse_on_real_shift(void **state)
{
	double b[N];
	struct mb_comparison c;

	(void)state;
	scaled(noise_b, 0.90, b); /* throughput down 10% */
	c = cmp(noise_a, b, MB_BETTER_HIGHER, 5.0);
	assert_int_equal(c.verdict, MB_VERDICT_WORSE);
	assert_true(c.regression);
	assert_true(c.change_pct < -8.0 && c.change_pct > -12.0);
	assert_true(c.ci_hi < 0.0);
	/* the same shift under a 20% threshold: worse, but no regression */
	c = cmp(noise_a, b, MB_BETTER_HIGHER, 20.0);
	assert_int_equal(c.verdict, MB_VERDICT_WORSE);
	assert_false(c.regression);
}

static void test_better_on_real_improvement(void **state)
{
	double b[N];
	struct mb_comparison c;

	(void)state;
	scaled(noise_b, 1.10, b);
	c = cmp(noise_a, b, MB_BETTER_HIGHER, 5.0);
	assert_int_equal(c.verdict, MB_VERDICT_BETTER);
	assert_false(c.regression);
	assert_true(c.ci_lo > 0.0);
}

static void test_lower_is_better_direction(void **state)
{
	double up[N], down[N];
	struct mb_comparison c;

	(void)state;
	scaled(noise_b, 1.10, up);   /* e.g. TLB IPIs per page up 10%: worse */
	scaled(noise_b, 0.50, down); /* halved: better */
	c = cmp(noise_a, up, MB_BETTER_LOWER, 5.0);
	assert_int_equal(c.verdict, MB_VERDICT_WORSE);
	assert_true(c.regression);
	c = cmp(noise_a, down, MB_BETTER_LOWER, 5.0);
	assert_int_equal(c.verdict, MB_VERDICT_BETTER);
	assert_false(c.regression);
}

static void test_small_real_shift_below_threshold(void **state)
{
	double a[N], b[N];
	struct mb_comparison c;

	(void)state;
	for (int i = 0; i < N; i++) { /* tight noise (±0.1%), a 2% drop */
		a[i] = 1000.0 + (double)(i % 3) - 1.0;
		b[i] = 980.0 + (double)(i % 3) - 1.0;
	}
	c = cmp(a, b, MB_BETTER_HIGHER, 5.0);
	assert_int_equal(c.verdict, MB_VERDICT_WORSE);
	assert_false(c.regression);
	c = cmp(a, b, MB_BETTER_HIGHER, 1.0);
	assert_true(c.regression);
}

static void test_not_judged(void **state)
{
	double b[N];
	struct mb_comparison c;

	(void)state;
	scaled(noise_b, 0.5, b);
	c = cmp(noise_a, b, MB_BETTER_NONE, 5.0);
	assert_int_equal(c.verdict, MB_VERDICT_INFO);
	assert_false(c.regression);
	assert_int_equal(mb_compare(noise_a, 1, b, 1, MB_BETTER_HIGHER, 5.0, &c), 0);
	assert_int_equal(c.verdict, MB_VERDICT_UNKNOWN);
	assert_false(c.regression);
	assert_int_equal(mb_compare(noise_a, 0, b, 1, MB_BETTER_HIGHER, 5.0, &c), -22);
}

static void test_zero_baseline(void **state)
{
	const double zero[N] = { 0 };
	double five[N];
	struct mb_comparison c;

	(void)state;
	for (int i = 0; i < N; i++)
		five[i] = 5.0;
	c = cmp(zero, zero, MB_BETTER_LOWER, 5.0);
	assert_int_equal(c.verdict, MB_VERDICT_SAME);
	assert_true(c.change_pct == 0.0);
	c = cmp(zero, five, MB_BETTER_LOWER, 5.0);
	assert_int_equal(c.verdict, MB_VERDICT_WORSE);
	assert_true(isnan(c.change_pct));
	assert_true(c.regression);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_median),
		cmocka_unit_test(test_bootstrap_deterministic_and_covers),
		cmocka_unit_test(test_same_on_noise),
		cmocka_unit_test(test_worse_on_real_shift),
		cmocka_unit_test(test_better_on_real_improvement),
		cmocka_unit_test(test_lower_is_better_direction),
		cmocka_unit_test(test_small_real_shift_below_threshold),
		cmocka_unit_test(test_not_judged),
		cmocka_unit_test(test_zero_baseline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
