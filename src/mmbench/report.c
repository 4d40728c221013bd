/* Results: filling them in, the versioned JSON document, the human summary.
 * The schema is described in SCHEMA.md; bump MB_SCHEMA on incompatible
 * changes, since compare refuses other versions. */
#include "mmbench.h"
#include "json_out.h"
#include "topology.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void mb_result_init(struct mb_result *r, const char *bench)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->bench, sizeof(r->bench), "%s", bench);
	r->status = MB_STATUS_OK;
}

void mb_param_num(struct mb_result *r, const char *key, double v)
{
	struct mb_param *p;

	if (r->nparams >= MB_MAX_PARAMS)
		return;
	p = &r->params[r->nparams++];
	snprintf(p->key, sizeof(p->key), "%s", key);
	p->is_num = 1;
	p->num = v;
}

void mb_param_str(struct mb_result *r, const char *key, const char *s)
{
	struct mb_param *p;

	if (r->nparams >= MB_MAX_PARAMS)
		return;
	p = &r->params[r->nparams++];
	snprintf(p->key, sizeof(p->key), "%s", key);
	snprintf(p->str, sizeof(p->str), "%s", s);
}

int mb_metric_add(struct mb_result *r, const char *name, const char *unit, enum mb_better b)
{
	struct mb_metric *m;

	if (r->nmetrics >= MB_MAX_METRICS)
		return MB_MAX_METRICS - 1; /* programming error; overwrite the last */
	m = &r->metrics[r->nmetrics];
	snprintf(m->name, sizeof(m->name), "%s", name);
	snprintf(m->unit, sizeof(m->unit), "%s", unit);
	m->better = b;
	return r->nmetrics++;
}

void mb_metric_push(struct mb_result *r, int idx, double v)
{
	struct mb_metric *m = &r->metrics[idx];

	if (m->n < MB_MAX_REPS)
		m->v[m->n++] = v;
}

void mb_skip(struct mb_result *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->reason, sizeof(r->reason), fmt, ap);
	va_end(ap);
	r->status = MB_STATUS_SKIPPED;
}

int mb_pick_two_nodes(struct mb_result *r, int *ret_a, int *ret_b)
{
	int nodes = 0, ret;

	ret = mb_two_nodes(ret_a, ret_b, &nodes);
	if (ret == -ENODEV) {
		mb_skip(r, "needs 2 NUMA nodes with memory, this machine has %d", nodes);
		return 1;
	}
	if (ret < 0)
		return ret;
	mb_param_num(r, "node_a", *ret_a);
	mb_param_num(r, "node_b", *ret_b);
	return 0;
}

void mb_fail(struct mb_result *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->reason, sizeof(r->reason), fmt, ap);
	va_end(ap);
	r->status = MB_STATUS_FAILED;
}

int mb_run_begin(struct mb_result *r)
{
	return mb_counters_snapshot(&r->start);
}

int mb_run_end(struct mb_result *r)
{
	struct mb_counters *now = malloc(sizeof(*now));
	int ret;

	if (!now)
		return -ENOMEM;
	ret = mb_counters_snapshot(now);
	if (ret == 0) {
		mb_counters_delta(&r->start, now, &r->delta);
		r->has_counters = 1;
	}
	free(now);
	return ret;
}

int mb_reps(const struct mb_opts *o, int normal, int quick)
{
	if (o->reps > 0)
		return o->reps;
	return o->quick ? quick : normal;
}

static const char *status_name(enum mb_status s)
{
	return s == MB_STATUS_OK ? "ok" : s == MB_STATUS_SKIPPED ? "skipped" : "failed";
}

static const char *better_name(enum mb_better b)
{
	return b == MB_BETTER_HIGHER ? "higher" : b == MB_BETTER_LOWER ? "lower" : "none";
}

static void write_result(struct jw *w, const struct mb_result *r)
{
	jw_obj_begin(w);
	jw_kstr(w, "benchmark", r->bench);
	jw_kstr(w, "status", status_name(r->status));
	if (r->status != MB_STATUS_OK)
		jw_kstr(w, "reason", r->reason);
	jw_key(w, "params");
	jw_obj_begin(w);
	for (int i = 0; i < r->nparams; i++) {
		if (r->params[i].is_num)
			jw_knum(w, r->params[i].key, r->params[i].num);
		else
			jw_kstr(w, r->params[i].key, r->params[i].str);
	}
	jw_obj_end(w);
	jw_kint(w, "repetitions", r->reps);
	jw_key(w, "metrics");
	jw_arr_begin(w);
	for (int i = 0; i < r->nmetrics; i++) {
		const struct mb_metric *m = &r->metrics[i];

		if (m->n == 0)
			continue;
		jw_obj_begin(w);
		jw_kstr(w, "name", m->name);
		jw_kstr(w, "unit", m->unit);
		jw_kstr(w, "better", better_name(m->better));
		jw_key(w, "values");
		jw_arr_begin(w);
		for (int k = 0; k < m->n; k++)
			jw_num(w, m->v[k]);
		jw_arr_end(w);
		jw_knum(w, "median", mb_median(m->v, (size_t)m->n));
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_key(w, "counters");
	if (!r->has_counters) {
		jw_null(w);
	} else {
		jw_obj_begin(w);
		jw_key(w, "vmstat");
		jw_obj_begin(w);
		for (size_t i = 0; i < r->delta.nvm; i++)
			if (r->delta.vm[i].value != 0)
				jw_kint(w, r->delta.vm[i].name, (long)(int64_t)r->delta.vm[i].value);
		jw_obj_end(w);
		jw_key(w, "tlb_interrupts");
		if (r->delta.has_tlb)
			jw_u64(w, r->delta.tlb);
		else
			jw_null(w);
		jw_key(w, "lru_lock_acquisitions");
		if (r->delta.has_lru)
			jw_u64(w, r->delta.lru_acq);
		else
			jw_null(w);
		jw_obj_end(w);
	}
	jw_obj_end(w);
}

static void write_document(FILE *f, const char *command, struct mb_result **results, int n,
			   double duration_s)
{
	struct jw w;
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
	jw_init(&w, f);
	jw_obj_begin(&w);
	jw_kstr(&w, "schema", MB_SCHEMA);
	jw_kstr(&w, "mmbench_version", MB_VERSION);
	jw_kstr(&w, "command", command);
	jw_kstr(&w, "finished", stamp);
	jw_knum(&w, "duration_s", duration_s);
	mb_write_system(&w);
	jw_key(&w, "results");
	jw_arr_begin(&w);
	for (int i = 0; i < n; i++)
		write_result(&w, results[i]);
	jw_arr_end(&w);
	jw_obj_end(&w);
}

/* Temp file next to the target, then rename: readers never see half a file. */
static int write_file_atomic(const char *path, const char *command, struct mb_result **results,
			     int n, double duration_s)
{
	size_t len = strlen(path);
	char *tmp = malloc(len + 16);
	FILE *f;
	int fd, r = 0;

	if (!tmp)
		return -ENOMEM;
	snprintf(tmp, len + 16, "%s.tmpXXXXXX", path);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		free(tmp);
		return r;
	}
	f = fdopen(fd, "w");
	if (!f) {
		r = -errno;
		close(fd);
		goto out;
	}
	write_document(f, command, results, n, duration_s);
	if (fflush(f) != 0 || ferror(f) || fsync(fd) < 0)
		r = -EIO;
	if (fclose(f) != 0 && r == 0)
		r = -EIO;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
out:
	if (r < 0)
		unlink(tmp);
	free(tmp);
	return r;
}

void mb_print_summary(FILE *f, const struct mb_result *r)
{
	if (r->status != MB_STATUS_OK) {
		fprintf(f, "%s: %s: %s\n", r->bench, status_name(r->status), r->reason);
		if (r->status == MB_STATUS_SKIPPED)
			return;
	}
	for (int i = 0; i < r->nmetrics; i++) {
		const struct mb_metric *m = &r->metrics[i];

		if (m->n == 0)
			continue;
		fprintf(f, "%s %-34s median %12.4g %-14s (%d reps)\n", r->bench, m->name,
			mb_median(m->v, (size_t)m->n), m->unit, m->n);
	}
}

int mb_emit(const struct mb_opts *o, const char *command, struct mb_result **results, int n,
	    double duration_s)
{
	FILE *human = o->json ? stderr : stdout;
	int r = 0;

	for (int i = 0; i < n; i++)
		mb_print_summary(human, results[i]);
	if (o->output)
		r = write_file_atomic(o->output, command, results, n, duration_s);
	if (o->json) {
		write_document(stdout, command, results, n, duration_s);
		if (fflush(stdout) != 0)
			r = r ? r : -EIO;
	}
	return r;
}
