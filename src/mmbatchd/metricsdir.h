/* Where the Prometheus textfile may go. The daemon writes it as root, into
 * a directory that another user (node_exporter's) may own, so the path is
 * checked the same way by --check, at start, at a reload and before every
 * write:
 *  - absolute, with no "." or ".." component, naming a file;
 *  - its directories opened one by one from "/" with O_NOFOLLOW|O_DIRECTORY:
 *    a symlink anywhere on the way is refused, so that whoever can write a
 *    directory on the path cannot swap the next one for a symlink and make
 *    root write into a directory of its choice;
 *  - no directory group- or world-writable, and each owned by root or by
 *    one other user, the same for the whole path (the collector's: Debian's
 *    prometheus-node-exporter owns /var/lib/prometheus, above the root-owned
 *    node-exporter directory). That user can swap what lies below its
 *    directory only for directories it owns or already could move, never
 *    for a symlink (O_NOFOLLOW) nor a directory of a third user, and in its
 *    own directory it can only rename or remove what we write: the file is a
 *    fresh O_EXCL|O_NOFOLLOW temp file renamed inside the directory fd
 *    (write_file_at()). Under mmbatchd.service, without CAP_DAC_OVERRIDE,
 *    the daemon can write only where root may by the mode bits;
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
