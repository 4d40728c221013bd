/* See util.h. */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void mb_error_set(struct mb_error *err, const char *file, int line, int col, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!err)
		return;
	if (line > 0)
		n = snprintf(err->msg, sizeof(err->msg), "%s:%d:%d: ", file, line, col);
	else
		n = snprintf(err->msg, sizeof(err->msg), "%s: ", file);
	if (n < 0 || (size_t)n >= sizeof(err->msg))
		return;
	va_start(ap, fmt);
	vsnprintf(err->msg + n, sizeof(err->msg) - n, fmt, ap);
	va_end(ap);
}

static void *check_alloc(void *p)
{
	if (!p)
		abort();
	return p;
}

char *xstrdup(const char *s)
{
	return check_alloc(strdup(s));
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		abort();
	return s;
}

void *xcalloc(size_t n, size_t size)
{
	return check_alloc(calloc(n ? n : 1, size ? size : 1));
}

void *xreallocarray(void *p, size_t n, size_t size)
{
	return check_alloc(reallocarray(p, n ? n : 1, size ? size : 1));
}

void strip_trailing(char *s)
{
	size_t n = strlen(s);

	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		s[--n] = '\0';
}

int trust_check_stat(const struct stat *st, const char **why)
{
	uid_t me = geteuid();

	if (!S_ISREG(st->st_mode)) {
		*why = "not a regular file";
		return -EPERM;
	}
	if (st->st_uid != 0 && st->st_uid != me) {
		*why = me == 0 ? "not owned by root" : "owned by another user";
		return -EPERM;
	}
	if (st->st_mode & (S_IWGRP | S_IWOTH)) {
		*why = "group- or world-writable";
		return -EPERM;
	}
	return 0;
}

static int write_all(int fd, const char *data, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, data, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

int write_file_at(int dirfd, const char *name, const char *data, size_t len, mode_t mode)
{
	static unsigned counter;
	char tmp[NAME_MAX + 1];
	int fd = -1, r;

	if (!*name || strchr(name, '/') || strcmp(name, ".") == 0 || strcmp(name, "..") == 0 ||
	    strlen(name) > NAME_MAX - 24)
		return -EINVAL;
	/* A fresh name, never followed: O_EXCL|O_NOFOLLOW refuses a planted
	 * file or symlink, and rename replaces the entry, not its target. */
	for (int tries = 0; fd < 0 && tries < 100; tries++) {
		snprintf(tmp, sizeof(tmp), ".%s.%d.%u", name, (int)getpid(), counter++);
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			return -errno;
	}
	if (fd < 0)
		return -EEXIST;
	/* Created 0600; the mode is set before anyone can see the name. */
	r = 0;
	if (fchmod(fd, mode) < 0 || (r = write_all(fd, data, len)) < 0) {
		r = r < 0 ? r : -errno;
		close(fd);
		(void)unlinkat(dirfd, tmp, 0);
		return r;
	}
	if (close(fd) < 0 || renameat(dirfd, tmp, dirfd, name) < 0) {
		r = -errno;
		(void)unlinkat(dirfd, tmp, 0);
	}
	return r;
}

int open_parent_dir(const char *path, const char **ret_name)
{
	char *copy = xstrdup(path);
	const char *slash = strrchr(path, '/');
	int fd;

	*ret_name = slash ? slash + 1 : path;
	fd = open(slash ? (slash == path ? "/" : dirname(copy)) : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(copy);
	return fd < 0 ? -errno : fd;
}

int write_file_replace(const char *path, const char *data, size_t len, mode_t mode)
{
	const char *name;
	int dirfd = open_parent_dir(path, &name), r;

	if (dirfd < 0)
		return dirfd;
	r = write_file_at(dirfd, name, data, len, mode);
	close(dirfd);
	return r;
}

int read_file(const char *path, size_t max, char **ret, size_t *ret_len)
{
	size_t cap = 4096, len = 0;
	char *buf;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	buf = xcalloc(cap + 1, 1);
	for (;;) {
		ssize_t n;

		if (len == cap) {
			if (cap >= max) {
				free(buf);
				close(fd);
				return -EFBIG;
			}
			cap *= 2;
			buf = xreallocarray(buf, cap + 1, 1);
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0) {
			int r = -errno;

			if (errno == EINTR)
				continue;
			free(buf);
			close(fd);
			return r;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (len > max) {
		free(buf);
		return -EFBIG;
	}
	buf[len] = '\0';
	*ret = buf;
	if (ret_len)
		*ret_len = len;
	return 0;
}

void sb_printf(struct strbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		abort();
	if (b->len + (size_t)n + 1 > b->cap) {
		b->cap = (b->len + (size_t)n + 1) * 2;
		b->s = xreallocarray(b->s, b->cap, 1);
	}
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void sb_json_str(struct strbuf *b, const char *s)
{
	sb_printf(b, "\"");
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			sb_printf(b, "\\%c", c);
		else if (c == '\n')
			sb_printf(b, "\\n");
		else if (c == '\t')
			sb_printf(b, "\\t");
		else if (c < 0x20)
			sb_printf(b, "\\u%04x", c);
		else
			sb_printf(b, "%c", c);
	}
	sb_printf(b, "\"");
}

void sb_free(struct strbuf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}

static void sb_escape(struct strbuf *b, const char *s, bool backslash)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\\' && backslash)
			sb_printf(b, "\\\\");
		else if (c == '\t')
			sb_printf(b, "\\t");
		else if (c == '\n')
			sb_printf(b, "\\n");
		else if (c == '\r')
			sb_printf(b, "\\r");
		else if (c < 0x20 || c == 0x7f)
			sb_printf(b, "\\x%02x", c);
		else
			sb_printf(b, "%c", c);
	}
}

void sb_escaped(struct strbuf *b, const char *s)
{
	sb_escape(b, s, true);
}

void sb_printable(struct strbuf *b, const char *s)
{
	sb_escape(b, s, false);
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int unescape_line(char *s)
{
	char *o = s;

	for (; *s; s++) {
		int hi, lo;

		if (*s != '\\') {
			*o++ = *s;
			continue;
		}
		switch (*++s) {
		case '\\': *o++ = '\\'; break;
		case 't': *o++ = '\t'; break;
		case 'n': *o++ = '\n'; break;
		case 'r': *o++ = '\r'; break;
		case 'x':
			hi = hex_digit(s[1]);
			lo = hi < 0 ? -1 : hex_digit(s[2]);
			if (lo < 0 || (hi == 0 && lo == 0))
				return -EINVAL;
			*o++ = (char)(hi << 4 | lo);
			s += 2;
			break;
		default:
			return -EINVAL; /* also a lone trailing backslash */
		}
	}
	*o = '\0';
	return 0;
}

void sb_shell_quoted(struct strbuf *b, const char *s)
{
	sb_printf(b, "'");
	for (; *s; s++) {
		if (*s == '\'')
			sb_printf(b, "'\\''");
		else
			sb_printf(b, "%c", *s);
	}
	sb_printf(b, "'");
}
