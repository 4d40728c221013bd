/* The two systemd protocols mmbatchd speaks, implemented directly instead of
 * linking libsystemd: libsystemd pulls six more libraries (libgcrypt, lzma,
 * zstd, lz4, libcap, gpg-error) into a root daemon, about 1 MiB of its RSS,
 * for two datagram writes. Both protocols are documented as stable:
 *  - sd_notify(3): "READY=1" etc. as one datagram to $NOTIFY_SOCKET (a path,
 *    or '@' for the abstract namespace); watchdog from $WATCHDOG_USEC (and
 *    $WATCHDOG_PID, when set, must be our pid); the file descriptor store
 *    ("FDSTORE=1" with the fd in SCM_RIGHTS, a "BARRIER=1" to know it was
 *    processed) and its way back ($LISTEN_FDS, sd_listen_fds(3));
 *  - the journal's native protocol (systemd.io/JOURNAL_NATIVE_PROTOCOL):
 *    KEY=value fields, one datagram to /run/systemd/journal/socket; a value
 *    with a newline uses the binary form (KEY\n, 64-bit LE length, data). */
#ifndef MMBATCHD_SDPROTO_H
#define MMBATCHD_SDPROTO_H

#include <stdint.h>

/* Sends state to $NOTIFY_SOCKET. Returns 1 when sent, 0 when there is no
 * socket to send to, a negative errno on failure. */
int sdp_notify(const char *state);
int sdp_notifyf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The same with one fd in SCM_RIGHTS ("FDSTORE=1", "BARRIER=1"). */
int sdp_notify_with_fd(const char *state, int fd);

/* sd_notify_barrier(3): "BARRIER=1" with the write end of a pipe, then
 * waits up to timeout_ms for EOF on the read end, which comes once systemd
 * has processed every message we sent before it. 1 when it did, 0 without
 * $NOTIFY_SOCKET, -ETIMEDOUT or another negative errno. */
int sdp_notify_barrier(int timeout_ms);

/* sd_listen_fds(3)'s first fd. */
#define SDP_LISTEN_FDS_START 3

/* sd_listen_fds_with_names(3) for one name: 1 with *ret_fd when
 * $LISTEN_PID is us and $LISTEN_FDNAMES names a passed fd so, 0 when
 * nothing was passed to us by that name, -EINVAL for a malformed
 * $LISTEN_FDS. Every passed fd gets FD_CLOEXEC and the three variables
 * are unset. */
int sdp_listen_fd(const char *name, int *ret_fd);

/* 1 with *ret_usec when systemd expects WATCHDOG=1 pings, else 0. */
int sdp_watchdog_usec(uint64_t *ret_usec);

/* Logs one message to the journal with a syslog priority. Negative errno
 * when the journal cannot be reached (the caller falls back to stderr). */
int sdp_journal_print(int prio, const char *identifier, const char *msg);

/* The same to another socket (tests). */
int sdp_journal_print_to(const char *socket_name, int prio, const char *identifier, const char *msg);

#endif
