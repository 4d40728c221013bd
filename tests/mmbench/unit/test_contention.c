/* Unit tests for the contention benchmark: its options through the parser
 * (opts.c) and its config, the per-round counting of a move_pages(2) call,
 * and the writers' page check (a lost write, corrupt bytes). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "contention.h"
#include "mmbench.h"

static const unsigned allowed =
	MB_OPT_SIZE | MB_OPT_ROUNDS | MB_OPT_WRITERS | MB_OPT_CONTENTION | MB_OPT_INJECT;

/* argv as main hands it on: the command first. */
static int parse(struct mb_opts *o, int argc, char **argv)
{
	memset(o, 0, sizeof(*o));
	return mb_parse_opts("contention", allowed, argc, argv, o);
}

static void test_opts_accepted(void **state)
{
	char *argv[] = { "contention", "--size-mib", "8", "--rounds", "12", "--writers", "3",
			 "--min-moved-fraction", "0.75", "--quick", "--reps", "2", NULL };
	struct mb_opts o;

	(void)state;
	assert_int_equal(parse(&o, 12, argv), 0);
	assert_int_equal(o.size_mib, 8);
	assert_int_equal(o.rounds, 12);
	assert_int_equal(o.writers, 3);
	assert_true(o.min_moved_fraction == 0.75);
	assert_string_equal(o.min_moved_text, "0.75");
	assert_int_equal(o.quick, 1);
	assert_int_equal(o.reps, 2);
	assert_int_equal(o.inject_corruption, 0);
}

static void test_opts_inject(void **state)
{
	char *argv[] = { "contention", "--inject-corruption", NULL };
	struct mb_opts o;

	(void)state;
	assert_int_equal(parse(&o, 2, argv), 0);
	assert_int_equal(o.inject_corruption, 1);
}

static void test_opts_rejected(void **state)
{
	static char *bad[][3] = {
		{ "contention", "--rounds", "0" },
		{ "contention", "--rounds", "x" },
		{ "contention", "--min-moved-fraction", "1.01" },
		{ "contention", "--min-moved-fraction", "-0.1" },
		{ "contention", "--min-moved-fraction", "nan" },
		{ "contention", "--size-mib", "0" },
		{ "contention", "--writers", "0" },
		{ "contention", "--threads", "2" },  /* not a contention option */
		{ "contention", "--seconds", "1" },
	};
	struct mb_opts o;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[4] = { bad[i][0], bad[i][1], bad[i][2], NULL };

		assert_int_equal(parse(&o, 3, argv), -EINVAL);
	}
	/* and the other benchmarks do not take the contention ones */
	{
		char *argv[] = { "fault", "--rounds", "3", NULL };

		memset(&o, 0, sizeof(o));
		assert_int_equal(mb_parse_opts("fault", MB_OPT_SIZE, 3, argv, &o), -EINVAL);
	}
	{
		char *argv[] = { "migrate", "--inject-corruption", NULL };

		memset(&o, 0, sizeof(o));
		assert_int_equal(mb_parse_opts("migrate", MB_OPT_SIZE, 2, argv, &o), -EINVAL);
	}
}

static void test_table(void **state)
{
	const struct mb_bench *b = mb_find_bench("contention");

	(void)state;
	assert_non_null(b);
	assert_true(b->fn == bench_contention);
	assert_true(b->check == mb_cont_check_opts);
	assert_true(b->opts & MB_OPT_ROUNDS);
	assert_true(b->opts & MB_OPT_WRITERS);
	assert_true(b->opts & MB_OPT_CONTENTION);
	assert_false(b->opts & MB_OPT_THREADS);
}

static void test_config(void **state)
{
	struct mb_opts o = { 0 };
	struct mb_cont_cfg c;
	char err[200] = "";

	(void)state;
	assert_int_equal(mb_cont_config(&o, 2, &c, err, sizeof(err)), 0);
	assert_int_equal(c.pages, MB_CONT_SIZE_MIB * 256);
	assert_int_equal(c.rounds, MB_CONT_ROUNDS);
	assert_int_equal(c.writers, MB_CONT_WRITERS_PER_CPU); /* one other CPU */
	assert_int_equal(c.reps, 5);
	o.quick = 1;
	assert_int_equal(mb_cont_config(&o, 4, &c, err, sizeof(err)), 0);
	assert_int_equal(c.pages, MB_CONT_SIZE_MIB_QUICK * 256);
	assert_int_equal(c.rounds, MB_CONT_ROUNDS_QUICK);
	assert_int_equal(c.writers, 3 * MB_CONT_WRITERS_PER_CPU);
	assert_int_equal(c.reps, 3);
	assert_int_equal(mb_cont_config(&o, 1, &c, err, sizeof(err)), 0);
	assert_int_equal(c.writers, MB_CONT_WRITERS_PER_CPU);
	o.size_mib = 1;
	o.rounds = 7;
	o.writers = 256;
	o.reps = 4;
	assert_int_equal(mb_cont_config(&o, 2, &c, err, sizeof(err)), 0);
	assert_int_equal(c.pages, 256);
	assert_int_equal(c.rounds, 7);
	assert_int_equal(c.writers, 256);
	assert_int_equal(c.reps, 4);
	o.writers = 257;
	assert_int_equal(mb_cont_config(&o, 2, &c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "'--writers'"));
	assert_null(strchr(err, '\n'));
}

static void test_count(void **state)
{
	/* 8 pages towards node 1: 4 on node 1 afterwards (the query decides,
	 * not the status), -EAGAIN, -EBUSY, -ENOENT, one left unreported, and
	 * the call said 2 pages were not migrated */
	int status[8] = { 1, 1, 1, -EAGAIN, -EBUSY, -ENOENT, MB_CONT_STATUS_UNSET, 1 };
	int after[8] = { 1, 1, 1, 0, 0, -ENOENT, 0, 1 };
	struct mb_cont_round c = { 0 };

	(void)state;
	mb_cont_count(status, after, 8, 1, 2, &c);
	assert_int_equal(c.requested, 8);
	assert_int_equal(c.moved, 4);
	assert_int_equal(c.eagain, 1);
	assert_int_equal(c.ebusy, 1);
	assert_int_equal(c.other_err, 1);
	assert_int_equal(c.unreported, 1);
	assert_int_equal(c.not_migrated, 2);
	assert_int_equal(c.calls_failed, 0);
	assert_true(mb_cont_moved_fraction(&c) == 0.5);

	/* a second round adds up; a failed call counts as such, not as pages */
	{
		int st2[2] = { MB_CONT_STATUS_UNSET, MB_CONT_STATUS_UNSET }, af2[2] = { 0, 0 };

		mb_cont_count(st2, af2, 2, 1, -ENOMEM, &c);
	}
	assert_int_equal(c.requested, 10);
	assert_int_equal(c.moved, 4);
	assert_int_equal(c.unreported, 3);
	assert_int_equal(c.not_migrated, 2);
	assert_int_equal(c.calls_failed, 1);
	assert_true(mb_cont_moved_fraction(&c) == 0.4);

	/* nothing requested: nothing was left to move */
	memset(&c, 0, sizeof(c));
	assert_true(mb_cont_moved_fraction(&c) == 1.0);
}

static void test_check(void **state)
{
	uint64_t page[MB_CONT_WORDS], bad = 99;

	(void)state;
	mb_cont_fill(page, 5, 3);
	assert_int_equal(mb_cont_check(page, 5, 3, &bad), MB_CONT_OK);
	assert_int_equal(bad, 0);
	/* an earlier write, whole: the later one was lost */
	mb_cont_fill(page, 5, 2);
	assert_int_equal(mb_cont_check(page, 5, 3, &bad), MB_CONT_LOST);
	assert_int_equal(bad, 0);
	/* a newer one than expected cannot come from this page's writer */
	mb_cont_fill(page, 5, 4);
	assert_int_equal(mb_cont_check(page, 5, 3, &bad), MB_CONT_CORRUPT);
	assert_true(bad > 0);
	/* another page's data */
	mb_cont_fill(page, 6, 3);
	assert_int_equal(mb_cont_check(page, 5, 3, &bad), MB_CONT_CORRUPT);
	/* one byte flipped, then three bytes of one word */
	mb_cont_fill(page, 5, 3);
	((unsigned char *)page)[100] ^= 0x5a;
	assert_int_equal(mb_cont_check(page, 5, 3, &bad), MB_CONT_CORRUPT);
	assert_int_equal(bad, 1);
	mb_cont_fill(page, 5, 3);
	page[MB_CONT_WORDS - 1] ^= 0x0000ff00ff00ff00ULL;
	assert_int_equal(mb_cont_check(page, 5, 3, &bad), MB_CONT_CORRUPT);
	assert_int_equal(bad, 3);
	/* an earlier write with one byte off is corruption, not a lost write */
	mb_cont_fill(page, 5, 1);
	((unsigned char *)page)[4095] ^= 1;
	assert_int_equal(mb_cont_check(page, 5, 3, &bad), MB_CONT_CORRUPT);
	/* a zeroed page (a write that never landed anywhere) */
	memset(page, 0, sizeof(page));
	assert_int_equal(mb_cont_check(page, 5, 3, &bad), MB_CONT_CORRUPT);
	assert_true(bad > 4000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_opts_accepted),
		cmocka_unit_test(test_opts_inject),
		cmocka_unit_test(test_opts_rejected),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_count),
		cmocka_unit_test(test_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
