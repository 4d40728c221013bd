/* contention (bench_contention.c): the pure parts the unit tests drive: the
 * run's sizes from the options, the per-round counting of a move_pages(2)
 * call, and the per-page data check of the writers. */
#ifndef MMBENCH_CONTENTION_H
#define MMBENCH_CONTENTION_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "mmbench.h"

/* Defaults: region size, move rounds per repetition, repetitions. */
#define MB_CONT_SIZE_MIB 16
#define MB_CONT_SIZE_MIB_QUICK 4
#define MB_CONT_ROUNDS 16
#define MB_CONT_ROUNDS_QUICK 6
#define MB_CONT_WRITERS_PER_CPU 2
/* A writer's pwrite(2) size: a page is written in 8 calls. */
#define MB_CONT_CHUNK_BYTES 512

struct mb_cont_cfg {
	size_t pages;   /* of the shared region */
	long rounds;    /* move rounds per repetition */
	int writers;    /* writer threads (the forked toucher comes on top) */
	int reps;
};

/* The sizes of a run from the options (--quick, --size-mib, --rounds,
 * --writers, --reps) on a machine with ncpus CPUs. 0, or -EINVAL with one
 * line in err naming the option (e.g. more writers than pages). */
int mb_cont_config(const struct mb_opts *o, int ncpus, struct mb_cont_cfg *c, char *err,
		   size_t err_size);
/* The benchmark table's check: mb_cont_config on this machine. */
int mb_cont_check_opts(const struct mb_opts *o, char *err, size_t err_size);

/* What the mover puts in status[] before the call: the kernel leaves it
 * there for pages it never reported (it gave up the call early). */
#define MB_CONT_STATUS_UNSET INT_MIN

/* One round (or a sum of them). */
struct mb_cont_round {
	uint64_t requested;  /* pages asked to move: not on the target before */
	uint64_t moved;      /* of those, on the target afterwards (queried) */
	uint64_t eagain;     /* status -EAGAIN */
	uint64_t ebusy;      /* status -EBUSY */
	uint64_t other_err;  /* any other negative status (-ENOENT, -EACCES, ...) */
	uint64_t unreported; /* status still MB_CONT_STATUS_UNSET */
	uint64_t not_migrated; /* the positive return values: pages not migrated */
	uint64_t calls_failed; /* calls that returned -1 */
};

/* Adds one move_pages(2) call of n pages towards target to c: status[] as
 * the call left it, after[] the node of each page queried afterwards
 * (move_pages with nodes NULL), ret the call's return value (-errno when it
 * failed). */
void mb_cont_count(const int *status, const int *after, size_t n, int target, long ret,
		   struct mb_cont_round *c);
/* moved / requested; 1 when nothing was requested (nothing left to move). */
double mb_cont_moved_fraction(const struct mb_cont_round *c);

/* The data: every page holds (page number, sequence number) and words
 * derived from both; a writer writes sequence s+1 after checking s. */
#define MB_CONT_WORDS (MB_CONT_PAGE_BYTES / 8)
#define MB_CONT_PAGE_BYTES 4096
void mb_cont_fill(uint64_t *page, uint64_t pageno, uint64_t seq);

enum mb_cont_verdict {
	MB_CONT_OK,
	MB_CONT_LOST,    /* a whole earlier write of this page: a later one was lost */
	MB_CONT_CORRUPT, /* anything else: *ret_bad_bytes bytes differ from the expected */
};
/* Checks one page against (pageno, seq). *ret_bad_bytes: differing bytes
 * when CORRUPT, else 0. */
enum mb_cont_verdict mb_cont_check(const uint64_t *page, uint64_t pageno, uint64_t seq,
				   uint64_t *ret_bad_bytes);

#endif
