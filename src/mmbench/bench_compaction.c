/* compaction: the 2015 migration-batching seed's scenario (MMTests'
 * THP-scale shape). The main thread fragments one node's memory: it faults
 * --size-mib of 4 KiB pages bound to that node, then frees all but one page
 * of every --keep-every (default 2: every other page), so each 2 MiB page
 * block keeps some pages and none can become a THP without compaction. A
 * large --keep-every spreads few kept pages over much memory: compaction
 * then migrates few pages wherever they lie (the scaling boots of bench-vm,
 * where an unbatched kernel under TCG migrates about 9 pages a second at 8
 * vCPUs; a small --size-mib instead can leave its blocks where compaction's
 * two scanners meet before them, and nothing migrates). Then worker threads
 * of the same process fault as much THP-eligible memory (MADV_HUGEPAGE,
 * bound to the node) as was freed, and the main thread writes the node's
 * compact file, so
 * compaction migrates the kept pages while the workers run in the mm (they
 * read the kept pages until the round ends): every page unmapped for
 * migration needs a TLB flush on the workers' CPUs. Async compaction is the
 * MIGRATE_ASYNC case the series batches. Needs THP and compaction: exits 77
 * otherwise. */
#include "mmbench.h"
#include "node_mem.h"
#include "numa.h"
#include "tlb_windows.h"
#include "topology.h"
#include "util.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define CP_BLOCK (2UL << 20) /* a page block on x86-64, and the THP size */
#define COMPACT_MEMORY "/proc/sys/vm/compact_memory"

struct cp_run {
	char *frag;
	size_t frag_bytes;
	size_t thp_bytes;   /* per worker */
	size_t keep_every;  /* one page kept of every keep_every */
	size_t kept;        /* pages kept: page 0, keep_every, 2 * keep_every, ... */
	int node;
	int stop;
	int faulting;       /* workers still faulting their THP memory */
	uint64_t *pfns;     /* the kept pages' frames before the round */
	uint64_t *pfns_after;
};

struct cp_worker {
	pthread_t tid;
	struct cp_run *run;
	int cpu;
	char *map;
	size_t map_bytes;
	int err;
	int started;
};

int mb_compaction_check_opts(const struct mb_opts *o, char *err, size_t err_size)
{
	if (o->size_mib && o->size_mib < MB_COMPACTION_MIN_MIB) {
		snprintf(err, err_size, "option '--size-mib': %ld MiB, compaction needs at least %d "
			 "(4 page blocks to fragment)", o->size_mib, MB_COMPACTION_MIN_MIB);
		return -EINVAL;
	}
	return 0;
}

/* /sys/kernel/mm, or (tests only) the tree MMBENCH_MM_SYSFS names, as the
 * integrity kinds read it: a host test can show a kernel without THP. */
static void thp_path(char *buf, size_t size)
{
	const char *root = getenv("MMBENCH_MM_SYSFS");

	snprintf(buf, size, "%s/transparent_hugepage/enabled",
		 root && *root ? root : "/sys/kernel/mm");
}

/* Why this machine cannot run the benchmark, or NULL. */
static const char *unavailable(char *buf, size_t size)
{
	char path[300], line[128];

	thp_path(path, sizeof(path));
	if (mb_read_line(path, line, sizeof(line)) < 0) {
		snprintf(buf, size, "no transparent huge pages (no %s)", path);
		return buf;
	}
	if (strstr(line, "[never]")) {
		snprintf(buf, size, "transparent huge pages are off (%s: never)", path);
		return buf;
	}
	if (access(COMPACT_MEMORY, W_OK) < 0) {
		snprintf(buf, size, "cannot write " COMPACT_MEMORY "%s: %s",
			 errno == ENOENT ? " (CONFIG_COMPACTION?)" : "", strerror(errno));
		return buf;
	}
	return NULL;
}

/* KEY's KiB in a meminfo-shaped FILE, or -errno. */
static int meminfo_kib(const char *file, const char *key, uint64_t *ret)
{
	char *text;
	int r = mb_read_file(file, &text, NULL);

	if (r < 0)
		return r;
	r = mb_parse_meminfo(text, key, ret);
	free(text);
	return r;
}

static int system_memfree_kib(uint64_t *ret)
{
	return meminfo_kib("/proc/meminfo", "MemFree", ret);
}

/* This process's AnonHugePages (KiB), or -errno. */
static int anon_huge_kib(uint64_t *ret)
{
	return meminfo_kib("/proc/self/smaps_rollup", "AnonHugePages", ret);
}

static void *worker_main(void *arg)
{
	struct cp_worker *w = arg;
	struct cp_run *c = w->run;
	volatile char sink = 0;
	char *p;

	(void)mb_pin_to_cpu(w->cpu); /* best effort: cpusets may forbid it */
	/* one block more, so the THP-eligible range can start on a 2 MiB boundary */
	w->map_bytes = c->thp_bytes + CP_BLOCK;
	w->map = mmap(NULL, w->map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		      -1, 0);
	if (w->map == MAP_FAILED) {
		w->map = NULL;
		w->err = -errno;
		goto done;
	}
	p = (char *)(((uintptr_t)w->map + CP_BLOCK - 1) & ~(CP_BLOCK - 1));
	if (madvise(p, c->thp_bytes, MADV_HUGEPAGE) < 0) {
		w->err = -errno;
		goto done;
	}
	/* the THPs must come from the fragmented node */
	w->err = mb_mbind_two(p, c->thp_bytes, c->node, c->node);
	for (size_t off = 0; off < c->thp_bytes && w->err == 0; off += MB_PAGE)
		p[off] = 1;
done:
	__atomic_fetch_sub(&c->faulting, 1, __ATOMIC_RELEASE);
	/* keep the mm live on this CPU, with the kept pages in its TLB, until
	 * the round ends: compaction's unmaps must flush here */
	while (!__atomic_load_n(&c->stop, __ATOMIC_RELAXED))
		for (size_t off = 0; off < c->frag_bytes; off += 2 * MB_PAGE)
			sink += c->frag[off];
	(void)sink;
	return NULL;
}

/* Faults the region on the node, then frees every other page of it. */
static int fragment(struct cp_run *c)
{
	int r;

	c->frag = mmap(NULL, c->frag_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	if (c->frag == MAP_FAILED) {
		c->frag = NULL;
		return -errno;
	}
	/* 4 KiB pages: a THP here would be one movable 2 MiB block, no hole */
	if (madvise(c->frag, c->frag_bytes, MADV_NOHUGEPAGE) < 0)
		return -errno;
	r = mb_mbind_two(c->frag, c->frag_bytes, c->node, c->node);
	if (r < 0)
		return r;
	for (size_t off = 0; off < c->frag_bytes; off += MB_PAGE)
		c->frag[off] = (char)(off >> 12);
	/* faults in address order take mostly adjacent pages from the buddy
	 * lists, so one page of every keep_every of the range is mostly one of
	 * every keep_every of its physical blocks: each keeps some pages */
	for (size_t off = 0; off < c->frag_bytes; off += c->keep_every * MB_PAGE) {
		size_t gap = (c->keep_every - 1) * MB_PAGE;

		if (off + MB_PAGE + gap > c->frag_bytes)
			gap = c->frag_bytes - off - MB_PAGE;
		if (gap && madvise(c->frag + off + MB_PAGE, gap, MADV_DONTNEED) < 0)
			return -errno;
	}
	return 0;
}

struct cp_metrics {
	int peak, mean, per1000, tlb, sys, scanned, isolated, migrated, kept_migrated, stall, thps,
	    thp_alloc, thp_fallback, window;
};

/* How many kept pages compaction moved: their frame changed. -1 when the
 * frames are hidden (pagemap shows 0 without CAP_SYS_ADMIN). */
static long kept_moved(const struct cp_run *c)
{
	size_t n = c->kept;
	long moved = 0;

	if (mb_pagemap_pfns(c->frag, n, c->keep_every, c->pfns_after) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (!c->pfns[i] || !c->pfns_after[i])
			return -1;
		moved += c->pfns[i] != c->pfns_after[i];
	}
	return moved;
}

struct cp_rep {
	struct mb_counters before, after, d;
	struct mb_tlb_sampler s;
};

/* Starts the workers, compacts, waits for the workers' faults, stops. */
static int round_run(struct cp_run *c, struct cp_worker *w, int nw, const char *compact_file)
{
	int ret = 0, started = 0;

	c->stop = 0;
	c->faulting = nw;
	for (int i = 0; i < nw; i++) {
		w[i].run = c;
		w[i].err = 0;
		ret = -pthread_create(&w[i].tid, NULL, worker_main, &w[i]);
		if (ret < 0)
			break;
		w[i].started = 1;
		started++;
	}
	/* a worker that did not start will never count itself done */
	__atomic_fetch_sub(&c->faulting, nw - started, __ATOMIC_RELEASE);
	if (ret == 0)
		ret = mb_write_string(compact_file, "1");
	while (__atomic_load_n(&c->faulting, __ATOMIC_ACQUIRE) > 0)
		mb_sleep_until_ns(mb_now_ns() + 1000000ULL);
	return ret;
}

/* A /proc/vmstat delta; 0 when this kernel lacks the field. */
static double vm_delta(const struct mb_counters *d, const char *name)
{
	uint64_t v = 0;

	(void)mb_vmstat_get(d, name, &v);
	return (double)v;
}

static int one_rep(struct mb_result *r, struct cp_run *c, struct cp_worker *w, int nw,
		   const char *compact_file, const struct cp_metrics *m, struct cp_rep *x)
{
	uint64_t huge0 = 0, huge1 = 0, t0, ok = 0;
	int has_huge, has_samples, has_pfns, ret, ret2;
	long moved = -1;
	double sys0, peak, mean;

	ret = fragment(c);
	if (ret < 0)
		return ret;
	has_pfns = mb_pagemap_pfns(c->frag, c->kept, c->keep_every, c->pfns) == 0;
	has_huge = anon_huge_kib(&huge0) == 0;
	sys0 = mb_sys_seconds();
	ret = mb_counters_snapshot(&x->before);
	if (ret < 0)
		return ret;
	ret = mb_tlb_sampler_start(&x->s, MB_TLB_WINDOW_NS);
	has_samples = ret == 0;
	if (ret == -ENOENT)
		ret = 0; /* no TLB row (not x86): the IPI metrics are left out */
	t0 = mb_now_ns();
	if (ret == 0)
		ret = round_run(c, w, nw, compact_file);
	if (has_huge && anon_huge_kib(&huge1) < 0)
		has_huge = 0;
	__atomic_store_n(&c->stop, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < nw; i++)
		if (w[i].started) {
			pthread_join(w[i].tid, NULL);
			w[i].started = 0;
			if (ret == 0 && w[i].err < 0)
				ret = w[i].err;
		}
	if (has_pfns)
		moved = kept_moved(c);
	ret2 = has_samples ? mb_tlb_sampler_stop(&x->s) : 0;
	if (ret == 0)
		ret = ret2;
	if (ret == 0)
		ret = mb_counters_snapshot(&x->after);
	if (ret < 0)
		return ret;
	mb_counters_delta(&x->before, &x->after, &x->d);
	(void)mb_vmstat_get(&x->d, "pgmigrate_success", &ok);
	if (ok == 0) {
		mb_fail(r, "compaction migrated no page (pgmigrate_success +0): "
			"nothing to measure");
		return 0;
	}
	if (has_samples && x->d.has_tlb &&
	    mb_rate_windows(x->s.t_ns, x->s.count, x->s.n, &peak, &mean) == 0) {
		mb_metric_push(r, m->peak, peak);
		mb_metric_push(r, m->mean, mean);
		mb_metric_push(r, m->per1000, (double)x->d.tlb * 1000.0 / (double)ok);
		mb_metric_push(r, m->tlb, (double)x->d.tlb);
	}
	mb_metric_push(r, m->sys, mb_sys_seconds() - sys0);
	mb_metric_push(r, m->scanned, vm_delta(&x->d, "compact_migrate_scanned"));
	mb_metric_push(r, m->isolated, vm_delta(&x->d, "compact_isolated"));
	mb_metric_push(r, m->migrated, (double)ok);
	if (moved >= 0)
		mb_metric_push(r, m->kept_migrated, (double)moved);
	mb_metric_push(r, m->stall, vm_delta(&x->d, "compact_stall"));
	if (has_huge)
		mb_metric_push(r, m->thps, (double)(huge1 > huge0 ? huge1 - huge0 : 0) / 2048.0);
	mb_metric_push(r, m->thp_alloc, vm_delta(&x->d, "thp_fault_alloc"));
	mb_metric_push(r, m->thp_fallback, vm_delta(&x->d, "thp_fault_fallback"));
	/* With samples, the round is the sampled span, first sample to last:
	 * whole windows by construction. t0 comes after the sampler's first
	 * sample (the thread start lies between), so now - t0 can fall short
	 * of one window when compaction ends within it (0.0999 s seen). */
	if (has_samples && x->s.n >= 2)
		mb_metric_push(r, m->window, (double)(x->s.t_ns[x->s.n - 1] - x->s.t_ns[0]) / 1e9);
	else
		mb_metric_push(r, m->window, (double)(mb_now_ns() - t0) / 1e9);
	return 0;
}

static void round_free(struct cp_run *c, struct cp_worker *w, int nw, struct cp_rep *x)
{
	for (int i = 0; i < nw; i++)
		if (w[i].map) {
			munmap(w[i].map, w[i].map_bytes);
			w[i].map = NULL;
		}
	if (c->frag)
		munmap(c->frag, c->frag_bytes);
	c->frag = NULL;
	mb_tlb_sampler_free(&x->s);
}

/* The node to fragment: the first with memory; main runs on one of its CPUs. */
static int pick_node(int *ret_node, int *ret_cpu)
{
	uint64_t mask = 0, cpus = 0;
	int r = mb_memory_nodes(&mask);

	if (r < 0)
		return r;
	*ret_node = mask ? __builtin_ctzll(mask) : 0;
	*ret_cpu = mb_node_cpus(*ret_node, &cpus) > 0 && cpus ? __builtin_ctzll(cpus) : 0;
	return 0;
}

int bench_compaction(const struct mb_opts *o, struct mb_result *r)
{
	int ncpus = mb_online_cpus(), nw, cpu, ret;
	struct cp_run c = { 0 };
	struct cp_worker *w = NULL;
	struct cp_rep *x = NULL;
	struct cp_metrics m;
	char why[400], compact_file[80];
	uint64_t free_kib = 0;
	long size_mib;

	r->reps = mb_reps(o, 5, 3);
	if (unavailable(why, sizeof(why))) {
		mb_skip(r, "%s", why);
		return 0;
	}
	ret = pick_node(&c.node, &cpu);
	if (ret < 0)
		return ret;
	/* node-bound faults beyond the node's free memory would OOM: default
	 * to 3/4 of it (so the THP faults need compaction), at most 1 GiB */
	if (mb_node_memfree_kib(c.node, &free_kib) < 0)
		(void)system_memfree_kib(&free_kib); /* no node sysfs: one node */
	size_mib = o->size_mib ? o->size_mib : o->quick ? 64 : 1024;
	if (!o->size_mib && free_kib && (long)(free_kib * 3 / 4 >> 10) < size_mib)
		size_mib = (long)(free_kib * 3 / 4 >> 10);
	size_mib &= ~1L; /* whole page blocks */
	if (free_kib && (uint64_t)size_mib << 10 > free_kib * 3 / 4) {
		mb_fail(r, "--size-mib %ld is more than 3/4 of node %d's free memory (%llu MiB): "
			"the node-bound faults would run out of memory", size_mib, c.node,
			(unsigned long long)(free_kib >> 10));
		return 0;
	}
	if (size_mib < MB_COMPACTION_MIN_MIB) {
		mb_skip(r, "node %d has %llu MiB free: too little to fragment %d MiB", c.node,
			(unsigned long long)(free_kib >> 10), MB_COMPACTION_MIN_MIB);
		return 0;
	}
	nw = o->threads ? o->threads : ncpus > 1 ? ncpus - 1 : 1;
	c.frag_bytes = (size_t)size_mib << 20;
	c.keep_every = o->keep_every ? (size_t)o->keep_every : 2;
	c.kept = (c.frag_bytes / MB_PAGE + c.keep_every - 1) / c.keep_every;
	/* together the workers fault as much as the fragmenting freed */
	c.thp_bytes = ((c.frag_bytes - c.kept * MB_PAGE) / (size_t)nw + CP_BLOCK - 1) &
		      ~(CP_BLOCK - 1);
	snprintf(compact_file, sizeof(compact_file), "/sys/devices/system/node/node%d/compact",
		 c.node);
	if (access(compact_file, W_OK) < 0)
		snprintf(compact_file, sizeof(compact_file), "%s", COMPACT_MEMORY);

	mb_param_num(r, "node", c.node);
	mb_param_num(r, "size_mib", (double)size_mib);
	mb_param_num(r, "keep_every", (double)c.keep_every);
	mb_param_num(r, "kept_pages", (double)c.kept);
	mb_param_num(r, "threads", nw);
	mb_param_num(r, "thp_mib_per_thread", (double)(c.thp_bytes >> 20));
	mb_param_str(r, "compact_file", compact_file);
	mb_param_num(r, "tlb_window_ms", (double)(MB_TLB_WINDOW_NS / 1000000));
	m.peak = mb_metric_add(r, "tlb_ipis_per_s_peak", "IPIs/s", MB_BETTER_LOWER);
	m.mean = mb_metric_add(r, "tlb_ipis_per_s_mean", "IPIs/s", MB_BETTER_LOWER);
	m.per1000 = mb_metric_add(r, "tlb_ipis_per_1000_migrated_pages", "IPIs/1000 pages",
				  MB_BETTER_LOWER);
	m.tlb = mb_metric_add(r, "tlb_ipis", "IPIs", MB_BETTER_NONE);
	m.sys = mb_metric_add(r, "sys_s", "s", MB_BETTER_LOWER);
	m.scanned = mb_metric_add(r, "compact_migrate_scanned", "pages", MB_BETTER_NONE);
	m.isolated = mb_metric_add(r, "compact_isolated", "pages", MB_BETTER_NONE);
	m.migrated = mb_metric_add(r, "pgmigrate_success", "pages", MB_BETTER_NONE);
	m.kept_migrated = mb_metric_add(r, "kept_pages_migrated", "pages", MB_BETTER_NONE);
	m.stall = mb_metric_add(r, "compact_stall", "stalls", MB_BETTER_NONE);
	m.thps = mb_metric_add(r, "thps_obtained", "THPs", MB_BETTER_HIGHER);
	m.thp_alloc = mb_metric_add(r, "thp_fault_alloc", "THPs", MB_BETTER_NONE);
	m.thp_fallback = mb_metric_add(r, "thp_fault_fallback", "faults", MB_BETTER_NONE);
	m.window = mb_metric_add(r, "window_s", "s", MB_BETTER_NONE);

	w = calloc((size_t)nw, sizeof(*w));
	x = calloc(1, sizeof(*x));
	c.pfns = calloc(c.kept, sizeof(*c.pfns));
	c.pfns_after = calloc(c.kept, sizeof(*c.pfns_after));
	if (!w || !x || !c.pfns || !c.pfns_after) {
		ret = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < nw; i++)
		w[i].cpu = (cpu + 1 + i) % ncpus; /* beside main: the flushes' receivers */
	(void)mb_pin_to_cpu(cpu);
	ret = mb_run_begin(r);
	for (int rep = 0; rep < r->reps && ret == 0 && r->status == MB_STATUS_OK; rep++) {
		ret = one_rep(r, &c, w, nw, compact_file, &m, x);
		round_free(&c, w, nw, x);
	}
	/* a failed repetition pushed nothing: the document counts the ones done */
	if (r->status == MB_STATUS_FAILED)
		r->reps = r->metrics[m.sys].n;
	if (ret == 0)
		ret = mb_run_end(r);
out:
	free(w);
	free(x);
	free(c.pfns);
	free(c.pfns_after);
	return ret;
}
