/* integrity --kind: the run. For each kind in turn and each repetition: a
 * new region and shared table, its workers (integrity_workers.c: writers
 * or readers, the disturber, the file's syncer; children for the shared
 * kinds), the mover thread (integrity_movers.c) for --seconds, then every
 * page checked once more. Per kind: the kernel's migrations
 * (pgmigrate_success delta), what move_pages reported, lost writes,
 * corrupt bytes; one line each on the human output. Status: failed on any
 * mismatch (or a child that died, or fewer migrations than
 * --min-migrations), skipped (77) when a kind cannot run here, with why.
 *
 * --inject-corruption (test only) breaks page 0 (one byte) and undoes the
 * last write of page 1 before the final check, and the mover flips one byte
 * of its poisoned frames (integrity_reuse.c), so each kind must fail with
 * exactly one lost write, one corrupt byte and one stray byte per
 * repetition. On one node it runs with moves to that same node (no
 * migration), and without KSM, compaction or NUMA balancing: the host's
 * settings stay as they are. */
#include "integrity_kinds.h"
#include "knobs.h"
#include "node_mem.h"
#include "numa.h"
#include "topology.h"
#include "util.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <unistd.h>

#define MS 1000000ULL
#define NB_FLIP_MS 2000        /* numa-balancing: workers change node this often */
#define KSM_WAIT_S 10.0

struct kind_metrics {
	int corrupt, lost, pgmig, moved, rounds, checked, writes, disturb, numa, huge, huge_end, ksm;
	int syncs, thp_mig, stray;
};

struct kind_total {
	uint64_t corrupt, lost, pgmig, moved, checked, child_failures, stray;
	long ksm_max;
	char first[200];
};

struct ctx {
	const struct mb_opts *o;
	const struct ik_cfg *c;
	struct mb_result *r;
	FILE *out;              /* the human lines */
	const char *dir;
	int two_nodes, one_node_test, na, nb;
	unsigned movers;        /* those that can run here */
	uint64_t cpus[2];
	const char *err_what;   /* the call behind an error, NULL: the setup */
};

static void *shared_map(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void inject(struct ik_run *g)
{
	/* page 0: one byte flipped; page 1: its last write undone */
	for (size_t i = 0; i < 2; i++)
		if (g->zero[i]) {
			ik_fill(ik_page(g, i), ik_key(g, i), g->gen[i]);
			g->zero[i] = 0;
		}
	((volatile char *)ik_page(g, 0))[100] ^= 0x5a;
	ik_fill(ik_page(g, 1), ik_key(g, 1), g->gen[1]);
	g->gen[1]++;
}

/* The workers of a kind, started in w[]; returns how many started. */
static int start_workers(struct ik_run *g, struct ik_worker *w, int max, int *ret)
{
	int n = 0, ncpus = mb_online_cpus();
	int roles[2 + IK_MAX_SHARERS + 64];
	int nroles = 0;

	for (int i = 0; i < g->nwriters && nroles < 64; i++)
		roles[nroles++] = g->kind == IK_KSM ? IK_ROLE_READER : IK_ROLE_WRITER;
	if (g->kind == IK_KSM)
		roles[nroles++] = IK_ROLE_KSM_WRITER;
	roles[nroles++] = IK_ROLE_DISTURBER;
	if (g->kind == IK_FILE)
		roles[nroles++] = IK_ROLE_SYNCER;
	for (int i = 0; i < nroles && i < max && *ret == 0; i++) {
		w[i] = (struct ik_worker){ .g = g, .index = i, .cpu = i % ncpus, .role = roles[i] };
		*ret = -pthread_create(&w[i].tid, NULL, ik_worker_main, &w[i]);
		if (*ret == 0)
			n++;
	}
	return n;
}

static int one_rep(struct ctx *x, int kind, const struct kind_metrics *m, struct kind_total *t)
{
	const struct ik_cfg *c = x->c;
	struct ik_run *g = calloc(1, sizeof(*g));
	struct mb_counters *before = malloc(sizeof(*before)), *after = malloc(sizeof(*after)),
			   *d = malloc(sizeof(*d));
	struct ik_worker w[72];
	pthread_t mover;
	int nw = 0, mover_started = 0, ret = 0, skip = 0, by_pid;
	uint64_t pg_ok = 0, numa = 0, huge = 0, huge_end = 0, thp_mig = 0, deadline, next_epoch, next_flip;
	long ksm = 0;

	if (!g || !before || !after || !d) {
		ret = -ENOMEM;
		goto out;
	}
	g->kind = kind;
	g->fd = -1;
	g->movers = x->movers;
	g->na = x->na;
	g->nb = x->nb;
	g->move_all = geteuid() == 0;
	g->inject = x->o->inject_corruption;
	/* NUMA balancing scans only VMAs without a policy */
	g->bound = !(x->movers & (1u << IM_NUMA_BALANCING));
	g->npages = ik_kind_pages(kind, c->pages);
	g->bytes = g->npages * 4096;
	g->nwriters = c->writers;
	g->nsharers = kind == IK_FORK_SHARED || !ik_private(kind) ? c->sharers : 0;
	g->cpus[0] = x->cpus[0];
	g->cpus[1] = x->cpus[1];
	g->sh = shared_map(sizeof(*g->sh));
	g->gen = shared_map(g->npages * sizeof(*g->gen));
	g->zero = shared_map(g->npages);
	g->lock = shared_map(g->npages * sizeof(*g->lock));
	if (kind == IK_FORK_SHARED) {
		g->snap_gen = malloc(g->npages * sizeof(*g->snap_gen));
		g->snap_zero = malloc(g->npages);
	}
	if (!g->sh || !g->gen || !g->zero || !g->lock ||
	    (kind == IK_FORK_SHARED && (!g->snap_gen || !g->snap_zero))) {
		ret = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < IK_MAX_SHARERS; i++)
		g->sh->pids[i] = -1; /* 0 would be the parent to move_pages(2) */
	ret = ik_region_map(g, x->dir);
	if (ret == 0)
		ret = ik_reuse_map(g);
	if (ret < 0)
		goto out;
	for (size_t i = 0; i < g->npages; i++)
		ik_fill(ik_page(g, i), ik_key(g, i), 0);
	if (kind == IK_ANON_THP || kind == IK_MIXED)
		huge = ik_anon_huge_kib();
	if (kind == IK_KSM && !x->one_node_test) {
		/* most of each group merged before the clock starts: the run
		 * moves KSM pages from its first round */
		ksm = ik_ksm_start(KSM_WAIT_S, (long)(g->npages / 2));
		if (ksm < 0) {
			ret = (int)ksm;
			goto out;
		}
		if (ksm == 0) {
			skip = 1;
			goto out;
		}
	}
	ret = mb_counters_snapshot(before);
	if (ret == 0)
		ret = kind == IK_FORK_SHARED ? ik_fork_readers(g) : ik_fork_sharers(g);
	if (ret == 0)
		nw = start_workers(g, w, (int)(sizeof(w) / sizeof(w[0])), &ret);
	if (ret == 0) {
		ret = -pthread_create(&mover, NULL, ik_mover_main, g);
		mover_started = ret == 0;
	}
	by_pid = (g->movers & (1u << IM_MOVE_PAGES | 1u << IM_MIGRATE_PAGES)) != 0;
	deadline = mb_now_ns() + (uint64_t)(c->seconds * 1e9);
	next_epoch = mb_now_ns() + IK_EPOCH_MS * MS;
	next_flip = mb_now_ns() + NB_FLIP_MS * MS;
	while (ret == 0 && mb_now_ns() < deadline && !g->mover_err && !g->worker_err) {
		mb_sleep_until_ns(mb_now_ns() + 20 * MS);
		if (kind == IK_KSM && !x->one_node_test) {
			long s = ik_ksm_pages_sharing();

			ksm = s > ksm ? s : ksm;
		}
		/* a new epoch once the movers that move by pid got to this
		 * epoch's readers (a call can take longer than an epoch) */
		if (kind == IK_FORK_SHARED && mb_now_ns() >= next_epoch &&
		    (!by_pid || __atomic_load_n(&g->sh->epoch_moved, __ATOMIC_ACQUIRE) ==
				__atomic_load_n(&g->sh->epoch, __ATOMIC_ACQUIRE))) {
			ret = ik_fork_readers(g);
			next_epoch = mb_now_ns() + IK_EPOCH_MS * MS;
		}
		if ((g->movers & (1u << IM_NUMA_BALANCING)) && mb_now_ns() >= next_flip) {
			__atomic_store_n(&g->sh->node_now, !g->sh->node_now, __ATOMIC_RELAXED);
			next_flip = mb_now_ns() + NB_FLIP_MS * MS;
		}
	}
	__atomic_store_n(&g->sh->stop, 1, __ATOMIC_RELAXED);
	if (mover_started)
		pthread_join(mover, NULL);
	for (int i = 0; i < nw; i++)
		pthread_join(w[i].tid, NULL);
	ik_reap_all(g);
	if (ret == 0)
		ret = g->mover_err ? g->mover_err : g->worker_err;
	if (ret < 0) {
		x->err_what = g->err_what;
		goto out;
	}
	if (x->o->inject_corruption)
		inject(g);
	if (kind == IK_ANON_THP || kind == IK_MIXED)
		huge_end = ik_anon_huge_kib();
	/* the final check: every page, every byte, in the parent's view */
	for (size_t i = 0; i < g->npages; i++)
		(void)ik_check_locked(g, i, "final check");
	g->sh->checked += g->npages;
	ret = mb_counters_snapshot(after);
	if (ret < 0)
		goto out;
	mb_counters_delta(before, after, d);
	(void)mb_vmstat_get(d, "pgmigrate_success", &pg_ok);
	(void)mb_vmstat_get(d, "numa_pages_migrated", &numa);
	(void)mb_vmstat_get(d, "thp_migration_success", &thp_mig);
	mb_metric_push(x->r, m->corrupt, (double)g->sh->corrupt_bytes);
	mb_metric_push(x->r, m->lost, (double)g->sh->lost);
	mb_metric_push(x->r, m->stray, (double)g->sh->stray_bytes);
	mb_metric_push(x->r, m->pgmig, (double)pg_ok);
	mb_metric_push(x->r, m->moved, (double)g->moved);
	mb_metric_push(x->r, m->rounds, (double)g->rounds);
	mb_metric_push(x->r, m->checked, (double)g->sh->checked);
	mb_metric_push(x->r, m->writes, (double)g->sh->writes);
	mb_metric_push(x->r, m->disturb, (double)g->sh->disturbances);
	if (m->numa >= 0)
		mb_metric_push(x->r, m->numa, (double)numa);
	if (m->huge >= 0) {
		mb_metric_push(x->r, m->huge, (double)huge);
		mb_metric_push(x->r, m->huge_end, (double)huge_end);
		mb_metric_push(x->r, m->thp_mig, (double)thp_mig);
	}
	if (m->ksm >= 0)
		mb_metric_push(x->r, m->ksm, (double)ksm);
	if (m->syncs >= 0)
		mb_metric_push(x->r, m->syncs, (double)g->sh->syncs);
	t->corrupt += g->sh->corrupt_bytes;
	t->lost += g->sh->lost;
	t->stray += g->sh->stray_bytes;
	t->pgmig += pg_ok;
	t->moved += g->moved;
	t->checked += g->sh->checked;
	t->child_failures += g->sh->child_failures;
	t->ksm_max = ksm > t->ksm_max ? ksm : t->ksm_max;
	if (!t->first[0] && g->sh->first[0])
		snprintf(t->first, sizeof(t->first), "%s", g->sh->first);
out:
	if (g && g->sh && ret < 0) {
		/* an error half-way: nothing may outlive the run */
		__atomic_store_n(&g->sh->stop, 1, __ATOMIC_RELAXED);
		for (int i = 0; i < g->sh->npids; i++)
			if (g->sh->pids[i] > 0)
				kill(g->sh->pids[i], SIGKILL);
		ik_reap_all(g);
	}
	if (g) {
		ik_region_unmap(g);
		ik_reuse_unmap(g);
		if (g->sh)
			munmap(g->sh, sizeof(*g->sh));
		if (g->gen)
			munmap(g->gen, g->npages * sizeof(*g->gen));
		if (g->zero)
			munmap(g->zero, g->npages);
		if (g->lock)
			munmap(g->lock, g->npages * sizeof(*g->lock));
		free(g->snap_gen);
		free(g->snap_zero);
	}
	free(g);
	free(before);
	free(after);
	free(d);
	return ret < 0 ? ret : skip;
}

static int add_metric(struct mb_result *r, int kind, const char *what, const char *unit,
		      enum mb_better b)
{
	char name[48];

	snprintf(name, sizeof(name), "%s_%s", ik_kind_key(kind), what);
	return mb_metric_add(r, name, unit, b);
}

static const char *fs_name(const char *dir)
{
	struct statfs s;

	if (statfs(dir, &s) < 0)
		return "unknown";
	switch ((unsigned long)s.f_type) {
	case 0xEF53: return "ext4";
	case 0x01021994: return "tmpfs (no writeback: fsync returns at once; ext4 with writeback: integrity-run.sh's file-ext4)";
	case 0x58465342: return "xfs";
	case 0x9123683E: return "btrfs";
	case 0x794c7630: return "overlayfs";
	default: return "other";
	}
}

/* One kind, every repetition. Returns 0 (ran), 1 (skipped: why in
 * reason) or -errno. */
static int run_kind(struct ctx *x, int kind, struct kind_total *t, char *reason, size_t rsize)
{
	struct kind_metrics m;
	const char *why = ik_kind_unavailable(kind, x->dir, reason, rsize);
	int ret = 0, nb = (x->movers & (1u << IM_NUMA_BALANCING)) != 0;

	if (why) {
		if (why != reason)
			snprintf(reason, rsize, "%s", why);
		return 1;
	}
	m.corrupt = add_metric(x->r, kind, "corrupt_bytes", "bytes", MB_BETTER_LOWER);
	m.lost = add_metric(x->r, kind, "lost_writes", "writes", MB_BETTER_LOWER);
	m.stray = add_metric(x->r, kind, "stray_bytes", "bytes", MB_BETTER_LOWER);
	m.pgmig = add_metric(x->r, kind, "pgmigrate_success", "pages", MB_BETTER_NONE);
	m.moved = add_metric(x->r, kind, "move_pages_moved", "pages", MB_BETTER_NONE);
	m.rounds = add_metric(x->r, kind, "mover_rounds", "rounds", MB_BETTER_NONE);
	m.checked = add_metric(x->r, kind, "checked_pages", "pages", MB_BETTER_NONE);
	m.writes = add_metric(x->r, kind, "writes", "writes", MB_BETTER_NONE);
	m.disturb = add_metric(x->r, kind, "disturbances", "ops", MB_BETTER_NONE);
	m.numa = nb ? add_metric(x->r, kind, "numa_pages_migrated", "pages", MB_BETTER_NONE) : -1;
	m.huge = kind == IK_ANON_THP || kind == IK_MIXED ?
		 add_metric(x->r, kind, "anon_huge_kib", "KiB", MB_BETTER_NONE) : -1;
	m.huge_end = m.huge >= 0 ?
		     add_metric(x->r, kind, "anon_huge_kib_end", "KiB", MB_BETTER_NONE) : -1;
	m.thp_mig = m.huge >= 0 ?
		    add_metric(x->r, kind, "thp_migration_success", "THPs", MB_BETTER_NONE) : -1;
	m.ksm = kind == IK_KSM ? add_metric(x->r, kind, "pages_sharing", "pages", MB_BETTER_NONE) : -1;
	m.syncs = kind == IK_FILE ? add_metric(x->r, kind, "syncs", "calls", MB_BETTER_NONE) : -1;
	if (nb)
		ret = mb_knob_set("/proc/sys/kernel/numa_balancing", "1");
	for (int rep = 0; rep < x->c->reps && ret == 0; rep++)
		ret = one_rep(x, kind, &m, t);
	mb_knob_restore_all();
	if (ret == 1)
		snprintf(reason, rsize, "KSM merged no page within %.0f s (pages_sharing 0)",
			 KSM_WAIT_S);
	return ret;
}

static void print_kind(struct ctx *x, int kind, const struct kind_total *t)
{
	int bad = t->corrupt || t->lost || t->stray || t->child_failures;

	fprintf(x->out, "integrity kind %s: %s: %llu pages migrated (pgmigrate_success), "
		"%llu moved (move_pages), %llu lost writes, %llu corrupt bytes, "
		"%llu stray bytes in freed frames, %llu pages checked",
		ik_kind_name(kind), bad ? "FAILED" : "ok", (unsigned long long)t->pgmig,
		(unsigned long long)t->moved, (unsigned long long)t->lost,
		(unsigned long long)t->corrupt, (unsigned long long)t->stray,
		(unsigned long long)t->checked);
	if (kind == IK_KSM)
		fprintf(x->out, ", KSM pages_sharing %ld%s", t->ksm_max,
			x->one_node_test ? " (KSM not started: --inject-corruption on one node)" : "");
	if (t->child_failures)
		fprintf(x->out, ", %llu children failed", (unsigned long long)t->child_failures);
	if (bad && t->first[0])
		fprintf(x->out, "; first: %s", t->first);
	fprintf(x->out, "\n");
	fflush(x->out);
}

static void append(char *buf, size_t size, const char *fmt, const char *a, const char *b)
{
	size_t len = strlen(buf);

	snprintf(buf + len, size - len, fmt, len ? "; " : "", a, b);
}

int mb_integrity_kinds(const struct mb_opts *o, struct mb_result *r)
{
	struct ik_cfg c;
	struct ctx x = { .o = o, .c = &c, .r = r, .out = o->json ? stderr : stdout };
	char err[200], names[160], failed[256] = "", skipped[256] = "", why[200];
	char nomover[240] = "";
	const char *tmp = getenv("TMPDIR");
	int nodes = 0, ret, ran = 0;

	ret = ik_config(o, &c, err, sizeof(err));
	if (ret < 0)
		return ret; /* main checked it already */
	r->reps = c.reps;
	x.dir = o->dir ? o->dir : tmp && *tmp ? tmp : "/tmp";
	ret = mb_two_nodes(&x.na, &x.nb, &nodes);
	if (ret < 0 && ret != -ENODEV)
		return ret;
	x.two_nodes = ret == 0;
	x.one_node_test = !x.two_nodes && o->inject_corruption;
	if (!x.two_nodes) {
		uint64_t mask = 0;

		(void)mb_memory_nodes(&mask);
		x.na = x.nb = mask ? __builtin_ctzll(mask) : 0;
	}
	/* One node: only compaction can run, and only when it is the one mover
	 * asked for; with others the kinds cannot run here (77). */
	if (!x.two_nodes && !x.one_node_test && c.movers != 1u << IM_COMPACT) {
		mb_skip(r, "needs 2 NUMA nodes with memory, this machine has %d", nodes);
		return 0;
	}
	for (int i = 0; i < IM_NMOVERS; i++) {
		const char *no;

		if (!(c.movers & (1u << i)))
			continue;
		no = ik_mover_unavailable(i, x.two_nodes, why, sizeof(why));
		if (x.one_node_test)
			no = i == IM_COMPACT || i == IM_NUMA_BALANCING ?
			     "not on one node in a --inject-corruption test (host settings stay)" :
			     NULL; /* moves to the one node: the code runs, nothing migrates */
		if (!no) {
			x.movers |= 1u << i;
			continue;
		}
		fprintf(x.out, "integrity: mover %s not run: %s\n", ik_mover_name(i), no);
		snprintf(nomover, sizeof(nomover), "mover %s: %s", ik_mover_name(i), no);
	}
	if (x.movers & (1u << IM_NUMA_BALANCING)) {
		if (mb_node_cpus(x.na, &x.cpus[0]) < 0 || mb_node_cpus(x.nb, &x.cpus[1]) < 0 ||
		    !x.cpus[0] || !x.cpus[1]) {
			fprintf(x.out, "integrity: mover numa-balancing not run: "
				"node %d or %d has no CPUs\n", x.na, x.nb);
			x.movers &= ~(1u << IM_NUMA_BALANCING);
		}
	}
	ik_mask_names(c.kinds, 0, names, sizeof(names));
	mb_param_str(r, "kinds", names);
	ik_mask_names(c.movers, 1, names, sizeof(names));
	mb_param_str(r, "movers", names);
	ik_mask_names(x.movers, 1, names, sizeof(names));
	mb_param_str(r, "movers_run", names[0] ? names : "none");
	mb_param_num(r, "seconds_per_rep", c.seconds);
	mb_param_num(r, "pages", (double)c.pages);
	mb_param_num(r, "writers", c.writers);
	mb_param_num(r, "sharers", c.sharers);
	mb_param_num(r, "node_a", x.na);
	mb_param_num(r, "node_b", x.nb);
	mb_param_str(r, "move_flags", geteuid() == 0 ? "MPOL_MF_MOVE_ALL" :
		     "MPOL_MF_MOVE (no CAP_SYS_NICE: pages several mms map stay, -EACCES)");
	if (o->inject_corruption)
		mb_param_str(r, "inject_corruption", "yes (test only)");
	if (x.one_node_test)
		mb_param_str(r, "moving", "no: one node (--inject-corruption): moves to that node");
	if (c.kinds & (1u << IK_FILE)) {
		mb_param_str(r, "file_dir", x.dir);
		mb_param_str(r, "file_dir_fs", fs_name(x.dir));
		fprintf(x.out, "integrity: file kind in %s: %s\n", x.dir, fs_name(x.dir));
	}
	if (!x.movers) {
		mb_skip(r, "no mover can run here (%s)", nomover);
		return 0;
	}
	ret = mb_run_begin(r);
	for (int k = 0; k < IK_NKINDS && ret >= 0; k++) {
		struct kind_total t = { 0 };
		char reason[200];

		if (!(c.kinds & (1u << k)))
			continue;
		ret = run_kind(&x, k, &t, reason, sizeof(reason));
		if (ret == 1) {
			fprintf(x.out, "integrity kind %s: skipped: %s\n", ik_kind_name(k), reason);
			snprintf(err, sizeof(err), "%s_skipped", ik_kind_key(k));
			mb_param_str(r, err, reason);
			append(skipped, sizeof(skipped), "%s%s (%s)", ik_kind_name(k), reason);
			ret = 0;
			continue;
		}
		if (ret < 0) {
			fprintf(x.out, "integrity kind %s: error: %s: %s\n", ik_kind_name(k),
				x.err_what ? x.err_what : "setting up the region", strerror(-ret));
			break;
		}
		ran++;
		print_kind(&x, k, &t);
		if (t.corrupt || t.lost || t.stray || t.child_failures) {
			char what[200];

			snprintf(what, sizeof(what), "%llu lost writes, %llu corrupt bytes, "
				 "%llu stray bytes%s%.110s",
				 (unsigned long long)t.lost, (unsigned long long)t.corrupt,
				 (unsigned long long)t.stray, t.first[0] ? "; first: " : "", t.first);
			append(failed, sizeof(failed), "%s%s: %s", ik_kind_name(k), what);
		} else if (o->min_migrations_text && t.pgmig < (uint64_t)o->min_migrations) {
			char what[160];

			snprintf(what, sizeof(what), "the kernel migrated %llu pages (pgmigrate_success), "
				 "fewer than --min-migrations %s", (unsigned long long)t.pgmig,
				 o->min_migrations_text);
			append(failed, sizeof(failed), "%s%s: %s", ik_kind_name(k), what);
		}
	}
	mb_knob_restore_all();
	if (ret == 0 && ran)
		ret = mb_run_end(r);
	if (ret < 0)
		return ret;
	if (failed[0])
		mb_fail(r, "%s", failed);
	else if (skipped[0])
		mb_skip(r, "kinds skipped: %s", skipped);
	return 0;
}
