/* libFuzzer target for the profile loader: any bytes must either load into
 * a profile within the limits of profile.h (at most PROFILE_MAX_KNOBS knobs,
 * each path once; at most PROFILE_MAX_BENCHMARKS benchmarks) or give one
 * "fuzz.yaml:LINE:COL: message" error, without crashes, leaks or undefined
 * behaviour (built with ASan+UBSan). Includes are refused by
 * profile_load_string, so the fuzzer never reads files. fuzz.sh seeds the
 * corpus with profiles at the key limit and just past it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "profile.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The knob index must never let a path in twice. */
static void check_profile(const struct profile *p)
{
	char **paths;

	if (p->n_knobs > PROFILE_MAX_KNOBS || p->smoke.n_benchmarks > PROFILE_MAX_BENCHMARKS)
		abort();
	paths = calloc(p->n_knobs + 1, sizeof(*paths));
	if (!paths)
		abort();
	for (size_t i = 0; i < p->n_knobs; i++)
		paths[i] = p->knobs[i].path;
	qsort(paths, p->n_knobs, sizeof(*paths), cmp_str);
	for (size_t i = 1; i < p->n_knobs; i++)
		if (strcmp(paths[i - 1], paths[i]) == 0)
			abort();
	free(paths);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mb_error err = { "" };
	struct profile *p = NULL;
	int line, col, end = 0;

	mb_log_set_level(LOG_EMERG);
	if (profile_load_string("fuzz.yaml", (const char *)data, size, &p, &err) == 0) {
		char *json = profile_smoke_json(p);

		check_profile(p);
		free(json);
		profile_free(p);
	} else if (sscanf(err.msg, "fuzz.yaml:%d:%d: %n", &line, &col, &end) != 2 || end == 0 || line < 1 || col < 1) {
		abort(); /* every error must name the file and a position */
	}
	return 0;
}
