/* Unit tests for planning, applying, the journal and rollback against a
 * fake tree. knob_write is wrapped (-Wl,--wrap=knob_write) so a test can
 * check the journal is on disk before the first write, and make the Nth
 * write fail. */
#include "fake_tree.h"

#include <errno.h>

#include "plan.h"
#include "journal.h"
#include "log.h"
#include "profile.h"

int __real_knob_write(const char *real, const char *value);

static int writes;          /* knob writes so far */
static int fail_write = -1; /* 1-based write that fails, -1: none */
static const char *journal_expected_in; /* state dir whose journal must exist */

int __wrap_knob_write(const char *real, const char *value)
{
	writes++;
	if (journal_expected_in) {
		char path[600];
		struct stat st;

		snprintf(path, sizeof(path), "%s/mmbatchd/journal", journal_expected_in);
		assert_int_equal(stat(path, &st), 0);
		assert_int_equal(st.st_mode & 07777, 0600);
	}
	if (writes == fail_write) {
		/* Half-write, as a kernel might before refusing. */
		(void)__real_knob_write(real, "garbage");
		return -EINVAL;
	}
	return __real_knob_write(real, value);
}

static void reset_wrap(void)
{
	writes = 0;
	fail_write = -1;
	journal_expected_in = NULL;
}

static struct profile *load(struct fake *f, const char *yaml)
{
	struct mb_error err = { "" };
	struct profile *p = NULL;
	char path[600];

	fake_write(f->dir, "p.yaml", yaml);
	snprintf(path, sizeof(path), "%s/p.yaml", f->dir);
	if (profile_load(path, &p, &err) < 0)
		fail_msg("%s", err.msg);
	return p;
}

static const char *P1 = "sysctl:\n"
			"  vm.swappiness: 10\n"
			"  vm.dirty_ratio: 20\n" /* unchanged: not written */
			"  kernel.numa_balancing: 0\n"
			"  vm.nr_hugepages: {value: 1, optional: true}\n"
			"sysfs:\n"
			"  /sys/kernel/mm/transparent_hugepage/enabled: never\n";

static void test_plan(void **state)
{
	struct fake *f = *state;
	struct mb_error err = { "" };
	struct profile *p = load(f, P1);
	struct plan *pl = NULL;

	assert_int_equal(plan_new(p, f->root, &pl, &err), 0);
	assert_int_equal(pl->n, 5);
	assert_string_equal(pl->items[0].current, "60");
	assert_true(pl->items[0].change);
	assert_false(pl->items[1].change);
	assert_true(pl->items[3].absent);
	assert_string_equal(pl->items[4].current, "madvise");
	assert_true(pl->items[4].change);
	plan_free(pl);
	profile_free(p);
}

static void test_apply_and_rollback(void **state)
{
	struct fake *f = *state;
	struct mb_error err = { "" };
	struct profile *p = load(f, P1);
	struct journal *j = NULL, *loaded = NULL;
	struct plan *pl = NULL;

	reset_wrap();
	journal_expected_in = f->state;
	assert_int_equal(plan_new(p, f->root, &pl, &err), 0);
	assert_int_equal(plan_apply(pl, f->state, &j, &err), 3);
	assert_int_equal(writes, 3);
	assert_string_equal(fake_read(f->root, "proc/sys/vm/swappiness"), "10");
	assert_string_equal(fake_read(f->root, "proc/sys/kernel/numa_balancing"), "0");
	assert_string_equal(fake_read(f->root, "sys/kernel/mm/transparent_hugepage/enabled"), "never");
	assert_int_equal(plan_verify(pl, stdout), 0);

	/* The journal on disk holds every original (not the absent one). */
	assert_int_equal(journal_load(f->state, FAKE_BOOT_ID, &loaded, &err), 0);
	assert_int_equal(loaded->n, 4);
	assert_string_equal(journal_find(loaded, "/proc/sys/vm/swappiness")->value, "60");
	assert_string_equal(journal_find(loaded, "/sys/kernel/mm/transparent_hugepage/enabled")->value, "madvise");
	assert_null(journal_find(loaded, "/proc/sys/vm/nr_hugepages"));

	/* Drift is reported. */
	fake_write(f->root, "proc/sys/vm/swappiness", "11\n");
	assert_int_equal(plan_verify(pl, stdout), 1);

	/* Rollback writes only what differs (dirty_ratio is untouched). */
	reset_wrap();
	assert_int_equal(journal_restore(loaded, f->root, NULL, &err), 3);
	assert_int_equal(writes, 3);
	assert_string_equal(fake_read(f->root, "proc/sys/vm/swappiness"), "60");
	assert_string_equal(fake_read(f->root, "proc/sys/kernel/numa_balancing"), "1");
	assert_string_equal(fake_read(f->root, "sys/kernel/mm/transparent_hugepage/enabled"), "madvise");
	assert_int_equal(journal_remove(f->state), 0);
	assert_int_equal(journal_load(f->state, FAKE_BOOT_ID, &loaded, &err), -ENOENT);

	journal_free(loaded);
	journal_free(j);
	plan_free(pl);
	profile_free(p);
}

static void test_failed_write_restores(void **state)
{
	struct fake *f = *state;
	struct mb_error err = { "" };
	struct profile *p = load(f, P1);
	struct journal *j = NULL, *loaded = NULL;
	struct plan *pl = NULL;

	reset_wrap();
	fail_write = 2; /* kernel.numa_balancing */
	assert_int_equal(plan_new(p, f->root, &pl, &err), 0);
	assert_int_equal(plan_apply(pl, f->state, &j, &err), -EINVAL);
	assert_null(j);
	assert_non_null(strstr(err.msg, "p.yaml:4:3: writing '0' to 'kernel.numa_balancing' failed: Invalid argument"));
	assert_string_equal(fake_read(f->root, "proc/sys/vm/swappiness"), "60");
	assert_string_equal(fake_read(f->root, "proc/sys/kernel/numa_balancing"), "1");
	assert_string_equal(fake_read(f->root, "sys/kernel/mm/transparent_hugepage/enabled"), "always [madvise] never");
	/* A fresh apply that failed leaves no journal behind. */
	assert_int_equal(journal_load(f->state, FAKE_BOOT_ID, &loaded, &err), -ENOENT);
	plan_free(pl);
	profile_free(p);
}

static void test_journal_first_original_wins(void **state)
{
	struct fake *f = *state;
	struct mb_error err = { "" };
	struct profile *p = load(f, "sysctl:\n  vm.swappiness: 10\n");
	struct profile *p2;
	struct journal *j = NULL;
	struct plan *pl = NULL;

	reset_wrap();
	assert_int_equal(plan_new(p, f->root, &pl, &err), 0);
	assert_int_equal(plan_apply(pl, f->state, &j, &err), 1);
	plan_free(pl);
	/* A second profile (as on SIGHUP) changes swappiness again and adds a
	 * key: the journal keeps 60, not 10, and adds dirty_ratio's 20. */
	p2 = load(f, "sysctl:\n  vm.swappiness: 30\n  vm.dirty_ratio: 5\n");
	assert_int_equal(plan_new(p2, f->root, &pl, &err), 0);
	assert_int_equal(plan_apply(pl, f->state, &j, &err), 2);
	assert_int_equal(j->n, 2);
	assert_string_equal(journal_find(j, "/proc/sys/vm/swappiness")->value, "60");
	assert_string_equal(journal_find(j, "/proc/sys/vm/dirty_ratio")->value, "20");
	assert_int_equal(journal_restore(j, f->root, NULL, &err), 2);
	assert_string_equal(fake_read(f->root, "proc/sys/vm/swappiness"), "60");
	journal_free(j);
	plan_free(pl);
	profile_free(p);
	profile_free(p2);
}

static void test_tampered_journal(void **state)
{
	struct fake *f = *state;
	struct mb_error err = { "" };
	struct journal *j = NULL;
	char link[600];

	/* Outside the allowlist: refused while loading. */
	fake_write(f->state, "mmbatchd/journal", "# mmbatchd journal v2\nboot_id\t" FAKE_BOOT_ID "\nprofile\tx\n/proc/sys/vm/swappiness\t1\n/proc/sys/fs/suid_dumpable\t2\n");
	chmod(f->state, 0700);
	{
		char path[600];

		snprintf(path, sizeof(path), "%s/mmbatchd/journal", f->state);
		chmod(path, 0600);
	}
	assert_int_equal(journal_load(f->state, FAKE_BOOT_ID, &j, &err), -EPERM);
	assert_non_null(strstr(err.msg, "/journal:5:1: refusing journal entry '/proc/sys/fs/suid_dumpable': not an mm tuning key"));

	/* A symlink escape: refused at restore time, and nothing is written,
	 * not even the valid entry before it. */
	snprintf(link, sizeof(link), "%s/sys/kernel/mm/transparent_hugepage/use_zero_page", f->root);
	assert_int_equal(symlink("/etc/hostname", link), 0);
	j = journal_new("x", FAKE_BOOT_ID);
	journal_add(j, "/proc/sys/vm/swappiness", "1");
	journal_add(j, "/sys/kernel/mm/transparent_hugepage/use_zero_page", "pwned");
	reset_wrap();
	assert_int_equal(journal_restore(j, f->root, NULL, &err), -EPERM);
	assert_int_equal(writes, 0);
	assert_string_equal(fake_read(f->root, "proc/sys/vm/swappiness"), "60");
	journal_free(j);

	/* Malformed lines. */
	fake_write(f->state, "mmbatchd/journal", "not a journal\n");
	{
		char path[600];

		snprintf(path, sizeof(path), "%s/mmbatchd/journal", f->state);
		chmod(path, 0600);
	}
	assert_int_equal(journal_load(f->state, FAKE_BOOT_ID, &j, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "/journal:1:1: not an mmbatchd journal"));
}

/* The low finding: a text with brackets in a sysfs file that is not a
 * choice file (a DAMON memcg_path "/system.slice/app[1].service" was
 * journaled as "1" and restored so). Only the allowlist's flag makes a
 * choice file now: the original goes into the journal and back byte for
 * byte. */
static void test_brackets_round_trip(void **state)
{
	static const char *const orig = "/system.slice/app[1].service";
	struct fake *f = *state;
	struct mb_error err = { "" };
	struct profile *p;
	struct journal *j = NULL, *loaded = NULL;
	struct plan *pl = NULL;

	fake_write(f->root, "sys/kernel/mm/transparent_hugepage/khugepaged/pages_to_scan", "/system.slice/app[1].service\n");
	p = load(f, "sysfs:\n  /sys/kernel/mm/transparent_hugepage/khugepaged/pages_to_scan: 4096\n");
	reset_wrap();
	if (plan_new(p, f->root, &pl, &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(pl->items[0].original, orig);
	assert_string_equal(pl->items[0].current, orig);
	assert_true(pl->items[0].change);
	assert_int_equal(plan_apply(pl, f->state, &j, &err), 1);
	assert_string_equal(fake_read(f->root, "sys/kernel/mm/transparent_hugepage/khugepaged/pages_to_scan"), "4096");
	assert_int_equal(journal_load(f->state, FAKE_BOOT_ID, &loaded, &err), 0);
	assert_string_equal(journal_find(loaded, "/sys/kernel/mm/transparent_hugepage/khugepaged/pages_to_scan")->value, orig);
	assert_int_equal(journal_restore(loaded, f->root, NULL, &err), 1);
	assert_string_equal(fake_read(f->root, "sys/kernel/mm/transparent_hugepage/khugepaged/pages_to_scan"), orig);
	/* Restored, it reads back as the original: a second restore writes nothing. */
	assert_int_equal(journal_restore(loaded, f->root, NULL, &err), 0);
	journal_free(loaded);
	journal_free(j);
	plan_free(pl);
	profile_free(p);
}

/* A dangerous value goes through once the profile opts into its key (the
 * refusals are tests/mmbatchd/bad/dangerous-*.yaml), and is flagged so
 * that plan_apply logs it at warning. */
static void test_dangerous_opt_in(void **state)
{
	struct fake *f = *state;
	struct mb_error err = { "" };
	struct profile *p;
	struct journal *j = NULL;
	struct plan *pl = NULL;

	fake_write(f->root, "proc/sys/vm/panic_on_oom", "0\n");
	p = load(f, "allow_dangerous: [vm.panic_on_oom]\nsysctl:\n  vm.panic_on_oom: 2\n  vm.swappiness: 10\n");
	assert_true(p->knobs[0].dangerous);
	assert_false(p->knobs[1].dangerous);
	reset_wrap();
	assert_int_equal(plan_new(p, f->root, &pl, &err), 0);
	assert_int_equal(plan_apply(pl, f->state, &j, &err), 2);
	assert_string_equal(fake_read(f->root, "proc/sys/vm/panic_on_oom"), "2");
	assert_int_equal(journal_restore(j, f->root, NULL, &err), 2);
	assert_string_equal(fake_read(f->root, "proc/sys/vm/panic_on_oom"), "0");
	journal_free(j);
	plan_free(pl);
	profile_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_plan, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_apply_and_rollback, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_failed_write_restores, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_journal_first_original_wins, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_tampered_journal, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_brackets_round_trip, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_dangerous_opt_in, fake_setup, fake_teardown),
	};

	mb_log_set_level(LOG_WARNING);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
