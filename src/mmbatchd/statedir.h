/* The state tree (/var/lib/mmbatch): opened, made private and locked by
 * every mode that writes it (the daemon, --once, --rollback).
 *  - It is 0700 whoever created it (a kernel hook or a package may make it
 *    0755, and the canary history and the journal are root's business): a
 *    directory of ours with any other mode is set to 0700, with a log line;
 *    one owned by another user is refused, since that user could replace
 *    anything in it.
 *  - Its lock file serializes those modes (the lock stays where earlier
 *    versions take it, so that an upgrade never runs two at once).
 *  - The journal lives in its own subdirectory (journal.h), which
 *    mmbatch-smoke.service cannot reach although it writes the rest of the
 *    tree. A journal an earlier version left at the old place is moved
 *    there once, when that subdirectory is created (the first start after
 *    the upgrade); one found there later is left alone with a warning: the
 *    smoke unit could have planted it. */
#ifndef MMBATCHD_STATEDIR_H
#define MMBATCHD_STATEDIR_H

/* Returns the locked lock file's fd, or a negative errno after printing why
 * on stderr. */
int statedir_open(const char *dir);

#endif
