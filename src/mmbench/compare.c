/* compare A.json B.json: for every metric of every benchmark, the medians,
 * the change, a 95% percentile-bootstrap CI of the difference of medians
 * (stats.c), and a verdict better/same/worse. A is the baseline. Exit 1 when
 * any metric is worse beyond --threshold (or B's benchmark failed), 2 on bad
 * input (unreadable or foreign JSON, mismatched benchmarks, bad option). */
#include "compare.h"
#include "mmbench.h"
#include "plot.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct sample {
	double *v;
	size_t n;
	enum mb_better better;
};

static int get_sample(char *ret_err, size_t err_size, const char *path, const char *bench,
		      json_t *metric, struct sample *s);
static const char *bench_name(json_t *res);

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mmbench compare BASELINE.json NEW.json [--threshold PCT] [--plot OUT.png]\n"
		"  per metric: medians, change, 95%% bootstrap CI of the difference of medians\n"
		"  (%d resamples, fixed seed), verdict better/same/worse (same: the CI contains 0)\n"
		"  --threshold PCT  a worse metric beyond PCT %% is a regression: exit 1 (default 5)\n"
		"  --plot OUT.png   draw the changes and their CIs with gnuplot\n"
		"exit: 0 no regression, 1 regression or a failed benchmark in NEW, 2 bad input\n",
		MB_BOOTSTRAP_RESAMPLES);
}

json_t *mb_compare_load(const char *path, char *ret_err, size_t err_size)
{
	json_error_t err;
	json_t *root = json_load_file(path, 0, &err), *schema, *results;

	if (!root) {
		snprintf(ret_err, err_size, "%s:%d:%d: %s", path, err.line, err.column, err.text);
		return NULL;
	}
	schema = json_object_get(root, "schema");
	if (!json_is_string(schema) || strcmp(json_string_value(schema), MB_SCHEMA) != 0) {
		snprintf(ret_err, err_size, "%s: not an mmbench result (schema %s%s%s, expected %s)",
			path, json_is_string(schema) ? "'" : "",
			json_is_string(schema) ? json_string_value(schema) : "missing",
			json_is_string(schema) ? "'" : "", MB_SCHEMA);
		json_decref(root);
		return NULL;
	}
	results = json_object_get(root, "results");
	if (!json_is_array(results)) {
		snprintf(ret_err, err_size, "%s: 'results' is not an array", path);
		json_decref(root);
		return NULL;
	}
	for (size_t i = 0; i < json_array_size(results); i++) {
		json_t *res = json_array_get(results, i), *metrics = json_object_get(res, "metrics");

		if (!json_is_string(json_object_get(res, "benchmark")) ||
		    !json_is_string(json_object_get(res, "status")) || !json_is_array(metrics)) {
			snprintf(ret_err, err_size, "%s: results[%zu] lacks benchmark/status/metrics",
				path, i);
			json_decref(root);
			return NULL;
		}
		/* every metric checked now, so no error comes after the table started */
		for (size_t k = 0; k < json_array_size(metrics); k++) {
			struct sample s;

			if (get_sample(ret_err, err_size, path, bench_name(res), json_array_get(metrics, k),
				       &s) < 0) {
				json_decref(root);
				return NULL;
			}
			free(s.v);
		}
	}
	return root;
}

static const char *bench_name(json_t *res)
{
	return json_string_value(json_object_get(res, "benchmark"));
}

static json_t *find_bench(json_t *results, const char *name)
{
	for (size_t i = 0; i < json_array_size(results); i++)
		if (strcmp(bench_name(json_array_get(results, i)), name) == 0)
			return json_array_get(results, i);
	return NULL;
}

static void list_names(json_t *results, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < json_array_size(results) && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? "," : "",
					bench_name(json_array_get(results, i)));
	if (json_array_size(results) == 0)
		snprintf(buf, size, "(none)");
}

/* Same benchmark names on both sides (order free), each once. */
int mb_compare_same_benchmarks(const char *prog, const char *pa, json_t *ja, const char *pb,
			       json_t *jb)
{
	json_t *ra = json_object_get(ja, "results"), *rb = json_object_get(jb, "results");
	char la[256], lb[256];
	int ok = json_array_size(ra) == json_array_size(rb);

	for (size_t i = 0; ok && i < json_array_size(ra); i++)
		ok = find_bench(rb, bench_name(json_array_get(ra, i))) != NULL &&
		     find_bench(ra, bench_name(json_array_get(ra, i))) == json_array_get(ra, i);
	if (ok)
		return 1;
	list_names(ra, la, sizeof(la));
	list_names(rb, lb, sizeof(lb));
	fprintf(stderr, "%s: mismatched benchmarks: %s has %s, %s has %s\n", prog, pa, la, pb, lb);
	return 0;
}

static int get_sample(char *ret_err, size_t err_size, const char *path, const char *bench,
		      json_t *metric, struct sample *s)
{
	json_t *values = json_object_get(metric, "values"), *better = json_object_get(metric, "better");
	const char *b = json_is_string(better) ? json_string_value(better) : "";

	s->v = NULL;
	s->n = 0;
	if (!json_is_array(values) || json_array_size(values) == 0 ||
	    !json_is_string(json_object_get(metric, "name"))) {
		snprintf(ret_err, err_size, "%s: %s: a metric lacks name or values", path, bench);
		return -EINVAL;
	}
	if (strcmp(b, "higher") == 0)
		s->better = MB_BETTER_HIGHER;
	else if (strcmp(b, "lower") == 0)
		s->better = MB_BETTER_LOWER;
	else if (strcmp(b, "none") == 0)
		s->better = MB_BETTER_NONE;
	else {
		snprintf(ret_err, err_size, "%s: %s: metric '%s' has no valid 'better'", path,
			bench, json_string_value(json_object_get(metric, "name")));
		return -EINVAL;
	}
	s->v = calloc(json_array_size(values), sizeof(double));
	if (!s->v)
		return -ENOMEM;
	for (size_t i = 0; i < json_array_size(values); i++) {
		json_t *x = json_array_get(values, i);

		if (!json_is_number(x)) {
			snprintf(ret_err, err_size, "%s: %s: metric '%s' has a non-number value",
				path, bench, json_string_value(json_object_get(metric, "name")));
			free(s->v);
			s->v = NULL;
			return -EINVAL;
		}
		s->v[s->n++] = json_number_value(x);
	}
	return 0;
}

static json_t *find_metric(json_t *res, const char *name)
{
	json_t *metrics = json_object_get(res, "metrics");

	for (size_t i = 0; i < json_array_size(metrics); i++) {
		json_t *m = json_array_get(metrics, i);

		if (json_is_string(json_object_get(m, "name")) &&
		    strcmp(json_string_value(json_object_get(m, "name")), name) == 0)
			return m;
	}
	return NULL;
}

static void print_row(const char *bench, const char *metric, const struct mb_comparison *c,
		      int regression_mark)
{
	char change[32], ci[64];

	if (isnan(c->change_pct))
		snprintf(change, sizeof(change), "n/a");
	else
		snprintf(change, sizeof(change), "%+.1f%%", c->change_pct);
	if (isnan(c->ci_lo_pct))
		snprintf(ci, sizeof(ci), "[%+.4g, %+.4g]", c->ci_lo, c->ci_hi);
	else
		snprintf(ci, sizeof(ci), "[%+.1f%%, %+.1f%%]", c->ci_lo_pct, c->ci_hi_pct);
	printf("%-10s %-34s %12.4g %12.4g %9s %20s  %s%s\n", bench, metric, c->median_a, c->median_b,
	       change, ci, mb_verdict_name(c->verdict), regression_mark ? " REGRESSION" : "");
}

static int compare_bench(const char *pa, json_t *a, const char *pb, json_t *b, double threshold,
			 struct mb_compare_tally *t, struct mb_plot *plot)
{
	const char *name = bench_name(a);
	const char *sa = json_string_value(json_object_get(a, "status"));
	const char *sb = json_string_value(json_object_get(b, "status"));
	json_t *metrics = json_object_get(a, "metrics");

	if (strcmp(sb, "failed") == 0) {
		json_t *reason = json_object_get(b, "reason");

		printf("%-10s FAILED in %s: %s\n", name, pb,
		       json_is_string(reason) ? json_string_value(reason) : "(no reason)");
		t->failed++;
		return 0;
	}
	if (strcmp(sa, "ok") != 0 || strcmp(sb, "ok") != 0) {
		printf("%-10s not compared: %s in %s, %s in %s\n", name, sa, pa, sb, pb);
		return 0;
	}
	for (size_t i = 0; i < json_array_size(metrics); i++) {
		json_t *ma = json_array_get(metrics, i), *mbm;
		struct sample xa, xb;
		struct mb_comparison c;
		char err[512];
		const char *mname;
		int r;

		r = get_sample(err, sizeof(err), pa, name, ma, &xa);
		if (r < 0)
			return r;
		mname = json_string_value(json_object_get(ma, "name"));
		mbm = find_metric(b, mname);
		if (!mbm) {
			printf("%-10s %-34s only in %s\n", name, mname, pa);
			free(xa.v);
			continue;
		}
		r = get_sample(err, sizeof(err), pb, name, mbm, &xb);
		if (r < 0) {
			free(xa.v);
			return r;
		}
		r = mb_compare(xa.v, xa.n, xb.v, xb.n, xa.better, threshold, &c);
		free(xa.v);
		free(xb.v);
		if (r < 0)
			return r;
		print_row(name, mname, &c, c.regression);
		switch (c.verdict) {
		case MB_VERDICT_BETTER: t->better++; break;
		case MB_VERDICT_SAME: t->same++; break;
		case MB_VERDICT_WORSE: t->worse++; break;
		case MB_VERDICT_INFO: t->info++; break;
		case MB_VERDICT_UNKNOWN: t->unknown++; break;
		}
		t->regressions += c.regression;
		if (plot && c.verdict != MB_VERDICT_INFO && !isnan(c.change_pct))
			mb_plot_add(plot, name, mname, &c);
	}
	return 0;
}

int mb_compare_docs(const char *pa, json_t *ja, const char *pb, json_t *jb, double threshold,
		    struct mb_plot *plot, struct mb_compare_tally *ret)
{
	json_t *ra = json_object_get(ja, "results"), *rb = json_object_get(jb, "results");
	struct mb_compare_tally t = { 0 };
	int r;

	printf("%-10s %-34s %12s %12s %9s %20s  %s\n", "benchmark", "metric", "baseline", "new",
	       "change", "95% CI (bootstrap)", "verdict");
	for (size_t i = 0; i < json_array_size(ra); i++) {
		json_t *a = json_array_get(ra, i);

		r = compare_bench(pa, a, pb, find_bench(rb, bench_name(a)), threshold, &t, plot);
		if (r < 0)
			return r;
	}
	printf("compare: %d better, %d same, %d worse (%d beyond the %.4g%% threshold), "
	       "%d not judged, %d failed in %s\n",
	       t.better, t.same, t.worse, t.regressions, threshold, t.info + t.unknown, t.failed, pb);
	if (t.regressions || t.failed)
		printf("verdict: worse: %s regresses against %s\n", pb, pa);
	else if (t.better && !t.worse)
		printf("verdict: better: no regression\n");
	else
		printf("verdict: same: no regression beyond %.4g%%\n", threshold);
	*ret = t;
	return 0;
}

int mb_compare_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "threshold", required_argument, NULL, 't' },
		{ "plot", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	double threshold = 5.0;
	const char *plot_path = NULL, *pa, *pb;
	json_t *ja = NULL, *jb = NULL;
	struct mb_compare_tally t = { 0 };
	struct mb_plot plot = { 0 };
	char err[512];
	int c, r, rc = MB_EXIT_USAGE;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			if (mb_parse_double(optarg, &threshold) < 0 || threshold < 0) {
				fprintf(stderr, "mmbench compare: bad --threshold '%s' (a percentage >= 0)\n",
					optarg);
				return MB_EXIT_USAGE;
			}
			break;
		case 'p':
			plot_path = optarg;
			break;
		case 'h':
			usage(stdout);
			return MB_EXIT_OK;
		case ':':
			fprintf(stderr, "mmbench compare: option '%s' needs a value\n", argv[optind - 1]);
			return MB_EXIT_USAGE;
		default:
			fprintf(stderr, "mmbench compare: unknown option '%s' (see mmbench compare --help)\n",
				argv[optind - 1]);
			return MB_EXIT_USAGE;
		}
	}
	if (argc - optind != 2) {
		fprintf(stderr, "mmbench compare: need exactly two result files (BASELINE.json NEW.json)\n");
		return MB_EXIT_USAGE;
	}
	pa = argv[optind];
	pb = argv[optind + 1];
	/* the chart's title names both files: no control character in it */
	for (int i = 0; plot_path && i < 2; i++) {
		const char *name = i ? pb : pa;

		if (!mb_plot_name_ok(name)) {
			fputs("mmbench compare: --plot: result file name '", stderr);
			mb_plot_put_escaped(stderr, name);
			fputs("' has a control character (it would go into the chart's title): rename it\n",
			      stderr);
			return MB_EXIT_USAGE;
		}
	}
	ja = mb_compare_load(pa, err, sizeof(err));
	if (ja)
		jb = mb_compare_load(pb, err, sizeof(err));
	if (!ja || !jb) {
		fprintf(stderr, "mmbench compare: %s\n", err);
		goto out;
	}
	if (!mb_compare_same_benchmarks("mmbench compare", pa, ja, pb, jb))
		goto out;
	r = mb_compare_docs(pa, ja, pb, jb, threshold, plot_path ? &plot : NULL, &t);
	if (r < 0) {
		if (r == -ENOMEM)
			fprintf(stderr, "mmbench compare: out of memory\n");
		goto out;
	}
	rc = t.regressions || t.failed ? MB_EXIT_FAIL : MB_EXIT_OK;
	if (plot_path) {
		fflush(stdout);
		r = mb_plot_write(&plot, plot_path, pa, pb);
		if (r < 0) {
			fprintf(stderr, "mmbench compare: cannot draw %s: %s\n", plot_path,
				r == -ECHILD ? "gnuplot failed" : strerror(-r));
			rc = MB_EXIT_USAGE;
		}
	}
out:
	mb_plot_free(&plot);
	json_decref(ja);
	json_decref(jb);
	return rc;
}
