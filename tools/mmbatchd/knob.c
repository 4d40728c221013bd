/* See knob.h. */
#include "knob.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

/* Trees a profile (and so the journal) may write. Sysctls: only vm and
 * kernel, the two /proc/sys trees the systemd unit leaves writable. */
static const char *const allowed_roots[] = {
	"/proc/sys/vm/",
	"/proc/sys/kernel/",
	"/sys/kernel/mm/",
	"/sys/devices/system/node/",
};

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
		*why = "outside the allowed trees (/proc/sys/vm, /proc/sys/kernel, /sys/kernel/mm, /sys/devices/system/node)";
		return -EPERM;
	}
	return strncmp(root, "/proc/", 6) == 0 ? KNOB_SYSCTL : KNOB_SYSFS;
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
			*why = "sysctl keys must be under vm. or kernel.";
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
	size_t n;
	int r;

	r = knob_check_path(path, why);
	if (r < 0)
		return r;
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
	/* The resolved file must lie under ROOT's copy of the same allowed tree:
	 * a symlink from /sys/kernel/mm/x to /etc/passwd, or even to another
	 * allowed tree, is refused. */
	tree = xasprintf("%.*s%s", (int)n, real_root, allowed);
	if (strncmp(real, tree, strlen(tree)) != 0) {
		free(tree);
		*why = "resolves (through a symlink) outside its allowed tree";
		return -EPERM;
	}
	free(tree);
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

void knob_canonical(const char *raw, char *out, size_t size)
{
	const char *choice;
	size_t len = 0, o = 0;
	bool space = false;

	choice = bracketed(raw, &len);
	if (choice) {
		snprintf(out, size, "%.*s", (int)len, choice);
		return;
	}
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

bool knob_matches(const char *raw, const char *target)
{
	char cur[KNOB_VALUE_MAX], want[KNOB_VALUE_MAX];

	knob_canonical(raw, cur, sizeof(cur));
	/* The target is canonicalised as plain text: a profile never brackets. */
	if (strchr(target, '['))
		snprintf(want, sizeof(want), "%s", target);
	else
		knob_canonical(target, want, sizeof(want));
	return strcmp(cur, want) == 0;
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

char *knob_undo_line(const char *root, const char *path, const char *value)
{
	if (!*root && strncmp(path, "/proc/sys/", 10) == 0) {
		char *key = knob_sysctl_key(path), *line;

		line = xasprintf("sysctl -w %s='%s'", key, value);
		free(key);
		return line;
	}
	return xasprintf("echo '%s' > %s%s", value, root, path);
}
