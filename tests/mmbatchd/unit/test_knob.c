/* Unit tests for knob.c: sysctl key mapping, the path allowlist, symlink
 * resolution under --root, and value comparison (choice files). */
#include "fake_tree.h"

#include <errno.h>

#include "keys.h"
#include "knob.h"
#include "sysfs_keys.h"
#include "value_schema.h"

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

/* The allowlists are searched with bsearch: each must be sorted, every
 * entry a well-formed key, and every key must have a value schema (and no
 * schema a key outside them). */
static void test_keys_table(void **state)
{
	char *buf = NULL, prev[256] = "";
	size_t len = 0, n_schema = 0;
	FILE *f = open_memstream(&buf, &len);
	const struct value_schema *all = value_schema_all(&n_schema);
	int n = 0, n_sysfs = 0;

	(void)state;
	mm_keys_print(f);
	fclose(f);
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"), n++) {
		char *file = strchr(line, '\t'), *reason, *values;
		const char *why = NULL;
		char *path;

		assert_non_null(file);
		*file++ = '\0';
		reason = strchr(file, '\t');
		assert_non_null(reason);
		*reason++ = '\0';
		values = strchr(reason, '\t');
		assert_non_null(values);
		*values++ = '\0';
		assert_true(*reason && *values && strcmp(values, "-") != 0);
		assert_null(strchr(values, '\t'));
		assert_non_null(value_schema_find(line));
		if (line[0] == '/') {
			/* The sysfs files follow the sysctls, sorted among themselves. */
			if (n_sysfs++ == 0)
				prev[0] = '\0';
			assert_true(strcmp(prev, line) < 0);
			assert_string_equal(line, file);
			assert_non_null(sysfs_key_find(line));
			assert_int_equal(knob_check_path(line, &why), KNOB_SYSFS);
		} else {
			assert_int_equal(n_sysfs, 0);
			assert_true(strcmp(prev, line) < 0);
			assert_non_null(mm_key_find(line));
			path = knob_sysctl_path(line, &why);
			assert_non_null(path);
			assert_string_equal(file, path);
			free(path);
		}
		snprintf(prev, sizeof(prev), "%s", line);
	}
	assert_true(n >= 50);
	assert_true(n_sysfs >= 10);
	assert_int_equal((size_t)n, n_schema);
	for (size_t i = 1; i < n_schema; i++)
		assert_true(strcmp(all[i - 1].key, all[i].key) < 0);
	free(buf);
}

/* The schema: the kernel's ranges, its printed form only, and the
 * dangerous class. */
static void test_schema(void **state)
{
	static const struct {
		const char *key, *value;
		int r;
		bool dangerous;
	} cases[] = {
		{ "vm.swappiness", "0", 0, false },
		{ "vm.swappiness", "200", 0, false },
		{ "vm.swappiness", "201", -EINVAL, false },
		{ "vm.swappiness", "-5", -EINVAL, false },
		{ "vm.swappiness", "100000", -EINVAL, false },
		{ "vm.swappiness", "lots", -EINVAL, false },
		{ "vm.swappiness", "010", -EINVAL, false },
		{ "vm.swappiness", "+10", -EINVAL, false },
		{ "vm.swappiness", "0x10", -EINVAL, false },
		{ "vm.swappiness", " 10", -EINVAL, false },
		{ "vm.swappiness", "", -EINVAL, false },
		{ "vm.swappiness", "99999999999999999999999", -EINVAL, false },
		{ "vm.panic_on_oom", "0", 0, false },
		{ "vm.panic_on_oom", "1", 0, true },
		{ "vm.panic_on_oom", "2", 0, true },
		{ "vm.panic_on_oom", "3", -EINVAL, false },
		{ "vm.memory_failure_recovery", "0", 0, true },
		{ "vm.memory_failure_recovery", "1", 0, false },
		{ "vm.min_free_kbytes", "262144", 0, false },
		{ "vm.min_free_kbytes", "262145", 0, true },
		{ "vm.min_free_kbytes", "999999999", 0, true },
		{ "vm.min_free_kbytes", "2147483648", -EINVAL, false },
		{ "vm.overcommit_memory", "2", 0, true },
		{ "vm.overcommit_memory", "1", 0, false },
		{ "vm.overcommit_ratio", "0", 0, true },
		{ "vm.overcommit_ratio", "50", 0, false },
		{ "vm.overcommit_kbytes", "0", 0, false },
		{ "vm.overcommit_kbytes", "1024", 0, true },
		{ "vm.overcommit_kbytes", "1048576", 0, false },
		{ "vm.dirty_writeback_centisecs", "0", 0, true },
		{ "vm.dirty_writeback_centisecs", "500", 0, false },
		{ "vm.dirty_bytes", "4096", -EINVAL, false },
		{ "vm.percpu_pagelist_high_fraction", "0", 0, false },
		{ "vm.percpu_pagelist_high_fraction", "7", -EINVAL, false },
		{ "vm.percpu_pagelist_high_fraction", "8", 0, false },
		{ "vm.lowmem_reserve_ratio", "256 256 32 0 0", 0, false },
		{ "vm.lowmem_reserve_ratio", "256\t256\t32", 0, false },
		{ "vm.lowmem_reserve_ratio", "256 -1", -EINVAL, false },
		{ "vm.lowmem_reserve_ratio", "1 2 3 4 5 6 7 8 9", -EINVAL, false },
		{ "vm.lowmem_reserve_ratio", "256 ", 0, false },
		{ "vm.numa_zonelist_order", "Node", 0, false },
		{ "vm.numa_zonelist_order", "%p", -EINVAL, false },
		{ "/sys/kernel/mm/transparent_hugepage/enabled", "madvise", 0, false },
		{ "/sys/kernel/mm/transparent_hugepage/enabled", "madv", -EINVAL, false },
		{ "/sys/kernel/mm/transparent_hugepage/shmem_enabled", "force", 0, true },
		{ "/sys/kernel/mm/transparent_hugepage/shmem_enabled", "deny", 0, true },
		{ "/sys/kernel/mm/transparent_hugepage/shmem_enabled", "within_size", 0, false },
		{ "/sys/kernel/mm/lru_gen/min_ttl_ms", "1000", 0, false },
		{ "/sys/kernel/mm/lru_gen/min_ttl_ms", "4294967295", 0, true },
		{ "/sys/kernel/mm/lru_gen/min_ttl_ms", "4294967296", -EINVAL, false },
		{ "/sys/kernel/mm/transparent_hugepage/khugepaged/pages_to_scan", "0", -EINVAL, false },
		{ "/sys/kernel/mm/numa/demotion_enabled", "true", 0, false },
		{ "/sys/kernel/mm/numa/demotion_enabled", "1", -EINVAL, false },
	};
	char why[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct value_schema *s = value_schema_find(cases[i].key);
		bool dangerous = !cases[i].dangerous;

		assert_non_null(s);
		if (value_schema_check(s, cases[i].value, &dangerous, why, sizeof(why)) != cases[i].r)
			fail_msg("%s = '%s': expected %d", cases[i].key, cases[i].value, cases[i].r);
		if (cases[i].r == 0 && dangerous != cases[i].dangerous)
			fail_msg("%s = '%s': dangerous %d", cases[i].key, cases[i].value, dangerous);
	}
}

static void test_check_path(void **state)
{
	/* The findings: each was accepted by the old prefix rule. */
	static const char *const refused[] = {
		"/sys/devices/system/node/node0/uevent",
		"/sys/devices/system/node/node1/reclaim",
		"/sys/devices/system/node/node0/compact",
		"/sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages",
		"/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages",
		"/sys/kernel/mm/hugepages/hugepages-2048kB/nr_overcommit_hugepages",
		"/sys/kernel/mm/ksm/run",
		"/sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds",
		"/sys/kernel/mm/damon/admin/kdamonds/0/state",
		"/sys/kernel/mm/damon/admin/kdamonds/0/contexts/0/operations",
		"/sys/kernel/mm/damon/admin/kdamonds/0/contexts/0/schemes/0/action",
		"/sys/kernel/mm/transparent_hugepage/uevent",
		"/sys/kernel/mm/transparent_hugepage/khugepaged",
		"/sys/kernel/mm/transparent_hugepage/enabled/x",
		"/sys/kernel/mm", "/sys/kernel/mm/x",
	};
	const char *why = NULL;

	(void)state;
	assert_int_equal(knob_check_path("/sys/kernel/mm/transparent_hugepage/enabled", &why), KNOB_SYSFS);
	assert_int_equal(knob_check_path("/sys/kernel/mm/lru_gen/min_ttl_ms", &why), KNOB_SYSFS);
	assert_int_equal(knob_check_path("/proc/sys/vm/swappiness", &why), KNOB_SYSCTL);
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		if (knob_check_path(refused[i], &why) != -EPERM)
			fail_msg("%s was allowed", refused[i]);
		assert_string_equal(why, "not an allowed sysfs file (mmbatchd --list-keys lists them)");
	}
	assert_int_equal(knob_check_path("/sys/kernel/mm/../../../etc/passwd", &why), -EPERM);
	assert_int_equal(knob_check_path("/sys/kernel/mm/./x", &why), -EPERM);
	assert_int_equal(knob_check_path("/sys/kernel/mm//x", &why), -EPERM);
	assert_int_equal(knob_check_path("/etc/passwd", &why), -EPERM);
	assert_int_equal(knob_check_path("/proc/sys/net/core/somaxconn", &why), -EPERM);
	assert_int_equal(knob_check_path("/proc/self/mem", &why), -EPERM);
	assert_int_equal(knob_check_path("sys/kernel/mm/x", &why), -EPERM);
	assert_int_equal(knob_check_path("/sys/kernel/mm/x y", &why), -EPERM);
	assert_int_equal(knob_check_path("/sys/kernel/mm_evil/x", &why), -EPERM);
	/* Choice files by the table's flag only. */
	assert_true(sysfs_is_choice_file("/sys/kernel/mm/transparent_hugepage/enabled"));
	assert_true(sysfs_is_choice_file("/sys/kernel/mm/transparent_hugepage/shmem_enabled"));
	assert_false(sysfs_is_choice_file("/sys/kernel/mm/transparent_hugepage/use_zero_page"));
	assert_false(sysfs_is_choice_file("/sys/kernel/mm/damon/admin/kdamonds/0/state"));
	assert_false(sysfs_is_choice_file("/proc/sys/vm/numa_zonelist_order"));
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

	/* No allowed sysfs file may be a symlink either, not even one that
	 * stays in /sys/kernel/mm: its target is another file, maybe one the
	 * allowlist leaves out. */
	snprintf(link, sizeof(link), "%s/sys/kernel/mm/transparent_hugepage/defrag", f->root);
	assert_int_equal(symlink("enabled", link), 0);
	assert_int_equal(knob_resolve(f->root, "/sys/kernel/mm/transparent_hugepage/defrag", &real, &why), -EPERM);
	snprintf(link, sizeof(link), "%s/sys/kernel/mm/transparent_hugepage/use_zero_page", f->root);
	assert_int_equal(symlink("../../../../proc/sys/vm/swappiness", link), 0);
	assert_int_equal(knob_resolve(f->root, "/sys/kernel/mm/transparent_hugepage/use_zero_page", &real, &why), -EPERM);
	snprintf(link, sizeof(link), "%s/sys/kernel/mm/transparent_hugepage/shmem_enabled", f->root);
	assert_int_equal(symlink("/etc/hostname", link), 0);
	assert_int_equal(knob_resolve(f->root, "/sys/kernel/mm/transparent_hugepage/shmem_enabled", &real, &why), -EPERM);
	assert_string_equal(why, "resolves through a symlink (an allowed file must be the file itself)");
	/* A symlinked directory above an allowed file. */
	snprintf(link, sizeof(link), "%s/sys/kernel/mm/lru_gen", f->root);
	assert_int_equal(symlink("/etc", link), 0);
	assert_int_equal(knob_resolve(f->root, "/sys/kernel/mm/lru_gen/enabled", &real, &why), -ENOENT);
	fake_write(f->dir, "etc2/enabled", "y\n");
	snprintf(link, sizeof(link), "%s/sys/kernel/mm/numa", f->root);
	snprintf(want, sizeof(want), "%s/etc2", f->dir);
	assert_int_equal(symlink(want, link), 0);
	fake_write(f->dir, "etc2/demotion_enabled", "false\n");
	assert_int_equal(knob_resolve(f->root, "/sys/kernel/mm/numa/demotion_enabled", &real, &why), -EPERM);
	/* The real file resolves to itself. */
	snprintf(want, sizeof(want), "%s/sys/kernel/mm/transparent_hugepage/enabled", f->root);
	assert_int_equal(knob_resolve(f->root, "/sys/kernel/mm/transparent_hugepage/enabled", &real, &why), 0);
	assert_string_equal(real, want);
	free(real);
}

#define THP_ENABLED "/sys/kernel/mm/transparent_hugepage/enabled"
#define PAGES_TO_SCAN "/sys/kernel/mm/transparent_hugepage/khugepaged/pages_to_scan"
#define DAMON_MEMCG "/sys/kernel/mm/damon/admin/kdamonds/0/contexts/0/schemes/0/filters/0/memcg_path"

static void test_values(void **state)
{
	char out[KNOB_VALUE_MAX];

	(void)state;
	knob_canonical(THP_ENABLED, "always [madvise] never", out, sizeof(out));
	assert_string_equal(out, "madvise");
	knob_canonical("/proc/sys/vm/lowmem_reserve_ratio", "4096\t87380\t6291456", out, sizeof(out));
	assert_string_equal(out, "4096 87380 6291456");
	knob_canonical("/proc/sys/vm/numa_zonelist_order", "/crash/core [%e] %p", out, sizeof(out));
	assert_string_equal(out, "/crash/core [%e] %p");
	assert_true(knob_matches(THP_ENABLED, "always [madvise] never", "madvise"));
	assert_false(knob_matches(THP_ENABLED, "always [madvise] never", "never"));
	assert_true(knob_matches("/proc/sys/vm/lowmem_reserve_ratio", "4096\t87380  6291456", "4096 87380 6291456"));
	assert_true(knob_matches("/proc/sys/vm/swappiness", "60", "60"));
	assert_false(knob_matches("/proc/sys/vm/swappiness", "60", "6"));
	assert_true(knob_choice_allowed(THP_ENABLED, "always [madvise] never", "never"));
	assert_true(knob_choice_allowed(THP_ENABLED, "always [madvise] never", "madvise"));
	assert_false(knob_choice_allowed(THP_ENABLED, "always [madvise] never", "sometimes"));
	assert_false(knob_choice_allowed(THP_ENABLED, "always [madvise] never", "alway"));
	assert_true(knob_choice_allowed("/proc/sys/vm/swappiness", "60", "anything"));

	/* The original that restores a file exactly: any file's raw text,
	 * brackets and tabs included, except a choice file's choice. */
	knob_original("/proc/sys/vm/numa_zonelist_order", "/crash/core [%e] %p", out, sizeof(out));
	assert_string_equal(out, "/crash/core [%e] %p");
	knob_original("/proc/sys/vm/lowmem_reserve_ratio", "4096\t87380\t6291456", out, sizeof(out));
	assert_string_equal(out, "4096\t87380\t6291456");
	knob_original(THP_ENABLED, "always [madvise] never", out, sizeof(out));
	assert_string_equal(out, "madvise");
	/* The low finding: a sysfs text with brackets in a file that is no
	 * choice file stays whole (the old rule journaled "1"). */
	knob_original(PAGES_TO_SCAN, "/system.slice/app[1].service", out, sizeof(out));
	assert_string_equal(out, "/system.slice/app[1].service");
	knob_original(DAMON_MEMCG, "/system.slice/app[1].service", out, sizeof(out));
	assert_string_equal(out, "/system.slice/app[1].service");
	knob_canonical(PAGES_TO_SCAN, "/system.slice/app[1].service", out, sizeof(out));
	assert_string_equal(out, "/system.slice/app[1].service");
	assert_false(knob_matches(PAGES_TO_SCAN, "/system.slice/app[1].service", "1"));
	assert_true(knob_choice_allowed(PAGES_TO_SCAN, "/system.slice/app[1].service", "4096"));
	/* ... and a restored text with brackets reads back as a match. */
	assert_true(knob_matches("/proc/sys/vm/numa_zonelist_order", "/crash/core [%e] %p", "/crash/core [%e] %p"));
	assert_false(knob_matches("/proc/sys/vm/numa_zonelist_order", "/crash/core [%e] %p", "/crash/core"));
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
		cmocka_unit_test(test_schema),
		cmocka_unit_test(test_check_path),
		cmocka_unit_test_setup_teardown(test_resolve, fake_setup, fake_teardown),
		cmocka_unit_test(test_values),
		cmocka_unit_test_setup_teardown(test_read_write, fake_setup, fake_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
