/* Unit tests for the profile loader's limits and its O(n log n) checks: the
 * duplicate-key error names the same key and first line as a pairwise scan
 * would, the knob index keeps override order and values right up to
 * PROFILE_MAX_KNOBS, and the byte, benchmark and include limits hold, a
 * repeated include (diamond) being read once. */
#include "fake_tree.h"

#include <errno.h>

#include "keys.h"
#include "profile.h"

static int load_str(const char *yaml, size_t len, struct profile **p, struct mb_error *err)
{
	*p = NULL;
	return profile_load_string("t.yaml", yaml, len, p, err);
}

static void expect_error(const char *yaml, const char *msg)
{
	struct mb_error err = { "" };
	struct profile *p;

	assert_int_equal(load_str(yaml, strlen(yaml), &p, &err), -EINVAL);
	assert_string_equal(err.msg, msg);
}

static void test_duplicates(void **state)
{
	(void)state;
	/* The first key in file order that repeats an earlier one, and the
	 * earliest of those. */
	expect_error("a: 1\nb: 1\na: 1\nb: 1\n", "t.yaml:3:1: duplicate key 'a' (first at line 1)");
	expect_error("b: 1\na: 1\na: 1\nb: 1\n", "t.yaml:3:1: duplicate key 'a' (first at line 2)");
	expect_error("a: 1\na: 1\na: 1\n", "t.yaml:2:1: duplicate key 'a' (first at line 1)");
	expect_error("c: 1\nb: 1\na: 1\nb: 1\nc: 1\n", "t.yaml:4:1: duplicate key 'b' (first at line 2)");
	/* Whichever comes first: a non-scalar key, or a duplicate. */
	expect_error("a: 1\n[x]: 1\na: 1\n", "t.yaml:2:1: mapping keys must be scalars, not a list");
	expect_error("a: 1\na: 1\n[x]: 1\n", "t.yaml:2:1: duplicate key 'a' (first at line 1)");
	/* Nested maps are checked the same way. */
	expect_error("sysctl:\n  vm.swappiness: {value: 1, value: 2}\n",
		     "t.yaml:2:29: duplicate key 'value' (first at line 2)");
}

/* The allowlists name every file (keys.c, sysfs_keys.c): a profile can
 * hold at most that many distinct keys, well under PROFILE_MAX_KNOBS, and
 * the same key set again (an include, a repeat) stays one key in its place. */
static void test_knob_limit(void **state)
{
	struct mb_error err = { "" };
	struct profile *p;
	struct strbuf b = { 0 };
	char *buf = NULL;
	size_t len = 0, n = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	mm_keys_print(f);
	fclose(f);
	for (char *c = buf; *c; c++)
		n += *c == '\n';
	assert_true(n > 40 && n < PROFILE_MAX_KNOBS);
	free(buf);
	sb_printf(&b, "sysctl:\n  vm.swappiness: 1\n  vm.dirty_ratio: 2\n");
	assert_int_equal(load_str(b.s, b.len, &p, &err), 0);
	assert_int_equal(p->n_knobs, 2);
	assert_string_equal(p->knobs[0].path, "/proc/sys/vm/swappiness");
	assert_string_equal(p->knobs[1].value, "2");
	profile_free(p);
	sb_free(&b);
}

static void test_other_limits(void **state)
{
	struct mb_error err = { "" };
	struct profile *p;
	struct strbuf b = { 0 };
	char *big, want[160];

	(void)state;
	/* Bytes: profile_load_string has the per-file limit too. */
	big = xcalloc(PROFILE_MAX_BYTES + 2, 1);
	memset(big, '#', PROFILE_MAX_BYTES + 1);
	assert_int_equal(load_str(big, PROFILE_MAX_BYTES + 1, &p, &err), -EINVAL);
	snprintf(want, sizeof(want), "t.yaml:1:1: 't.yaml' is larger than %d bytes", PROFILE_MAX_BYTES);
	assert_string_equal(err.msg, want);
	free(big);

	/* smoke.benchmarks: up to PROFILE_MAX_BENCHMARKS. */
	sb_printf(&b, "smoke:\n  benchmarks:\n");
	for (int i = 0; i < PROFILE_MAX_BENCHMARKS; i++)
		sb_printf(&b, "    - b%d\n", i);
	assert_int_equal(load_str(b.s, b.len, &p, &err), 0);
	assert_int_equal(p->smoke.n_benchmarks, PROFILE_MAX_BENCHMARKS);
	profile_free(p);
	sb_printf(&b, "    - b%d\n", PROFILE_MAX_BENCHMARKS);
	assert_int_equal(load_str(b.s, b.len, &p, &err), -EINVAL);
	snprintf(want, sizeof(want), "t.yaml:%d:7: smoke.benchmarks: more than %d benchmarks", PROFILE_MAX_BENCHMARKS + 3,
		 PROFILE_MAX_BENCHMARKS);
	assert_string_equal(err.msg, want);
	sb_free(&b);
}

static const struct knob_setting *find(const struct profile *p, const char *path)
{
	for (size_t i = 0; i < p->n_knobs; i++)
		if (strcmp(p->knobs[i].path, path) == 0)
			return &p->knobs[i];
	return NULL;
}

static void test_include_once(void **state)
{
	struct fake *f = *state;
	struct mb_error err = { "" };
	struct profile *p = NULL;
	char top[600];

	/* A diamond: x and y both include common; common is read once, at x's
	 * include, so y's override of it stands. */
	fake_write(f->dir, "etc/common.yaml", "sysctl:\n  vm.swappiness: 1\n  vm.dirty_ratio: 1\n");
	fake_write(f->dir, "etc/x.yaml", "include: common.yaml\nsysctl:\n  vm.min_free_kbytes: 2\n");
	fake_write(f->dir, "etc/y.yaml", "include: [common.yaml]\nsysctl:\n  vm.swappiness: 3\n");
	fake_write(f->dir, "etc/top.yaml", "include: [x.yaml, y.yaml, common.yaml]\nsysctl:\n  vm.dirty_ratio: 4\n");
	snprintf(top, sizeof(top), "%s/etc/top.yaml", f->dir);
	assert_int_equal(profile_load(top, &p, &err), 0);
	assert_int_equal(p->n_files, 4);
	assert_int_equal(p->n_knobs, 3);
	/* First-appearance order, last value. */
	assert_string_equal(p->knobs[0].path, "/proc/sys/vm/swappiness");
	assert_string_equal(p->knobs[0].value, "3");
	assert_string_equal(p->knobs[1].path, "/proc/sys/vm/dirty_ratio");
	assert_string_equal(p->knobs[1].value, "4");
	assert_string_equal(find(p, "/proc/sys/vm/min_free_kbytes")->value, "2");
	profile_free(p);

	/* A cycle is still an error, not a skip. */
	fake_write(f->dir, "etc/c1.yaml", "include: [common.yaml, c2.yaml]\n");
	fake_write(f->dir, "etc/c2.yaml", "include: [common.yaml, c1.yaml]\n");
	snprintf(top, sizeof(top), "%s/etc/c1.yaml", f->dir);
	assert_int_equal(profile_load(top, &p, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "/etc/c2.yaml:1:24: include cycle: '"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_duplicates),
		cmocka_unit_test(test_knob_limit),
		cmocka_unit_test(test_other_limits),
		cmocka_unit_test_setup_teardown(test_include_once, fake_setup, fake_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
