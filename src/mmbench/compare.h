/* compare.c's comparison as a library: `mmbench compare` and the first-boot
 * smoke verdict (`mmbench smoke --state-dir`) print and judge the same way. */
#ifndef MMBENCH_COMPARE_H
#define MMBENCH_COMPARE_H

#include <jansson.h>
#include <stddef.h>

#include "plot.h"

struct mb_compare_tally {
	int better, same, worse, info, unknown, regressions, failed;
};

/* Loads and checks one result document (schema, results, every metric).
 * NULL on failure, with one line naming the file in ret_err. */
json_t *mb_compare_load(const char *path, char *ret_err, size_t err_size);

/* 1 when both documents hold the same benchmarks (order free); otherwise 0
 * and one line "PROG: mismatched benchmarks: ..." on stderr. */
int mb_compare_same_benchmarks(const char *prog, const char *pa, json_t *ja, const char *pb,
			       json_t *jb);

/* Prints the table, the tally and the verdict line on stdout (A is the
 * baseline); documents from mb_compare_load with the same benchmarks.
 * Returns 0 (regressions and failed benchmarks counted in ret) or -errno. */
int mb_compare_docs(const char *pa, json_t *ja, const char *pb, json_t *jb, double threshold,
		    struct mb_plot *plot, struct mb_compare_tally *ret);

#endif
