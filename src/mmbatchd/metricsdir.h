/* Where the Prometheus textfile may go. The daemon writes it as root, into
 * a directory that another user (node_exporter's) may own, so the path is
 * checked the same way by --check, at start, at a reload and before every
 * write:
 *  - absolute, with no "." or ".." component, naming a file;
 *  - its directories opened one by one from "/" with O_NOFOLLOW|O_DIRECTORY:
 *    a symlink anywhere on the way is refused, so that whoever can write a
 *    directory on the path cannot swap the next one for a symlink and make
 *    root write into a directory of its choice;
 *  - every directory above the last owned by root and writable by nobody
 *    else; the last one not group- or world-writable, and owned by root or
 *    by anyone else (the collector's user: Debian's prometheus-node-exporter
 *    owns /var/lib/prometheus/node-exporter). That owner can only rename or
 *    remove what we write: the file is a fresh O_EXCL|O_NOFOLLOW temp file
 *    renamed inside the directory fd (write_file_at());
 *  - no directory on the way is the state directory (compared by device and
 *    inode, which no spelling, symlink or bind mount changes): nothing in
 *    the state tree (the journal, the lock, canary/state, ...) can be
 *    replaced by Prometheus text. */
#ifndef MMBATCHD_METRICSDIR_H
#define MMBATCHD_METRICSDIR_H

#include "util.h"

/* Opens the metrics file's directory as above: the fd (O_DIRECTORY) with
 * *ret_name pointing into path at the file name, or a negative errno with
 * *why set to a static reason (NULL: the errno says it). */
int metricsdir_open(const char *path, const char *state_dir, const char **ret_name, const char **why);

/* The same check up front, as a user-facing error: the profile key's
 * FILE:LINE:COL when m is set (file NULL means --metrics-file). 0, or -EPERM
 * with err set. path NULL: nothing to check. */
int metricsdir_check(const char *path, const char *file, int line, int col, const char *state_dir,
		     struct mb_error *err);

#endif
