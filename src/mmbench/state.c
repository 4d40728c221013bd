/* The smoke run's state directory: choosing the baseline, writing the
 * verdict and last-booted (see state.h; layout in SCHEMA.md). */
#include "state.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int mb_state_valid_name(const char *s)
{
	return s && s[0] && s[0] != '.' && !strchr(s, '/') && strlen(s) <= 200;
}

static int is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int is_result_name(const char *name)
{
	size_t n = strlen(name);

	return name[0] != '.' && n > 5 && strcmp(name + n - 5, ".json") == 0;
}

static char *join(const char *a, const char *b)
{
	char *p;

	return asprintf(&p, "%s/%s", a, b) < 0 ? NULL : p;
}

/* The lexically last result name in dir other than the file skip (a full
 * path, may be NULL). 0 with *best (malloc'ed name) updated when it beats
 * it, or -errno. A missing dir has no results. */
static int newest_in(const char *dir, const char *skip, char **best)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int r = 0;

	if (!d)
		return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
	while ((e = readdir(d))) {
		char *full;
		int skipped;

		if (!is_result_name(e->d_name) || (*best && strcmp(e->d_name, *best) <= 0))
			continue;
		full = join(dir, e->d_name);
		if (!full) {
			r = -ENOMEM;
			break;
		}
		skipped = skip && strcmp(full, skip) == 0;
		free(full);
		if (skipped)
			continue;
		free(*best);
		*best = strdup(e->d_name);
		if (!*best) {
			r = -ENOMEM;
			break;
		}
	}
	closedir(d);
	return r;
}

static int read_last_booted(const char *state, char *buf, size_t size)
{
	char *path = join(state, "last-booted");
	FILE *f;

	buf[0] = '\0';
	if (!path)
		return -ENOMEM;
	f = fopen(path, "re");
	free(path);
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	if (fgets(buf, (int)size, f))
		buf[strcspn(buf, "\n")] = '\0';
	else
		buf[0] = '\0';
	fclose(f);
	return 0;
}

int mb_state_baseline(const char *state, const char *kver, const char *new_path,
		      char **ret_path)
{
	char prev[256], *results = join(state, "results"), *dir = NULL, *best = NULL;
	char *best_dir = NULL;
	DIR *d = NULL;
	struct dirent *e;
	int r;

	*ret_path = NULL;
	if (!results)
		return -ENOMEM;
	r = read_last_booted(state, prev, sizeof(prev));
	if (r < 0)
		goto out;
	/* 1. the newest result of the kernel that last passed */
	if (mb_state_valid_name(prev)) {
		dir = join(results, prev);
		if (!dir) {
			r = -ENOMEM;
			goto out;
		}
		r = newest_in(dir, new_path, &best);
		if (r < 0)
			goto out;
		if (best) {
			best_dir = dir;
			dir = NULL;
			goto found;
		}
	}
	/* 2. the newest result of any other kernel: file names are UTC stamps,
	 * so the lexically last name is the newest; equal names: the last
	 * directory */
	d = opendir(results);
	if (!d) {
		r = errno == ENOENT ? 1 : -errno;
		goto out;
	}
	while ((e = readdir(d))) {
		char *cand = NULL, *sub;

		if (e->d_name[0] == '.' || strcmp(e->d_name, kver) == 0)
			continue;
		sub = join(results, e->d_name);
		if (!sub) {
			r = -ENOMEM;
			goto out;
		}
		if (!is_dir(sub)) {
			free(sub);
			continue;
		}
		r = newest_in(sub, NULL, &cand);
		if (r < 0) {
			free(sub);
			goto out;
		}
		if (cand && (!best || strcmp(cand, best) > 0 ||
			     (strcmp(cand, best) == 0 && strcmp(sub, best_dir) > 0))) {
			free(best);
			free(best_dir);
			best = cand;
			best_dir = sub;
		} else {
			free(cand);
			free(sub);
		}
	}
	if (!best) {
		r = 1;
		goto out;
	}
found:
	*ret_path = join(best_dir, best);
	r = *ret_path ? 0 : -ENOMEM;
out:
	if (d)
		closedir(d);
	free(results);
	free(dir);
	free(best);
	free(best_dir);
	return r;
}

int mb_state_mkdir_p(const char *dir)
{
	char *p = strdup(dir);
	int r = 0;

	if (!p)
		return -ENOMEM;
	for (char *s = p + 1; ; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char c = *s;

		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST) {
			r = -errno;
			break;
		}
		*s = c;
		if (c == '\0')
			break;
	}
	if (r == 0 && !is_dir(dir))
		r = -ENOTDIR;
	free(p);
	return r;
}

int mb_state_write_atomic(const char *path, const char *text)
{
	size_t len = strlen(text);
	char *tmp;
	int fd, r = 0;

	if (asprintf(&tmp, "%s.tmpXXXXXX", path) < 0)
		return -ENOMEM;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		free(tmp);
		return r;
	}
	if (fchmod(fd, 0644) < 0 || write(fd, text, len) != (ssize_t)len || fsync(fd) < 0)
		r = errno ? -errno : -EIO;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0)
		(void)unlink(tmp);
	free(tmp);
	return r;
}

int mb_state_write_verdict(const char *state, const char *kver, const char *result,
			   const char *reason, const char *stamp)
{
	char *dir = join(state, "verdict"), *path = NULL, *line = strdup(reason), *text = NULL;
	int r;

	if (!dir || !line) {
		r = -ENOMEM;
		goto out;
	}
	for (char *s = line; *s; s++)
		if (*s == '\n' || *s == '\r')
			*s = ' ';
	r = mb_state_mkdir_p(dir);
	if (r < 0)
		goto out;
	path = join(dir, kver);
	if (!path || asprintf(&text, "result=%s\nreason=%s\nat=%s\n", result, line, stamp) < 0) {
		text = NULL;
		r = -ENOMEM;
		goto out;
	}
	r = mb_state_write_atomic(path, text);
out:
	free(dir);
	free(path);
	free(line);
	free(text);
	return r;
}

int mb_state_set_last_booted(const char *state, const char *kver)
{
	char *path = join(state, "last-booted"), *text = NULL;
	int r;

	if (!path)
		return -ENOMEM;
	if (asprintf(&text, "%s\n", kver) < 0) {
		free(path);
		return -ENOMEM;
	}
	r = mb_state_write_atomic(path, text);
	free(path);
	free(text);
	return r;
}
