/* See log.h. The journal is chosen once, on the first message, from
 * INVOCATION_ID (set by systemd for every unit it starts). Messages are
 * shown with their control bytes escaped (sb_printable): every message is
 * exactly one line. */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "sdproto.h"
#include "util.h"

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
	struct strbuf line = { 0 };
	char msg[2048];
	va_list ap;

	if (prio > log_level)
		return;
	if (use_journal < 0)
		use_journal = getenv("INVOCATION_ID") != NULL;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* One message is one line: a newline or other control byte in a
	 * process name, a value or a path is shown escaped, never as a line
	 * (or terminal sequence) of its own. */
	sb_printf(&line, "%s", "");
	sb_printable(&line, msg);
	if (use_journal) {
		/* No journal (journald down): stderr, which systemd also collects. */
		if (sdp_journal_print(prio, "mmbatchd", line.s) < 0)
			fprintf(stderr, "<%d>mmbatchd: %s\n", prio, line.s);
	} else
		fprintf(stderr, "mmbatchd: %s\n", line.s);
	sb_free(&line);
}
