/* Unit tests for --shape (opts.c): which commands take it, which names each
 * accepts, that the parser keeps the canonical name the benchmarks compare
 * with, and the refusals (one line, -EINVAL). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "mmbench.h"

/* argv as main hands it on (the command first), with the option bits the
 * benchmark table gives the command. */
static int parse(const char *cmd, struct mb_opts *o, int argc, char **argv)
{
	const struct mb_bench *b = mb_find_bench(cmd);

	memset(o, 0, sizeof(*o));
	return mb_parse_opts(cmd, b ? b->opts : MB_OPT_BENCHMARKS | MB_OPT_GATE, argc, argv, o);
}

static void test_accepted(void **state)
{
	static const struct { const char *cmd, *shape; } ok[] = {
		{ "fault", MB_SHAPE_PAGE_FAULT1 }, { "fault", MB_SHAPE_PAGE_FAULT2 },
		{ "munmap", MB_SHAPE_DEFAULT }, { "munmap", MB_SHAPE_EBIZZY },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		char arg[32];
		char *argv[] = { (char *)ok[i].cmd, "--shape", arg, "--quick", NULL };
		struct mb_opts o;

		snprintf(arg, sizeof(arg), "%s", ok[i].shape);
		assert_int_equal(parse(ok[i].cmd, &o, 4, argv), 0);
		assert_non_null(o.shape);
		assert_string_equal(o.shape, ok[i].shape);
		/* the parser's own copy, not argv's buffer */
		assert_ptr_not_equal(o.shape, arg);
		assert_int_equal(o.quick, 1);
	}
}

static void test_default_is_null(void **state)
{
	char *argv[] = { "fault", "--quick", NULL };
	struct mb_opts o;

	(void)state;
	assert_int_equal(parse("fault", &o, 2, argv), 0);
	assert_null(o.shape);
}

static void test_rejected(void **state)
{
	static const struct { const char *cmd; char *args[3]; int argc; } bad[] = {
		{ "fault", { "--shape", "frob" }, 3 },
		{ "fault", { "--shape", "ebizzy" }, 3 },
		{ "fault", { "--shape", "PAGE_FAULT2" }, 3 },
		{ "munmap", { "--shape", "page_fault2" }, 3 },
		{ "munmap", { "--shape", "" }, 3 },
		{ "migrate", { "--shape", "default" }, 3 },
		{ "exitdrain", { "--shape", "default" }, 3 },
		{ "smoke", { "--shape", "default" }, 3 },
		{ "fault", { "--shape" }, 2 },
		{ "fault", { "--shape", "page_fault2", "--thp" }, 4 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[5] = { (char *)bad[i].cmd };
		struct mb_opts o;

		for (int k = 1; k < bad[i].argc; k++)
			argv[k] = bad[i].args[k - 1];
		assert_int_equal(parse(bad[i].cmd, &o, bad[i].argc, argv), -EINVAL);
	}
}

static void test_thp_with_page_fault1(void **state)
{
	char *argv[] = { "fault", "--shape", "page_fault1", "--thp", NULL };
	struct mb_opts o;

	(void)state;
	assert_int_equal(parse("fault", &o, 4, argv), 0);
	assert_int_equal(o.thp, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_accepted),
		cmocka_unit_test(test_default_is_null),
		cmocka_unit_test(test_rejected),
		cmocka_unit_test(test_thp_with_page_fault1),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
