/* Unit tests for integrity --kind: its options through the parser (opts.c)
 * and the checks of integrity_kinds.c (names, lists, sizes, the options
 * that need --kind), the page check (ok, a lost write, corrupt bytes, a
 * zapped page that must read as zeros), and the refusals of a kernel
 * without THP or KSM. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "integrity_kinds.h"
#include "mmbench.h"

/* argv as main hands it on: the command first; then the benchmark's check. */
static int parse(struct mb_opts *o, int argc, char **argv, char *err, size_t size)
{
	const struct mb_bench *b = mb_find_bench("integrity");
	int r;

	memset(o, 0, sizeof(*o));
	err[0] = '\0';
	r = mb_parse_opts("integrity", b->opts, argc, argv, o);
	if (r == 0)
		r = b->check(o, err, size);
	return r;
}

static void test_opts_accepted(void **state)
{
	char *argv[] = { "integrity", "--kind", "shmem,file", "--mover", "move_pages,compact",
			 "--dir", "/", "--min-migrations", "1000", "--sharers", "3", "--pages",
			 "512", "--seconds", "2", "--inject-corruption", NULL };
	struct mb_opts o;
	struct ik_cfg c;
	char err[200];

	(void)state;
	assert_int_equal(parse(&o, 16, argv, err, sizeof(err)), 0);
	assert_string_equal(o.kinds, "shmem,file");
	assert_string_equal(o.movers, "move_pages,compact");
	assert_string_equal(o.dir, "/");
	assert_int_equal(o.min_migrations, 1000);
	assert_string_equal(o.min_migrations_text, "1000");
	assert_int_equal(o.sharers, 3);
	assert_int_equal(o.inject_corruption, 1);
	assert_int_equal(ik_config(&o, &c, err, sizeof(err)), 0);
	assert_int_equal(c.kinds, 1u << IK_SHMEM | 1u << IK_FILE);
	assert_int_equal(c.movers, 1u << IM_MOVE_PAGES | 1u << IM_COMPACT);
	assert_int_equal(c.pages, 512);
	assert_true(c.seconds == 2.0);
	assert_int_equal(c.sharers, 3);
	assert_int_equal(c.writers, IK_WRITERS);
	assert_int_equal(c.reps, 1);
}

static void test_defaults(void **state)
{
	char *quick[] = { "integrity", "--kind", "all", "--quick", NULL };
	char *plain[] = { "integrity", NULL };
	struct mb_opts o;
	struct ik_cfg c;
	char err[200];

	(void)state;
	assert_int_equal(parse(&o, 4, quick, err, sizeof(err)), 0);
	assert_int_equal(ik_config(&o, &c, err, sizeof(err)), 0);
	assert_int_equal(c.kinds, (1u << IK_NKINDS) - 1);
	assert_int_equal(c.movers, (1u << IM_NMOVERS) - 1); /* --mover defaults to all */
	assert_int_equal(c.pages, IK_PAGES_QUICK);
	assert_true(c.seconds == 1.0);
	/* without --kind: the default run, nothing of this */
	assert_int_equal(parse(&o, 1, plain, err, sizeof(err)), 0);
	assert_null(o.kinds);
	assert_int_equal(ik_config(&o, &c, err, sizeof(err)), 0);
	assert_int_equal(c.kinds, 0);
}

/* Each: the argv, and the text the one error line must contain. */
static void test_opts_rejected(void **state)
{
	static const struct {
		char *argv[8];
		const char *msg;
	} bad[] = {
		{ { "integrity", "--kind", "anon,frob" }, "option '--kind': unknown name 'frob'" },
		{ { "integrity", "--kind", "" }, "option '--kind': unknown name ''" },
		{ { "integrity", "--kind", "anon," }, "option '--kind': unknown name ''" },
		{ { "integrity", "--kind", "anon", "--mover", "move-pages" },
		  "option '--mover': unknown name 'move-pages'" },
		{ { "integrity", "--mover", "mbind" }, "option '--mover' needs --kind" },
		{ { "integrity", "--inject-corruption" }, "option '--inject-corruption' needs --kind" },
		{ { "integrity", "--sharers", "2" }, "option '--sharers' needs --kind" },
		{ { "integrity", "--kind", "anon", "--dir", "/" }, "only --kind file uses it" },
		{ { "integrity", "--kind", "file", "--dir", "/no/such/dir" },
		  "option '--dir': /no/such/dir: No such file or directory" },
		{ { "integrity", "--kind", "file", "--dir", "/proc/self/status" },
		  "option '--dir': /proc/self/status: Not a directory" },
		{ { "integrity", "--kind", "anon", "--pages", "10" }, "option '--pages': 10 pages" },
		{ { "integrity", "--kind", "anon", "--writers", "65" }, "option '--writers': at most 64" },
		{ { "integrity", "--kind", "anon", "--pages", "64", "--writers", "4" },
		  "option '--writers': 4 writers and 2 sharers for 64 pages" },
	};
	struct mb_opts o;
	char err[200];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int argc = 0;

		while (argc < 8 && bad[i].argv[argc])
			argc++;
		assert_int_equal(parse(&o, argc, (char **)bad[i].argv, err, sizeof(err)), -EINVAL);
		if (!strstr(err, bad[i].msg))
			fail_msg("case %zu: '%s' lacks '%s'", i, err, bad[i].msg);
	}
}

static void test_parser_ranges(void **state)
{
	static char *bad[][3] = {
		{ "integrity", "--sharers", "0" },
		{ "integrity", "--sharers", "17" },
		{ "integrity", "--min-migrations", "-1" },
		{ "integrity", "--min-migrations", "1x" },
		{ "integrity", "--kind" },
	};
	struct mb_opts o;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[4] = { bad[i][0], bad[i][1], bad[i][2], NULL };
		const struct mb_bench *b = mb_find_bench("integrity");

		memset(&o, 0, sizeof(o));
		assert_int_equal(mb_parse_opts("integrity", b->opts, bad[i][2] ? 3 : 2, argv, &o),
				 -EINVAL);
	}
	/* the other benchmarks do not take them */
	{
		char *argv[] = { "migrate", "--kind", "anon", NULL };

		memset(&o, 0, sizeof(o));
		assert_int_equal(mb_parse_opts("migrate", mb_find_bench("migrate")->opts, 3, argv, &o),
				 -EINVAL);
	}
	{
		char *argv[] = { "fault", "--inject-corruption", NULL };

		memset(&o, 0, sizeof(o));
		assert_int_equal(mb_parse_opts("fault", mb_find_bench("fault")->opts, 2, argv, &o),
				 -EINVAL);
	}
}

static void test_names(void **state)
{
	unsigned m = 0;
	char err[200], buf[160];

	(void)state;
	assert_int_equal(ik_parse_kinds("fork-shared,ksm,anon", &m, err, sizeof(err)), 0);
	assert_int_equal(m, 1u << IK_FORK_SHARED | 1u << IK_KSM | 1u << IK_ANON);
	ik_mask_names(m, 0, buf, sizeof(buf));
	assert_string_equal(buf, "anon,fork-shared,ksm");
	assert_int_equal(ik_parse_movers("numa-balancing", &m, err, sizeof(err)), 0);
	assert_int_equal(m, 1u << IM_NUMA_BALANCING);
	assert_string_equal(ik_kind_key(IK_ANON_THP), "anon_thp");
	assert_string_equal(ik_kind_name(IK_ANON_THP), "anon-thp");
	assert_string_equal(ik_mover_name(IM_MIGRATE_PAGES), "migrate_pages");
	assert_true(ik_private(IK_KSM));
	assert_false(ik_private(IK_FILE));
}

static void test_pages(void **state)
{
	(void)state;
	assert_int_equal(ik_kind_pages(IK_ANON, 100), 100);
	assert_int_equal(ik_kind_pages(IK_ANON_THP, 100), IK_THP_PAGES);
	assert_int_equal(ik_kind_pages(IK_ANON_THP, 513), 2 * IK_THP_PAGES);
	/* mixed: at least one THP and as many small pages */
	assert_int_equal(ik_kind_pages(IK_MIXED, 100), 2 * IK_THP_PAGES);
	assert_int_equal(ik_kind_pages(IK_MIXED, 4096), 4096);
}

static void test_check(void **state)
{
	static uint64_t page[IK_WORDS];
	uint64_t bad = 99;

	(void)state;
	ik_fill(page, 5, 3);
	assert_int_equal(ik_check(page, 5, 3, 0, &bad), IK_OK);
	assert_int_equal(bad, 0);
	/* a whole earlier generation: the later writes were lost */
	ik_fill(page, 5, 1);
	assert_int_equal(ik_check(page, 5, 3, 0, &bad), IK_LOST);
	assert_int_equal(bad, 0);
	/* a newer generation, another page's data: corrupt */
	ik_fill(page, 5, 4);
	assert_int_equal(ik_check(page, 5, 3, 0, &bad), IK_CORRUPT);
	assert_true(bad > 0);
	ik_fill(page, 6, 3);
	assert_int_equal(ik_check(page, 5, 3, 0, &bad), IK_CORRUPT);
	/* one byte flipped */
	ik_fill(page, 5, 3);
	((unsigned char *)page)[100] ^= 0x5a;
	assert_int_equal(ik_check(page, 5, 3, 0, &bad), IK_CORRUPT);
	assert_int_equal(bad, 1);
	/* zapped: zeros expected; the old data is corrupt, zeros are fine */
	ik_fill(page, 5, 3);
	assert_int_equal(ik_check(page, 5, 3, 1, &bad), IK_CORRUPT);
	assert_true(bad > 4000);
	memset(page, 0, sizeof(page));
	assert_int_equal(ik_check(page, 5, 3, 1, &bad), IK_OK);
	/* and zeros where data was expected: corrupt, not a lost write */
	assert_int_equal(ik_check(page, 5, 3, 0, &bad), IK_CORRUPT);
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* The refusals of a kernel without THP or KSM, on a fake /sys/kernel/mm
 * (MMBENCH_MM_SYSFS): each names what is missing. */
static void test_unavailable(void **state)
{
	const char *t = getenv("TMPDIR");
	char root[256], path[320], buf[300];
	const char *why;

	(void)state;
	snprintf(root, sizeof(root), "%s/test_ik.XXXXXX", t && *t ? t : "/tmp");
	assert_non_null(mkdtemp(root));
	setenv("MMBENCH_MM_SYSFS", root, 1);
	why = ik_kind_unavailable(IK_ANON_THP, "/", buf, sizeof(buf));
	assert_non_null(why);
	assert_non_null(strstr(why, "no transparent huge pages (no "));
	snprintf(path, sizeof(path), "%s/transparent_hugepage", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/transparent_hugepage/enabled", root);
	put(path, "always madvise [never]\n");
	why = ik_kind_unavailable(IK_MIXED, "/", buf, sizeof(buf));
	assert_non_null(why);
	assert_non_null(strstr(why, "transparent huge pages are off"));
	put(path, "always [madvise] never\n");
	assert_null(ik_kind_unavailable(IK_ANON_THP, "/", buf, sizeof(buf)));
	why = ik_kind_unavailable(IK_KSM, "/", buf, sizeof(buf));
	assert_non_null(why);
	assert_non_null(strstr(why, "no KSM: cannot write "));
	assert_non_null(strstr(why, "/ksm/run: No such file or directory"));
	assert_null(ik_kind_unavailable(IK_ANON, "/", buf, sizeof(buf)));
	assert_null(ik_kind_unavailable(IK_SHMEM, "/", buf, sizeof(buf)));
	unlink(path);
	snprintf(path, sizeof(path), "%s/transparent_hugepage", root);
	rmdir(path);
	rmdir(root);
	unsetenv("MMBENCH_MM_SYSFS");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_opts_accepted),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_opts_rejected),
		cmocka_unit_test(test_parser_ranges),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_pages),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_unavailable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
