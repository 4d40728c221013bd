/* numa-hinting: the NUMA-balancing path of the 2015 hinting-fault thread
 * (the xfs_repair regression). Worker threads on one node's CPUs write
 * memory that sits on the other node, with NUMA balancing on and a short
 * scan period: the scanner makes their PTEs PROT_NONE (a TLB flush per
 * range), each access then takes a hinting fault, and the fault migrates
 * the page to the workers' node. A spinner thread on every other CPU keeps
 * the mm live there, so the flushes have receivers. Reports the hinting faults, the pages NUMA
 * balancing migrated, TLB IPIs per 1000 hinting faults and the time until
 * the memory is local (by /proc/self/numa_maps). Every knob written is put
 * back afterwards (knobs.c). Needs two nodes and NUMA balancing: exits 77
 * otherwise. */
#include "knobs.h"
#include "mmbench.h"
#include "node_mem.h"
#include "numa.h"
#include "util.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define NUMA_BALANCING "/proc/sys/kernel/numa_balancing"
#define NH_LOCAL_FRACTION 0.9        /* "local": 90% of the pages on the workers' node */
#define NH_POLL_NS (50 * 1000000ULL)

/* The scan period knobs: sysctls up to 5.x, debugfs since (6.1, 6.12). A
 * short delay and period make the scanner visit the range within a
 * second instead of a minute. */
static const char *const scan_dirs[] = {
	"/proc/sys/kernel/numa_balancing_",
	"/sys/kernel/debug/sched/numa_balancing/",
};
static const char *const scan_knobs[][2] = {
	{ "scan_delay_ms", "10" },
	{ "scan_period_min_ms", "100" },
	{ "scan_period_max_ms", "1000" },
};

struct nh_run {
	char *map, *mem;        /* mem: the range, inside map */
	size_t map_bytes, bytes;
	int local, remote;
	int stop;
};

struct nh_worker {
	pthread_t tid;
	struct nh_run *run;
	int cpu;
	size_t off, len;    /* len 0: a spinner */
	int started;
};

int mb_numa_hinting_check_opts(const struct mb_opts *o, char *err, size_t err_size)
{
	if (o->seconds > 0 && o->seconds < MB_NUMA_HINTING_MIN_S) {
		snprintf(err, err_size, "option '--seconds': %g s, numa-hinting waits at least "
			 "%g s for the memory to become local", o->seconds, MB_NUMA_HINTING_MIN_S);
		return -EINVAL;
	}
	return 0;
}

static void *worker_main(void *arg)
{
	struct nh_worker *w = arg;
	struct nh_run *c = w->run;

	(void)mb_pin_to_cpu(w->cpu); /* best effort: cpusets may forbid it */
	/* writes, so each hinting fault is on a page this node's CPUs use; a
	 * spinner touches nothing and only keeps the mm live on its CPU */
	while (!__atomic_load_n(&c->stop, __ATOMIC_RELAXED)) {
		for (size_t off = w->off; off < w->off + w->len; off += MB_PAGE)
			c->mem[off]++;
		__asm__ __volatile__("" ::: "memory");
	}
	return NULL;
}

/* Why this machine cannot run the benchmark, or NULL (after the nodes). */
static const char *unavailable(char *buf, size_t size)
{
	struct mb_counters *c = malloc(sizeof(*c));
	uint64_t v;
	int r;

	if (access(NUMA_BALANCING, W_OK) < 0) {
		if (errno == ENOENT)
			snprintf(buf, size, "no NUMA balancing in this kernel (no " NUMA_BALANCING
				 ": CONFIG_NUMA_BALANCING?)");
		else
			snprintf(buf, size, "cannot write " NUMA_BALANCING ": %s", strerror(errno));
		free(c);
		return buf;
	}
	r = c ? mb_counters_snapshot(c) : -ENOMEM;
	if (r == 0 && mb_vmstat_get(c, "numa_hint_faults", &v) < 0) {
		snprintf(buf, size, "no NUMA balancing in this kernel (no numa_hint_faults in "
			 "/proc/vmstat)");
		free(c);
		return buf;
	}
	free(c);
	return NULL;
}

/* Sets the scan knobs in the first directory that has them; the one used,
 * or NULL when neither does (the kernel's defaults then stay). */
static const char *tune_scan(void)
{
	for (size_t d = 0; d < sizeof(scan_dirs) / sizeof(scan_dirs[0]); d++) {
		char path[160];
		int ok = 1;

		snprintf(path, sizeof(path), "%s%s", scan_dirs[d], scan_knobs[0][0]);
		if (access(path, W_OK) < 0)
			continue;
		for (size_t k = 0; k < sizeof(scan_knobs) / sizeof(scan_knobs[0]); k++) {
			snprintf(path, sizeof(path), "%s%s", scan_dirs[d], scan_knobs[k][0]);
			ok &= mb_knob_set(path, scan_knobs[k][1]) == 0;
		}
		if (ok)
			return scan_dirs[d];
	}
	return NULL;
}

/* The memory on the remote node, with the default policy again so that
 * NUMA balancing scans it (it skips ranges with a bind policy). */
static int place_remote(struct nh_run *c)
{
	int r;

	/* an inaccessible page on each side: a neighbour with the same flags
	 * (a thread's stack) would merge into the range's VMA, and numa_maps
	 * would show it under the neighbour's start */
	c->map_bytes = c->bytes + 2 * MB_PAGE;
	c->map = mmap(NULL, c->map_bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (c->map == MAP_FAILED) {
		c->map = NULL;
		return -errno;
	}
	c->mem = c->map + MB_PAGE;
	if (mprotect(c->mem, c->bytes, PROT_READ | PROT_WRITE) < 0)
		return -errno;
	/* 4 KiB pages: one hinting fault per page, as in the seed's case */
	if (madvise(c->mem, c->bytes, MADV_NOHUGEPAGE) < 0)
		return -errno;
	r = mb_mbind_move(c->mem, c->bytes, c->remote);
	if (r < 0)
		return r;
	for (size_t off = 0; off < c->bytes; off += MB_PAGE)
		c->mem[off] = 1;
	return mb_mbind_default(c->mem, c->bytes);
}

struct nh_metrics {
	int time, faults, faults_local, migrated, ptes, per1000, tlb, sys, local_end;
};

struct nh_rep {
	struct mb_counters before, after, d;
};

/* Polls numa_maps until the memory is local or the time is up: 0 with
 * *ret_s, 1 on the timeout; *ret_frac the last local fraction. */
static int wait_local(const struct nh_run *c, uint64_t t0, double timeout_s, double *ret_s,
		      double *ret_frac)
{
	for (;;) {
		uint64_t on = 0, all = 0, now;
		int r;

		mb_sleep_until_ns(mb_now_ns() + NH_POLL_NS);
		now = mb_now_ns();
		r = mb_numa_maps_pages(c->mem, c->local, &on, &all);
		if (r < 0)
			return r;
		*ret_frac = all ? (double)on / (double)all : 0;
		if (*ret_frac >= NH_LOCAL_FRACTION) {
			*ret_s = (double)(now - t0) / 1e9;
			return 0;
		}
		if ((double)(now - t0) / 1e9 >= timeout_s)
			return 1;
	}
}

static int one_rep(struct mb_result *r, struct nh_run *c, struct nh_worker *w, int nw,
		   double timeout_s, const struct nh_metrics *m, struct nh_rep *x)
{
	uint64_t t0, faults = 0, local = 0, migrated = 0, ptes = 0;
	double sys0, secs = 0, frac = 0;
	int ret, waited = -1;

	ret = place_remote(c);
	if (ret < 0)
		return ret;
	sys0 = mb_sys_seconds();
	ret = mb_counters_snapshot(&x->before);
	if (ret < 0)
		return ret;
	c->stop = 0;
	t0 = mb_now_ns();
	for (int i = 0; i < nw && ret == 0; i++) {
		w[i].run = c;
		ret = -pthread_create(&w[i].tid, NULL, worker_main, &w[i]);
		w[i].started = ret == 0;
	}
	if (ret == 0)
		waited = ret = wait_local(c, t0, timeout_s, &secs, &frac);
	__atomic_store_n(&c->stop, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < nw; i++)
		if (w[i].started) {
			pthread_join(w[i].tid, NULL);
			w[i].started = 0;
		}
	if (ret >= 0) {
		int r2 = mb_counters_snapshot(&x->after);

		ret = r2 < 0 ? r2 : ret;
	}
	if (ret < 0)
		return ret;
	mb_counters_delta(&x->before, &x->after, &x->d);
	(void)mb_vmstat_get(&x->d, "numa_hint_faults", &faults);
	(void)mb_vmstat_get(&x->d, "numa_hint_faults_local", &local);
	(void)mb_vmstat_get(&x->d, "numa_pages_migrated", &migrated);
	(void)mb_vmstat_get(&x->d, "numa_pte_updates", &ptes);
	if (waited == 1) {
		mb_fail(r, "memory not local after %g s: %.0f%% on node %d (numa_hint_faults +%llu, "
			"numa_pages_migrated +%llu)", timeout_s, frac * 100, c->local,
			(unsigned long long)faults, (unsigned long long)migrated);
		return 0;
	}
	if (faults == 0) {
		mb_fail(r, "the memory became local without a hinting fault (numa_hint_faults +0): "
			"not NUMA balancing's doing");
		return 0;
	}
	mb_metric_push(r, m->time, secs);
	mb_metric_push(r, m->faults, (double)faults);
	mb_metric_push(r, m->faults_local, (double)local);
	mb_metric_push(r, m->migrated, (double)migrated);
	mb_metric_push(r, m->ptes, (double)ptes);
	if (x->d.has_tlb) {
		mb_metric_push(r, m->per1000, (double)x->d.tlb * 1000.0 / (double)faults);
		mb_metric_push(r, m->tlb, (double)x->d.tlb);
	}
	mb_metric_push(r, m->sys, mb_sys_seconds() - sys0);
	mb_metric_push(r, m->local_end, frac);
	return 0;
}

/* The workers' node must have CPUs: local is the one that has them. */
static int pick_local(int a, int b, int *ret_local, int *ret_remote, uint64_t *ret_cpus)
{
	uint64_t ca = 0, cb = 0;

	(void)mb_node_cpus(a, &ca);
	(void)mb_node_cpus(b, &cb);
	*ret_local = ca ? a : b;
	*ret_remote = ca ? b : a;
	*ret_cpus = ca ? ca : cb;
	return *ret_cpus ? 0 : -ENODEV;
}

int bench_numa_hinting(const struct mb_opts *o, struct mb_result *r)
{
	double timeout_s = o->seconds > 0 ? o->seconds : o->quick ? 15 : 30;
	long size_mib = o->size_mib ? o->size_mib : o->quick ? 32 : 256;
	struct nh_run c = { 0 };
	struct nh_worker *w = NULL;
	struct nh_rep *x = NULL;
	struct nh_metrics m;
	uint64_t cpus, free_kib = 0;
	int a, b, nw, nspin = 0, ncpu, first, ret;
	const char *scan;
	char why[300];

	r->reps = mb_reps(o, 3, 2);
	ret = mb_pick_two_nodes(r, &a, &b);
	if (ret != 0)
		return ret < 0 ? ret : 0;
	if (unavailable(why, sizeof(why))) {
		mb_skip(r, "%s", why);
		return 0;
	}
	if (pick_local(a, b, &c.local, &c.remote, &cpus) < 0) {
		mb_skip(r, "neither node %d nor node %d has a CPU", a, b);
		return 0;
	}
	/* the remote node's faults are bound to it: more than it has would OOM */
	if (mb_node_memfree_kib(c.remote, &free_kib) == 0 &&
	    (uint64_t)size_mib << 10 > free_kib * 3 / 4) {
		mb_fail(r, "--size-mib %ld is more than 3/4 of node %d's free memory (%llu MiB)",
			size_mib, c.remote, (unsigned long long)(free_kib >> 10));
		return 0;
	}
	ncpu = __builtin_popcountll(cpus);
	first = __builtin_ctzll(cpus);
	nw = o->threads ? o->threads : ncpu;
	/* one spinner on every CPU outside the workers' node, as migrate has:
	 * the PTE scans' and migrations' flushes then have receivers there (a
	 * 2-vCPU guest with one CPU per node would have none) */
	for (int cpu = 0; cpu < mb_online_cpus() && cpu < 64; cpu++)
		nspin += !(cpus & (1ULL << cpu));
	c.bytes = (size_t)size_mib << 20;
	mb_param_num(r, "local_node", c.local);
	mb_param_num(r, "remote_node", c.remote);
	mb_param_num(r, "size_mib", (double)size_mib);
	mb_param_num(r, "threads", nw);
	mb_param_num(r, "spinner_threads", nspin);
	mb_param_num(r, "timeout_s", timeout_s);
	mb_param_num(r, "local_fraction", NH_LOCAL_FRACTION);
	m.time = mb_metric_add(r, "time_to_local_s", "s", MB_BETTER_LOWER);
	m.faults = mb_metric_add(r, "numa_hint_faults", "faults", MB_BETTER_NONE);
	m.faults_local = mb_metric_add(r, "numa_hint_faults_local", "faults", MB_BETTER_NONE);
	m.migrated = mb_metric_add(r, "numa_pages_migrated", "pages", MB_BETTER_NONE);
	m.ptes = mb_metric_add(r, "numa_pte_updates", "PTEs", MB_BETTER_NONE);
	m.per1000 = mb_metric_add(r, "tlb_ipis_per_1000_hint_faults", "IPIs/1000 faults",
				  MB_BETTER_LOWER);
	m.tlb = mb_metric_add(r, "tlb_ipis", "IPIs", MB_BETTER_NONE);
	m.sys = mb_metric_add(r, "sys_s", "s", MB_BETTER_LOWER);
	m.local_end = mb_metric_add(r, "local_fraction_end", "fraction", MB_BETTER_NONE);

	w = calloc((size_t)(nw + nspin), sizeof(*w));
	x = calloc(1, sizeof(*x));
	if (!w || !x) {
		ret = -ENOMEM;
		goto out;
	}
	/* each worker its slice, on the local node's CPUs in turn */
	for (int i = 0, cpu = first; i < nw; i++) {
		size_t pages = c.bytes / MB_PAGE;

		w[i].cpu = cpu;
		w[i].off = pages * (size_t)i / (size_t)nw * MB_PAGE;
		w[i].len = pages * (size_t)(i + 1) / (size_t)nw * MB_PAGE - w[i].off;
		do
			cpu = (cpu + 1) % 64;
		while (!(cpus & (1ULL << cpu)));
	}
	for (int i = nw, cpu = 0; i < nw + nspin; i++, cpu++) {
		while (cpus & (1ULL << cpu))
			cpu++;
		w[i].cpu = cpu;
	}
	(void)mb_pin_to_cpu(first);
	ret = mb_knob_set(NUMA_BALANCING, "1");
	if (ret < 0)
		goto out;
	scan = tune_scan();
	mb_param_str(r, "scan_knobs", scan ? scan : "none writable: the kernel's scan period");
	ret = mb_run_begin(r);
	for (int rep = 0; rep < r->reps && ret == 0 && r->status == MB_STATUS_OK; rep++) {
		ret = one_rep(r, &c, w, nw + nspin, timeout_s, &m, x);
		if (c.map)
			munmap(c.map, c.map_bytes);
		c.map = c.mem = NULL;
	}
	/* a failed repetition pushed nothing: the document counts the ones done */
	if (r->status == MB_STATUS_FAILED)
		r->reps = r->metrics[m.sys].n;
	if (ret == 0)
		ret = mb_run_end(r);
out:
	mb_knob_restore_all();
	free(w);
	free(x);
	return ret;
}
