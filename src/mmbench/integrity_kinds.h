/* integrity --kind: migration stress over every kind of folio. The pure
 * parts (integrity_kinds.c: names, option checks, sizes, the page data and
 * its check; driven by the unit tests) and what the run's files share:
 * the region (integrity_region.c), the workers (integrity_workers.c), the
 * movers (integrity_movers.c), the children (integrity_procs.c) and the run
 * itself (integrity_stress.c). */
#ifndef MMBENCH_INTEGRITY_KINDS_H
#define MMBENCH_INTEGRITY_KINDS_H

#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "mmbench.h"

enum ik_kind {
	IK_ANON,        /* private anonymous, small folios, one mm */
	IK_ANON_THP,    /* private anonymous, MADV_HUGEPAGE */
	IK_FORK_SHARED, /* private anonymous, COW-shared with forked readers */
	IK_SHMEM,       /* memfd, MAP_SHARED, written by the parent and children */
	IK_FILE,        /* a file in --dir, MAP_SHARED, dirty, under fsync */
	IK_KSM,         /* private anonymous, MADV_MERGEABLE, identical pages */
	IK_MIXED,       /* private anonymous, half MADV_HUGEPAGE, half small */
	IK_NKINDS,
};

enum ik_mover {
	IM_MOVE_PAGES,
	IM_MBIND,
	IM_MIGRATE_PAGES,
	IM_COMPACT,
	IM_NUMA_BALANCING,
	IM_NMOVERS,
};

const char *ik_kind_name(int kind);   /* as in --kind: "fork-shared" */
const char *ik_kind_key(int kind);    /* metric prefix: "fork_shared" */
const char *ik_mover_name(int mover); /* as in --mover */

/* A comma list of names, or "all", into a bitmask (1 << IK_* / IM_*).
 * 0, or -EINVAL with one line in err naming the option and the name. */
int ik_parse_kinds(const char *list, unsigned *ret_mask, char *err, size_t err_size);
int ik_parse_movers(const char *list, unsigned *ret_mask, char *err, size_t err_size);
/* The names of a mask, comma-separated, into buf. */
void ik_mask_names(unsigned mask, int movers, char *buf, size_t size);

/* Defaults and limits. */
#define IK_PAGES 4096          /* per kind (16 MiB) */
#define IK_PAGES_QUICK 1024
#define IK_MIN_PAGES 64
#define IK_THP_PAGES 512       /* one PMD folio of 4 KiB pages (x86-64) */
#define IK_WRITERS 2
#define IK_MAX_WRITERS 64
#define IK_SHARERS 2           /* child processes of fork-shared, shmem, file */
#define IK_MAX_SHARERS 16
#define IK_CHUNK 16            /* pages a disturbance covers */
#define IK_HOT_PAGES 16        /* an owner's pages written together (integrity_workers.c) */
#define IK_HOT_ROUNDS 4        /* times each of them is written before the next group */
#define IK_KSM_SHARE 16        /* ksm: pages per group of identical pages (one KSM page) */
#define IK_EPOCH_MS 250        /* fork-shared: readers re-forked at most this often */

struct ik_cfg {
	unsigned kinds, movers;
	size_t pages;          /* per kind, before THP rounding */
	double seconds;        /* per kind and repetition */
	int reps, writers, sharers;
};

/* The run's sizes from the options; 0, or -EINVAL with one line in err
 * naming the option (unknown names, a --dir that is no directory, options
 * that need --kind, more workers than pages). */
int ik_config(const struct mb_opts *o, struct ik_cfg *c, char *err, size_t err_size);
/* The benchmark table's check of integrity's options. */
int mb_integrity_check_opts(const struct mb_opts *o, char *err, size_t err_size);
/* Pages of a kind: THP kinds round up to whole PMD folios. */
size_t ik_kind_pages(int kind, size_t pages);

/* The data. A page holds a header (magic ^ key, generation) and words
 * derived from both; key is the page number, or for ksm its group, so the
 * pages of a group are identical and KSM merges them. A zapped page of a
 * private kind (MADV_DONTNEED, munmap+remap) must read as zeros instead. */
#define IK_WORDS (4096 / 8)
void ik_fill(volatile uint64_t *page, uint64_t key, uint64_t gen);

enum ik_verdict {
	IK_OK,
	IK_LOST,    /* a whole earlier generation of this page: later writes lost */
	IK_CORRUPT, /* anything else: *ret_bad_bytes bytes differ */
};
/* Checks a page against (key, gen), or against zeros when zero is set.
 * *ret_bad_bytes: differing bytes when CORRUPT, else 0. */
enum ik_verdict ik_check(const volatile uint64_t *page, uint64_t key, uint64_t gen, int zero,
			 uint64_t *ret_bad_bytes);

/* ---- the run (integrity_region.c, _workers.c, _movers.c, _stress.c) ---- */

/* In MAP_SHARED|MAP_ANONYMOUS memory: the parent and its children see it. */
struct ik_shared {
	int stop;              /* the repetition ends */
	int epoch_stop;        /* fork-shared: this epoch's readers end */
	int node_now;          /* numa-balancing: whose CPUs run the workers */
	int npids;
	pid_t pids[IK_MAX_SHARERS]; /* the children (movers move their pages too), -1: none */
	uint64_t epoch;        /* fork-shared: readers forked so far (epochs) */
	uint64_t epoch_moved;  /* the last epoch whose readers' pages a mover moved */
	uint32_t first_lock;
	char first[200];       /* the first mismatch, for the failure line */
	uint64_t corrupt_bytes, lost, checked, writes, disturbances, syncs;
	uint64_t child_failures;
	uint64_t stray_bytes;  /* bytes changed in the mover's poisoned pages */
};

/* The mover's poisoned pages (integrity_reuse.c): one anonymous mapping,
 * made before any worker runs, whose frames are faulted for a round and
 * freed (MADV_DONTNEED) after it. */
struct ik_reuse {
	char *mem;
	size_t bytes;
	int held;              /* its pages are faulted and poisoned */
};

struct ik_run {
	int kind;
	unsigned movers;       /* 1 << IM_*, those that can run here */
	int na, nb;            /* the nodes pages move between (equal: one node) */
	int move_all;          /* MPOL_MF_MOVE_ALL (root) for pages several mms map */
	int bound;             /* the region has mbind(MPOL_BIND, {na, nb}) */
	size_t npages, bytes;
	char *mem;             /* the parent's mapping */
	int fd;                /* shmem, file: -1 otherwise */
	char path[4096];       /* file: its name (removed at the end) */
	int nwriters, nsharers;
	uint64_t cpus[2];      /* numa-balancing: the CPUs of na and nb */
	struct ik_shared *sh;
	uint32_t *gen;         /* per page: the generation it must hold (shared) */
	uint8_t *zero;         /* per page: zapped, must read as zeros (shared) */
	uint32_t *lock;        /* per page: whoever checks or writes it holds it */
	uint32_t *snap_gen;    /* fork-shared readers' view: the table at fork */
	uint8_t *snap_zero;
	/* the mover's counts (parent only) */
	uint64_t moved, rounds, mover_errors;
	int mover_err;         /* a hard error: the repetition fails to run */
	int worker_err;        /* the same, of a disturber or syncer */
	const char *err_what;  /* which call failed: for the error line */
	int inject;            /* --inject-corruption (test only): one stray byte too */
	struct ik_reuse reuse; /* the mover's (integrity_reuse.c) */
};

/* integrity_reuse.c: the frames a move round freed, taken back by the
 * mover at once (faulted on the node the pages left, poisoned) and held
 * through the next round. The mapping is made once, before the workers
 * start: a mapping made later could take the hole the disturber leaves
 * between its munmap and its MAP_FIXED_NOREPLACE remap. */
/* 0 or -errno. */
int ik_reuse_map(struct ik_run *g);
void ik_reuse_unmap(struct ik_run *g);
/* Faults the pages on node and poisons them (an mbind error only weakens
 * the pressure). */
void ik_reuse_take(struct ik_run *g, int node);
/* Checks every poisoned byte and frees the pages; the bytes that changed
 * (stray writes), also added to g->sh->stray_bytes and noted as the first
 * mismatch. No-op when nothing is held. */
uint64_t ik_reuse_release(struct ik_run *g);

/* ksm: npages/IK_KSM_SHARE groups, page i in group i % groups, so each
 * KSM page is mapped IK_KSM_SHARE times and a move round has many of them. */
static inline size_t ik_ksm_groups(const struct ik_run *g)
{
	return g->npages / IK_KSM_SHARE;
}

static inline uint64_t ik_key(const struct ik_run *g, size_t page)
{
	return g->kind == IK_KSM ? page % ik_ksm_groups(g) : page;
}

static inline volatile uint64_t *ik_page(const struct ik_run *g, size_t page)
{
	return (volatile uint64_t *)(g->mem + page * 4096);
}

static inline void ik_lock(uint32_t *l)
{
	unsigned spins = 0;

	while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(l, __ATOMIC_RELAXED))
			if (++spins % 64 == 0)
				sched_yield();
}

static inline void ik_unlock(uint32_t *l)
{
	__atomic_store_n(l, 0, __ATOMIC_RELEASE);
}

/* Is the kind's memory private anonymous (a zap makes it read zeros)? */
int ik_private(int kind);

/* integrity_region.c */
/* Why this machine cannot run the kind (NULL: it can). */
const char *ik_kind_unavailable(int kind, const char *dir, char *buf, size_t size);
int ik_region_map(struct ik_run *g, const char *dir);
void ik_region_unmap(struct ik_run *g);
/* Pages [0, this) are MADV_HUGEPAGE (THP kinds), the rest small. */
size_t ik_huge_pages(const struct ik_run *g);
/* madvise/mbind of [first, first+n) pages as the kind wants them (after a
 * remap too). */
void ik_region_advise(struct ik_run *g, size_t first, size_t n);
/* munmap then mmap(MAP_FIXED_NOREPLACE) of n pages at first: zeros for the
 * private kinds, the same file pages for shmem/file. 0 or -errno. */
int ik_region_remap(struct ik_run *g, size_t first, size_t n);
/* KiB of AnonHugePages in this process (/proc/self/smaps_rollup), 0 if unknown. */
uint64_t ik_anon_huge_kib(void);
/* ksm: run=1 with a fast scan (the old values are put back by
 * mb_knob_restore_all), then waits up to timeout_s for pages_sharing to
 * reach want. Returns pages_sharing (0: nothing merged), or -errno. */
long ik_ksm_start(double timeout_s, long want);
long ik_ksm_pages_sharing(void);

/* integrity_workers.c */
struct ik_worker {
	pthread_t tid;
	struct ik_run *g;
	int index, cpu;
	int role;              /* IK_ROLE_* */
};
enum { IK_ROLE_WRITER, IK_ROLE_READER, IK_ROLE_KSM_WRITER, IK_ROLE_DISTURBER, IK_ROLE_SYNCER };
void *ik_worker_main(void *arg);
/* A shared kind's child: owner of its pages, and reader of all (never
 * returns). */
void ik_sharer_child(struct ik_run *g, int index) __attribute__((noreturn));
/* A fork-shared child: checks every page against the snapshot until
 * epoch_stop, then once more (never returns). */
void ik_snapshot_child(struct ik_run *g, int index) __attribute__((noreturn));
/* Checks page i (its lock held) against the shared table; counts and
 * repairs a mismatch (so it is counted once). Returns 1 on a mismatch. */
int ik_check_locked(struct ik_run *g, size_t i, const char *who);
void ik_note(struct ik_run *g, const char *who, size_t page, uint64_t gen, int zero,
	     enum ik_verdict v, uint64_t bad);
/* Pins the caller to the node the numa-balancing mover wants (when it moved). */
void ik_follow_node(struct ik_run *g, int *mine);

/* integrity_procs.c: the children; the pids go into sh->pids for the
 * movers. 0 or -errno (fork failed). */
int ik_fork_sharers(struct ik_run *g);
/* fork-shared: ends the epoch's readers, then forks new ones with every
 * page lock held and the table copied (snap_gen/snap_zero). */
int ik_fork_readers(struct ik_run *g);
/* Waits for every child; counts those that failed (sh->child_failures). */
void ik_reap_all(struct ik_run *g);

/* integrity_movers.c */
/* Why a mover cannot run here (NULL: it can). */
const char *ik_mover_unavailable(int mover, int two_nodes, char *buf, size_t size);
void *ik_mover_main(void *arg);

/* integrity_stress.c: bench_integrity with --kind */
int mb_integrity_kinds(const struct mb_opts *o, struct mb_result *r);

#endif
