/* The exit watcher's socket through systemd's file descriptor store, so
 * that the daemon never needs CAP_NET_ADMIN: subscribing to taskstats
 * (GENL_ADMIN_PERM) and SO_RCVBUFFORCE need it, reading the subscribed
 * socket does not. mmbatchd.service runs `mmbatchd --open-exit-watcher` as
 * a privileged ExecStartPre=+, which opens and registers the socket and
 * stores it under the name "exitwatch"; systemd passes the store to the
 * main process ($LISTEN_FDS), whose bounding set lacks CAP_NET_ADMIN.
 * Without a stored socket (a run by hand, tests, another init system) the
 * daemon opens its own and drops the capability after it (caps.h). */
#ifndef MMBATCHD_WATCHSTORE_H
#define MMBATCHD_WATCHSTORE_H

#include "exitwatch.h"
#include "util.h"

/* The fd store name (FDNAME=, $LISTEN_FDNAMES). */
#define WATCHSTORE_NAME "exitwatch"

/* --open-exit-watcher: opens and registers a socket and stores it, in
 * place of one an earlier start left there, and returns once systemd has
 * processed that (a barrier). 0, 1 when the kernel lacks taskstats (nothing
 * stored: exit drains cannot be turned on), or a negative errno with err
 * set (no $NOTIFY_SOCKET included). */
int watchstore_put(struct mb_error *err);

/* The stored socket passed to us, adopted (exitwatch_adopt()): 1 with
 * *ret, 0 when none was passed, a negative errno with err set (one line)
 * when the passed fd is no such socket. */
int watchstore_take(struct exitwatch **ret, struct mb_error *err);

/* Asks systemd to close its copy of the stored socket, so that closing
 * ours ends the subscription (the kernel prunes a closed listener). No-op
 * outside systemd. */
void watchstore_drop(void);

#endif
