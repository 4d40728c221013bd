/* See knob_change.h. */
#include "knob_change.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "knob.h"
#include "log.h"

int knob_write_checked(const char *path, const char *real, const char *value)
{
	char raw[KNOB_VALUE_MAX];
	int r;

	r = knob_write(real, value);
	if (r < 0)
		return r;
	r = knob_read(real, raw, sizeof(raw));
	if (r < 0)
		return r;
	return knob_matches(path, raw, value) ? 0 : -EREMOTEIO;
}

void knob_log_change(const char *root, const char *name, const char *path, const char *from, const char *to,
		     const char *why)
{
	char *undo = knob_undo_line(root, path, from);

	log_notice("'%s' (%s) -> (%s) %s; undo: %s", name, from, to, why, undo);
	free(undo);
}
