/* Unit tests for knob.c: sysctl key mapping, the path allowlist, symlink
 * resolution under --root, and value comparison (choice files). */
#include "fake_tree.h"

#include <errno.h>

#include "keys.h"
#include "knob.h"

static void test_sysctl_path(void **state)
{
	const char *why = NULL;
	char *p;

	(void)state;
	p = knob_sysctl_path("vm.swappiness", &why);
	assert_string_equal(p, "/proc/sys/vm/swappiness");
	free(p);
	p = knob_sysctl_path("kernel.numa_balancing", &why);
	assert_string_equal(p, "/proc/sys/kernel/numa_balancing");
	free(p);
	p = knob_sysctl_path("vm.page-cluster", &why);
	assert_string_equal(p, "/proc/sys/vm/page-cluster");
	free(p);
	assert_null(knob_sysctl_path("net.core.somaxconn", &why));
	assert_string_equal(why, "not an mm tuning key (mmbatchd --list-keys lists them)");
	/* Under vm. and kernel., but no mm tuning keys: the prefix rule of old
	 * let each of them through. */
	assert_null(knob_sysctl_path("kernel.sched_autogroup_enabled", &why));
	assert_string_equal(why, "not an mm tuning key (mmbatchd --list-keys lists them)");
	assert_null(knob_sysctl_path("vm..x", &why));
	assert_null(knob_sysctl_path("vm", &why));
	assert_null(knob_sysctl_path("vm/swappiness", &why));
	assert_null(knob_sysctl_path("", &why));
	p = knob_sysctl_key("/proc/sys/vm/dirty_ratio");
	assert_string_equal(p, "vm.dirty_ratio");
	free(p);
}

/* Every key the security review named: a pipe in core_pattern, a helper
 * path, the hardening switches. None may pass, through a profile key or a
 * journal path. */
static void test_escape_keys_refused(void **state)
{
	static const char *const keys[] = {
		"kernel.core_pattern", "kernel.modprobe", "kernel.hotplug", "kernel.poweroff_cmd", "kernel.sysrq",
		"kernel.unprivileged_bpf_disabled", "kernel.yama.ptrace_scope", "kernel.randomize_va_space",
		"kernel.kptr_restrict", "kernel.perf_event_paranoid", "vm.mmap_min_addr", "vm.unprivileged_userfaultfd",
		"vm.mmap_rnd_bits", "vm.drop_caches", "kernel.core_uses_pid", "fs.suid_dumpable",
	};
	const char *why = NULL;

	(void)state;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		char path[256];

		assert_null(knob_sysctl_path(keys[i], &why));
		assert_string_equal(why, "not an mm tuning key (mmbatchd --list-keys lists them)");
		snprintf(path, sizeof(path), "/proc/sys/%s", keys[i]);
		for (char *c = path + 10; *c; c++)
			if (*c == '.')
				*c = '/';
		assert_int_equal(knob_check_path(path, &why), -EPERM);
	}
}

/* The allowlist is searched with bsearch: it must be sorted, and every entry
 * must be a well-formed key. */
static void test_keys_table(void **state)
{
	char *buf = NULL, prev[256] = "";
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int n = 0;

	(void)state;
	mm_keys_print(f);
	fclose(f);
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"), n++) {
		char *tab = strchr(line, '\t');
		const char *why = NULL;
		char *path;

		assert_non_null(tab);
		*tab = '\0';
		assert_true(strcmp(prev, line) < 0);
		snprintf(prev, sizeof(prev), "%s", line);
		assert_non_null(mm_key_find(line));
		path = knob_sysctl_path(line, &why);
		assert_non_null(path);
		assert_int_equal(strncmp(tab + 1, path, strlen(path)), 0);
		free(path);
	}
	assert_true(n >= 40);
	free(buf);
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
	assert_int_equal(knob_resolve(f->root, "/proc/sys/vm/nr_hugepages", &real, &why), -ENOENT);
	/* An allowed sysctl must be the file itself: a symlink from it to any
	 * other /proc/sys file (all of /proc/sys is one tree) is refused. */
	fake_write(f->root, "proc/sys/kernel/core_pattern", "core\n");
	snprintf(link, sizeof(link), "%s/proc/sys/vm/max_map_count", f->root);
	assert_int_equal(symlink("../kernel/core_pattern", link), 0);
	assert_int_equal(knob_resolve(f->root, "/proc/sys/vm/max_map_count", &real, &why), -EPERM);

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
	knob_canonical(KNOB_SYSFS, "always [madvise] never", out, sizeof(out));
	assert_string_equal(out, "madvise");
	knob_canonical(KNOB_SYSCTL, "4096\t87380\t6291456", out, sizeof(out));
	assert_string_equal(out, "4096 87380 6291456");
	knob_canonical(KNOB_SYSCTL, "/crash/core [%e] %p", out, sizeof(out));
	assert_string_equal(out, "/crash/core [%e] %p");
	knob_canonical(KNOB_SYSCTL, "4096\t87380\t6291456", out, sizeof(out));
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

	/* The original that restores a file exactly: a sysctl's raw text,
	 * brackets and tabs included; a sysfs choice file's choice. */
	knob_original(KNOB_SYSCTL, "/crash/core [%e] %p", out, sizeof(out));
	assert_string_equal(out, "/crash/core [%e] %p");
	knob_original(KNOB_SYSCTL, "4096\t87380\t6291456", out, sizeof(out));
	assert_string_equal(out, "4096\t87380\t6291456");
	knob_original(KNOB_SYSFS, "always [madvise] never", out, sizeof(out));
	assert_string_equal(out, "madvise");
	/* ... and a restored text with brackets reads back as a match. */
	assert_true(knob_matches("/crash/core [%e] %p", "/crash/core [%e] %p"));
	assert_false(knob_matches("/crash/core [%e] %p", "/crash/core"));
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
	/* A quote in a value (or a root) stays inside the word: the undo line
	 * never runs a command of the value's choosing. */
	undo = knob_undo_line("", "/proc/sys/vm/swappiness", "1'; touch pwned; '");
	assert_string_equal(undo, "sysctl -w vm.swappiness='1'\\''; touch pwned; '\\'''");
	free(undo);
	undo = knob_undo_line("/srv/a b", "/sys/kernel/mm/x", "v");
	assert_string_equal(undo, "echo 'v' > '/srv/a b/sys/kernel/mm/x'");
	free(undo);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sysctl_path),
		cmocka_unit_test(test_escape_keys_refused),
		cmocka_unit_test(test_keys_table),
		cmocka_unit_test(test_check_path),
		cmocka_unit_test_setup_teardown(test_resolve, fake_setup, fake_teardown),
		cmocka_unit_test(test_values),
		cmocka_unit_test_setup_teardown(test_read_write, fake_setup, fake_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
