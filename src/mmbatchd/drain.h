/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * drain: drain per-CPU page caches after a large process exits.
 *
 * Why: pages a large process frees at exit can sit in per-CPU LRU batches
 * and per-CPU free lists, where other CPUs cannot use them and MemFree
 * under-reports. Draining returns them to the buddy allocator.
 *
 * Methods:
 *  - DRAIN_SYSCTL writes "1" to ROOT/proc/sys/vm/drain_percpu, the knob our
 *    patched kernels add (lru_add_drain_all() + drain_all_pages(NULL)).
 *  - DRAIN_MIGRATE_PAGES calls migrate_pages(2) on ourselves with identical
 *    old and new masks (the nodes with memory, from ROOT/sys/devices/system/
 *    node/has_memory, else .../online): it moves nothing, but
 *    do_migrate_pages() calls lru_cache_disable(), which drains the per-CPU
 *    LRU batches of every CPU. Stock kernels with CONFIG_NUMA only. It cannot
 *    drain the per-CPU free lists (drain_all_pages()); nothing in stock
 *    userspace can. Always a real syscall, even under --root (it moves
 *    nothing, so that is harmless).
 *  - DRAIN_AUTO resolves to the knob when present, else migrate_pages.
 *
 * Policy: an exit qualifies when its peak RSS >= min_rss_mb. Qualifying
 * exits arm a short coalescing timer (a burst becomes one drain); the drain
 * then runs no sooner than 1/max_per_second after the previous one (minimum
 * interval), later exits merging into the pending drain.
 */
#ifndef MMBATCHD_DRAIN_H
#define MMBATCHD_DRAIN_H

#include <stdbool.h>
#include <stdint.h>

#include "exitwatch.h"

enum drain_method { DRAIN_AUTO, DRAIN_SYSCTL, DRAIN_MIGRATE_PAGES };

struct drain_policy { bool on_exit; uint64_t min_rss_mb; double max_per_second; enum drain_method method; };

/* drains: drains performed; exits_seen: every exit handed to the drainer;
 * exits_qualifying: those with peak RSS >= min_rss_mb; coalesced: qualifying
 * exits folded into an already pending drain; rate_limited: pending drains
 * that had to wait for the rate limit; failures: drains whose method failed;
 * last_cost_us: wall time of the last drain; last_memfree_delta_kb: MemFree
 * after minus before the last drain. */
struct drain_stats { uint64_t drains, exits_seen, exits_qualifying, coalesced, rate_limited, failures; uint64_t last_cost_us; int64_t last_memfree_delta_kb; };

/* Resolves want (DRAIN_AUTO allowed) to a method the running kernel can do
 * under root (the --root prefix, "" for the host). Returns 0, or -EOPNOTSUPP
 * when it cannot (no knob for sysctl; no NUMA/ENOSYS for migrate_pages). */
int drain_method_resolve(const char *root, enum drain_method want, enum drain_method *ret); /* -EOPNOTSUPP if the running kernel cannot; root may be "" */

/* "auto", "sysctl", "migrate_pages". */
const char *drain_method_name(enum drain_method m);

/* Inverse of drain_method_name(). */
int drain_method_parse(const char *s, enum drain_method *ret); /* -EINVAL on unknown */

struct drainer;

/* Resolves p->method (see drain_method_resolve) and creates the timerfd. */
int drainer_new(const char *root, const struct drain_policy *p, struct drainer **ret);

/* Poll for EPOLLIN, then call drainer_on_timer(). */
int drainer_timer_fd(const struct drainer *d);         /* timerfd; armed only while a drain is pending */

/* Counts the exit; a qualifying one schedules (or joins) a pending drain. */
void drainer_on_exit(struct drainer *d, const struct exit_event *ev);

/* Returns 0, or a negative errno when the drain method failed (counted in
 * failures; the drainer stays usable). */
int drainer_on_timer(struct drainer *d);               /* performs the due drain, logs reason/cost/MemFree change */

const struct drain_stats *drainer_stats(const struct drainer *d);

void drainer_free(struct drainer *d);

/* ---- Below: not part of the daemon core's interface. ---- */

/* Test hook: the clock the policy schedules by (nanoseconds, monotonic).
 * Defaults to CLOCK_MONOTONIC; unit tests inject a fake one so coalescing and
 * rate limiting are checked without sleeping. Drain cost is always measured
 * on the real clock. */
typedef uint64_t (*drain_clock_fn)(void);
void drainer_set_clock(struct drainer *d, drain_clock_fn now_ns);

/* True while a drain is pending; *ret_due_ns (may be NULL) gets the clock
 * time it is due at. */
bool drainer_pending(const struct drainer *d, uint64_t *ret_due_ns);

/* The method drainer_new() resolved to (never DRAIN_AUTO). */
enum drain_method drainer_method(const struct drainer *d);

/* drain_method.c: runs one drain with a resolved method. */
int drain_method_run(const char *root, enum drain_method m);

/* drain_method.c: MemFree in KiB from ROOT/proc/meminfo. */
int drain_read_memfree_kb(const char *root, int64_t *ret);

#endif
