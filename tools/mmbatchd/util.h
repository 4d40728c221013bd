/* Small shared helpers: user-facing errors, files written atomically and
 * durably, trust checks for files the daemon reads as root. */
#ifndef MMBATCHD_UTIL_H
#define MMBATCHD_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

/* A user-facing error, already formatted as "FILE:LINE:COL: message" (or
 * "FILE: message" for errors without a position). Filled by the code that
 * detects bad input; printed once by main. */
struct mb_error {
	char msg[1024];
};

void mb_error_set(struct mb_error *err, const char *file, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* Duplicates or formats a string; abort()s on out-of-memory (there is no
 * useful recovery for a daemon this small). */
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void *xcalloc(size_t n, size_t size);
void *xreallocarray(void *p, size_t n, size_t size);

/* Trailing whitespace removed in place. */
void strip_trailing(char *s);

/* Refuses a file the daemon must trust: returns 0, or -EPERM with *why set
 * to a static reason when it is not a regular file, is owned by another user
 * than root (or than us when we are not root), or is group/world-writable. */
int trust_check_stat(const struct stat *st, const char **why);

/* Writes data to path atomically: a 0600 temp file in the same directory,
 * fsync, rename over path, fsync of the directory. Negative errno. */
int write_file_atomic(const char *path, const char *data, size_t len);

/* The same without the fsyncs, with the given mode, for files that are only
 * reports (status, metrics): readers never see a partial file, but a crash
 * may lose it. */
int write_file_replace(const char *path, const char *data, size_t len, mode_t mode);

/* fsync of the directory that holds path. Negative errno. */
int fsync_parent_dir(const char *path);

/* Reads a whole small file (up to max bytes) into a NUL-terminated buffer.
 * Negative errno; -EFBIG when larger than max. */
int read_file(const char *path, size_t max, char **ret, size_t *ret_len);

/* Appends JSON string literal (with quotes) for s to a growing buffer. */
struct strbuf {
	char *s;
	size_t len, cap;
};
void sb_printf(struct strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_json_str(struct strbuf *b, const char *s);
void sb_free(struct strbuf *b);

#endif
