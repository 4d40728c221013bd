/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mmbatchd-memtouch: a process for the exit-drain tests. It renames itself
 * (so the daemon's log names it), touches MB MiB of anonymous memory (its
 * peak RSS), waits HOLD_MS milliseconds, prints its pid and exits.
 *
 * usage: mmbatchd-memtouch NAME MB [HOLD_MS]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static int parse_ulong(const char *s, unsigned long *ret)
{
	char *end;

	errno = 0;
	*ret = strtoul(s, &end, 10);
	return errno || end == s || *end ? -EINVAL : 0;
}

int main(int argc, char **argv)
{
	unsigned long mb, hold_ms = 0;
	size_t len;
	char *p;

	if (argc < 3 || argc > 4 || parse_ulong(argv[2], &mb) < 0 ||
	    (argc == 4 && parse_ulong(argv[3], &hold_ms) < 0)) {
		fprintf(stderr, "usage: mmbatchd-memtouch NAME MB [HOLD_MS]\n");
		return 2;
	}
	if (prctl(PR_SET_NAME, argv[1]) < 0) {
		perror("mmbatchd-memtouch: prctl");
		return 1;
	}
	len = (size_t)mb << 20;
	if (len) {
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			perror("mmbatchd-memtouch: mmap");
			return 1;
		}
		/* Writing every page makes it resident: peak RSS >= MB MiB. */
		for (size_t off = 0; off < len; off += 4096)
			p[off] = 1;
	}
	if (hold_ms) {
		struct timespec ts = { .tv_sec = (time_t)(hold_ms / 1000), .tv_nsec = (long)(hold_ms % 1000) * 1000000 };
		nanosleep(&ts, NULL);
	}
	printf("%d\n", (int)getpid());
	return 0;
}
