/* exitdrain: how much memory a large process leaves in per-CPU caches after
 * it exits. A child with one thread per CPU faults --size-mib of anonymous
 * memory (4 KiB pages, then a THP variant) and exits; the parent samples
 * MemFree and the per-CPU free-list page count (/proc/zoneinfo pagesets
 * `count:`, summed) at 0, 10, 100 and 1000 ms after waitpid() returns.
 * --drain-knob / --drain-cmd drain right after the 0 ms sample, so the later
 * samples show what a drain gives back. */
#include "mmbench.h"
#include "util.h"
#include "workers.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static const int sample_ms[] = { 0, 10, 100, 1000 };
#define NSAMPLES (sizeof(sample_ms) / sizeof(sample_ms[0]))

struct child_ctx {
	size_t bytes;
	int advice;
	int cpu;
};

static void *child_thread(void *arg)
{
	const struct child_ctx *c = arg;
	char *p;

	(void)mb_pin_to_cpu(c->cpu);
	p = mmap(NULL, c->bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return (void *)1;
	(void)madvise(p, c->bytes, c->advice);
	for (size_t off = 0; off < c->bytes; off += MB_PAGE)
		p[off] = 1;
	return NULL; /* the mapping stays until the process exits */
}

/* Runs in the forked child only; returns its exit status. */
static int child_main(int threads, size_t total, int advice)
{
	pthread_t tids[256];
	struct child_ctx ctx[256];
	int n = threads > 256 ? 256 : threads, bad = 0;

	for (int i = 0; i < n; i++) {
		ctx[i] = (struct child_ctx){ total / (size_t)n, advice, i % mb_online_cpus() };
		if (pthread_create(&tids[i], NULL, child_thread, &ctx[i]) != 0)
			return 1;
	}
	for (int i = 0; i < n; i++) {
		void *rv;

		pthread_join(tids[i], &rv);
		bad |= rv != NULL;
	}
	return bad;
}

static int run_drain(const struct mb_opts *o)
{
	pid_t pid;
	int status;

	if (o->drain_knob)
		return mb_write_string(o->drain_knob, "1");
	if (!o->drain_cmd)
		return 0;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", o->drain_cmd, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -ECHILD;
}

static int one_rep(const struct mb_opts *o, int threads, size_t bytes, int advice,
		   struct mb_mem_sample *base, struct mb_mem_sample *s)
{
	uint64_t t0;
	pid_t pid;
	int status, r;

	r = mb_mem_sample(base);
	if (r < 0)
		return r;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0)
		_exit(child_main(threads, bytes, advice));
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	t0 = mb_now_ns();
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -ECHILD;
	for (size_t i = 0; i < NSAMPLES; i++) {
		mb_sleep_until_ns(t0 + (uint64_t)sample_ms[i] * 1000000ULL);
		r = mb_mem_sample(&s[i]);
		if (r < 0)
			return r;
		if (i == 0) {
			r = run_drain(o);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

static int run_variant(const struct mb_opts *o, struct mb_result *r, int threads, size_t bytes,
		       const char *variant, int advice)
{
	int m_pcp[NSAMPLES], m_def[NSAMPLES], m_lru, m_before;
	char name[48];

	for (size_t i = 0; i < NSAMPLES; i++) {
		snprintf(name, sizeof(name), "%s_pcp_kib_%dms", variant, sample_ms[i]);
		m_pcp[i] = mb_metric_add(r, name, "KiB", MB_BETTER_LOWER);
	}
	for (size_t i = 0; i < NSAMPLES; i++) {
		snprintf(name, sizeof(name), "%s_memfree_deficit_kib_%dms", variant, sample_ms[i]);
		m_def[i] = mb_metric_add(r, name, "KiB", MB_BETTER_LOWER);
	}
	snprintf(name, sizeof(name), "%s_anon_lru_delta_kib_100ms", variant);
	m_lru = mb_metric_add(r, name, "KiB", MB_BETTER_NONE);
	/* what the per-CPU lists held before the child ran, for context */
	snprintf(name, sizeof(name), "%s_pcp_kib_before", variant);
	m_before = mb_metric_add(r, name, "KiB", MB_BETTER_NONE);

	for (int rep = 0; rep < r->reps; rep++) {
		struct mb_mem_sample base, s[NSAMPLES];
		int ret = one_rep(o, threads, bytes, advice, &base, s);

		if (ret < 0)
			return ret;
		for (size_t i = 0; i < NSAMPLES; i++) {
			mb_metric_push(r, m_pcp[i], (double)s[i].pcp_pages * (MB_PAGE / 1024));
			mb_metric_push(r, m_def[i],
				       (double)base.memfree_kib - (double)s[i].memfree_kib);
		}
		mb_metric_push(r, m_before, (double)base.pcp_pages * (MB_PAGE / 1024));
		mb_metric_push(r, m_lru, ((double)s[2].anon_lru_pages - (double)base.anon_lru_pages) *
					 (MB_PAGE / 1024));
	}
	return 0;
}

int bench_exitdrain(const struct mb_opts *o, struct mb_result *r)
{
	int threads = mb_thread_count(o->threads);
	size_t bytes = (size_t)(o->size_mib ? o->size_mib : o->quick ? 128 : 512) << 20;
	int ret;

	r->reps = mb_reps(o, 5, 3);
	mb_param_num(r, "threads", threads);
	mb_param_num(r, "size_mib", (double)(bytes >> 20));
	mb_param_str(r, "sample_ms", "0,10,100,1000");
	mb_param_str(r, "drain", o->drain_knob ? "knob" : o->drain_cmd ? "cmd" : "none");
	if (o->drain_knob) {
		mb_param_str(r, "drain_knob", o->drain_knob);
		if (access(o->drain_knob, W_OK) < 0) {
			mb_skip(r, "cannot write %s (%s): the drain knob needs an mmbatch kernel",
				o->drain_knob, strerror(errno));
			return 0;
		}
	}
	if (o->drain_cmd)
		mb_param_str(r, "drain_cmd", o->drain_cmd);

	ret = mb_run_begin(r);
	if (ret == 0)
		ret = run_variant(o, r, threads, bytes, "4k", MADV_NOHUGEPAGE);
	if (ret == 0)
		ret = run_variant(o, r, threads, bytes, "thp", MADV_HUGEPAGE);
	if (ret == 0)
		ret = mb_run_end(r);
	if (ret == -ECHILD)
		mb_fail(r, "the child (or --drain-cmd) failed");
	return ret == -ECHILD ? 0 : ret;
}
