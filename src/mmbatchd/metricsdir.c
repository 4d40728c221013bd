/* See metricsdir.h. */
#include "metricsdir.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int fail(int fd, int r, const char **why, const char *reason)
{
	if (fd >= 0)
		close(fd);
	*why = reason;
	return r;
}

int metricsdir_open(const char *path, const char *state_dir, const char **ret_name, const char **why)
{
	struct stat st, state_st;
	bool have_state;
	const char *p = path, *name;
	uid_t other = 0; /* the one user besides root that may own a directory */
	int fd;

	*why = NULL;
	if (path[0] != '/')
		return fail(-1, -EINVAL, why, "must be an absolute path");
	name = strrchr(path, '/') + 1;
	if (!*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return fail(-1, -EINVAL, why, "must name a file");
	/* A state directory that does not exist yet holds nothing to protect:
	 * the daemon creates it before it checks. */
	have_state = stat(state_dir, &state_st) == 0;
	fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		char comp[NAME_MAX + 1];
		size_t len;
		int next;

		if (fstat(fd, &st) < 0)
			return fail(fd, -errno, why, NULL);
		if (have_state && st.st_dev == state_st.st_dev && st.st_ino == state_st.st_ino)
			return fail(fd, -EPERM, why,
				    "is inside the state directory (it would replace the journal, the lock or the canary's state)");
		if (st.st_mode & (S_IWGRP | S_IWOTH))
			return fail(fd, -EPERM, why, "has a group- or world-writable directory on its path");
		if (st.st_uid != 0 && other != 0 && st.st_uid != other)
			return fail(fd, -EPERM, why, "has directories of two users other than root on its path");
		if (st.st_uid != 0)
			other = st.st_uid;
		while (*p == '/')
			p++;
		if (p == name) {
			*ret_name = name;
			return fd;
		}
		len = strcspn(p, "/");
		if (len > NAME_MAX)
			return fail(fd, -ENAMETOOLONG, why, NULL);
		memcpy(comp, p, len);
		comp[len] = '\0';
		p += len;
		if (strcmp(comp, ".") == 0 || strcmp(comp, "..") == 0)
			return fail(fd, -EINVAL, why, "must not hold a '.' or '..' component");
		next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0) {
			int r = -errno;

			/* O_NOFOLLOW on a symlink: ELOOP; O_DIRECTORY on one: ENOTDIR. */
			if (r == -ELOOP || r == -ENOTDIR) {
				struct stat lst;

				if (fstatat(fd, comp, &lst, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(lst.st_mode))
					return fail(fd, -EPERM, why, "has a symlink on its directory path");
			}
			if (r == -ENOENT)
				return fail(fd, r, why, "names a directory that does not exist");
			return fail(fd, r, why, NULL);
		}
		close(fd);
		fd = next;
	}
}

int metricsdir_check(const char *path, const char *file, int line, int col, const char *state_dir,
		     struct mb_error *err)
{
	const char *name, *why = NULL;
	int fd;

	if (!path)
		return 0;
	fd = metricsdir_open(path, state_dir, &name, &why);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	if (file)
		mb_error_set(err, file, line, col, "metrics_file '%s' %s", path, why ? why : strerror(-fd));
	else
		mb_error_set(err, "--metrics-file", 0, 0, "'%s' %s", path, why ? why : strerror(-fd));
	return -EPERM;
}
