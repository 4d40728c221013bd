/* See knob.h. */
#include "knob.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "keys.h"
#include "sysfs_keys.h"
#include "util.h"

#define NOT_MM_KEY "not an mm tuning key (mmbatchd --list-keys lists them)"
#define NOT_SYSFS_KEY "not an allowed sysfs file (mmbatchd --list-keys lists them)"

static bool is_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
	       c == '-' || c == '.' || c == ':';
}

int knob_check_path(const char *path, const char **why)
{
	const char *p, *comp;
	bool known;
	char *key;

	if (path[0] != '/') {
		*why = "must be an absolute path";
		return -EPERM;
	}
	if (strlen(path) >= PATH_MAX / 2) {
		*why = "path too long";
		return -EPERM;
	}
	for (p = path; *p; p++) {
		if (*p != '/' && !is_name_char(*p)) {
			*why = "contains a character outside [A-Za-z0-9_.:-/]";
			return -EPERM;
		}
	}
	for (comp = path + 1;; comp = p + 1) {
		size_t n;

		p = strchrnul(comp, '/');
		n = (size_t)(p - comp);
		if (n == 0 || (n == 1 && comp[0] == '.') || (n == 2 && comp[0] == '.' && comp[1] == '.')) {
			*why = "empty, '.' or '..' path component";
			return -EPERM;
		}
		if (!*p)
			break;
	}
	/* Both allowlists are exact: one file per entry, no prefix, no
	 * pattern (keys.c, sysfs_keys.c). */
	if (strncmp(path, "/proc/sys/", 10) != 0) {
		if (!sysfs_key_find(path)) {
			*why = NOT_SYSFS_KEY;
			return -EPERM;
		}
		return KNOB_SYSFS;
	}
	key = knob_sysctl_key(path);
	known = mm_key_find(key) != NULL;
	free(key);
	if (!known) {
		*why = NOT_MM_KEY;
		return -EPERM;
	}
	return KNOB_SYSCTL;
}

char *knob_sysctl_path(const char *key, const char **why)
{
	char *path;
	int r;

	if (!*key || strchr(key, '/')) {
		*why = "not a dotted sysctl key";
		return NULL;
	}
	path = xasprintf("/proc/sys/%s", key);
	for (char *p = path + strlen("/proc/sys/"); *p; p++)
		if (*p == '.')
			*p = '/';
	r = knob_check_path(path, why);
	if (r != KNOB_SYSCTL) {
		if (r >= 0)
			*why = NOT_MM_KEY;
		else if (strncmp(*why, "empty", 5) == 0)
			*why = "empty component in dotted key";
		free(path);
		return NULL;
	}
	return path;
}

char *knob_sysctl_key(const char *path)
{
	char *key = xstrdup(path + strlen("/proc/sys/"));

	for (char *p = key; *p; p++)
		if (*p == '/')
			*p = '.';
	return key;
}

char *knob_display_name(const char *path)
{
	if (strncmp(path, "/proc/sys/", 10) == 0)
		return knob_sysctl_key(path);
	return xstrdup(path);
}

int knob_resolve(const char *root, const char *path, char **ret, const char **why)
{
	char real_root[PATH_MAX], real[PATH_MAX];
	char *full;
	size_t n;
	int kind, r;

	kind = knob_check_path(path, why);
	if (kind < 0)
		return kind;
	if (!realpath(*root ? root : "/", real_root))
		return -errno;
	n = strlen(real_root);
	if (n == 1)
		n = 0; /* root "/": prefix is empty */
	full = xasprintf("%s%s", root, path);
	if (!realpath(full, real)) {
		r = -errno;
		free(full);
		return r;
	}
	free(full);
	/* An allowed file must be the file itself, sysctl or sysfs: a symlink
	 * from an allowed name (or a symlinked directory above it) could reach
	 * any other file, /etc/passwd or kernel.core_pattern alike. The real
	 * /proc/sys and /sys/kernel/mm hold no symlink on the way to any
	 * allowed file. */
	if (strncmp(real, real_root, n) != 0 || strcmp(real + n, path) != 0) {
		*why = "resolves through a symlink (an allowed file must be the file itself)";
		return -EPERM;
	}
	*ret = xstrdup(real);
	return 0;
}

int knob_read(const char *real, char *buf, size_t size)
{
	ssize_t n;
	size_t len = 0;
	int fd;

	fd = open(real, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
	if (fd < 0)
		return -errno;
	while (len + 1 < size) {
		n = read(fd, buf + len, size - 1 - len);
		if (n < 0) {
			int r = -errno;

			if (errno == EINTR)
				continue;
			close(fd);
			return r;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	strip_trailing(buf);
	return 0;
}

int knob_write(const char *real, const char *value)
{
	char *line = xasprintf("%s\n", value);
	size_t len = strlen(line);
	ssize_t n;
	int fd, r = 0;

	fd = open(real, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
	if (fd < 0) {
		r = -errno;
		goto out;
	}
	/* Kernel knobs take the value in one write(); a short write is an error. */
	n = write(fd, line, len);
	if (n < 0)
		r = -errno;
	else if ((size_t)n != len)
		r = -EIO;
	if (close(fd) < 0 && r == 0)
		r = -errno;
out:
	free(line);
	return r;
}

/* Finds "[choice]" in raw; returns its start and length, or NULL. */
static const char *bracketed(const char *raw, size_t *len)
{
	const char *open = strchr(raw, '['), *close;

	if (!open)
		return NULL;
	close = strchr(open, ']');
	if (!close || close == open + 1)
		return NULL;
	*len = (size_t)(close - open - 1);
	return open + 1;
}

/* Copies raw with runs of whitespace collapsed to one space, none at the
 * ends (multi-value sysctls print tabs, and accept spaces). */
static void collapse_space(const char *raw, char *out, size_t size)
{
	size_t o = 0;
	bool space = false;

	while (*raw == ' ' || *raw == '\t' || *raw == '\n')
		raw++;
	for (; *raw && o + 1 < size; raw++) {
		if (*raw == ' ' || *raw == '\t' || *raw == '\n') {
			space = true;
			continue;
		}
		if (space && o + 2 < size)
			out[o++] = ' ';
		space = false;
		out[o++] = *raw;
	}
	out[o] = '\0';
}

/* The bracketed choice of raw when path is a choice file (sysfs_keys.c
 * says which), else NULL: brackets in any other file's text are text. */
static const char *choice_of(const char *path, const char *raw, size_t *len)
{
	return sysfs_is_choice_file(path) ? bracketed(raw, len) : NULL;
}

void knob_canonical(const char *path, const char *raw, char *out, size_t size)
{
	const char *choice;
	size_t len = 0;

	choice = choice_of(path, raw, &len);
	if (choice) {
		snprintf(out, size, "%.*s", (int)len, choice);
		return;
	}
	collapse_space(raw, out, size);
}

void knob_original(const char *path, const char *raw, char *out, size_t size)
{
	const char *choice;
	size_t len = 0;

	choice = choice_of(path, raw, &len);
	if (choice)
		snprintf(out, size, "%.*s", (int)len, choice);
	else
		snprintf(out, size, "%s", raw);
}

bool knob_matches(const char *path, const char *raw, const char *target)
{
	char cur[KNOB_VALUE_MAX], want[KNOB_VALUE_MAX];
	const char *choice;
	size_t len = 0;

	/* As text first: a choice file's raw content never equals a single
	 * word, and any other file is compared as text only. */
	collapse_space(raw, cur, sizeof(cur));
	collapse_space(target, want, sizeof(want));
	if (strcmp(cur, want) == 0)
		return true;
	/* A choice file holds target when target is its bracketed choice. */
	choice = choice_of(path, raw, &len);
	return choice && strlen(want) == len && strncmp(choice, want, len) == 0;
}

bool knob_choice_allowed(const char *path, const char *raw, const char *target)
{
	size_t len, tlen = strlen(target);
	const char *p;

	if (!choice_of(path, raw, &len))
		return true;
	/* Choices are space-separated words, one of them in brackets. */
	for (p = raw; *p;) {
		size_t n;

		while (*p == ' ' || *p == '[' || *p == ']')
			p++;
		n = strcspn(p, " []");
		if (n == tlen && n > 0 && strncmp(p, target, n) == 0)
			return true;
		p += n;
	}
	return false;
}

/* Appends a word that the shell reads back as s: as it is when it has only
 * path characters, else single-quoted. */
static void sb_shell_word(struct strbuf *b, const char *s)
{
	for (const char *c = s; *c; c++) {
		if (*c != '/' && !is_name_char(*c)) {
			sb_shell_quoted(b, s);
			return;
		}
	}
	sb_printf(b, "%s", s);
}

char *knob_undo_line(const char *root, const char *path, const char *value)
{
	struct strbuf b = { 0 };

	if (!*root && strncmp(path, "/proc/sys/", 10) == 0) {
		char *key = knob_sysctl_key(path);

		sb_printf(&b, "sysctl -w ");
		sb_shell_word(&b, key);
		sb_printf(&b, "=");
		sb_shell_quoted(&b, value);
		free(key);
	} else {
		char *file = xasprintf("%s%s", root, path);

		sb_printf(&b, "echo ");
		sb_shell_quoted(&b, value);
		sb_printf(&b, " > ");
		sb_shell_word(&b, file);
		free(file);
	}
	return b.s;
}
