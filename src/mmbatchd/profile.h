/* Profiles: YAML files that name the sysctl/sysfs values to apply, the exit
 * drain policy, the post-install smoke run and the rollback mode.
 *
 * profile_load() parses a file and its includes (format in
 * configs/profiles/README.md) into one merged profile and checks everything
 * that does not depend on the running kernel (every value against its key's
 * schema, value_schema.h, and a dangerous one against allow_dangerous); plan_new() (plan.h) checks the
 * rest against it. Every error is one line "FILE:LINE:COL: message". */
#ifndef MMBATCHD_PROFILE_H
#define MMBATCHD_PROFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "drain.h"
#include "knob.h"
#include "util.h"

#define PROFILE_DIR_DEFAULT "/usr/share/mmbatch/profiles"
#define PROFILE_VALUE_MAX 1024
/* Limits of one load (profile_load or profile_load_string), so that a
 * hostile or broken profile costs a bounded time and memory, also in a SIGHUP
 * reload (which holds up SIGTERM until it is done). A repeated include is
 * read once and costs only its entry. Each is a FILE:LINE:COL error. */
#define PROFILE_MAX_BYTES (1024 * 1024)       /* one file */
#define PROFILE_MAX_TOTAL_BYTES (1024 * 1024) /* all files together */
#define PROFILE_MAX_INCLUDE_DEPTH 16
#define PROFILE_MAX_INCLUDES 128   /* include entries in all files, repeats too */
#define PROFILE_MAX_KNOBS 1024     /* sysctl + sysfs keys of the merged profile */
#define PROFILE_MAX_BENCHMARKS 64  /* smoke.benchmarks entries */

/* Where a key was written; file points into profile->files. */
struct mark {
	const char *file;
	int line, col;
};

struct knob_setting {
	enum knob_kind kind;
	char *path;     /* logical path, e.g. /proc/sys/vm/swappiness */
	char *value;    /* target value, as written */
	bool optional;  /* may be absent on the running kernel */
	bool dangerous; /* the value is in the key's dangerous class (value_schema.h) */
	struct mark mark;       /* of the key */
	struct mark value_mark; /* of the value */
};

enum rollback_mode { ROLLBACK_ON_STOP, ROLLBACK_NEVER };

struct smoke_settings {
	char **benchmarks;
	size_t n_benchmarks;
	double threshold_pct;
	unsigned timeout_s;
};

struct profile {
	char *path;             /* the top-level file, as given */
	char **files;           /* every file read (marks point here) */
	size_t n_files;
	struct knob_setting *knobs;
	size_t n_knobs;
	struct drain_policy drain;
	struct mark drain_method_mark; /* where method was set (or the drain key) */
	struct smoke_settings smoke;
	enum rollback_mode rollback;
	char *metrics_file;     /* NULL when unset */
	struct mark metrics_file_mark; /* of its value, when set */
	/* allow_dangerous: keys (dotted sysctl or sysfs path) that may take a
	 * dangerous value; the union over the profile and its includes. */
	char **allow_dangerous;
	size_t n_allow_dangerous;
};

/* Directory searched for bare include names after the including file's own
 * directory (default PROFILE_DIR_DEFAULT). The string is not copied. */
void profile_set_search_dir(const char *dir);

/* Loads path and its includes (trusted files only, see trust.h). Returns 0,
 * or a negative errno with err filled. */
int profile_load(const char *path, struct profile **ret, struct mb_error *err);

/* Loads from memory, as if read from name (no includes allowed: used by the
 * fuzzer and unit tests); the same limits apply. */
int profile_load_string(const char *name, const char *data, size_t len, struct profile **ret,
			struct mb_error *err);

void profile_free(struct profile *p);

/* The smoke section as one JSON object ({"benchmarks":[...],"threshold_pct":N,
 * "timeout_s":N}, what mmbatch-smoke reads from --show-smoke). Caller frees. */
char *profile_smoke_json(const struct profile *p);

const char *rollback_mode_name(enum rollback_mode m);

#endif
