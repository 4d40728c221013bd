/* Unit tests for knob.c: sysctl key mapping, the path allowlist, symlink
 * resolution under --root, and value comparison (choice files). */
#include "fake_tree.h"

#include <errno.h>

#include "knob.h"

static void test_sysctl_path(void **state)
{
	const char *why = NULL;
	char *p;

	(void)state;
	p = knob_sysctl_path("vm.swappiness", &why);
	assert_string_equal(p, "/proc/sys/vm/swappiness");
	free(p);
	p = knob_sysctl_path("kernel.sched_autogroup_enabled", &why);
	assert_string_equal(p, "/proc/sys/kernel/sched_autogroup_enabled");
	free(p);
	assert_null(knob_sysctl_path("net.core.somaxconn", &why));
	assert_string_equal(why, "sysctl keys must be under vm. or kernel.");
	assert_null(knob_sysctl_path("vm..x", &why));
	assert_null(knob_sysctl_path("vm", &why));
	assert_null(knob_sysctl_path("vm/swappiness", &why));
	assert_null(knob_sysctl_path("", &why));
	p = knob_sysctl_key("/proc/sys/vm/dirty_ratio");
	assert_string_equal(p, "vm.dirty_ratio");
	free(p);
}

static void test_check_path(void **state)
{
	const char *why = NULL;

	(void)state;
	assert_int_equal(knob_check_path("/sys/kernel/mm/transparent_hugepage/enabled", &why), KNOB_SYSFS);
	assert_int_equal(knob_check_path("/sys/devices/system/node/node1/reclaim", &why), KNOB_SYSFS);
	assert_int_equal(knob_check_path("/proc/sys/vm/swappiness", &why), KNOB_SYSCTL);
	assert_int_equal(knob_check_path("/sys/kernel/mm", &why), -EPERM);
	assert_int_equal(knob_check_path("/sys/kernel/mm/", &why), -EPERM);
	assert_int_equal(knob_check_path("/sys/kernel/mm/../../../etc/passwd", &why), -EPERM);
	assert_int_equal(knob_check_path("/sys/kernel/mm/./x", &why), -EPERM);
	assert_int_equal(knob_check_path("/sys/kernel/mm//x", &why), -EPERM);
	assert_int_equal(knob_check_path("/etc/passwd", &why), -EPERM);
	assert_int_equal(knob_check_path("/proc/sys/net/core/somaxconn", &why), -EPERM);
	assert_int_equal(knob_check_path("/proc/self/mem", &why), -EPERM);
	assert_int_equal(knob_check_path("sys/kernel/mm/x", &why), -EPERM);
	assert_int_equal(knob_check_path("/sys/kernel/mm/x y", &why), -EPERM);
	assert_int_equal(knob_check_path("/sys/kernel/mm_evil/x", &why), -EPERM);
}

static void test_resolve(void **state)
{
	struct fake *f = *state;
	const char *why = NULL;
	char link[600], *real = NULL, want[600];

	snprintf(want, sizeof(want), "%s/proc/sys/vm/swappiness", f->root);
	assert_int_equal(knob_resolve(f->root, "/proc/sys/vm/swappiness", &real, &why), 0);
	assert_string_equal(real, want);
	free(real);
	assert_int_equal(knob_resolve(f->root, "/proc/sys/vm/nope", &real, &why), -ENOENT);

	/* A symlink that stays in its tree is fine; one that leaves is not,
	 * even when it lands in another allowed tree. */
	snprintf(link, sizeof(link), "%s/sys/kernel/mm/inside", f->root);
	assert_int_equal(symlink("transparent_hugepage/enabled", link), 0);
	assert_int_equal(knob_resolve(f->root, "/sys/kernel/mm/inside", &real, &why), 0);
	free(real);
	snprintf(link, sizeof(link), "%s/sys/kernel/mm/cross", f->root);
	assert_int_equal(symlink("../../../proc/sys/vm/swappiness", link), 0);
	assert_int_equal(knob_resolve(f->root, "/sys/kernel/mm/cross", &real, &why), -EPERM);
	snprintf(link, sizeof(link), "%s/sys/kernel/mm/escape", f->root);
	assert_int_equal(symlink("/etc/hostname", link), 0);
	assert_int_equal(knob_resolve(f->root, "/sys/kernel/mm/escape", &real, &why), -EPERM);
	assert_string_equal(why, "resolves (through a symlink) outside its allowed tree");
	/* A symlinked directory inside the tree escaping it. */
	snprintf(link, sizeof(link), "%s/sys/devices/system/node/node9", f->root);
	assert_int_equal(symlink("/etc", link), 0);
	assert_int_equal(knob_resolve(f->root, "/sys/devices/system/node/node9/hostname", &real, &why), -EPERM);
}

static void test_values(void **state)
{
	char out[KNOB_VALUE_MAX];

	(void)state;
	knob_canonical("always [madvise] never", out, sizeof(out));
	assert_string_equal(out, "madvise");
	knob_canonical("4096\t87380\t6291456", out, sizeof(out));
	assert_string_equal(out, "4096 87380 6291456");
	assert_true(knob_matches("always [madvise] never", "madvise"));
	assert_false(knob_matches("always [madvise] never", "never"));
	assert_true(knob_matches("4096\t87380  6291456", "4096 87380 6291456"));
	assert_true(knob_matches("60", "60"));
	assert_false(knob_matches("60", "6"));
	assert_true(knob_choice_allowed("always [madvise] never", "never"));
	assert_true(knob_choice_allowed("always [madvise] never", "madvise"));
	assert_false(knob_choice_allowed("always [madvise] never", "sometimes"));
	assert_false(knob_choice_allowed("always [madvise] never", "alway"));
	assert_true(knob_choice_allowed("60", "anything"));
}

static void test_read_write(void **state)
{
	struct fake *f = *state;
	char path[600], buf[64];
	char *undo;

	snprintf(path, sizeof(path), "%s/proc/sys/vm/swappiness", f->root);
	assert_int_equal(knob_write(path, "33"), 0);
	assert_int_equal(knob_read(path, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "33");
	assert_string_equal(fake_read(f->root, "proc/sys/vm/swappiness"), "33");
	undo = knob_undo_line("", "/proc/sys/vm/swappiness", "60");
	assert_string_equal(undo, "sysctl -w vm.swappiness='60'");
	free(undo);
	undo = knob_undo_line("", "/sys/kernel/mm/transparent_hugepage/enabled", "madvise");
	assert_string_equal(undo, "echo 'madvise' > /sys/kernel/mm/transparent_hugepage/enabled");
	free(undo);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sysctl_path),
		cmocka_unit_test(test_check_path),
		cmocka_unit_test_setup_teardown(test_resolve, fake_setup, fake_teardown),
		cmocka_unit_test(test_values),
		cmocka_unit_test_setup_teardown(test_read_write, fake_setup, fake_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
