/* Small helpers shared by every mmbench file. */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

uint64_t mb_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

double mb_sys_seconds(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) < 0)
		return 0.0;
	return (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

void mb_sleep_until_ns(uint64_t deadline)
{
	struct timespec ts = {
		.tv_sec = (time_t)(deadline / 1000000000ULL),
		.tv_nsec = (long)(deadline % 1000000000ULL),
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

int mb_read_file(const char *path, char **ret_buf, size_t *ret_len)
{
	size_t cap = 16384, len = 0;
	char *buf;
	int fd, r = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = malloc(cap);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		ssize_t n;

		if (cap - len < 4096) {
			char *nb = realloc(buf, cap * 2);

			if (!nb) {
				r = -ENOMEM;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (r < 0) {
		free(buf);
		return r;
	}
	buf[len] = '\0';
	*ret_buf = buf;
	if (ret_len)
		*ret_len = len;
	return 0;
}

int mb_read_line(const char *path, char *buf, size_t size)
{
	char *all;
	int r;

	r = mb_read_file(path, &all, NULL);
	if (r < 0)
		return r;
	all[strcspn(all, "\n")] = '\0';
	snprintf(buf, size, "%s", all);
	free(all);
	return 0;
}

int mb_write_string(const char *path, const char *s)
{
	size_t len = strlen(s);
	ssize_t n;
	int fd, r = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, s, len);
	if (n < 0)
		r = -errno;
	else if ((size_t)n != len)
		r = -EIO;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	return r;
}

int mb_online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : (int)n;
}

int mb_pin_to_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return -pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

int mb_parse_list(const char *s, uint64_t *ret_mask)
{
	uint64_t mask = 0;
	const char *p = s;
	int count = 0;

	while (*p && *p != '\n') {
		char *end;
		long a, b;

		errno = 0;
		a = strtol(p, &end, 10);
		if (end == p || errno || a < 0 || a > 63)
			return -EINVAL;
		b = a;
		p = end;
		if (*p == '-') {
			p++;
			b = strtol(p, &end, 10);
			if (end == p || errno || b < a || b > 63)
				return -EINVAL;
			p = end;
		}
		for (long i = a; i <= b; i++) {
			if (!(mask & (1ULL << i)))
				count++;
			mask |= 1ULL << i;
		}
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			return -EINVAL;
	}
	*ret_mask = mask;
	return count;
}

int mb_parse_long(const char *s, long min, long max, long *ret)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (end == s || *end || errno || v < min || v > max)
		return -EINVAL;
	*ret = v;
	return 0;
}

int mb_parse_double(const char *s, double *ret)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || errno || !isfinite(v))
		return -EINVAL;
	*ret = v;
	return 0;
}

uint64_t mb_diff_bytes(uint64_t a, uint64_t b)
{
	uint64_t x = a ^ b, n = 0;

	for (int i = 0; i < 8; i++)
		n += ((x >> (8 * i)) & 0xff) != 0;
	return n;
}
