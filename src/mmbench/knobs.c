/* Saved kernel knobs and their restore (see knobs.h). The restore runs from
 * a signal handler too, so it uses only open/write/close on buffers filled
 * in beforehand. */
#include "knobs.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define KNOBS_MAX 8

struct knob {
	char path[128];
	char old[64];
};

static struct knob knobs[KNOBS_MAX];
static volatile sig_atomic_t nknobs;
static int handlers_set;

static void restore_one(const struct knob *k)
{
	/* O_TRUNC: sysfs ignores it, a plain file (the unit test) needs it */
	int fd = open(k->path, O_WRONLY | O_TRUNC | O_CLOEXEC);

	if (fd < 0)
		return;
	if (write(fd, k->old, strlen(k->old)) < 0) {
		/* nothing more to do in a handler; the caller's summary names the knob */
	}
	close(fd);
}

void mb_knob_restore_all(void)
{
	while (nknobs > 0) {
		nknobs--;
		restore_one(&knobs[nknobs]);
	}
}

static void on_signal(int sig)
{
	mb_knob_restore_all();
	signal(sig, SIG_DFL);
	raise(sig);
}

void mb_knob_forget_in_child(void)
{
	nknobs = 0;
	if (handlers_set) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
	}
}

int mb_knob_set(const char *path, const char *value)
{
	int saved = 0, r;

	for (int i = 0; i < nknobs; i++)
		saved |= strcmp(knobs[i].path, path) == 0;
	if (!saved) {
		struct knob *k;

		if (nknobs >= KNOBS_MAX)
			return -ENOSPC;
		k = &knobs[nknobs];
		snprintf(k->path, sizeof(k->path), "%s", path);
		r = mb_read_line(path, k->old, sizeof(k->old));
		if (r < 0)
			return r;
		/* numa_balancing and ksm/run read back as plain numbers */
		if (!handlers_set) {
			signal(SIGINT, on_signal);
			signal(SIGTERM, on_signal);
			signal(SIGHUP, on_signal);
			handlers_set = 1;
		}
		nknobs++;
	}
	return mb_write_string(path, value);
}
