/* Unit tests for the compaction benchmark's pure parts: the peak and mean
 * IPI rates over 100 ms windows (tlb_windows.c), its table entry and its
 * options through the parser and its check, the pagemap frame decoding; and
 * the sampler on this machine's /proc/interrupts where it has a TLB row,
 * and the pagemap reader on a mapping of this process. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mmbench.h"
#include "node_mem.h"
#include "tlb_windows.h"
#include "util.h"

#define MS 1000000ULL

static void test_peak_mean(void **state)
{
	/* 0..300 ms: 100, then 500, then 0 IPIs per window */
	uint64_t t[] = { 0, 100 * MS, 200 * MS, 300 * MS };
	uint64_t c[] = { 1000, 1100, 1600, 1600 };
	double peak = -1, mean = -1;

	(void)state;
	assert_int_equal(mb_rate_windows(t, c, 4, &peak, &mean), 0);
	assert_float_equal(peak, 5000.0, 1e-9);
	assert_float_equal(mean, 2000.0, 1e-9);
}

static void test_uneven_windows(void **state)
{
	/* a late sample: the rate is per the window's real length */
	uint64_t t[] = { 0, 100 * MS, 250 * MS };
	uint64_t c[] = { 0, 10, 40 };
	double peak, mean;

	(void)state;
	assert_int_equal(mb_rate_windows(t, c, 3, &peak, &mean), 0);
	assert_float_equal(peak, 200.0, 1e-9);
	assert_float_equal(mean, 160.0, 1e-9);
}

static void test_one_window_and_idle(void **state)
{
	uint64_t t[] = { 5 * MS, 105 * MS };
	uint64_t c[] = { 7, 7 };
	double peak = -1, mean = -1;

	(void)state;
	assert_int_equal(mb_rate_windows(t, c, 2, &peak, &mean), 0);
	assert_float_equal(peak, 0.0, 0);
	assert_float_equal(mean, 0.0, 0);
	/* one window: peak and mean are the same figure */
	c[1] = 57;
	assert_int_equal(mb_rate_windows(t, c, 2, &peak, &mean), 0);
	assert_float_equal(peak, 500.0, 1e-9);
	assert_float_equal(mean, 500.0, 1e-9);
}

static void test_bad_samples(void **state)
{
	uint64_t t[] = { 0, 100 * MS, 100 * MS }, c[] = { 0, 1, 2 };
	uint64_t t2[] = { 0, 100 * MS, 200 * MS }, c2[] = { 5, 9, 3 };
	double peak = 42, mean = 42;

	(void)state;
	assert_int_equal(mb_rate_windows(t, c, 1, &peak, &mean), -EINVAL);
	assert_int_equal(mb_rate_windows(t, c, 0, &peak, &mean), -EINVAL);
	assert_int_equal(mb_rate_windows(t, c, 3, &peak, &mean), -EINVAL);   /* time stood still */
	assert_int_equal(mb_rate_windows(t2, c2, 3, &peak, &mean), -EINVAL); /* count went back */
	assert_float_equal(peak, 42, 0); /* untouched on error */
	assert_float_equal(mean, 42, 0);
}

static void test_sampler(void **state)
{
	struct mb_tlb_sampler s;
	double peak, mean;
	int r;

	(void)state;
	r = mb_tlb_sampler_start(&s, 10 * MS);
	if (r == -ENOENT) {
		mb_tlb_sampler_free(&s);
		skip(); /* no TLB row in /proc/interrupts (not x86) */
	}
	assert_int_equal(r, 0);
	/* Three whole windows, however late the sampler thread runs: on a
	 * loaded host (make check beside a kernel build, at nice 19, under
	 * ASan) it may not run within them at all, and a fixed sleep then
	 * saw only the first sample and the stop's. Bounded, so a sampler
	 * that never samples fails instead of hanging. */
	for (uint64_t end = mb_now_ns() + 60000 * MS; mb_tlb_sampler_samples(&s) < 4;) {
		assert_true(mb_now_ns() < end);
		mb_sleep_until_ns(mb_now_ns() + 10 * MS);
	}
	assert_int_equal(mb_tlb_sampler_stop(&s), 0);
	/* the first sample, three whole windows, and the one the stop ended */
	assert_true(s.n >= 5);
	for (size_t i = 1; i < s.n; i++)
		assert_true(s.t_ns[i] - s.t_ns[0] >= i * 10 * MS);
	assert_int_equal(mb_rate_windows(s.t_ns, s.count, s.n, &peak, &mean), 0);
	assert_true(peak >= mean);
	mb_tlb_sampler_free(&s);
	mb_tlb_sampler_free(&s); /* twice: harmless */
}

static void test_pagemap_entry(void **state)
{
	(void)state;
	assert_int_equal(mb_pagemap_pfn(1ULL << 63 | 0x12345), 0x12345);
	/* the flag bits 55-62 (soft-dirty, exclusive, file) are no frame */
	assert_int_equal(mb_pagemap_pfn(1ULL << 63 | 1ULL << 55 | 1ULL << 61 | 7), 7);
	assert_int_equal(mb_pagemap_pfn(0x12345), 0);      /* not present */
	assert_int_equal(mb_pagemap_pfn(1ULL << 62 | 5), 0); /* swapped */
}

static void test_pagemap_self(void **state)
{
	size_t pages = 4100; /* more than one read chunk of 4096 entries */
	char *p = mmap(NULL, pages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	uint64_t pfn_all[4100], pfn_odd[2050];

	(void)state;
	assert_true(p != MAP_FAILED);
	(void)madvise(p, pages * 4096, MADV_NOHUGEPAGE);
	for (size_t i = 0; i < pages; i++)
		p[i * 4096] = 1;
	assert_int_equal(mb_pagemap_pfns(p, pages, 1, pfn_all), 0);
	assert_int_equal(mb_pagemap_pfns(p + 4096, pages / 2, 2, pfn_odd), 0);
	for (size_t i = 0; i < pages / 2; i++)
		assert_true(pfn_odd[i] == pfn_all[2 * i + 1]);
	if (geteuid() == 0) /* others see 0 frames */
		for (size_t i = 0; i < pages; i++)
			assert_true(pfn_all[i] != 0);
	munmap(p, pages * 4096);
}

static int parse(struct mb_opts *o, int argc, char **argv)
{
	const struct mb_bench *b = mb_find_bench("compaction");

	memset(o, 0, sizeof(*o));
	assert_non_null(b);
	return mb_parse_opts("compaction", b->opts, argc, argv, o);
}

static void test_opts(void **state)
{
	char *ok[] = { "compaction", "--size-mib", "16", "--threads", "3", "--quick", "--reps",
		       "2", "-o", "x.json", NULL };
	char *small[] = { "compaction", "--size-mib", "4", NULL };
	char *secs[] = { "compaction", "--seconds", "5", NULL };
	char *thp[] = { "compaction", "--thp", NULL };
	char *keep[] = { "compaction", "--keep-every", "64", NULL };
	char *keep1[] = { "compaction", "--keep-every", "1", NULL };
	char *keep513[] = { "compaction", "--keep-every", "513", NULL };
	struct mb_opts o;
	char err[200];

	(void)state;
	assert_int_equal(parse(&o, 10, ok), 0);
	assert_int_equal(o.size_mib, 16);
	assert_int_equal(o.threads, 3);
	assert_int_equal(o.reps, 2);
	assert_int_equal(mb_compaction_check_opts(&o, err, sizeof(err)), 0);
	memset(&o, 0, sizeof(o));
	assert_int_equal(mb_compaction_check_opts(&o, err, sizeof(err)), 0); /* the defaults */

	assert_int_equal(parse(&o, 3, small), 0);
	assert_int_equal(mb_compaction_check_opts(&o, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "option '--size-mib': 4 MiB, compaction needs at least 8 "
			    "(4 page blocks to fragment)");
	assert_int_equal(parse(&o, 3, secs), -EINVAL);
	assert_int_equal(parse(&o, 2, thp), -EINVAL);

	/* --keep-every: one page of N kept, 2 (every other) to 512 (one a block) */
	assert_int_equal(parse(&o, 3, keep), 0);
	assert_int_equal(o.keep_every, 64);
	assert_int_equal(parse(&o, 3, keep1), -EINVAL);
	assert_int_equal(parse(&o, 3, keep513), -EINVAL);
}

static void test_table(void **state)
{
	const struct mb_bench *b = mb_find_bench("compaction");

	(void)state;
	assert_non_null(b);
	assert_true(b->fn == bench_compaction);
	assert_true(b->check == mb_compaction_check_opts);
	assert_int_equal(b->opts, MB_OPT_THREADS | MB_OPT_SIZE | MB_OPT_KEEP);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_peak_mean),
		cmocka_unit_test(test_uneven_windows),
		cmocka_unit_test(test_one_window_and_idle),
		cmocka_unit_test(test_bad_samples),
		cmocka_unit_test(test_sampler),
		cmocka_unit_test(test_pagemap_entry),
		cmocka_unit_test(test_pagemap_self),
		cmocka_unit_test(test_opts),
		cmocka_unit_test(test_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
