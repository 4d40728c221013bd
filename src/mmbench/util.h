/* Small helpers shared by every mmbench file: clocks, whole-file reads,
 * CPU counts, thread pinning. All return negative errno on failure. */
#ifndef MMBENCH_UTIL_H
#define MMBENCH_UTIL_H

#include <stddef.h>
#include <stdint.h>

#define MB_PAGE 4096UL

/* Exit codes of every subcommand (documented in SCHEMA.md). */
enum {
	MB_EXIT_OK = 0,
	MB_EXIT_FAIL = 1,     /* corruption found, or a regression beyond the threshold */
	MB_EXIT_USAGE = 2,    /* bad input: option, file, JSON */
	MB_EXIT_SKIPPED = 77, /* this machine cannot run it (one NUMA node, no knob) */
};

uint64_t mb_now_ns(void);
double mb_sys_seconds(void);               /* this process, all threads */
void mb_sleep_until_ns(uint64_t deadline);

/* Reads a whole (proc) file into a malloc'ed NUL-terminated buffer. */
int mb_read_file(const char *path, char **ret_buf, size_t *ret_len);
/* Reads the first line of a file without the newline into buf. */
int mb_read_line(const char *path, char *buf, size_t size);
/* Writes a string to a file (e.g. a sysctl knob). */
int mb_write_string(const char *path, const char *s);

int mb_online_cpus(void);
int mb_pin_to_cpu(int cpu);

/* Parses "0-3,8,10-11" (a kernel cpu/node list) into a bitmask of up to 64
 * entries; returns the number of entries set or -EINVAL. */
int mb_parse_list(const char *s, uint64_t *ret_mask);

/* Strict number parsing for options: whole string, in range. */
int mb_parse_long(const char *s, long min, long max, long *ret);
int mb_parse_double(const char *s, double *ret);
/* How many of the 8 bytes of a and b differ (corrupt-byte counts). */
uint64_t mb_diff_bytes(uint64_t a, uint64_t b);

#endif
