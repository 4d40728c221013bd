/* See sdproto.h. */
#include "sdproto.h"

#include <errno.h>
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

static int send_datagram(int *cached_fd, const char *socket_name, const struct iovec *iov, size_t n_iov)
{
	struct sockaddr_un sa;
	struct msghdr mh = { .msg_name = &sa, .msg_iov = (struct iovec *)iov, .msg_iovlen = n_iov };
	int len = unix_address(socket_name, &sa), fd = cached_fd ? *cached_fd : -1;

	if (len < 0)
		return len;
	mh.msg_namelen = (socklen_t)len;
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

int sdp_notify(const char *state)
{
	const char *name = getenv("NOTIFY_SOCKET");
	struct iovec iov = { .iov_base = (void *)state, .iov_len = strlen(state) };

	if (!name || !*name)
		return 0;
	return send_datagram(NULL, name, &iov, 1);
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
