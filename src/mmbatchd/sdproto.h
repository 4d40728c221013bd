/* The two systemd protocols mmbatchd speaks, implemented directly instead of
 * linking libsystemd: libsystemd pulls six more libraries (libgcrypt, lzma,
 * zstd, lz4, libcap, gpg-error) into a root daemon, about 1 MiB of its RSS,
 * for two datagram writes. Both protocols are documented as stable:
 *  - sd_notify(3): "READY=1" etc. as one datagram to $NOTIFY_SOCKET (a path,
 *    or '@' for the abstract namespace); watchdog from $WATCHDOG_USEC (and
 *    $WATCHDOG_PID, when set, must be our pid);
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

/* 1 with *ret_usec when systemd expects WATCHDOG=1 pings, else 0. */
int sdp_watchdog_usec(uint64_t *ret_usec);

/* Logs one message to the journal with a syslog priority. Negative errno
 * when the journal cannot be reached (the caller falls back to stderr). */
int sdp_journal_print(int prio, const char *identifier, const char *msg);

/* The same to another socket (tests). */
int sdp_journal_print_to(const char *socket_name, int prio, const char *identifier, const char *msg);

#endif
