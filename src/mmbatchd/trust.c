/* See trust.h.
 *
 * The path is walked one component at a time from "/", each lookup relative
 * to an O_PATH fd of the directory checked just before, with O_NOFOLLOW so a
 * symlink is seen as itself and resolved here (its target walked the same
 * way from the directory that holds it, or from "/"). Not realpath() and then
 * lstat() of every prefix: between those two steps, and between them and the
 * open, anyone who can write one of the directories could swap a component,
 * so what was checked need not be what is opened. With the fd walk, every
 * name is looked up in a directory already found trusted, whose entries
 * only root (or we) can change. */
#include "trust.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

static int refuse(struct trust_refusal *ret, const char *why, const char *dir)
{
	ret->why = why;
	snprintf(ret->dir, sizeof(ret->dir), "%s", dir ? dir : "");
	return -EPERM;
}

/* Directories get no sticky-bit exception: a file in /tmp can be replaced by
 * its owner, and a profile's owner must be root. */
static int check_dir(int fd, const char *where, struct trust_refusal *ret)
{
	uid_t me = geteuid();
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if (st.st_uid != 0 && st.st_uid != me)
		return refuse(ret, me == 0 ? "not owned by root" : "owned by another user", where);
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return refuse(ret, "group- or world-writable", where);
	return 0;
}

/* where (the directory dirfd stands for) after stepping into name. */
static int where_step(char *where, size_t size, const char *name)
{
	size_t n = strlen(where);

	if (strcmp(name, "..") == 0) {
		char *slash = strrchr(where, '/');

		if (slash == where)
			where[1] = '\0'; /* "/.." is "/" */
		else
			*slash = '\0';
		return 0;
	}
	if (snprintf(where + n, size - n, "%s%s", n > 1 ? "/" : "", name) >= (int)(size - n))
		return -ENAMETOOLONG;
	return 0;
}

static int open_root(char *where, size_t size, struct trust_refusal *ret)
{
	int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC), r;

	if (fd < 0)
		return -errno;
	snprintf(where, size, "/");
	r = check_dir(fd, where, ret);
	if (r < 0) {
		close(fd);
		return r;
	}
	return fd;
}

/* The regular file name in the trusted directory dirfd, whose O_PATH fd is
 * pathfd: opened for reading only now that its type is known, O_NONBLOCK in
 * case it was swapped for a FIFO meanwhile (only root could), and checked to
 * still be the same file. */
static int open_file(int dirfd, const char *name, int pathfd, struct stat *ret_st, struct trust_refusal *ret)
{
	const char *why;
	struct stat st, st2;
	int fd, flags;

	if (fstat(pathfd, &st) < 0)
		return -errno;
	if (trust_check_stat(&st, &why) < 0)
		return refuse(ret, why, NULL);
	fd = openat(dirfd, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st2) < 0 || st2.st_dev != st.st_dev || st2.st_ino != st.st_ino ||
	    trust_check_stat(&st2, &why) < 0) {
		close(fd);
		return -EAGAIN;
	}
	/* Regular files never block; clear the flag so reads are ordinary. */
	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	*ret_st = st2;
	return fd;
}

int trust_open(const char *path, struct stat *ret_st, struct trust_refusal *ret_why)
{
	char where[PATH_MAX], target[PATH_MAX];
	char *todo, *rest;
	int dirfd = -1, fd = -1, links = 0, r;

	ret_why->why = NULL;
	ret_why->dir[0] = '\0';
	if (path[0] == '/') {
		todo = xstrdup(path);
	} else {
		/* The working directory is walked from "/" too. */
		char *cwd = getcwd(NULL, 0);

		if (!cwd)
			return -errno;
		todo = xasprintf("%s/%s", cwd, path);
		free(cwd);
	}
	dirfd = open_root(where, sizeof(where), ret_why);
	if (dirfd < 0) {
		r = dirfd;
		goto out;
	}
	rest = todo;
	for (;;) {
		struct stat st;
		char *name;
		bool last;
		ssize_t n;

		while (*rest == '/')
			rest++;
		name = rest;
		rest = strchrnul(rest, '/');
		if (*rest)
			*rest++ = '\0';
		last = rest[strspn(rest, "/")] == '\0';
		if (!*name || strcmp(name, ".") == 0) {
			if (!last)
				continue;
			r = refuse(ret_why, "not a regular file", NULL); /* "/", "dir/." */
			goto out;
		}
		fd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st) < 0) {
			r = -errno;
			goto out;
		}
		if (S_ISLNK(st.st_mode)) {
			char *next;

			if (++links > TRUST_MAX_SYMLINKS) {
				r = -ELOOP;
				goto out;
			}
			n = readlinkat(fd, "", target, sizeof(target));
			if (n < 0 || (size_t)n >= sizeof(target)) {
				r = n < 0 ? -errno : -ENAMETOOLONG;
				goto out;
			}
			target[n] = '\0';
			close(fd);
			fd = -1;
			if (target[0] == '/') {
				close(dirfd);
				dirfd = open_root(where, sizeof(where), ret_why);
				if (dirfd < 0) {
					r = dirfd;
					goto out;
				}
			}
			/* The target, then what followed the link, resolved on
			 * from the directory that holds the link. */
			next = *rest ? xasprintf("%s/%s", target, rest) : xstrdup(target);
			free(todo);
			todo = rest = next;
			continue;
		}
		if (last && strcmp(name, "..") != 0) {
			r = open_file(dirfd, name, fd, ret_st, ret_why);
			goto out; /* r: the fd, or the error */
		}
		r = where_step(where, sizeof(where), name);
		if (r == 0)
			r = check_dir(fd, where, ret_why);
		if (r == 0 && last)
			r = refuse(ret_why, "not a regular file", NULL); /* ".." */
		if (r < 0)
			goto out;
		close(dirfd);
		dirfd = fd;
		fd = -1;
	}
out:
	if (fd >= 0)
		close(fd);
	if (dirfd >= 0)
		close(dirfd);
	free(todo);
	return r;
}

const char *trust_refusal_str(const struct trust_refusal *why, char *buf, size_t size)
{
	if (why->dir[0])
		snprintf(buf, size, "directory '%s' on its path is %s", why->dir, why->why);
	else
		snprintf(buf, size, "%s", why->why ? why->why : "untrusted");
	return buf;
}
