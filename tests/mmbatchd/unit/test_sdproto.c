/* Unit tests for sdproto.c, the sd_notify and journal protocols: messages
 * arrive byte-exact on a socket the test binds (a path and an abstract
 * name), the binary field form is used for multi-line messages, and the
 * watchdog is on only for WATCHDOG_USEC (and our WATCHDOG_PID); an fd rides
 * along in SCM_RIGHTS, a barrier returns once its pipe end is closed (and
 * times out otherwise), and $LISTEN_FDS is taken by name for our pid only. */
#include "fake_tree.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "sdproto.h"

/* Binds a datagram socket at name ('@' = abstract). */
static int bind_at(const char *name)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(name) + (name[0] == '/'));
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	assert_true(fd >= 0);
	memcpy(sa.sun_path, name, strlen(name));
	if (name[0] == '@')
		sa.sun_path[0] = '\0';
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, len), 0);
	return fd;
}

static size_t receive(int fd, char *buf, size_t size)
{
	ssize_t n = recv(fd, buf, size - 1, 0);

	assert_true(n >= 0);
	buf[n] = '\0';
	return (size_t)n;
}

static void test_notify(void **state)
{
	struct fake *f = *state;
	char path[600], abstract[64], buf[256];
	int fd;

	unsetenv("NOTIFY_SOCKET");
	assert_int_equal(sdp_notify("READY=1"), 0); /* not under systemd */

	snprintf(path, sizeof(path), "%s/notify", f->dir);
	fd = bind_at(path);
	setenv("NOTIFY_SOCKET", path, 1);
	assert_int_equal(sdp_notify("READY=1"), 1);
	receive(fd, buf, sizeof(buf));
	assert_string_equal(buf, "READY=1");
	assert_int_equal(sdp_notifyf("STATUS=%d keys", 3), 1);
	receive(fd, buf, sizeof(buf));
	assert_string_equal(buf, "STATUS=3 keys");
	close(fd);

	snprintf(abstract, sizeof(abstract), "@mmbatchd-test-%d", (int)getpid());
	fd = bind_at(abstract);
	setenv("NOTIFY_SOCKET", abstract, 1);
	assert_int_equal(sdp_notify("WATCHDOG=1"), 1);
	receive(fd, buf, sizeof(buf));
	assert_string_equal(buf, "WATCHDOG=1");
	close(fd);

	setenv("NOTIFY_SOCKET", "relative/name", 1);
	assert_int_equal(sdp_notify("READY=1"), -EINVAL);
	unsetenv("NOTIFY_SOCKET");
}

/* Receives one datagram and the fd it carries (-1 when none). */
static int receive_fd(int sock, char *buf, size_t size)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int))];
	} control;
	struct iovec iov = { .iov_base = buf, .iov_len = size - 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
			     .msg_controllen = sizeof(control.buf) };
	struct cmsghdr *c;
	ssize_t n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	int fd = -1;

	assert_true(n >= 0);
	buf[n] = '\0';
	c = CMSG_FIRSTHDR(&mh);
	if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(c), sizeof(fd));
	return fd;
}

static void test_fdstore(void **state)
{
	struct fake *f = *state;
	char path[600], buf[256];
	struct stat a, b;
	int sock, fd, got, status;
	pid_t child;

	unsetenv("NOTIFY_SOCKET");
	assert_int_equal(sdp_notify_with_fd("FDSTORE=1", 0), 0);
	assert_int_equal(sdp_notify_barrier(100), 0);

	snprintf(path, sizeof(path), "%s/notify", f->dir);
	sock = bind_at(path);
	setenv("NOTIFY_SOCKET", path, 1);
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	assert_int_equal(sdp_notify_with_fd("FDSTORE=1\nFDNAME=x", fd), 1);
	got = receive_fd(sock, buf, sizeof(buf));
	assert_string_equal(buf, "FDSTORE=1\nFDNAME=x");
	assert_true(got >= 0);
	assert_int_equal(fstat(fd, &a), 0);
	assert_int_equal(fstat(got, &b), 0);
	assert_true(a.st_ino == b.st_ino && a.st_dev == b.st_dev);
	close(got);
	close(fd);

	/* Nobody answers: the pipe end waits, unread, in our socket. */
	assert_int_equal(sdp_notify_barrier(100), -ETIMEDOUT);
	got = receive_fd(sock, buf, sizeof(buf));
	assert_string_equal(buf, "BARRIER=1");
	close(got);
	/* Answered: the only other write end (the receiver's) is closed as
	 * soon as it arrives, which a child plays here. */
	fcntl(sock, F_SETFL, 0); /* the child waits for the message */
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		int pfd = receive_fd(sock, buf, sizeof(buf));

		_exit(strcmp(buf, "BARRIER=1") != 0 || pfd < 0);
	}
	assert_int_equal(sdp_notify_barrier(5000), 1);
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(sock);
	unsetenv("NOTIFY_SOCKET");
}

static void test_listen_fd(void **state)
{
	char pid[32];
	int fd;

	(void)state;
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	assert_int_equal(sdp_listen_fd("exitwatch", &fd), 0);
	assert_int_equal(fd, -1);

	/* Fds 3 and 4, named other and exitwatch. */
	assert_int_equal(dup2(STDERR_FILENO, 3), 3);
	assert_int_equal(dup2(STDERR_FILENO, 4), 4);
	setenv("LISTEN_PID", "1", 1); /* another process's */
	setenv("LISTEN_FDS", "2", 1);
	setenv("LISTEN_FDNAMES", "other:exitwatch", 1);
	assert_int_equal(sdp_listen_fd("exitwatch", &fd), 0);
	setenv("LISTEN_PID", pid, 1);
	assert_int_equal(sdp_listen_fd("exitwatch", &fd), 1);
	assert_int_equal(fd, 4);
	assert_int_equal(fcntl(3, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	assert_int_equal(fcntl(4, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	assert_null(getenv("LISTEN_FDS")); /* taken once */
	assert_int_equal(sdp_listen_fd("exitwatch", &fd), 0);

	setenv("LISTEN_PID", pid, 1);
	setenv("LISTEN_FDS", "1", 1);
	setenv("LISTEN_FDNAMES", "exitwatchX", 1);
	assert_int_equal(sdp_listen_fd("exitwatch", &fd), 0);
	setenv("LISTEN_PID", pid, 1);
	setenv("LISTEN_FDS", "lots", 1);
	assert_int_equal(sdp_listen_fd("exitwatch", &fd), -EINVAL);
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
	close(3);
	close(4);
}

static void test_watchdog(void **state)
{
	char pid[32];
	uint64_t usec = 0;

	(void)state;
	unsetenv("WATCHDOG_USEC");
	unsetenv("WATCHDOG_PID");
	assert_int_equal(sdp_watchdog_usec(&usec), 0);
	setenv("WATCHDOG_USEC", "3000000", 1);
	assert_int_equal(sdp_watchdog_usec(&usec), 1);
	assert_int_equal(usec, 3000000);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	setenv("WATCHDOG_PID", pid, 1);
	assert_int_equal(sdp_watchdog_usec(&usec), 1);
	setenv("WATCHDOG_PID", "1", 1); /* meant for another process */
	assert_int_equal(sdp_watchdog_usec(&usec), 0);
	unsetenv("WATCHDOG_PID");
	setenv("WATCHDOG_USEC", "soon", 1);
	assert_int_equal(sdp_watchdog_usec(&usec), 0);
	unsetenv("WATCHDOG_USEC");
}

static void test_journal(void **state)
{
	struct fake *f = *state;
	static const char want_binary[] = "PRIORITY=3\nSYSLOG_IDENTIFIER=mmbatchd\nMESSAGE\n\x05\0\0\0\0\0\0\0a\nb\nc\n";
	char path[600], buf[512];
	size_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/journal.sock", f->dir);
	fd = bind_at(path);
	assert_int_equal(sdp_journal_print_to(path, 5, "mmbatchd", "'vm.swappiness' (60) -> (10)"), 0);
	receive(fd, buf, sizeof(buf));
	assert_string_equal(buf, "PRIORITY=5\nSYSLOG_IDENTIFIER=mmbatchd\nMESSAGE='vm.swappiness' (60) -> (10)\n");
	assert_int_equal(sdp_journal_print_to(path, 3, "mmbatchd", "a\nb\nc"), 0);
	n = receive(fd, buf, sizeof(buf));
	assert_int_equal(n, sizeof(want_binary) - 1);
	assert_memory_equal(buf, want_binary, n);
	close(fd);
	unlink(path);
	assert_int_equal(sdp_journal_print_to(path, 3, "mmbatchd", "nobody listens"), -EIO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_notify, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_fdstore, fake_setup, fake_teardown),
		cmocka_unit_test(test_listen_fd),
		cmocka_unit_test(test_watchdog),
		cmocka_unit_test_setup_teardown(test_journal, fake_setup, fake_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
