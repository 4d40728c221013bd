/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * exitwatch: process-exit events from the kernel's taskstats interface
 * (generic netlink, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK on every possible
 * CPU).
 *
 * Why taskstats and not the proc connector: taskstats sends its per-exit
 * record from do_exit() *before* exit_mm(), so it carries the exiting
 * process's peak RSS (hiwater_rss), which the drain policy needs to decide
 * whether an exit is worth a drain. The proc connector's PROC_EVENT_EXIT has
 * no memory figures and is sent after the mm is gone; reading
 * /proc/PID/status at that point is racy (the pid may already be reaped).
 * Both need CAP_NET_ADMIN. Probed on the 6.18 development host: both deliver
 * exits; taskstats reported hiwater_rss 206192 KiB for a process that had
 * touched 200 MiB. The mm-wide peak is exact for what we want: the memory
 * the exit is about to free.
 *
 * One event per process: the kernel sends a per-thread record for every
 * exiting thread plus a per-thread-group aggregate when the last thread
 * exits; we report only the records of thread-group leaders (pid == tgid).
 *
 * Overruns: a flood of exits can overflow the socket buffer (ENOBUFS). That
 * loses events but is not fatal: we count it, keep the socket and carry on
 * reading (the next message is in sync again; a lost exit only means a
 * missed drain, which the next qualifying exit makes up for).
 */
#ifndef MMBATCHD_EXITWATCH_H
#define MMBATCHD_EXITWATCH_H

#include <stdint.h>
#include <sys/types.h>

struct exitwatch;

/* One exited process: its pid (== tgid), peak RSS in KiB, command name. */
struct exit_event { pid_t pid; uint64_t hiwater_rss_kb; char comm[32]; };

/* Opens and subscribes the netlink socket. Returns 0 or a negative errno
 * (-EPERM without CAP_NET_ADMIN, -ENOENT when the kernel lacks taskstats). */
int exitwatch_open(struct exitwatch **ret);            /* negative errno */

/* The privileged half alone, for a socket another process will use (the
 * unit's ExecStartPre=+ hands it to systemd's fd store, watchstore.h):
 * opened and subscribed as above, returned as a blocking fd. The
 * subscription belongs to the socket, so it holds in whoever gets it. */
int exitwatch_open_registered(int *ret_fd);

/* Takes over fd, a socket exitwatch_open_registered() made (in another
 * process), without privilege. Refused: -ENOTSOCK (not a socket),
 * -EAFNOSUPPORT (not AF_NETLINK), -EPROTONOSUPPORT (not NETLINK_GENERIC),
 * -ENOTCONN (never bound, so never registered); fd is then the caller's
 * still. On success it is the watcher's (closed by exitwatch_free()). */
int exitwatch_adopt(int fd, struct exitwatch **ret);

/* The non-blocking socket fd to poll for EPOLLIN. */
int exitwatch_fd(const struct exitwatch *w);

typedef void (*exitwatch_cb)(const struct exit_event *ev, void *userdata);

/* Reads pending messages without blocking (up to a bound per call, so an
 * exit storm cannot starve the rest of a level-triggered event loop; the fd
 * then stays readable) and calls cb once per exited process. Returns the number of events delivered (>= 0) or a negative errno
 * on a hard socket error. ENOBUFS is counted in exitwatch_overruns() and is
 * not an error: cb then gets one synthetic event {pid 0, comm "(overrun)",
 * hiwater_rss_kb UINT64_MAX}, since a lost exit may have been a large one. */
int exitwatch_dispatch(struct exitwatch *w, exitwatch_cb cb, void *userdata); /* drains pending msgs non-blocking; counts ENOBUFS overruns and resyncs */

/* How many times the socket buffer overflowed (events were lost). */
uint64_t exitwatch_overruns(const struct exitwatch *w);

/* Messages dropped because a process, not the kernel, sent them. */
uint64_t exitwatch_forged(const struct exitwatch *w);

/* The taskstats generic netlink family id (for tests that forge a record). */
uint16_t exitwatch_family(const struct exitwatch *w);

/* Deregisters (not an adopted socket) and closes. */
void exitwatch_free(struct exitwatch *w);              /* accepts NULL */

#endif
