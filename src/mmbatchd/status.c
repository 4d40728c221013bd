/* See status.h. */
#include "status.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

#include "metricsdir.h"
#include "util.h"

static const char *original_of(const struct status_info *si, const struct plan_item *it)
{
	const struct journal_entry *e = journal_find(si->journal, it->k->path);

	return e ? e->value : it->original;
}

char *status_json(const struct status_info *si)
{
	const struct drain_stats *d = si->drain;
	struct strbuf b = { 0 };
	bool first = true;

	sb_printf(&b, "{\"state\":");
	sb_json_str(&b, si->state);
	sb_printf(&b, ",\"pid\":%d,\"updated\":%lld,\"profile\":", (int)getpid(), (long long)time(NULL));
	sb_json_str(&b, si->profile);
	sb_printf(&b, ",\"root\":");
	sb_json_str(&b, si->root);
	sb_printf(&b, ",\"rollback\":");
	sb_json_str(&b, si->rollback);
	sb_printf(&b, ",\"applied\":[");
	for (size_t i = 0; si->plan && i < si->plan->n; i++) {
		const struct plan_item *it = &si->plan->items[i];

		if (it->absent)
			continue;
		sb_printf(&b, "%s{\"key\":", first ? "" : ",");
		sb_json_str(&b, it->name);
		sb_printf(&b, ",\"value\":");
		sb_json_str(&b, it->k->value);
		sb_printf(&b, ",\"original\":");
		sb_json_str(&b, original_of(si, it));
		sb_printf(&b, "}");
		first = false;
	}
	sb_printf(&b, "],\"skipped_optional\":[");
	first = true;
	for (size_t i = 0; si->plan && i < si->plan->n; i++) {
		if (!si->plan->items[i].absent)
			continue;
		sb_printf(&b, "%s", first ? "" : ",");
		sb_json_str(&b, si->plan->items[i].name);
		first = false;
	}
	sb_printf(&b, "],\"drain\":{\"on_exit\":%s,\"method\":", si->drain_on_exit ? "true" : "false");
	sb_json_str(&b, si->drain_method);
	sb_printf(&b,
		  ",\"drains\":%" PRIu64 ",\"exits_seen\":%" PRIu64 ",\"exits_qualifying\":%" PRIu64
		  ",\"coalesced\":%" PRIu64 ",\"rate_limited\":%" PRIu64 ",\"failures\":%" PRIu64
		  ",\"last_cost_us\":%" PRIu64 ",\"last_memfree_delta_kb\":%" PRId64 "}",
		  d ? d->drains : 0, d ? d->exits_seen : 0, d ? d->exits_qualifying : 0, d ? d->coalesced : 0,
		  d ? d->rate_limited : 0, d ? d->failures : 0, d ? d->last_cost_us : 0,
		  d ? d->last_memfree_delta_kb : 0);
	sb_printf(&b, ",\"overruns\":%" PRIu64 ",\"reloads\":%" PRIu64 ",\"last_error\":", si->overruns, si->reloads);
	if (si->last_error)
		sb_json_str(&b, si->last_error);
	else
		sb_printf(&b, "null");
	sb_printf(&b, "}\n");
	return b.s;
}

int status_save(const char *state_dir, const struct status_info *si)
{
	char *json = status_json(si), *path = xasprintf("%s/%s", state_dir, STATUS_NAME);
	int r = write_file_replace(path, json, strlen(json), 0600);

	free(path);
	free(json);
	return r;
}

static void metric(struct strbuf *b, const char *name, const char *type, const char *help, const char *value)
{
	sb_printf(b, "# HELP mmbatchd_%s %s\n# TYPE mmbatchd_%s %s\nmmbatchd_%s %s\n", name, help, name, type, name,
		  value);
}

static void metric_u64(struct strbuf *b, const char *name, const char *type, const char *help, uint64_t v)
{
	char num[32];

	snprintf(num, sizeof(num), "%" PRIu64, v);
	metric(b, name, type, help, num);
}

int metrics_save(const char *path, const char *state_dir, const struct status_info *si)
{
	const char *name, *why;
	int dirfd;
	const struct drain_stats *d = si->drain;
	struct strbuf b = { 0 };
	uint64_t applied = 0;
	char num[64];
	int r;

	for (size_t i = 0; si->plan && i < si->plan->n; i++)
		applied += !si->plan->items[i].absent;
	metric_u64(&b, "up", "gauge", "1 while the daemon runs with a profile applied.", strcmp(si->state, "running") == 0);
	metric_u64(&b, "applied_keys", "gauge", "Knobs the profile sets.", applied);
	metric_u64(&b, "reloads_total", "counter", "Successful profile reloads (SIGHUP).", si->reloads);
	metric_u64(&b, "drains_total", "counter", "Per-CPU cache drains performed.", d ? d->drains : 0);
	metric_u64(&b, "exits_seen_total", "counter", "Process exits seen by the exit watcher.", d ? d->exits_seen : 0);
	metric_u64(&b, "exits_qualifying_total", "counter", "Exits at or above drain.min_rss_mb.",
		   d ? d->exits_qualifying : 0);
	metric_u64(&b, "drains_coalesced_total", "counter", "Qualifying exits folded into a pending drain.",
		   d ? d->coalesced : 0);
	metric_u64(&b, "drains_rate_limited_total", "counter", "Drains delayed by drain.max_per_second.",
		   d ? d->rate_limited : 0);
	metric_u64(&b, "drain_failures_total", "counter", "Drains whose method failed.", d ? d->failures : 0);
	snprintf(num, sizeof(num), "%.6f", d ? (double)d->last_cost_us / 1e6 : 0.0);
	metric(&b, "last_drain_cost_seconds", "gauge", "Wall time of the last drain.", num);
	metric_u64(&b, "netlink_overruns_total", "counter", "Exit-event socket overruns (events lost).", si->overruns);
	metric_u64(&b, "error", "gauge", "1 when the last reload or drain failed.", si->last_error != NULL);
	/* Checked again at every write: a directory may have been swapped. */
	dirfd = metricsdir_open(path, state_dir, &name, &why);
	if (dirfd < 0) {
		sb_free(&b);
		return dirfd;
	}
	/* node_exporter reads it as its own user. */
	r = write_file_at(dirfd, name, b.s, b.len, 0644);
	close(dirfd);
	sb_free(&b);
	return r;
}

int status_print(const char *state_dir, FILE *f)
{
	char *path = xasprintf("%s/%s", state_dir, STATUS_NAME), *data = NULL, *pid_s, *state_s;
	int r;

	r = read_file(path, 1024 * 1024, &data, NULL);
	free(path);
	if (r == -ENOENT) {
		fputs("{\"state\":\"inactive\",\"applied\":[],\"last_error\":null}\n", f);
		return 0;
	}
	if (r < 0)
		return r;
	/* A daemon killed with SIGKILL leaves "running" behind: say so. */
	state_s = strstr(data, "{\"state\":\"running\",\"pid\":");
	pid_s = state_s ? state_s + strlen("{\"state\":\"running\",\"pid\":") : NULL;
	if (pid_s && state_s == data) {
		long pid = strtol(pid_s, NULL, 10);

		if (pid > 0 && kill((pid_t)pid, 0) < 0 && errno == ESRCH) {
			fprintf(f, "{\"state\":\"dead\"%s", pid_s - strlen(",\"pid\":"));
			free(data);
			return 0;
		}
	}
	fputs(data, f);
	free(data);
	return 0;
}
