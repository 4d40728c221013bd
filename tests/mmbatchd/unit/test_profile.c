/* Unit tests for profile loading: parsing, types, defaults, optional keys,
 * include resolution (order, later keys win, search dir, cycles) and the
 * smoke JSON. */
#include "fake_tree.h"

#include <errno.h>

#include "profile.h"

static struct profile *load_str(const char *yaml, struct mb_error *err)
{
	struct profile *p = NULL;

	if (profile_load_string("t.yaml", yaml, strlen(yaml), &p, err) < 0)
		return NULL;
	return p;
}

static const struct knob_setting *find(const struct profile *p, const char *path)
{
	for (size_t i = 0; i < p->n_knobs; i++)
		if (strcmp(p->knobs[i].path, path) == 0)
			return &p->knobs[i];
	return NULL;
}

static void test_parse_full(void **state)
{
	struct mb_error err = { "" };
	struct profile *p;
	const struct knob_setting *k;

	(void)state;
	p = load_str("sysctl:\n"
		     "  vm.swappiness: 10\n"
		     "  vm.dirty_ratio: \"15\"\n"
		     "  vm.nr_hugepages: {value: 3, optional: true}\n"
		     "sysfs:\n"
		     "  /sys/kernel/mm/transparent_hugepage/enabled: never\n"
		     "drain:\n"
		     "  on_exit: true\n"
		     "  min_rss_mb: 512\n"
		     "  max_per_second: 0.5\n"
		     "  method: migrate_pages\n"
		     "smoke:\n"
		     "  benchmarks: [fault, exitdrain]\n"
		     "  threshold_pct: 7\n"
		     "  timeout_s: 120\n"
		     "rollback: never\n"
		     "metrics_file: /run/m.prom\n",
		     &err);
	assert_non_null(p);
	assert_int_equal(p->n_knobs, 4);
	k = find(p, "/proc/sys/vm/swappiness");
	assert_non_null(k);
	assert_string_equal(k->value, "10");
	assert_false(k->optional);
	assert_int_equal(k->mark.line, 2);
	assert_int_equal(k->mark.col, 3);
	assert_int_equal(k->value_mark.col, 18);
	assert_string_equal(find(p, "/proc/sys/vm/dirty_ratio")->value, "15");
	assert_true(find(p, "/proc/sys/vm/nr_hugepages")->optional);
	k = find(p, "/sys/kernel/mm/transparent_hugepage/enabled");
	assert_int_equal(k->kind, KNOB_SYSFS);
	assert_string_equal(k->value, "never");
	assert_true(p->drain.on_exit);
	assert_int_equal(p->drain.min_rss_mb, 512);
	assert_true(p->drain.max_per_second == 0.5);
	assert_int_equal(p->drain.method, DRAIN_MIGRATE_PAGES);
	assert_int_equal(p->smoke.n_benchmarks, 2);
	assert_string_equal(p->smoke.benchmarks[1], "exitdrain");
	assert_true(p->smoke.threshold_pct == 7);
	assert_int_equal(p->smoke.timeout_s, 120);
	assert_int_equal(p->rollback, ROLLBACK_NEVER);
	assert_string_equal(p->metrics_file, "/run/m.prom");
	profile_free(p);
}

static void test_defaults(void **state)
{
	struct mb_error err = { "" };
	struct profile *p = load_str("rollback: on_stop\n", &err);
	char *json;

	(void)state;
	assert_non_null(p);
	assert_int_equal(p->n_knobs, 0);
	assert_false(p->drain.on_exit);
	assert_int_equal(p->drain.method, DRAIN_AUTO);
	assert_int_equal(p->rollback, ROLLBACK_ON_STOP);
	assert_null(p->metrics_file);
	json = profile_smoke_json(p);
	assert_string_equal(json, "{\"benchmarks\":[\"fault\",\"munmap\",\"exitdrain\",\"integrity\"],\"threshold_pct\":5.0,\"timeout_s\":60}");
	free(json);
	profile_free(p);
}

static void test_errors(void **state)
{
	static const struct {
		const char *yaml, *msg;
	} cases[] = {
		{ "sysctl:\n  vm.swappiness: 1\n  vm.swappiness: 2\n", "t.yaml:3:3: duplicate key 'vm.swappiness' (first at line 2)" },
		{ "foo: 1\n", "t.yaml:1:1: unknown key 'foo' (expected include, sysctl, sysfs, drain, smoke, rollback, metrics_file, allow_dangerous)" },
		{ "drain: {method: warp}\n", "t.yaml:1:17: drain.method must be auto, sysctl or migrate_pages, not 'warp'" },
		{ "include: x.yaml\n", "t.yaml:1:10: include is not allowed here" },
		{ "sysctl: {a: &x 1, b: *x}\n", "t.yaml:1:22: YAML aliases are not supported" },
		{ "", "t.yaml:1:1: profile is empty (expected a mapping)" },
		{ "sysfs:\n  /sys/kernel/mm/ksm/run: 1\n", "t.yaml:2:3: invalid sysfs path '/sys/kernel/mm/ksm/run': not an allowed sysfs file (mmbatchd --list-keys lists them)" },
		{ "sysfs:\n  /sys/kernel/mm/lru_gen/enabled: [1]\n", "t.yaml:2:35: '/sys/kernel/mm/lru_gen/enabled' must have a scalar value, not a list" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct mb_error err = { "" };

		assert_null(load_str(cases[i].yaml, &err));
		assert_string_equal(err.msg, cases[i].msg);
	}
}

static void test_includes(void **state)
{
	struct fake *f = *state;
	struct mb_error err = { "" };
	struct profile *p = NULL;
	char top[600], search[600];

	/* base1 and base2 both set swappiness: the later include wins; the
	 * including file wins over both; base2 comes from the search dir. */
	snprintf(search, sizeof(search), "%s/share", f->dir);
	fake_write(f->dir, "etc/base1.yaml", "sysctl:\n  vm.swappiness: 1\n  vm.dirty_ratio: 11\n");
	fake_write(f->dir, "share/base2.yaml", "sysctl:\n  vm.swappiness: 2\n  vm.min_free_kbytes: 22\ndrain:\n  min_rss_mb: 7\n");
	fake_write(f->dir, "etc/top.yaml", "sysctl:\n  vm.dirty_ratio: 33\ninclude: [base1.yaml, base2.yaml]\n");
	snprintf(top, sizeof(top), "%s/etc/top.yaml", f->dir);
	profile_set_search_dir(search);
	assert_int_equal(profile_load(top, &p, &err), 0);
	assert_int_equal(p->n_knobs, 3);
	assert_string_equal(find(p, "/proc/sys/vm/swappiness")->value, "2");
	assert_string_equal(find(p, "/proc/sys/vm/dirty_ratio")->value, "33");
	assert_string_equal(find(p, "/proc/sys/vm/min_free_kbytes")->value, "22");
	assert_int_equal(p->drain.min_rss_mb, 7);
	assert_int_equal(p->n_files, 3);
	/* Marks name the file that set the winning value. */
	assert_string_equal(find(p, "/proc/sys/vm/swappiness")->mark.file + strlen(f->dir), "/share/base2.yaml");
	assert_string_equal(find(p, "/proc/sys/vm/dirty_ratio")->mark.file, top);
	profile_free(p);

	/* Cycle through two files. */
	fake_write(f->dir, "etc/a.yaml", "include: b.yaml\n");
	fake_write(f->dir, "etc/b.yaml", "sysctl:\n  vm.swappiness: 1\ninclude: [a.yaml]\n");
	snprintf(top, sizeof(top), "%s/etc/a.yaml", f->dir);
	assert_int_equal(profile_load(top, &p, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "/etc/b.yaml:3:11: include cycle: '"));
	assert_non_null(strstr(err.msg, "/etc/a.yaml' is already being loaded"));
	profile_set_search_dir(PROFILE_DIR_DEFAULT);
}

static void test_include_depth(void **state)
{
	struct fake *f = *state;
	struct mb_error err = { "" };
	struct profile *p = NULL;
	char name[64], body[64], top[600];

	/* A chain of 20 distinct files (no cycle) hits the depth limit. */
	for (int i = 0; i < 20; i++) {
		snprintf(name, sizeof(name), "chain/%d.yaml", i);
		snprintf(body, sizeof(body), "include: %d.yaml\n", i + 1);
		fake_write(f->dir, name, body);
	}
	fake_write(f->dir, "chain/20.yaml", "rollback: never\n");
	snprintf(top, sizeof(top), "%s/chain/0.yaml", f->dir);
	assert_int_equal(profile_load(top, &p, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "includes nested deeper than 16"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_full),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_errors),
		cmocka_unit_test_setup_teardown(test_includes, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_include_depth, fake_setup, fake_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
