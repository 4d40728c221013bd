/* smoke --state-dir: the first-boot verdict of a newly installed kernel.
 * When pending/<kver> exists: runs the smoke benchmarks in a child process
 * under a timeout (or takes --input), stores the result as
 * results/<kver>/<stamp>.json, compares it with the baseline (state.c) the
 * way `mmbench compare` does (compare.c), writes verdict/<kver>, records
 * <kver> in last-booted when it passed and removes the pending mark.
 * Exit: 0 pass (or not pending), 1 regression or a failed benchmark, 2 no
 * verdict possible (timeout, crash, unreadable baseline, bad input): the
 * verdict says "error" and the mark stays, so the next boot retries.
 * Layout of the state directory: SCHEMA.md, "State directory". */
#include "compare.h"
#include "gate.h"
#include "mmbench.h"
#include "state.h"
#include "util.h"

#include <errno.h>
#include <glob.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PROG "mmbench smoke"

int mb_run_timeout(int (*fn)(void *), void *arg, double timeout_s, int *ret_status)
{
	sigset_t mask, old;
	struct timespec ts;
	uint64_t deadline;
	pid_t pid;
	int r = 0;

	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	if (sigprocmask(SIG_BLOCK, &mask, &old) < 0)
		return -errno;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		r = -errno;
		(void)sigprocmask(SIG_SETMASK, &old, NULL);
		return r;
	}
	if (pid == 0) {
		/* own process group: a timeout kills the benchmarks' children too */
		(void)setpgid(0, 0);
		(void)sigprocmask(SIG_SETMASK, &old, NULL);
		r = fn(arg);
		fflush(NULL);
		_exit(r);
	}
	(void)setpgid(pid, pid);
	deadline = mb_now_ns() + (uint64_t)(timeout_s * 1e9);
	for (;;) {
		uint64_t now = mb_now_ns();
		int sig, status;

		if (waitpid(pid, &status, WNOHANG) == pid) {
			*ret_status = status;
			r = 0;
			break;
		}
		if (now >= deadline) {
			r = 1;
			goto kill_child;
		}
		ts.tv_sec = (time_t)((deadline - now) / 1000000000ULL);
		ts.tv_nsec = (long)((deadline - now) % 1000000000ULL);
		sig = sigtimedwait(&mask, NULL, &ts);
		if (sig == SIGTERM || sig == SIGINT) {
			r = -EINTR;
			goto kill_child;
		}
		/* SIGCHLD, a timeout (EAGAIN) or EINTR: look again */
	}
	(void)sigprocmask(SIG_SETMASK, &old, NULL);
	return r;
kill_child:
	(void)kill(-pid, SIGKILL);
	(void)kill(pid, SIGKILL);
	(void)waitpid(pid, ret_status, 0);
	(void)sigprocmask(SIG_SETMASK, &old, NULL);
	return r;
}

struct gate {
	const struct mb_opts *o;
	const char *state, *kver, *stamp;
	char *pending, *results, *new_path;
};

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;

	printf("%s: ", PROG);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static int verdict(struct gate *g, const char *result, const char *reason)
{
	int r = mb_state_write_verdict(g->state, g->kver, result, reason, g->stamp);

	if (r < 0)
		fprintf(stderr, "%s: ERROR: cannot write %s/verdict/%s: %s\n", PROG, g->state, g->kver,
			strerror(-r));
	return r;
}

/* A run that could not give a verdict: "error", exit 2, still pending. */
static int error_out(struct gate *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int error_out(struct gate *g, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fflush(stdout);
	fprintf(stderr, "%s: ERROR: %s\n", PROG, msg);
	(void)verdict(g, "error", msg);
	return MB_EXIT_USAGE;
}

static int run_benchmarks(void *arg)
{
	const struct gate *g = arg;
	struct mb_opts sub = *g->o;

	sub.output = g->new_path;
	sub.json = 0;
	return mb_smoke(&sub, PROG);
}

/* Removes what a killed run may have left: <stamp>.json and its temp files. */
static void remove_new(const struct gate *g)
{
	char *pat;
	glob_t gl;

	(void)unlink(g->new_path);
	if (asprintf(&pat, "%s.tmp*", g->new_path) < 0)
		return;
	if (glob(pat, GLOB_NOSORT, NULL, &gl) == 0) {
		for (size_t i = 0; i < gl.gl_pathc; i++)
			(void)unlink(gl.gl_pathv[i]);
		globfree(&gl);
	}
	free(pat);
}

/* The run: the benchmarks in a child (or --input). 0, or an exit code. */
static int run(struct gate *g)
{
	const struct mb_opts *o = g->o;
	int status = 0, r;

	if (o->input) {
		char err[512];
		json_t *doc = mb_compare_load(o->input, err, sizeof(err));
		char *text;

		if (!doc)
			return error_out(g, "--input: %s", err);
		char *line = NULL;

		text = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		json_decref(doc);
		if (!text || asprintf(&line, "%s\n", text) < 0) {
			free(text);
			return error_out(g, "out of memory");
		}
		free(text);
		r = mb_state_write_atomic(g->new_path, line);
		free(line);
		if (r < 0)
			return error_out(g, "cannot write %s: %s", g->new_path, strerror(-r));
		return 0;
	}
	r = mb_run_timeout(run_benchmarks, g, o->timeout_s, &status);
	if (r == 1) {
		remove_new(g);
		return error_out(g, "smoke run exceeded %s s; kernel %s stays pending", o->timeout_text,
				 g->kver);
	}
	if (r == -EINTR) {
		remove_new(g);
		return error_out(g, "smoke run interrupted (SIGTERM or SIGINT); kernel %s stays pending",
				 g->kver);
	}
	if (r < 0)
		return error_out(g, "cannot start the smoke run: %s; kernel %s stays pending",
				 strerror(-r), g->kver);
	if (WIFSIGNALED(status)) {
		remove_new(g);
		return error_out(g, "mmbench smoke crashed (signal %d, %s); kernel %s stays pending",
				 WTERMSIG(status), strsignal(WTERMSIG(status)), g->kver);
	}
	if (WEXITSTATUS(status) != MB_EXIT_OK && WEXITSTATUS(status) != MB_EXIT_FAIL) {
		remove_new(g);
		return error_out(g, "mmbench smoke failed (exit %d); kernel %s stays pending",
				 WEXITSTATUS(status), g->kver);
	}
	return 0;
}

/* "bench: reason; ..." of every failed benchmark in doc (empty: none). */
static void failed_list(json_t *doc, char *buf, size_t size)
{
	json_t *results = json_object_get(doc, "results");
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < json_array_size(results) && len < size; i++) {
		json_t *res = json_array_get(results, i), *reason = json_object_get(res, "reason");

		if (strcmp(json_string_value(json_object_get(res, "status")), "failed") != 0)
			continue;
		len += (size_t)snprintf(buf + len, size - len, "%s%s: %s", len ? "; " : "",
					json_string_value(json_object_get(res, "benchmark")),
					json_is_string(reason) ? json_string_value(reason) : "(no reason)");
	}
}

static int judge(struct gate *g)
{
	const struct mb_opts *o = g->o;
	char err[512], summary[1024], failed[600], *baseline = NULL, *against = NULL;
	json_t *jn = NULL, *jb = NULL;
	int r, rc = MB_EXIT_OK;

	jn = mb_compare_load(g->new_path, err, sizeof(err));
	if (!jn)
		return error_out(g, "the new result is unreadable: %s", err);
	r = mb_state_baseline(g->state, g->kver, g->new_path, &baseline);
	if (r < 0) {
		rc = error_out(g, "cannot look for a baseline in %s/results: %s", g->state, strerror(-r));
		goto out;
	}
	if (r == 1) {
		snprintf(summary, sizeof(summary), "no earlier result to compare with (first smoke run)");
		say("verdict: none: no earlier result on this host to compare with (first smoke run)");
	} else {
		struct mb_compare_tally t;
		char *slash;

		say("comparing with %s", baseline);
		jb = mb_compare_load(baseline, err, sizeof(err));
		if (!jb) {
			rc = error_out(g, "unreadable baseline %s; kernel %s stays pending", err, g->kver);
			goto out;
		}
		/* the kernel the baseline belongs to: its directory's name */
		against = strdup(baseline);
		if (!against) {
			rc = error_out(g, "out of memory");
			goto out;
		}
		slash = strrchr(against, '/');
		if (slash)
			*slash = '\0';
		slash = strrchr(against, '/');
		if (slash)
			memmove(against, slash + 1, strlen(slash));
		if (!mb_compare_same_benchmarks(PROG, baseline, jb, g->new_path, jn)) {
			snprintf(summary, sizeof(summary),
				 "not comparable with %s (different benchmarks)", against);
			say("verdict: not comparable (different benchmarks): see the error above");
		} else {
			r = mb_compare_docs(baseline, jb, g->new_path, jn, o->threshold, NULL, &t);
			fflush(stdout);
			if (r < 0) {
				rc = error_out(g, "comparing with %s: %s", baseline, strerror(-r));
				goto out;
			}
			if (t.regressions || t.failed) {
				snprintf(summary, sizeof(summary),
					 "REGRESSION against %s beyond %s %% (or a benchmark failed)",
					 against, o->threshold_text);
				say("verdict: REGRESSION: kernel %s is worse than %s beyond %s %% "
				    "(or a benchmark failed)", g->kver, against, o->threshold_text);
				rc = MB_EXIT_FAIL;
			} else {
				snprintf(summary, sizeof(summary), "no regression beyond %s %% against %s",
					 o->threshold_text, against);
				say("verdict: no regression beyond %s %% for kernel %s", o->threshold_text,
				    g->kver);
			}
		}
	}
	failed_list(jn, failed, sizeof(failed));
	if (failed[0]) {
		say("verdict: FAILED: a smoke benchmark failed on kernel %s: %s", g->kver, failed);
		snprintf(summary, sizeof(summary), "FAILED: %s", failed);
		rc = MB_EXIT_FAIL;
	}
	if (verdict(g, rc == MB_EXIT_OK ? "pass" : "fail", summary) < 0) {
		rc = MB_EXIT_USAGE;
		goto out;
	}
	if (rc == MB_EXIT_OK) {
		r = mb_state_set_last_booted(g->state, g->kver);
		if (r < 0) {
			fprintf(stderr, "%s: ERROR: cannot write %s/last-booted: %s\n", PROG, g->state,
				strerror(-r));
			rc = MB_EXIT_USAGE;
			goto out;
		}
	}
	if (unlink(g->pending) < 0 && errno != ENOENT)
		fprintf(stderr, "%s: warning: cannot remove %s: %s, ignoring\n", PROG, g->pending,
			strerror(errno));
out:
	free(baseline);
	free(against);
	json_decref(jn);
	json_decref(jb);
	return rc;
}

int mb_smoke_gate(const struct mb_opts *o)
{
	struct gate g = { .o = o, .state = o->state_dir, .kver = o->kver, .stamp = o->stamp };
	char stamp[32], results[4096];
	struct utsname u;
	struct stat st;
	int r, rc;

	if (!g.kver) {
		if (uname(&u) < 0) {
			fprintf(stderr, "%s: uname: %s\n", PROG, strerror(errno));
			return MB_EXIT_FAIL;
		}
		g.kver = u.release;
	}
	if (!mb_state_valid_name(g.kver)) {
		fprintf(stderr, "%s: ERROR: bad kernel release '%s'\n", PROG, g.kver);
		return MB_EXIT_USAGE;
	}
	if (!g.stamp) {
		time_t now = time(NULL);
		struct tm tm;

		strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", gmtime_r(&now, &tm));
		g.stamp = stamp;
	}
	if (!mb_state_valid_name(g.stamp)) {
		fprintf(stderr, "%s: ERROR: bad --stamp '%s' (one file name)\n", PROG, g.stamp);
		return MB_EXIT_USAGE;
	}
	if (asprintf(&g.pending, "%s/pending/%s", g.state, g.kver) < 0) {
		g.pending = NULL;
		fprintf(stderr, "%s: out of memory\n", PROG);
		return MB_EXIT_FAIL;
	}
	if (stat(g.pending, &st) < 0) {
		say("kernel %s is not pending (%s absent), nothing to do", g.kver, g.pending);
		free(g.pending);
		return MB_EXIT_OK;
	}
	snprintf(results, sizeof(results), "%s/results/%s", g.state, g.kver);
	if (asprintf(&g.new_path, "%s/%s.json", results, g.stamp) < 0) {
		g.new_path = NULL;
		rc = error_out(&g, "out of memory");
		goto out;
	}
	r = mb_state_mkdir_p(results);
	if (r < 0) {
		rc = error_out(&g, "cannot create %s: %s", results, strerror(-r));
		goto out;
	}
	say("kernel %s: running the smoke benchmarks (threshold %s %%, timeout %s s)", g.kver,
	    o->threshold_text, o->timeout_text);
	rc = run(&g);
	if (rc != 0)
		goto out;
	if (stat(g.new_path, &st) < 0 || st.st_size == 0) {
		rc = error_out(&g, "mmbench smoke wrote no result");
		goto out;
	}
	say("results: %s", g.new_path);
	rc = judge(&g);
out:
	free(g.pending);
	free(g.new_path);
	return rc;
}
