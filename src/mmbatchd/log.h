/* Logging for mmbatchd: to the journal under systemd, else to stderr.
 *
 * Priorities are syslog's (LOG_ERR .. LOG_DEBUG). Helpers log at debug at
 * most; the caller that decides what a failure means logs it once. */
#ifndef MMBATCHD_LOG_H
#define MMBATCHD_LOG_H

#include <syslog.h>

void mb_log(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Messages with a priority numerically above level are dropped.
 * Default LOG_INFO. */
void mb_log_set_level(int level);
int mb_log_get_level(void);

/* Forces the journal on or off (a daemonized process has no stderr). */
void mb_log_to_journal(int on);

#define log_debug(...)   mb_log(LOG_DEBUG, __VA_ARGS__)
#define log_info(...)    mb_log(LOG_INFO, __VA_ARGS__)
#define log_notice(...)  mb_log(LOG_NOTICE, __VA_ARGS__)
#define log_warning(...) mb_log(LOG_WARNING, __VA_ARGS__)
#define log_error(...)   mb_log(LOG_ERR, __VA_ARGS__)

#endif
