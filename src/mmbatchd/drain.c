/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The exit-drain policy: which exits qualify, coalescing bursts into one
 * drain, the rate limit, and the log line of each drain.
 *
 * Scheduling: the first qualifying exit makes a drain pending, due
 * DRAIN_COALESCE_NS later (a process tree exiting together, or a batch job's
 * workers, gives one drain, not one per process) but never sooner than
 * 1/max_per_second after the previous drain (a minimum interval: in any
 * window of T seconds there are at most 1 + T * max_per_second drains).
 * Qualifying exits while a drain is pending join it. The timerfd is armed
 * only while a drain is pending, so an idle daemon never wakes up.
 */
#include "drain.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

/* Long enough to gather the exits of one process tree, short enough that the
 * freed memory is back before the next job starts. */
#define DRAIN_COALESCE_NS (50ULL * 1000 * 1000)
#define NS_PER_SEC 1000000000ULL

struct drainer {
	char root[PATH_MAX];
	struct drain_policy policy;
	enum drain_method method;
	int timer_fd;
	drain_clock_fn now;
	struct drain_stats stats;

	bool pending;
	uint64_t due_ns;
	bool drained_before;
	uint64_t last_drain_ns;
	/* Reason of the pending drain: the first qualifying exit, and how many
	 * more joined it. */
	struct exit_event first;
	uint64_t joined;
};

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

static uint64_t min_interval_ns(const struct drain_policy *p)
{
	/* max_per_second <= 0 (or absurdly small): no rate limit / one per
	 * ~hour; the profile validator keeps it positive. */
	if (!(p->max_per_second > 0))
		return 0;
	double ns = (double)NS_PER_SEC / p->max_per_second;
	return ns > 3600.0 * NS_PER_SEC ? 3600ULL * NS_PER_SEC : (uint64_t)ns;
}

int drainer_new(const char *root, const struct drain_policy *p, struct drainer **ret)
{
	struct drainer *d;
	int r;

	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->timer_fd = -1;
	if (snprintf(d->root, sizeof(d->root), "%s", root ? root : "") >= (int)sizeof(d->root)) {
		r = -ENAMETOOLONG;
		goto fail;
	}
	d->policy = *p;
	d->now = monotonic_ns;
	r = drain_method_resolve(d->root, p->method, &d->method);
	if (r < 0)
		goto fail;
	d->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (d->timer_fd < 0) {
		r = -errno;
		goto fail;
	}
	*ret = d;
	return 0;
fail:
	drainer_free(d);
	return r;
}

void drainer_free(struct drainer *d)
{
	if (!d)
		return;
	if (d->timer_fd >= 0)
		close(d->timer_fd);
	free(d);
}

int drainer_timer_fd(const struct drainer *d)
{
	return d->timer_fd;
}

const struct drain_stats *drainer_stats(const struct drainer *d)
{
	return &d->stats;
}

void drainer_set_clock(struct drainer *d, drain_clock_fn now_ns)
{
	d->now = now_ns ? now_ns : monotonic_ns;
}

bool drainer_pending(const struct drainer *d, uint64_t *ret_due_ns)
{
	if (d->pending && ret_due_ns)
		*ret_due_ns = d->due_ns;
	return d->pending;
}

enum drain_method drainer_method(const struct drainer *d)
{
	return d->method;
}

/* Arms the timerfd to fire in delta_ns (relative, so an injected clock works
 * too); 0 disarms it. */
static void arm_timer(struct drainer *d, uint64_t delta_ns)
{
	struct itimerspec its = { 0 };

	if (delta_ns) {
		its.it_value.tv_sec = (time_t)(delta_ns / NS_PER_SEC);
		its.it_value.tv_nsec = (long)(delta_ns % NS_PER_SEC);
	}
	if (timerfd_settime(d->timer_fd, 0, &its, NULL) < 0)
		log_warning("drain: timerfd_settime: %s, ignoring", strerror(errno));
}

static bool exit_qualifies(const struct drain_policy *p, const struct exit_event *ev)
{
	/* UINT64_MAX / 1024 keeps the product from overflowing. */
	if (p->min_rss_mb > UINT64_MAX / 1024)
		return false;
	return ev->hiwater_rss_kb >= p->min_rss_mb * 1024;
}

void drainer_on_exit(struct drainer *d, const struct exit_event *ev)
{
	uint64_t now, due;

	d->stats.exits_seen++;
	if (!d->policy.on_exit || !exit_qualifies(&d->policy, ev))
		return;
	d->stats.exits_qualifying++;
	if (d->pending) {
		d->stats.coalesced++;
		d->joined++;
		log_debug("drain: qualifying exit of pid %d (%.31s) peak RSS %" PRIu64 " KiB joins the pending drain",
			  (int)ev->pid, ev->comm, ev->hiwater_rss_kb);
		return;
	}

	now = d->now();
	due = now + DRAIN_COALESCE_NS;
	if (d->drained_before) {
		uint64_t allowed = d->last_drain_ns + min_interval_ns(&d->policy);
		if (allowed > due) {
			due = allowed;
			d->stats.rate_limited++;
		}
	}
	log_debug("drain: qualifying exit of pid %d (%.31s) peak RSS %" PRIu64 " KiB, drain due in %" PRIu64 " ms",
		  (int)ev->pid, ev->comm, ev->hiwater_rss_kb, (due - now) / 1000000);
	d->pending = true;
	d->due_ns = due;
	d->first = *ev;
	d->joined = 0;
	arm_timer(d, due - now);
}

/* Drains are numbered by attempt (#N counts failed ones too). */
static void log_drain(const struct drainer *d, int r, uint64_t cost_us, int64_t delta_kb, bool have_memfree)
{
	char reason[160], memfree[48];

	if (d->first.pid == 0)
		snprintf(reason, sizeof(reason), "exit events lost in a netlink overrun");
	else
		snprintf(reason, sizeof(reason), "exit of pid %d (%.31s) peak RSS %" PRIu64 " MiB >= %" PRIu64 " MiB",
			 (int)d->first.pid, d->first.comm, d->first.hiwater_rss_kb / 1024, d->policy.min_rss_mb);
	if (have_memfree)
		snprintf(memfree, sizeof(memfree), "%+" PRId64 " kB", delta_kb);
	else
		snprintf(memfree, sizeof(memfree), "n/a");

	if (r < 0) {
		log_error("drain #%" PRIu64 " failed: %s: %s (%s, +%" PRIu64 " coalesced), cost %" PRIu64 " us",
			  d->stats.drains + d->stats.failures, drain_method_name(d->method), strerror(-r),
			  reason, d->joined, cost_us);
		return;
	}
	log_info("drain #%" PRIu64 ": %s, +%" PRIu64 " coalesced; method %s; cost %" PRIu64 " us; MemFree %s%s",
		 d->stats.drains + d->stats.failures, reason, d->joined, drain_method_name(d->method), cost_us, memfree,
		 d->method == DRAIN_MIGRATE_PAGES
		 ? " (LRU batches only: stock kernels cannot drain the per-CPU free lists)" : "");
}

int drainer_on_timer(struct drainer *d)
{
	uint64_t expirations, now, t0, t1;
	int64_t before = 0, after = 0;
	bool have_memfree;
	int r;

	/* Consume the expiry; EAGAIN (spurious or already read) is fine. */
	if (read(d->timer_fd, &expirations, sizeof(expirations)) < 0 && errno != EAGAIN)
		log_debug("drain: timerfd read: %s", strerror(errno));
	if (!d->pending)
		return 0;
	now = d->now();
	if (now < d->due_ns) {
		arm_timer(d, d->due_ns - now);
		return 0;
	}

	have_memfree = drain_read_memfree_kb(d->root, &before) == 0;
	t0 = monotonic_ns();
	r = drain_method_run(d->root, d->method);
	t1 = monotonic_ns();
	have_memfree = have_memfree && drain_read_memfree_kb(d->root, &after) == 0;

	d->pending = false;
	d->drained_before = true;
	d->last_drain_ns = now;
	d->stats.last_cost_us = (t1 - t0) / 1000;
	d->stats.last_memfree_delta_kb = have_memfree ? after - before : 0;
	if (r < 0)
		d->stats.failures++;
	else
		d->stats.drains++;
	log_drain(d, r, d->stats.last_cost_us, after - before, have_memfree);
	arm_timer(d, 0);
	return r;
}
