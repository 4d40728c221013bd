/* See sdproto.h. */
#include "sdproto.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#define JOURNAL_SOCKET "/run/systemd/journal/socket"

/* Fills sa from a socket name; returns the address length or -EINVAL. */
static int unix_address(const char *name, struct sockaddr_un *sa)
{
	size_t n = strlen(name);

	if ((name[0] != '/' && name[0] != '@') || n < 2 || n >= sizeof(sa->sun_path))
		return -EINVAL;
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	memcpy(sa->sun_path, name, n);
	if (name[0] == '@') /* abstract namespace: leading NUL, no terminator */
		sa->sun_path[0] = '\0';
	return (int)(offsetof(struct sockaddr_un, sun_path) + n + (name[0] == '/'));
}

/* One datagram; with pass_fd >= 0 that fd rides along in SCM_RIGHTS. */
static int send_datagram_fd(int *cached_fd, const char *socket_name, const struct iovec *iov, size_t n_iov,
			    int pass_fd)
{
	struct sockaddr_un sa;
	struct msghdr mh = { .msg_name = &sa, .msg_iov = (struct iovec *)iov, .msg_iovlen = n_iov };
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int))];
	} control;
	int len = unix_address(socket_name, &sa), fd = cached_fd ? *cached_fd : -1;

	if (len < 0)
		return len;
	mh.msg_namelen = (socklen_t)len;
	if (pass_fd >= 0) {
		struct cmsghdr *c;

		memset(&control, 0, sizeof(control));
		mh.msg_control = control.buf;
		mh.msg_controllen = sizeof(control.buf);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &pass_fd, sizeof(int));
	}
	if (fd < 0) {
		fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return -errno;
		if (cached_fd)
			*cached_fd = fd;
	}
	if (sendmsg(fd, &mh, MSG_NOSIGNAL) < 0) {
		int r = -errno;

		if (!cached_fd)
			close(fd);
		return r;
	}
	if (!cached_fd)
		close(fd);
	return 1;
}

static int send_datagram(int *cached_fd, const char *socket_name, const struct iovec *iov, size_t n_iov)
{
	return send_datagram_fd(cached_fd, socket_name, iov, n_iov, -1);
}

int sdp_notify(const char *state)
{
	const char *name = getenv("NOTIFY_SOCKET");
	struct iovec iov = { .iov_base = (void *)state, .iov_len = strlen(state) };

	if (!name || !*name)
		return 0;
	return send_datagram(NULL, name, &iov, 1);
}

int sdp_notify_with_fd(const char *state, int fd)
{
	const char *name = getenv("NOTIFY_SOCKET");
	struct iovec iov = { .iov_base = (void *)state, .iov_len = strlen(state) };

	if (!name || !*name)
		return 0;
	return send_datagram_fd(NULL, name, &iov, 1, fd);
}

int sdp_notify_barrier(int timeout_ms)
{
	struct pollfd pfd = { .events = POLLIN };
	int p[2], r;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	r = sdp_notify_with_fd("BARRIER=1", p[1]);
	/* Ours closed, systemd's copy is the last write end: it closes it
	 * once it has processed every earlier message, and we see EOF. */
	close(p[1]);
	if (r <= 0) {
		close(p[0]);
		return r;
	}
	pfd.fd = p[0];
	for (;;) {
		r = poll(&pfd, 1, timeout_ms);
		if (r < 0 && errno == EINTR)
			continue;
		break;
	}
	r = r < 0 ? -errno : r == 0 ? -ETIMEDOUT : 1;
	close(p[0]);
	return r;
}

int sdp_listen_fd(const char *name, int *ret_fd)
{
	const char *pid = getenv("LISTEN_PID"), *fds = getenv("LISTEN_FDS"), *names = getenv("LISTEN_FDNAMES");
	unsigned long n;
	char *end;
	int found = -1;

	*ret_fd = -1;
	/* Meant for another process (a parent that passed its environment
	 * on): not ours to take. */
	if (!pid || !fds || !*pid || !*fds)
		return 0;
	errno = 0;
	if (strtol(pid, &end, 10) != (long)getpid() || errno || *end)
		return 0;
	errno = 0;
	n = strtoul(fds, &end, 10);
	if (errno || *end || n > 64)
		return -EINVAL;
	/* Names are colon-separated, one per fd from SD_LISTEN_FDS_START. */
	for (unsigned long i = 0; i < n; i++) {
		const char *next = names ? strchr(names, ':') : NULL;
		size_t len = names ? (next ? (size_t)(next - names) : strlen(names)) : 0;
		int fd = SDP_LISTEN_FDS_START + (int)i;

		/* None of them may leak into what we might run. */
		if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
			return -errno;
		if (found < 0 && names && len == strlen(name) && strncmp(names, name, len) == 0)
			found = fd;
		names = next ? next + 1 : NULL;
	}
	/* Taken once: nothing else in this process reads them again. */
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
	if (found < 0)
		return 0;
	*ret_fd = found;
	return 1;
}

int sdp_notifyf(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return sdp_notify(buf);
}

int sdp_watchdog_usec(uint64_t *ret_usec)
{
	const char *usec = getenv("WATCHDOG_USEC"), *pid = getenv("WATCHDOG_PID");
	unsigned long long v;
	char *end;

	if (!usec || !*usec)
		return 0;
	/* WATCHDOG_PID names the process meant, when a parent passed it on. */
	if (pid && *pid && strtol(pid, NULL, 10) != (long)getpid())
		return 0;
	errno = 0;
	v = strtoull(usec, &end, 10);
	if (errno || *end || v == 0)
		return 0;
	*ret_usec = v;
	return 1;
}

static int journal_print(int *cached_fd, const char *socket_name, int prio, const char *identifier,
			 const char *msg)
{
	static char key_binary[] = "MESSAGE\n", key_text[] = "MESSAGE=", nl[] = "\n";
	uint64_t len = strlen(msg);
	struct iovec iov[5];
	char head[128];
	uint8_t le[8];
	size_t n = 0;

	snprintf(head, sizeof(head), "PRIORITY=%d\nSYSLOG_IDENTIFIER=%s\n", prio, identifier);
	iov[n++] = (struct iovec){ head, strlen(head) };
	if (strchr(msg, '\n')) {
		for (int i = 0; i < 8; i++)
			le[i] = (uint8_t)(len >> (8 * i));
		iov[n++] = (struct iovec){ key_binary, strlen(key_binary) };
		iov[n++] = (struct iovec){ le, sizeof(le) };
	} else {
		iov[n++] = (struct iovec){ key_text, strlen(key_text) };
	}
	iov[n++] = (struct iovec){ (void *)msg, (size_t)len };
	iov[n++] = (struct iovec){ nl, 1 }; /* ends the last field */
	return send_datagram(cached_fd, socket_name, iov, n) < 0 ? -EIO : 0;
}

int sdp_journal_print(int prio, const char *identifier, const char *msg)
{
	static int journal_fd = -1;

	return journal_print(&journal_fd, JOURNAL_SOCKET, prio, identifier, msg);
}

int sdp_journal_print_to(const char *socket_name, int prio, const char *identifier, const char *msg)
{
	return journal_print(NULL, socket_name, prio, identifier, msg);
}
