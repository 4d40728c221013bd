/* See statedir.h. */
#include "statedir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "journal.h"
#include "log.h"

/* Ours (root's, or the caller's when not root) and 0700, or made so. */
static int private_dir(int fd, const char *path)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		fprintf(stderr, "mmbatchd: refusing state directory %s: owned by uid %u, not root\n", path,
			(unsigned)st.st_uid);
		return -EPERM;
	}
	if ((st.st_mode & 07777) == 0700)
		return 0;
	if (fchmod(fd, 0700) < 0)
		return -errno;
	log_notice("state directory %s was mode %04o (readable by others): set to 0700", path,
		   (unsigned)(st.st_mode & 07777));
	return 0;
}

/* Makes and checks STATE/mmbatchd; moves an old STATE/journal in when the
 * directory is new. */
static int journal_dir_open(int dirfd, const char *dir)
{
	char *path = xasprintf("%s/%s", dir, JOURNAL_DIR);
	bool created = mkdirat(dirfd, JOURNAL_DIR, 0700) == 0;
	int fd, r;

	if (!created && errno != EEXIST) {
		r = -errno;
		fprintf(stderr, "mmbatchd: cannot create %s: %s\n", path, strerror(-r));
		goto out;
	}
	/* O_NOFOLLOW: whoever planted a symlink there does not choose where
	 * the journal goes. */
	fd = openat(dirfd, JOURNAL_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		fprintf(stderr, "mmbatchd: cannot open %s: %s\n", path, strerror(-r));
		goto out;
	}
	r = private_dir(fd, path);
	if (r == 0 && created) {
		if (renameat(dirfd, JOURNAL_NAME, fd, JOURNAL_NAME) == 0)
			log_notice("moved the journal of an earlier mmbatchd from %s/%s to %s/%s", dir, JOURNAL_NAME,
				   path, JOURNAL_NAME);
		else if (errno != ENOENT)
			log_warning("cannot move %s/%s to %s: %s; it is not restored", dir, JOURNAL_NAME, path,
				    strerror(errno));
	} else if (r == 0 && faccessat(dirfd, JOURNAL_NAME, F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
		log_warning("ignoring %s/%s: journals are kept in %s, and one at the old place is taken only at the "
			    "first start after an upgrade", dir, JOURNAL_NAME, path);
	}
	close(fd);
out:
	free(path);
	return r;
}

int statedir_open(const char *dir)
{
	int fd, lock = -1, r;

	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		r = -errno;
		fprintf(stderr, "mmbatchd: cannot create state dir %s: %s\n", dir, strerror(-r));
		return r;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		fprintf(stderr, "mmbatchd: cannot open state dir %s: %s\n", dir, strerror(-r));
		return r;
	}
	r = private_dir(fd, dir);
	if (r < 0) {
		if (r != -EPERM)
			fprintf(stderr, "mmbatchd: cannot make state dir %s private: %s\n", dir, strerror(-r));
		goto out;
	}
	lock = openat(fd, "lock", O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (lock < 0) {
		r = -errno;
		fprintf(stderr, "mmbatchd: cannot open %s/lock: %s\n", dir, strerror(-r));
		goto out;
	}
	if (flock(lock, LOCK_EX | LOCK_NB) < 0) {
		r = -errno;
		fprintf(stderr, "mmbatchd: %s is in use by another mmbatchd (%s)\n", dir, strerror(-r));
		goto out;
	}
	/* Under the lock: no other mmbatchd moves or writes the journal. */
	r = journal_dir_open(fd, dir);
out:
	close(fd);
	if (r < 0) {
		if (lock >= 0)
			close(lock);
		return r;
	}
	return lock;
}
