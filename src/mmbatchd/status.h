/* The daemon's state for --status (status.json in the state dir, replaced
 * atomically at every change) and, optionally, a Prometheus textfile for
 * node_exporter's textfile collector. Written on state changes and after
 * each drain, never on a timer. */
#ifndef MMBATCHD_STATUS_H
#define MMBATCHD_STATUS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "plan.h"
#include "drain.h"
#include "journal.h"

#define STATUS_NAME "status.json"

struct status_info {
	const char *state;       /* "running", "stopped", "failed" */
	const char *profile;
	const char *root;
	const struct plan *plan;       /* NULL when nothing is applied */
	const struct journal *journal; /* originals, may be NULL */
	const char *rollback;
	bool drain_on_exit;
	const char *drain_method;
	const struct drain_stats *drain; /* NULL without a drainer */
	uint64_t overruns;
	uint64_t reloads;
	const char *last_error;  /* NULL when none */
};

/* The JSON document (caller frees). */
char *status_json(const struct status_info *si);

int status_save(const char *state_dir, const struct status_info *si);
/* Writes the Prometheus textfile; refuses a path metricsdir_open() refuses
 * (one inside the state tree, through a symlink, ...). Negative errno. */
int metrics_save(const char *path, const char *state_dir, const struct status_info *si);

/* --status: prints status.json; "running" becomes "dead" when its pid is
 * gone. Without a status file prints {"state":"inactive"}. Negative errno. */
int status_print(const char *state_dir, FILE *f);

#endif
