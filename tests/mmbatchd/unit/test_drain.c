/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests for the exit-drain policy (qualification, coalescing, rate
 * limit, timer arming) and for drain method resolution against fake --root
 * trees. Time is a fake clock, so nothing sleeps and nothing depends on
 * timing; drains use method sysctl, which writes a file in the fake tree.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <cmocka.h>

#include "drain.h"
#include "log.h"

#define MS 1000000ULL
#define MiB_KB 1024ULL

static uint64_t fake_now;
static uint64_t fake_clock(void) { return fake_now; }

struct fixture {
	char root[PATH_MAX];
};

static void write_file(const char *root, const char *rel, const char *content, mode_t mode)
{
	char path[PATH_MAX + 64], dir[PATH_MAX + 64];
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	snprintf(dir, sizeof(dir), "mkdir -p '%s%s'", root, rel);
	*strrchr(dir, '/') = '\0';
	strcat(dir, "'");
	assert_int_equal(system(dir), 0);
	f = fopen(path, "we");
	assert_non_null(f);
	fputs(content, f);
	fclose(f);
	chmod(path, mode);
}

static void read_file(const char *root, const char *rel, char *buf, size_t size)
{
	char path[PATH_MAX + 64];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	f = fopen(path, "re");
	assert_non_null(f);
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fclose(f);
}

/* A tree with the drain knob (an empty regular file standing in for the
 * write-only sysctl), a NUMA node list and a meminfo. */
static int setup_tree(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	char *tmp = getenv("TMPDIR");

	snprintf(fx->root, sizeof(fx->root), "%s/test_drain.XXXXXX", tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(fx->root));
	write_file(fx->root, "/proc/sys/vm/drain_percpu", "", 0200);
	write_file(fx->root, "/sys/devices/system/node/online", "0\n", 0444);
	write_file(fx->root, "/proc/meminfo", "MemTotal: 1000 kB\nMemFree:  500 kB\n", 0444);
	fake_now = 1000 * MS;
	*state = fx;
	return 0;
}

static int teardown_tree(void **state)
{
	struct fixture *fx = *state;
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fx->root);
	assert_int_equal(system(cmd), 0);
	free(fx);
	return 0;
}

static struct drainer *new_drainer(struct fixture *fx, uint64_t min_rss_mb, double per_second)
{
	struct drain_policy p = { .on_exit = true, .min_rss_mb = min_rss_mb,
				  .max_per_second = per_second, .method = DRAIN_SYSCTL };
	struct drainer *d = NULL;

	assert_int_equal(drainer_new(fx->root, &p, &d), 0);
	drainer_set_clock(d, fake_clock);
	return d;
}

static struct exit_event exit_of(pid_t pid, uint64_t rss_mb)
{
	struct exit_event ev = { .pid = pid, .hiwater_rss_kb = rss_mb * MiB_KB };

	snprintf(ev.comm, sizeof(ev.comm), "job%d", (int)pid);
	return ev;
}

/* 1 once a drain wrote "1\n" to the fake knob (each write lands at offset 0). */
static size_t knob_written(struct fixture *fx)
{
	char buf[256];

	read_file(fx->root, "/proc/sys/vm/drain_percpu", buf, sizeof(buf));
	size_t n = 0;
	for (char *p = buf; (p = strstr(p, "1\n")); p += 2)
		n++;
	return n;
}

static bool timer_armed(const struct drainer *d)
{
	struct itimerspec its;

	assert_int_equal(timerfd_gettime(drainer_timer_fd(d), &its), 0);
	return its.it_value.tv_sec || its.it_value.tv_nsec;
}

static void test_method_names(void **state)
{
	enum drain_method m;

	(void)state;
	assert_int_equal(drain_method_parse("auto", &m), 0);
	assert_int_equal(m, DRAIN_AUTO);
	assert_int_equal(drain_method_parse("sysctl", &m), 0);
	assert_int_equal(m, DRAIN_SYSCTL);
	assert_int_equal(drain_method_parse("migrate_pages", &m), 0);
	assert_int_equal(m, DRAIN_MIGRATE_PAGES);
	assert_int_equal(drain_method_parse("migrate-pages", &m), -EINVAL);
	assert_int_equal(drain_method_parse("", &m), -EINVAL);
	assert_string_equal(drain_method_name(DRAIN_MIGRATE_PAGES), "migrate_pages");
	assert_string_equal(drain_method_name(DRAIN_SYSCTL), "sysctl");
	assert_string_equal(drain_method_name(DRAIN_AUTO), "auto");
}

/* auto prefers the knob; without it, migrate_pages when the tree has a node
 * list (and the running kernel has the syscall); otherwise -EOPNOTSUPP. */
static void test_resolve(void **state)
{
	struct fixture *fx = *state;
	char path[PATH_MAX + 64];
	enum drain_method m = DRAIN_AUTO;

	assert_int_equal(drain_method_resolve(fx->root, DRAIN_AUTO, &m), 0);
	assert_int_equal(m, DRAIN_SYSCTL);
	assert_int_equal(drain_method_resolve(fx->root, DRAIN_SYSCTL, &m), 0);
	assert_int_equal(m, DRAIN_SYSCTL);
	assert_int_equal(drain_method_resolve(fx->root, DRAIN_MIGRATE_PAGES, &m), 0);
	assert_int_equal(m, DRAIN_MIGRATE_PAGES);

	snprintf(path, sizeof(path), "%s/proc/sys/vm/drain_percpu", fx->root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(drain_method_resolve(fx->root, DRAIN_SYSCTL, &m), -EOPNOTSUPP);
	assert_int_equal(drain_method_resolve(fx->root, DRAIN_AUTO, &m), 0);
	assert_int_equal(m, DRAIN_MIGRATE_PAGES);

	/* A kernel without NUMA has no node list. */
	snprintf(path, sizeof(path), "%s/sys/devices/system/node/online", fx->root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(drain_method_resolve(fx->root, DRAIN_MIGRATE_PAGES, &m), -EOPNOTSUPP);
	assert_int_equal(drain_method_resolve(fx->root, DRAIN_AUTO, &m), -EOPNOTSUPP);

	/* A node list we cannot parse is not a node list. */
	write_file(fx->root, "/sys/devices/system/node/online", "zero\n", 0444);
	assert_int_equal(drain_method_resolve(fx->root, DRAIN_MIGRATE_PAGES, &m), -EOPNOTSUPP);
	write_file(fx->root, "/sys/devices/system/node/online", "0-\n", 0444);
	assert_int_equal(drain_method_resolve(fx->root, DRAIN_MIGRATE_PAGES, &m), -EOPNOTSUPP);
	write_file(fx->root, "/sys/devices/system/node/online", "0,2-3\n", 0444);
	assert_int_equal(drain_method_resolve(fx->root, DRAIN_MIGRATE_PAGES, &m), 0);

	/* drainer_new refuses what resolve refuses. */
	struct drain_policy p = { .on_exit = true, .min_rss_mb = 1, .max_per_second = 1, .method = DRAIN_SYSCTL };
	struct drainer *d = (struct drainer *)&p; /* must stay untouched */
	assert_int_equal(drainer_new(fx->root, &p, &d), -EOPNOTSUPP);
	assert_ptr_equal(d, (struct drainer *)&p);
}

/* Exits below min_rss_mb are counted and ignored; at the threshold they
 * qualify. */
static void test_qualification(void **state)
{
	struct fixture *fx = *state;
	struct drainer *d = new_drainer(fx, 100, 10);
	struct exit_event small = exit_of(10, 99), exact = exit_of(11, 100);

	small.hiwater_rss_kb = 100 * MiB_KB - 1;
	drainer_on_exit(d, &small);
	assert_false(drainer_pending(d, NULL));
	assert_false(timer_armed(d));
	assert_int_equal(drainer_stats(d)->exits_seen, 1);
	assert_int_equal(drainer_stats(d)->exits_qualifying, 0);

	drainer_on_exit(d, &exact);
	assert_true(drainer_pending(d, NULL));
	assert_true(timer_armed(d));
	assert_int_equal(drainer_stats(d)->exits_seen, 2);
	assert_int_equal(drainer_stats(d)->exits_qualifying, 1);

	/* A lost-events marker from the watcher always qualifies. */
	struct exit_event lost = { .pid = 0, .hiwater_rss_kb = UINT64_MAX, .comm = "(overrun)" };
	drainer_on_exit(d, &lost);
	assert_int_equal(drainer_stats(d)->exits_qualifying, 2);
	drainer_free(d);
}

static void test_on_exit_disabled(void **state)
{
	struct fixture *fx = *state;
	struct drain_policy p = { .on_exit = false, .min_rss_mb = 1, .max_per_second = 10, .method = DRAIN_AUTO };
	struct drainer *d;
	struct exit_event big = exit_of(5, 4096);

	assert_int_equal(drainer_new(fx->root, &p, &d), 0);
	drainer_on_exit(d, &big);
	assert_false(drainer_pending(d, NULL));
	assert_int_equal(drainer_stats(d)->exits_seen, 1);
	assert_int_equal(drainer_stats(d)->exits_qualifying, 0);
	drainer_free(d);
}

/* A burst becomes one drain, done when the coalescing delay is over and not
 * before; the timer is disarmed afterwards. */
static void test_coalesce_burst(void **state)
{
	struct fixture *fx = *state;
	struct drainer *d = new_drainer(fx, 10, 100);
	uint64_t due = 0;

	for (int i = 0; i < 5; i++) {
		struct exit_event ev = exit_of(100 + i, 64);
		drainer_on_exit(d, &ev);
		fake_now += 1 * MS;
	}
	assert_true(drainer_pending(d, &due));
	assert_true(due > fake_now);
	assert_int_equal(drainer_stats(d)->coalesced, 4);

	/* Early timer (e.g. a stale expiry): nothing happens yet. */
	assert_int_equal(drainer_on_timer(d), 0);
	assert_int_equal(drainer_stats(d)->drains, 0);
	assert_int_equal(knob_written(fx), 0);
	assert_true(timer_armed(d));

	fake_now = due;
	assert_int_equal(drainer_on_timer(d), 0);
	assert_int_equal(drainer_stats(d)->drains, 1);
	assert_int_equal(knob_written(fx), 1);
	assert_false(drainer_pending(d, NULL));
	assert_false(timer_armed(d));
	assert_int_equal(drainer_stats(d)->last_memfree_delta_kb, 0);

	/* A timer with nothing pending does nothing. */
	assert_int_equal(drainer_on_timer(d), 0);
	assert_int_equal(drainer_stats(d)->drains, 1);
	drainer_free(d);
}

/* max_per_second 2: a drain at most every 500 ms. */
static void test_rate_limit(void **state)
{
	struct fixture *fx = *state;
	struct drainer *d = new_drainer(fx, 10, 2);
	uint64_t due = 0, first_drain;
	struct exit_event ev = exit_of(200, 64);

	drainer_on_exit(d, &ev);
	assert_true(drainer_pending(d, &due));
	fake_now = due;
	assert_int_equal(drainer_on_timer(d), 0);
	first_drain = fake_now;
	assert_int_equal(drainer_stats(d)->rate_limited, 0);

	fake_now += 10 * MS;
	drainer_on_exit(d, &ev);
	assert_true(drainer_pending(d, &due));
	assert_int_equal(due, first_drain + 500 * MS);
	assert_int_equal(drainer_stats(d)->rate_limited, 1);

	fake_now = first_drain + 499 * MS;
	assert_int_equal(drainer_on_timer(d), 0);
	assert_int_equal(drainer_stats(d)->drains, 1);
	fake_now = first_drain + 500 * MS;
	assert_int_equal(drainer_on_timer(d), 0);
	assert_int_equal(drainer_stats(d)->drains, 2);

	/* Long after the last drain, only the coalescing delay applies. */
	fake_now += 10000 * MS;
	drainer_on_exit(d, &ev);
	assert_true(drainer_pending(d, &due));
	assert_true(due - fake_now < 500 * MS);
	assert_int_equal(drainer_stats(d)->rate_limited, 1);
	drainer_free(d);
}

/* A steady stream of qualifying exits, one every 10 ms for 10 s, with a
 * limit of 3 per second: never more than 1 + 3 * T drains in T seconds. */
static void test_rate_limit_stream(void **state)
{
	struct fixture *fx = *state;
	struct drainer *d = new_drainer(fx, 1, 3);
	uint64_t start = fake_now, due;
	uint64_t stamps[64];
	size_t n = 0;

	for (int i = 0; i < 1000; i++) {
		struct exit_event ev = exit_of(1000 + i, 2);
		drainer_on_exit(d, &ev);
		fake_now += 10 * MS;
		if (drainer_pending(d, &due) && fake_now >= due) {
			assert_int_equal(drainer_on_timer(d), 0);
			assert_true(n < 64);
			stamps[n++] = fake_now;
		}
	}
	uint64_t seconds = (fake_now - start) / (1000 * MS);
	assert_true(n <= 1 + 3 * seconds);
	assert_true(n >= 2 * seconds); /* and it does drain */
	for (size_t i = 1; i < n; i++)
		assert_true(stamps[i] - stamps[i - 1] >= 333 * MS);
	assert_int_equal(drainer_stats(d)->drains, n);
	assert_int_equal(drainer_stats(d)->exits_qualifying, 1000);
	drainer_free(d);
}

/* A method that fails is counted; the drainer stays usable. */
static void test_failure_counted(void **state)
{
	struct fixture *fx = *state;
	struct drainer *d = new_drainer(fx, 1, 100);
	char path[PATH_MAX + 64];
	uint64_t due;
	struct exit_event ev = exit_of(7, 2);

	snprintf(path, sizeof(path), "%s/proc/sys/vm/drain_percpu", fx->root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkdir(path, 0700), 0);
	drainer_on_exit(d, &ev);
	assert_true(drainer_pending(d, &due));
	fake_now = due;
	assert_true(drainer_on_timer(d) < 0);
	assert_int_equal(drainer_stats(d)->failures, 1);
	assert_int_equal(drainer_stats(d)->drains, 0);
	assert_false(drainer_pending(d, NULL));
	drainer_free(d);
}

/* MemFree change comes from ROOT/proc/meminfo; a tree without it still drains. */
static void test_memfree_missing(void **state)
{
	struct fixture *fx = *state;
	struct drainer *d = new_drainer(fx, 1, 100);
	char path[PATH_MAX + 64];
	int64_t kb = 0;
	uint64_t due;
	struct exit_event ev = exit_of(8, 2);

	assert_int_equal(drain_read_memfree_kb(fx->root, &kb), 0);
	assert_int_equal(kb, 500);
	snprintf(path, sizeof(path), "%s/proc/meminfo", fx->root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(drain_read_memfree_kb(fx->root, &kb), -ENOENT);
	drainer_on_exit(d, &ev);
	assert_true(drainer_pending(d, &due));
	fake_now = due;
	assert_int_equal(drainer_on_timer(d), 0);
	assert_int_equal(drainer_stats(d)->drains, 1);
	drainer_free(d);
	drainer_free(NULL);
}

/* The mask comes from has_memory when the tree has it (under systemd, without
 * CAP_SYS_NICE, an online node without memory makes the kernel refuse with
 * EPERM), else from online. The call is real, on this kernel. */
static void test_migrate_pages_mask(void **state)
{
	struct fixture *fx = *state;
	char has_memory[256] = "0\n", path[PATH_MAX + 64];
	enum drain_method m;
	FILE *f = fopen("/sys/devices/system/node/has_memory", "re");

	if (f) {
		if (!fgets(has_memory, sizeof(has_memory), f))
			snprintf(has_memory, sizeof(has_memory), "0\n");
		fclose(f);
	}
	/* online alone */
	write_file(fx->root, "/sys/devices/system/node/online", has_memory, 0444);
	assert_int_equal(drain_method_run(fx->root, DRAIN_MIGRATE_PAGES), 0);
	/* has_memory wins over online: a broken has_memory is not papered over */
	write_file(fx->root, "/sys/devices/system/node/has_memory", "garbage\n", 0444);
	assert_int_equal(drain_method_resolve(fx->root, DRAIN_MIGRATE_PAGES, &m), -EOPNOTSUPP);
	assert_int_equal(drain_method_run(fx->root, DRAIN_MIGRATE_PAGES), -EINVAL);
	write_file(fx->root, "/sys/devices/system/node/has_memory", has_memory, 0444);
	write_file(fx->root, "/sys/devices/system/node/online", "garbage\n", 0444);
	assert_int_equal(drain_method_resolve(fx->root, DRAIN_MIGRATE_PAGES, &m), 0);
	assert_int_equal(drain_method_run(fx->root, DRAIN_MIGRATE_PAGES), 0);
	snprintf(path, sizeof(path), "%s/sys/devices/system/node/has_memory", fx->root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(drain_method_resolve(fx->root, DRAIN_MIGRATE_PAGES, &m), -EOPNOTSUPP);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_method_names),
		cmocka_unit_test_setup_teardown(test_resolve, setup_tree, teardown_tree),
		cmocka_unit_test_setup_teardown(test_migrate_pages_mask, setup_tree, teardown_tree),
		cmocka_unit_test_setup_teardown(test_qualification, setup_tree, teardown_tree),
		cmocka_unit_test_setup_teardown(test_on_exit_disabled, setup_tree, teardown_tree),
		cmocka_unit_test_setup_teardown(test_coalesce_burst, setup_tree, teardown_tree),
		cmocka_unit_test_setup_teardown(test_rate_limit, setup_tree, teardown_tree),
		cmocka_unit_test_setup_teardown(test_rate_limit_stream, setup_tree, teardown_tree),
		cmocka_unit_test_setup_teardown(test_failure_counted, setup_tree, teardown_tree),
		cmocka_unit_test_setup_teardown(test_memfree_missing, setup_tree, teardown_tree),
	};

	/* The drain log lines are the daemon's business; keep the output short. */
	mb_log_set_level(LOG_WARNING);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
