/* Unit tests for trust_open (trust.h): what it opens (a regular file of
 * root's, through trusted directories and symlinks), what it refuses and
 * why (FIFOs unopened, untrusted directories anywhere on the path, sticky
 * ones too), and the errors it passes up. The fake dir must sit in trusted
 * directories (tests/mmbatchd/run.sh points TMPDIR at one). */
#include "fake_tree.h"

#include <errno.h>
#include <fcntl.h>

#include "trust.h"

/* f->dir/rel, in one of two buffers used in turn (symlink() takes two). */
static const char *at(const struct fake *f, const char *rel)
{
	static char bufs[2][1024];
	static int next;
	char *b = bufs[next++ % 2];

	snprintf(b, sizeof(bufs[0]), "%s/%s", f->dir, rel);
	return b;
}

static void test_opens_trusted(void **state)
{
	struct fake *f = *state;
	struct trust_refusal why;
	struct stat st;
	char buf[16] = "";
	int fd;

	fake_write(f->dir, "etc/p.yaml", "rollback: never\n");
	fd = trust_open(at(f, "etc/p.yaml"), &st, &why);
	assert_true(fd >= 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_size, 16);
	assert_int_equal(read(fd, buf, sizeof(buf) - 1), 15);
	assert_string_equal(buf, "rollback: never");
	assert_int_equal(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	close(fd);

	/* Through symlinks (relative, absolute, to a directory) and "..". */
	assert_int_equal(symlink("p.yaml", at(f, "etc/rel.yaml")), 0);
	assert_int_equal(symlink(at(f, "etc/p.yaml"), at(f, "etc/abs.yaml")), 0);
	assert_int_equal(symlink("etc", at(f, "etc-link")), 0);
	for (const char *const *rel = (const char *const[]){ "etc/rel.yaml", "etc/abs.yaml", "etc-link/p.yaml",
							     "etc/../etc/./p.yaml", "etc-link/../etc/rel.yaml", NULL };
	     *rel; rel++) {
		fd = trust_open(at(f, *rel), &st, &why);
		assert_true(fd >= 0);
		close(fd);
	}
	/* A relative path starts at the working directory. */
	assert_int_equal(chdir(at(f, "etc")), 0);
	fd = trust_open("p.yaml", &st, &why);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(chdir("/"), 0);
}

static void test_refuses(void **state)
{
	struct fake *f = *state;
	struct trust_refusal why;
	struct stat st;
	char msg[PATH_MAX + 64], want[PATH_MAX + 64];

	fake_write(f->dir, "etc/p.yaml", "rollback: never\n");

	/* A FIFO nobody writes to: refused at once, never opened to read. */
	assert_int_equal(mkfifo(at(f, "etc/fifo"), 0644), 0);
	assert_int_equal(trust_open(at(f, "etc/fifo"), &st, &why), -EPERM);
	assert_string_equal(trust_refusal_str(&why, msg, sizeof(msg)), "not a regular file");
	assert_int_equal(trust_open(at(f, "etc"), &st, &why), -EPERM);
	assert_string_equal(trust_refusal_str(&why, msg, sizeof(msg)), "not a regular file");
	assert_int_equal(trust_open("/", &st, &why), -EPERM);
	assert_int_equal(trust_open("/dev/null", &st, &why), -EPERM);
	assert_string_equal(trust_refusal_str(&why, msg, sizeof(msg)), "not a regular file");

	/* The file itself. */
	chmod(at(f, "etc/p.yaml"), 0664);
	assert_int_equal(trust_open(at(f, "etc/p.yaml"), &st, &why), -EPERM);
	assert_string_equal(trust_refusal_str(&why, msg, sizeof(msg)), "group- or world-writable");
	chmod(at(f, "etc/p.yaml"), 0644);

	/* A directory on the path: writable, sticky or not, and reached
	 * through a symlink in a trusted directory. */
	for (const mode_t *m = (const mode_t[]){ 0775, 0757, 01777, 0 }; *m; m++) {
		chmod(at(f, "etc"), *m);
		assert_int_equal(trust_open(at(f, "etc/p.yaml"), &st, &why), -EPERM);
		snprintf(want, sizeof(want), "directory '%s/etc' on its path is group- or world-writable", f->dir);
		assert_string_equal(trust_refusal_str(&why, msg, sizeof(msg)), want);
	}
	assert_int_equal(symlink("etc/p.yaml", at(f, "via-link.yaml")), 0);
	assert_int_equal(trust_open(at(f, "via-link.yaml"), &st, &why), -EPERM);
	assert_string_equal(trust_refusal_str(&why, msg, sizeof(msg)), want);
	chmod(at(f, "etc"), 0755);

	if (geteuid() == 0) {
		assert_int_equal(chown(at(f, "etc"), 65534, 65534), 0);
		assert_int_equal(trust_open(at(f, "etc/p.yaml"), &st, &why), -EPERM);
		snprintf(want, sizeof(want), "directory '%s/etc' on its path is not owned by root", f->dir);
		assert_string_equal(trust_refusal_str(&why, msg, sizeof(msg)), want);
		/* ".." out of it is refused too: it was entered. */
		assert_int_equal(trust_open(at(f, "etc/../via-link.yaml"), &st, &why), -EPERM);
		assert_int_equal(chown(at(f, "etc"), 0, 0), 0);
	}
}

static void test_errors(void **state)
{
	struct fake *f = *state;
	struct trust_refusal why;
	struct stat st;

	fake_write(f->dir, "etc/p.yaml", "rollback: never\n");
	assert_int_equal(trust_open(at(f, "etc/missing.yaml"), &st, &why), -ENOENT);
	assert_int_equal(trust_open(at(f, "missing/p.yaml"), &st, &why), -ENOENT);
	assert_int_equal(trust_open(at(f, "etc/p.yaml/x"), &st, &why), -ENOTDIR);
	assert_int_equal(symlink("loop-b", at(f, "loop-a")), 0);
	assert_int_equal(symlink("loop-a", at(f, "loop-b")), 0);
	assert_int_equal(trust_open(at(f, "loop-a"), &st, &why), -ELOOP);
	assert_int_equal(symlink("nowhere", at(f, "dangling")), 0);
	assert_int_equal(trust_open(at(f, "dangling"), &st, &why), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_opens_trusted, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_refuses, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_errors, fake_setup, fake_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
