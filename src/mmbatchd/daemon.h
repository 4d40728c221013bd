/* The long-running mode: apply the profile, watch exits and drain, reload
 * on SIGHUP, roll back on SIGTERM/SIGINT. Event-driven: epoll over a
 * signalfd, the exit watcher, the drain timer and (only when systemd asks
 * for it) a watchdog timer; nothing wakes it up otherwise. */
#ifndef MMBATCHD_DAEMON_H
#define MMBATCHD_DAEMON_H

#include <stdbool.h>

#include "profile.h"
#include "util.h"

struct daemon_opts {
	const char *profile_path;
	const char *root;         /* "" for the host */
	const char *state_dir;
	const char *metrics_file; /* NULL: the profile's metrics_file, if any */
	bool foreground;
};

/* Runs until stopped. p (already loaded and validated by the caller) is
 * taken over. Returns 0 after a clean stop, or a negative errno with err set
 * (err->msg empty for runtime failures that were already logged). Signals
 * SIGTERM, SIGINT and SIGHUP must be blocked by the caller. */
int daemon_run(const struct daemon_opts *o, struct profile *p, struct mb_error *err);

#endif
