/* Opening a file the daemon must trust (profiles and includes; the journal
 * can use it too): the file and every directory on its path, after following
 * symlinks, must be owned by root (or by us when we are not root) and not
 * group/world-writable, sticky or not, and the file must be a regular file.
 * So only root can have put the file there or can swap it. */
#ifndef MMBATCHD_TRUST_H
#define MMBATCHD_TRUST_H

#include <limits.h>
#include <stddef.h>
#include <sys/stat.h>

#define TRUST_MAX_SYMLINKS 40 /* as the kernel's own limit */

/* Why trust_open refused a file: a static reason, and the directory on its
 * path the reason is about ("" when it is about the file itself). */
struct trust_refusal {
	const char *why;
	char dir[PATH_MAX];
};

/* Opens path read-only (O_CLOEXEC) without ever blocking: a FIFO or device
 * is refused before it is opened for reading. Returns the fd with *ret_st
 * filled; -EPERM with *ret_why filled when the file or a directory on its
 * path is not trusted; another negative errno (-ENOENT, -ELOOP, ...) when it
 * cannot be opened. */
int trust_open(const char *path, struct stat *ret_st, struct trust_refusal *ret_why);

/* The refusal as one phrase ("not a regular file", "directory '/tmp' on its
 * path is group- or world-writable") in buf. Returns buf. */
const char *trust_refusal_str(const struct trust_refusal *why, char *buf, size_t size);

#endif
