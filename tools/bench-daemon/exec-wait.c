/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bench-exec-wait: starts a command and measures, on CLOCK_MONOTONIC, the
 * time from just before exec to the moment the command is "applied":
 *   --ready            it sent READY=1 over $NOTIFY_SOCKET (sd_notify; we
 *                      provide the socket, as systemd would for Type=notify)
 *   --exit             it exited (for one-shot modes)
 *   --log FILE TEXT    FILE contains TEXT (polled every millisecond)
 * Prints "PID MILLISECONDS STATUS" (STATUS: exit code for --exit, else 0)
 * as its only stdout line (the command's stdout goes to stderr) and leaves
 * a still-running command running. Exit status 1 when the command
 * did not get there within 60 s (or exited first).
 *
 * usage: bench-exec-wait --ready|--exit|--log FILE TEXT -- COMMAND [ARG...]
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TIMEOUT_MS 60000

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int usage(void)
{
	fprintf(stderr, "usage: bench-exec-wait --ready|--exit|--log FILE TEXT -- COMMAND [ARG...]\n");
	return 2;
}

static int file_has(const char *path, const char *text)
{
	static char buf[1 << 20];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return strstr(buf, text) != NULL;
}

int main(int argc, char **argv)
{
	enum { READY, EXIT, LOG } mode;
	const char *log_file = NULL, *log_text = NULL;
	char dir[4096], sock_path[4096 + 16];
	const char *tmp = getenv("TMPDIR");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int i = 1, fd = -1, status = 0, rc = 1;
	double t0, t1 = 0;
	pid_t pid;

	if (argc < 4)
		return usage();
	if (strcmp(argv[i], "--ready") == 0) {
		mode = READY;
		i++;
	} else if (strcmp(argv[i], "--exit") == 0) {
		mode = EXIT;
		i++;
	} else if (strcmp(argv[i], "--log") == 0 && argc > 5) {
		mode = LOG;
		log_file = argv[i + 1];
		log_text = argv[i + 2];
		i += 3;
	} else {
		return usage();
	}
	if (strcmp(argv[i], "--") != 0 || i + 1 >= argc)
		return usage();
	i++;

	if (mode == READY) {
		snprintf(dir, sizeof(dir), "%s/bench-exec-wait.XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(dir)) {
			perror("bench-exec-wait: mkdtemp");
			return 1;
		}
		snprintf(sock_path, sizeof(sock_path), "%s/notify", dir);
		if (strlen(sock_path) >= sizeof(sa.sun_path)) {
			fprintf(stderr, "bench-exec-wait: socket path too long: %s\n", sock_path);
			return 1;
		}
		memcpy(sa.sun_path, sock_path, strlen(sock_path) + 1);
		fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
			perror("bench-exec-wait: notify socket");
			return 1;
		}
		setenv("NOTIFY_SOCKET", sock_path, 1);
	}

	t0 = now_ms();
	pid = fork();
	if (pid < 0) {
		perror("bench-exec-wait: fork");
		return 1;
	}
	if (pid == 0) {
		/* Our stdout carries only the measurement line. */
		dup2(STDERR_FILENO, STDOUT_FILENO);
		execvp(argv[i], &argv[i]);
		fprintf(stderr, "bench-exec-wait: exec %s: %s\n", argv[i], strerror(errno));
		_exit(127);
	}

	while (now_ms() - t0 < TIMEOUT_MS) {
		if (mode == EXIT) {
			if (waitpid(pid, &status, 0) == pid) {
				t1 = now_ms();
				status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
				rc = 0;
			}
			break;
		}
		if (waitpid(pid, &status, WNOHANG) == pid) {
			fprintf(stderr, "bench-exec-wait: %s exited before it was applied\n", argv[i]);
			break;
		}
		if (mode == READY) {
			struct pollfd p = { .fd = fd, .events = POLLIN };
			char msg[4096];
			ssize_t n;

			if (poll(&p, 1, 5) <= 0)
				continue;
			n = recv(fd, msg, sizeof(msg) - 1, 0);
			if (n <= 0)
				continue;
			msg[n] = '\0';
			if (strncmp(msg, "READY=1", 7) == 0 || strstr(msg, "\nREADY=1")) {
				t1 = now_ms();
				status = 0;
				rc = 0;
				break;
			}
		} else {
			if (file_has(log_file, log_text)) {
				t1 = now_ms();
				status = 0;
				rc = 0;
				break;
			}
			usleep(1000);
		}
	}
	if (mode == READY) {
		close(fd);
		unlink(sock_path);
		rmdir(dir);
	}
	if (rc != 0) {
		if (mode != EXIT)
			kill(pid, SIGTERM);
		fprintf(stderr, "bench-exec-wait: %s not applied within %d ms\n", argv[i], TIMEOUT_MS);
		return 1;
	}
	printf("%d %.1f %d\n", (int)pid, t1 - t0, status);
	return 0;
}
