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
#include "util.h"

/* Trees a profile (and so the journal) may write. Under /proc/sys only the
 * keys of the mm allowlist (keys.c); under the two sysfs trees, which hold
 * nothing but memory-management state, any file. */
static const char *const allowed_roots[] = {
	"/proc/sys/",
	"/sys/kernel/mm/",
	"/sys/devices/system/node/",
};

#define NOT_MM_KEY "not an mm tuning key (mmbatchd --list-keys lists them)"

static const char *allowed_root_of(const char *path)
{
	for (size_t i = 0; i < sizeof(allowed_roots) / sizeof(allowed_roots[0]); i++)
		if (strncmp(path, allowed_roots[i], strlen(allowed_roots[i])) == 0)
			return allowed_roots[i];
	return NULL;
}

static bool is_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
	       c == '-' || c == '.' || c == ':';
}

int knob_check_path(const char *path, const char **why)
{
	const char *root, *p, *comp;
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
	root = allowed_root_of(path);
	if (!root || strlen(path) == strlen(root)) {
		*why = "outside the allowed trees (mm sysctls, /sys/kernel/mm, /sys/devices/system/node)";
		return -EPERM;
	}
	if (strncmp(root, "/proc/", 6) != 0)
		return KNOB_SYSFS;
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
		if (r >= 0 || strncmp(*why, "outside", 7) == 0)
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
	const char *allowed = allowed_root_of(path);
	char *full, *tree;
	bool inside;
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
	/* A sysfs file must lie under ROOT's copy of the same allowed tree: a
	 * symlink from /sys/kernel/mm/x to /etc/passwd, or even to another
	 * allowed tree, is refused. A sysctl is one file of the allowlist: it
	 * must resolve to itself, or a symlink from an allowed key could reach
	 * any other /proc/sys file. */
	tree = xasprintf("%.*s%s", (int)n, real_root, allowed);
	if (kind == KNOB_SYSCTL)
		inside = strncmp(real, real_root, n) == 0 && strcmp(real + n, path) == 0;
	else
		inside = strncmp(real, tree, strlen(tree)) == 0;
	free(tree);
	if (!inside) {
		*why = "resolves (through a symlink) outside its allowed tree";
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

void knob_canonical(enum knob_kind kind, const char *raw, char *out, size_t size)
{
	const char *choice;
	size_t len = 0;

	choice = kind == KNOB_SYSFS ? bracketed(raw, &len) : NULL;
	if (choice) {
		snprintf(out, size, "%.*s", (int)len, choice);
		return;
	}
	collapse_space(raw, out, size);
}

void knob_original(enum knob_kind kind, const char *raw, char *out, size_t size)
{
	const char *choice;
	size_t len = 0;

	choice = kind == KNOB_SYSFS ? bracketed(raw, &len) : NULL;
	if (choice)
		snprintf(out, size, "%.*s", (int)len, choice);
	else
		snprintf(out, size, "%s", raw);
}

bool knob_matches(const char *raw, const char *target)
{
	char cur[KNOB_VALUE_MAX], want[KNOB_VALUE_MAX];
	const char *choice;
	size_t len = 0;

	/* As text first: a value that merely contains brackets (a restored
	 * original) is compared whole. */
	collapse_space(raw, cur, sizeof(cur));
	collapse_space(target, want, sizeof(want));
	if (strcmp(cur, want) == 0)
		return true;
	/* A choice file holds target when target is its bracketed choice. */
	choice = bracketed(raw, &len);
	return choice && strlen(want) == len && strncmp(choice, want, len) == 0;
}

bool knob_choice_allowed(const char *raw, const char *target)
{
	size_t len, tlen = strlen(target);
	const char *p;

	if (!bracketed(raw, &len))
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
