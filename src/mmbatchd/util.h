/* Small shared helpers: user-facing errors, files written atomically, trust
 * checks for files the daemon reads as root, escaping. */
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

/* Writes data to NAME in the directory dirfd atomically: a fresh temp file
 * there (O_EXCL, never following a symlink), then renamed over NAME, which
 * replaces the entry and never writes through a symlink or hard link named
 * NAME. No fsync: the files mmbatchd writes need only outlive a crash of
 * the daemon, not of the machine (see journal.h). NAME is one path
 * component. Negative errno. */
int write_file_at(int dirfd, const char *name, const char *data, size_t len, mode_t mode);

/* The same for a path, in the directory that holds it. */
int write_file_replace(const char *path, const char *data, size_t len, mode_t mode);

/* Opens the directory that holds path (O_DIRECTORY) and points *ret_name at
 * path's last component. Returns the fd or a negative errno. */
int open_parent_dir(const char *path, const char **ret_name);

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

/* Appends s with backslash escapes for '\\', tab, newline, CR and every
 * other control byte (\xHH), so that it fits on one line of a line-based
 * file or log and reads back byte for byte with unescape_line(). */
void sb_escaped(struct strbuf *b, const char *s);

/* Appends s with every control byte shown as an escape (\n, \t, \r,
 * \xHH) and everything else, backslashes included, as it is: for log lines,
 * which must stay one line each but need not read back. */
void sb_printable(struct strbuf *b, const char *s);

/* Undoes sb_escaped() in place. Returns 0, or -EINVAL for a malformed or
 * NUL-producing escape. */
int unescape_line(char *s);

/* Appends s as one POSIX shell word: single-quoted, each ' as '\''. */
void sb_shell_quoted(struct strbuf *b, const char *s);

#endif
