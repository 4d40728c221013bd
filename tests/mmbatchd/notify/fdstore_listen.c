/* Test helper: plays systemd's side of the file descriptor store for one
 * start of a unit with an ExecStartPre=: binds an AF_UNIX datagram socket at
 * argv[1], logs every message to argv[2] (one line per assignment, plus
 * "(fd)" when a message carried one), keeps the fd of "FDSTORE=1" under its
 * FDNAME= (FDSTOREREMOVE=1 closes that name's), and answers "BARRIER=1" by
 * closing the pipe end it carries. After the first barrier it becomes the
 * main process: the stored fd at fd 3 with LISTEN_FDS=1,
 * LISTEN_FDNAMES=NAME and LISTEN_PID=its pid (or no LISTEN_* when nothing
 * is stored), then execvp(argv[3], argv + 3). Exits 1 when no barrier
 * comes within 30 s. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int stored_fd = -1;
static char stored_name[256];

/* The value of KEY= in a newline-separated message, copied into out. */
static int field(const char *msg, const char *key, char *out, size_t size)
{
	size_t klen = strlen(key);

	for (const char *p = msg; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (strncmp(p, key, klen) == 0 && p[klen] == '=') {
			size_t n = strcspn(p + klen + 1, "\n");

			if (n >= size)
				n = size - 1;
			memcpy(out, p + klen + 1, n);
			out[n] = '\0';
			return 1;
		}
	}
	return 0;
}

/* Handles one message; 1 after a barrier was answered. */
static int handle(const char *msg, int fd, FILE *log)
{
	char v[256], name[256] = "";

	fprintf(log, "%s%s\n", msg, fd >= 0 ? "\n(fd)" : "");
	fflush(log);
	(void)field(msg, "FDNAME", name, sizeof(name));
	if (field(msg, "FDSTOREREMOVE", v, sizeof(v)) && strcmp(v, "1") == 0 && stored_fd >= 0 &&
	    strcmp(name, stored_name) == 0) {
		close(stored_fd);
		stored_fd = -1;
	}
	if (field(msg, "FDSTORE", v, sizeof(v)) && strcmp(v, "1") == 0 && fd >= 0 && stored_fd < 0) {
		stored_fd = fd;
		snprintf(stored_name, sizeof(stored_name), "%s", name[0] ? name : "stored");
		return 0;
	}
	if (field(msg, "BARRIER", v, sizeof(v)) && strcmp(v, "1") == 0 && fd >= 0) {
		close(fd);
		return 1;
	}
	if (fd >= 0)
		close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int sock, one = 1;
	FILE *log;

	if (argc < 4 || strlen(argv[1]) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "usage: fdstore_listen SOCKET LOGFILE COMMAND [ARG...]\n");
		return 2;
	}
	strcpy(sa.sun_path, argv[1]);
	sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (sock < 0 || bind(sock, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    setsockopt(sock, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) < 0) {
		perror("fdstore_listen: socket");
		return 1;
	}
	log = fopen(argv[2], "ae");
	if (!log) {
		perror("fdstore_listen: fopen");
		return 1;
	}
	for (;;) {
		struct pollfd pfd = { .fd = sock, .events = POLLIN };
		char buf[4096];
		union {
			struct cmsghdr align;
			char buf[CMSG_SPACE(sizeof(struct ucred)) + CMSG_SPACE(sizeof(int) * 4)];
		} control;
		struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) - 1 };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
				     .msg_controllen = sizeof(control.buf) };
		int fd = -1;
		ssize_t n;

		if (poll(&pfd, 1, 30000) <= 0) {
			fprintf(stderr, "fdstore_listen: no BARRIER=1 within 30 s\n");
			return 1;
		}
		n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			perror("fdstore_listen: recvmsg");
			return 1;
		}
		buf[n] = '\0';
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
				size_t nfds = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
				int fds[4];

				memcpy(fds, CMSG_DATA(c), nfds * sizeof(int));
				for (size_t i = 0; i < nfds; i++) {
					if (i == 0)
						fd = fds[i];
					else
						close(fds[i]); /* systemd, too, wants one */
				}
			}
		}
		if (handle(buf, fd, log))
			break;
	}
	fclose(log);
	close(sock);
	if (stored_fd >= 0) {
		char pid[32];

		if (dup2(stored_fd, 3) < 0) { /* dup2 clears FD_CLOEXEC, as systemd's passing does */
			perror("fdstore_listen: dup2");
			return 1;
		}
		if (stored_fd != 3)
			close(stored_fd);
		snprintf(pid, sizeof(pid), "%ld", (long)getpid());
		setenv("LISTEN_FDS", "1", 1);
		setenv("LISTEN_FDNAMES", stored_name, 1);
		setenv("LISTEN_PID", pid, 1);
	}
	unsetenv("NOTIFY_SOCKET");
	execvp(argv[3], argv + 3);
	perror("fdstore_listen: execvp");
	return 127;
}
