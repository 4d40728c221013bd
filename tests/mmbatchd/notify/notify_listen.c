/* Test helper: plays systemd's side of sd_notify. Binds an AF_UNIX datagram
 * socket at argv[1] and appends every message it receives to argv[2], one
 * line per assignment (a message may carry several, newline-separated),
 * until it is killed. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char buf[4096];
	FILE *out;
	int fd;

	if (argc != 3 || strlen(argv[1]) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "usage: notify_listen SOCKET OUTFILE\n");
		return 2;
	}
	strcpy(sa.sun_path, argv[1]);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("notify_listen: socket/bind");
		return 1;
	}
	out = fopen(argv[2], "ae");
	if (!out) {
		perror("notify_listen: fopen");
		return 1;
	}
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf) - 1, 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			perror("notify_listen: recv");
			return 1;
		}
		buf[n] = '\0';
		fprintf(out, "%s\n", buf);
		fflush(out);
	}
}
