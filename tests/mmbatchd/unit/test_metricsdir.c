/* Unit tests for metricsdir.c, where the Prometheus textfile may go: refused
 * anywhere inside the state tree (not only the state directory itself: its
 * canary/state once was), through a symlink on the directory path, with a
 * '.' or '..' component, below a directory that is not root's or that others
 * can write; accepted in a last directory owned by another user (the
 * collector's). Needs root (chown) and a TMPDIR whose path is root's and not
 * writable by others (run-suite.sh gives one). */
#include "fake_tree.h"

#include <errno.h>
#include <fcntl.h>

#include "metricsdir.h"

static char path[700];

static const char *at(const struct fake *f, const char *rel)
{
	snprintf(path, sizeof(path), "%s/%s", f->dir, rel);
	return path;
}

/* metricsdir_open() on DIR/rel: its errno (0 when accepted) and reason. */
static int try(const struct fake *f, const char *rel, const char **why)
{
	const char *name;
	int fd = metricsdir_open(at(f, rel), f->state, &name, why);

	if (fd < 0)
		return fd;
	assert_string_equal(name, strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel);
	close(fd);
	return 0;
}

static void test_state_tree(void **state)
{
	struct fake *f = *state;
	const char *why;

	fake_write(f->state, "canary/state", "status=armed\n");
	assert_int_equal(try(f, "state/journal", &why), -EPERM);
	assert_non_null(strstr(why, "inside the state directory"));
	assert_int_equal(try(f, "state/canary/state", &why), -EPERM);
	assert_non_null(strstr(why, "inside the state directory"));
	fake_mkdirs(at(f, "state/canary/deep/er"));
	assert_int_equal(try(f, "state/canary/deep/er/m.prom", &why), -EPERM);
	/* Another spelling: '..' is refused as such, '//' is no help. */
	assert_int_equal(try(f, "root/../state/canary/state", &why), -EINVAL);
	assert_non_null(strstr(why, "'..'"));
	assert_int_equal(try(f, "state//canary/state", &why), -EPERM);
	fake_mkdirs(at(f, "prom"));
	assert_int_equal(try(f, "prom/./m.prom", &why), -EINVAL);
	/* A symlink to the state tree: refused as a symlink. */
	assert_int_equal(symlink(f->state, at(f, "state-link")), 0);
	assert_int_equal(try(f, "state-link/canary/state", &why), -EPERM);
	assert_non_null(strstr(why, "symlink"));
	/* Outside it, fine. */
	assert_int_equal(try(f, "prom/m.prom", &why), 0);
	/* A bind mount would show the same device and inode: compared so. */
}

static void test_owners_and_modes(void **state)
{
	struct fake *f = *state;
	const char *why;

	/* The collector's own last directory: accepted. */
	fake_mkdirs(at(f, "collector"));
	assert_int_equal(chown(at(f, "collector"), 65534, 65534), 0);
	assert_int_equal(try(f, "collector/m.prom", &why), 0);
	/* Root's directory in the collector's (Debian's node-exporter in
	 * /var/lib/prometheus): fine. */
	fake_mkdirs(at(f, "collector/sub"));
	assert_int_equal(try(f, "collector/sub/m.prom", &why), 0);
	/* A directory of a second user below the collector's: refused. */
	fake_mkdirs(at(f, "collector/third"));
	assert_int_equal(chown(at(f, "collector/third"), 65533, 65533), 0);
	assert_int_equal(try(f, "collector/third/m.prom", &why), -EPERM);
	assert_non_null(strstr(why, "two users"));
	/* Group- or world-writable, last or not. */
	fake_mkdirs(at(f, "shared/inner"));
	assert_int_equal(chmod(at(f, "shared"), 01777), 0);
	assert_int_equal(try(f, "shared/m.prom", &why), -EPERM);
	assert_non_null(strstr(why, "writable"));
	assert_int_equal(try(f, "shared/inner/m.prom", &why), -EPERM);
	/* A symlink anywhere on the directory path, even to a good one. */
	fake_mkdirs(at(f, "good"));
	assert_int_equal(symlink("good", at(f, "alias")), 0);
	assert_int_equal(try(f, "alias/m.prom", &why), -EPERM);
	assert_non_null(strstr(why, "symlink"));
}

static void test_shapes(void **state)
{
	struct fake *f = *state;
	const char *name, *why;

	assert_int_equal(metricsdir_open("m.prom", f->state, &name, &why), -EINVAL);
	assert_non_null(strstr(why, "absolute"));
	assert_int_equal(try(f, "prom/", &why), -EINVAL);
	assert_int_equal(try(f, "prom/..", &why), -EINVAL);
	assert_int_equal(try(f, "missing/m.prom", &why), -ENOENT);
	assert_non_null(strstr(why, "does not exist"));
	fake_write(f->dir, "file", "x\n");
	assert_int_equal(try(f, "file/m.prom", &why), -ENOTDIR);
}

static void test_check_message(void **state)
{
	struct fake *f = *state;
	struct mb_error err = { "" };

	assert_int_equal(metricsdir_check(NULL, NULL, 0, 0, f->state, &err), 0);
	assert_int_equal(metricsdir_check(at(f, "state/lock"), "p.yaml", 3, 15, f->state, &err), -EPERM);
	assert_non_null(strstr(err.msg, "p.yaml:3:15: metrics_file '"));
	assert_non_null(strstr(err.msg, "/state/lock' is inside the state directory"));
	assert_int_equal(metricsdir_check(at(f, "state/lock"), NULL, 0, 0, f->state, &err), -EPERM);
	assert_non_null(strstr(err.msg, "--metrics-file: '"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_state_tree, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_owners_and_modes, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_shapes, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_check_message, fake_setup, fake_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
