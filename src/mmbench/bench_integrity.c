/* integrity: the correctness guard for migration TLB batching. Writer
 * threads keep rewriting pages with a pattern (page, generation, word) and
 * check, before each rewrite, that the page still holds what they wrote
 * last; a migrator thread moves the pages back and forth between two nodes,
 * alternating move_pages(2) and mbind(MPOL_MF_MOVE). A write that went
 * through a stale TLB entry to the old copy shows up as an old generation.
 * Every byte is verified again at the end. Status "failed" (exit 1) on any
 * mismatch. The small variant (256 pages, one writer) is the most sensitive:
 * the writer revisits each page quickly. Needs two nodes: exits 77 otherwise.
 * With --kind the run is the migration stress per kind of memory instead
 * (integrity_stress.c). */
#include "integrity_kinds.h"
#include "mmbench.h"
#include "numa.h"
#include "topology.h"
#include "util.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define WORDS_PER_PAGE (MB_PAGE / sizeof(uint64_t))

struct integ {
	volatile uint64_t *mem;
	size_t npages;
	int nwriters;
	int na, nb;
	uint32_t *gen;          /* last generation written, per page */
	int stop;
	/* results */
	uint64_t corrupt_bytes;
	uint64_t moved;         /* pages move_pages reported on the target node */
	uint64_t rounds;
	int migr_err;
	pthread_mutex_t lock;   /* first-corruption report */
	char first[200];
};

struct writer {
	pthread_t tid;
	struct integ *g;
	int index;
	uint64_t passes;
};

static uint64_t pattern(size_t page, uint32_t gen, size_t word)
{
	return (((uint64_t)page << 32) | gen) * 0x9E3779B97F4A7C15ULL ^ word;
}

/* Verifies one page against gen; returns differing bytes. */
static uint64_t verify_page(struct integ *g, size_t page, uint32_t gen)
{
	volatile uint64_t *p = g->mem + page * WORDS_PER_PAGE;
	uint64_t bad = 0;

	for (size_t w = 0; w < WORDS_PER_PAGE; w++) {
		uint64_t want = pattern(page, gen, w), got = p[w];

		if (got == want)
			continue;
		if (bad == 0) {
			pthread_mutex_lock(&g->lock);
			if (!g->first[0])
				snprintf(g->first, sizeof(g->first),
					 "page %zu byte %zu: expected %016llx (generation %u), found %016llx",
					 page, w * 8, (unsigned long long)want, gen,
					 (unsigned long long)got);
			pthread_mutex_unlock(&g->lock);
		}
		bad += mb_diff_bytes(got, want);
	}
	return bad;
}

static void write_page(struct integ *g, size_t page, uint32_t gen)
{
	volatile uint64_t *p = g->mem + page * WORDS_PER_PAGE;

	for (size_t w = 0; w < WORDS_PER_PAGE; w++)
		p[w] = pattern(page, gen, w);
}

static void *writer_main(void *arg)
{
	struct writer *wr = arg;
	struct integ *g = wr->g;
	uint64_t bad = 0;

	(void)mb_pin_to_cpu(wr->index % mb_online_cpus());
	while (!__atomic_load_n(&g->stop, __ATOMIC_RELAXED)) {
		for (size_t i = (size_t)wr->index; i < g->npages; i += (size_t)g->nwriters) {
			bad += verify_page(g, i, g->gen[i]);
			g->gen[i]++;
			write_page(g, i, g->gen[i]);
		}
		wr->passes++;
	}
	__atomic_fetch_add(&g->corrupt_bytes, bad, __ATOMIC_RELAXED);
	return NULL;
}

static void *migrator_main(void *arg)
{
	struct integ *g = arg;
	void **pages = calloc(g->npages, sizeof(*pages));
	int *nodes = calloc(g->npages, sizeof(*nodes)), *status = calloc(g->npages, sizeof(*status));
	size_t bytes = g->npages * MB_PAGE;

	if (!pages || !nodes || !status) {
		g->migr_err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < g->npages; i++)
		pages[i] = (void *)(g->mem + i * WORDS_PER_PAGE);
	/* rounds: move_pages→B, move_pages→A, mbind→B, mbind→A, ... */
	for (uint64_t k = 0; !__atomic_load_n(&g->stop, __ATOMIC_RELAXED); k++) {
		int target = k % 2 == 0 ? g->nb : g->na, r;
		size_t moved = 0;

		if ((k / 2) % 2 == 0)
			r = mb_move_pages_to(pages, nodes, status, g->npages, target, &moved);
		else
			r = mb_mbind_move((void *)g->mem, bytes, target);
		if (r < 0 && r != -EBUSY && r != -EAGAIN && r != -EIO) {
			g->migr_err = r;
			break;
		}
		g->moved += moved;
		g->rounds++;
	}
out:
	free(pages);
	free(nodes);
	free(status);
	return NULL;
}

struct variant_metrics {
	int corrupt, pgmig, moved, rounds, passes;
};

static int one_rep(struct mb_result *r, struct integ *g, double seconds,
		   const struct variant_metrics *m)
{
	struct writer *wr = calloc((size_t)g->nwriters, sizeof(*wr));
	struct mb_counters *before = malloc(sizeof(*before)), *after = malloc(sizeof(*after)),
			   *d = malloc(sizeof(*d));
	pthread_t mig;
	uint64_t passes = 0, ok = 0;
	int started = 0, ret = 0, mig_started = 0;
	size_t bytes = g->npages * MB_PAGE;

	if (!wr || !before || !after || !d) {
		ret = -ENOMEM;
		goto out;
	}
	g->mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	g->gen = calloc(g->npages, sizeof(*g->gen));
	if (g->mem == MAP_FAILED)
		g->mem = NULL;
	if (!g->mem || !g->gen) {
		ret = -ENOMEM;
		goto out;
	}
	(void)madvise((void *)g->mem, bytes, MADV_NOHUGEPAGE);
	/* our migrations only: keep NUMA balancing's hinting faults out */
	ret = mb_mbind_two((void *)g->mem, bytes, g->na, g->nb);
	if (ret < 0)
		goto out;
	for (size_t i = 0; i < g->npages; i++)
		write_page(g, i, 0);
	g->stop = 0;
	g->corrupt_bytes = g->moved = g->rounds = 0;
	g->migr_err = 0;

	ret = mb_counters_snapshot(before);
	for (int i = 0; i < g->nwriters && ret == 0; i++) {
		wr[i] = (struct writer){ .g = g, .index = i };
		ret = -pthread_create(&wr[i].tid, NULL, writer_main, &wr[i]);
		if (ret == 0)
			started++;
	}
	if (ret == 0) {
		ret = -pthread_create(&mig, NULL, migrator_main, g);
		mig_started = ret == 0;
	}
	if (ret == 0)
		mb_sleep_until_ns(mb_now_ns() + (uint64_t)(seconds * 1e9));
	__atomic_store_n(&g->stop, 1, __ATOMIC_RELAXED);
	if (mig_started)
		pthread_join(mig, NULL);
	for (int i = 0; i < started; i++) {
		pthread_join(wr[i].tid, NULL);
		passes += wr[i].passes;
	}
	if (ret == 0)
		ret = g->migr_err;
	if (ret < 0)
		goto out;
	/* the final check: every page, every byte */
	for (size_t i = 0; i < g->npages; i++)
		g->corrupt_bytes += verify_page(g, i, g->gen[i]);
	ret = mb_counters_snapshot(after);
	if (ret < 0)
		goto out;
	mb_counters_delta(before, after, d);
	(void)mb_vmstat_get(d, "pgmigrate_success", &ok);
	mb_metric_push(r, m->corrupt, (double)g->corrupt_bytes);
	mb_metric_push(r, m->pgmig, (double)ok);
	mb_metric_push(r, m->moved, (double)g->moved);
	mb_metric_push(r, m->rounds, (double)g->rounds);
	mb_metric_push(r, m->passes, (double)passes);
out:
	if (g->mem) {
		(void)mb_mbind_default((void *)g->mem, bytes);
		munmap((void *)g->mem, bytes);
		g->mem = NULL;
	}
	free(g->gen);
	g->gen = NULL;
	free(wr);
	free(before);
	free(after);
	free(d);
	return ret;
}

static int run_variant(struct mb_result *r, struct integ *g, const char *name, double seconds,
		       uint64_t *total_corrupt)
{
	struct variant_metrics m;
	char key[48];
	int ret = 0;

	snprintf(key, sizeof(key), "%s_corrupt_bytes", name);
	m.corrupt = mb_metric_add(r, key, "bytes", MB_BETTER_LOWER);
	snprintf(key, sizeof(key), "%s_pgmigrate_success", name);
	m.pgmig = mb_metric_add(r, key, "pages", MB_BETTER_NONE);
	snprintf(key, sizeof(key), "%s_move_pages_moved", name);
	m.moved = mb_metric_add(r, key, "pages", MB_BETTER_NONE);
	snprintf(key, sizeof(key), "%s_migrator_rounds", name);
	m.rounds = mb_metric_add(r, key, "rounds", MB_BETTER_NONE);
	snprintf(key, sizeof(key), "%s_writer_passes", name);
	m.passes = mb_metric_add(r, key, "passes", MB_BETTER_NONE);
	snprintf(key, sizeof(key), "%s_pages", name);
	mb_param_num(r, key, (double)g->npages);
	snprintf(key, sizeof(key), "%s_writers", name);
	mb_param_num(r, key, g->nwriters);

	for (int rep = 0; rep < r->reps && ret == 0; rep++) {
		ret = one_rep(r, g, seconds, &m);
		if (ret == 0)
			*total_corrupt += g->corrupt_bytes;
	}
	return ret;
}

int bench_integrity(const struct mb_opts *o, struct mb_result *r)
{
	double seconds = o->seconds > 0 ? o->seconds : o->quick ? 1.0 : 5.0;
	int ncpus = mb_online_cpus(), na, nb, ret;
	uint64_t corrupt = 0;
	struct integ g = { .lock = PTHREAD_MUTEX_INITIALIZER };

	if (o->kinds)
		return mb_integrity_kinds(o, r);
	r->reps = mb_reps(o, 3, 2);
	mb_param_num(r, "seconds_per_rep", seconds);
	ret = mb_pick_two_nodes(r, &na, &nb);
	if (ret != 0)
		return ret < 0 ? ret : 0;
	g.na = na;
	g.nb = nb;

	ret = mb_run_begin(r);
	if (ret == 0 && o->pages) {
		g.npages = (size_t)o->pages;
		g.nwriters = o->writers ? (int)o->writers : 1;
		ret = run_variant(r, &g, "custom", seconds, &corrupt);
	} else if (ret == 0) {
		/* small: one writer revisits 256 pages fast, the likeliest to hit
		 * a stale TLB entry; large: every CPU writes, many pages per batch */
		g.npages = 256;
		g.nwriters = o->writers ? (int)o->writers : 1;
		ret = run_variant(r, &g, "small", seconds, &corrupt);
		g.npages = o->quick ? 4096 : 16384;
		g.nwriters = o->writers ? (int)o->writers : ncpus;
		if (ret == 0)
			ret = run_variant(r, &g, "large", seconds, &corrupt);
	}
	if (ret == 0)
		ret = mb_run_end(r);
	if (mb_move_pages_last_error)
		mb_param_str(r, "move_pages_page_error", strerror(-mb_move_pages_last_error));
	if (ret == 0 && corrupt > 0)
		mb_fail(r, "%llu corrupt bytes; first: %s", (unsigned long long)corrupt, g.first);
	return ret;
}
