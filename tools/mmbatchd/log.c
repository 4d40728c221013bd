/* See log.h. The journal is chosen once, on the first message, from
 * INVOCATION_ID (set by systemd for every unit it starts). */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "sdproto.h"

static int log_level = LOG_INFO;
static int use_journal = -1; /* -1: not decided yet */

void mb_log_set_level(int level)
{
	log_level = level;
}

int mb_log_get_level(void)
{
	return log_level;
}

void mb_log_to_journal(int on)
{
	use_journal = !!on;
}

void mb_log(int prio, const char *fmt, ...)
{
	va_list ap;

	if (prio > log_level)
		return;
	if (use_journal < 0)
		use_journal = getenv("INVOCATION_ID") != NULL;

	va_start(ap, fmt);
	if (use_journal) {
		char msg[2048];

		vsnprintf(msg, sizeof(msg), fmt, ap);
		/* No journal (journald down): stderr, which systemd also collects. */
		if (sdp_journal_print(prio, "mmbatchd", msg) < 0)
			fprintf(stderr, "<%d>mmbatchd: %s\n", prio, msg);
	} else {
		fputs("mmbatchd: ", stderr);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	}
	va_end(ap);
}
