/* mmbench: shared types of the benchmarks, the result they fill in, and the
 * options every subcommand parses. One benchmark per bench_*.c file. */
#ifndef MMBENCH_H
#define MMBENCH_H

#include <stdint.h>
#include <stdio.h>

#include "counters.h"
#include "stats.h"

#define MB_SCHEMA "mmbench/1"
#define MB_VERSION "1.0"
#define MB_MAX_REPS 100
#define MB_MAX_METRICS 80 /* integrity --kind all: up to 12 per kind */
#define MB_MAX_PARAMS 40

enum mb_status { MB_STATUS_OK, MB_STATUS_SKIPPED, MB_STATUS_FAILED };

struct mb_metric {
	char name[48];
	char unit[24];
	enum mb_better better;
	int n;
	double v[MB_MAX_REPS];
};

struct mb_param {
	char key[32];
	int is_num;
	double num;
	char str[160];
};

struct mb_result {
	char bench[24];
	enum mb_status status;
	char reason[256];
	int reps;
	int nparams;
	struct mb_param params[MB_MAX_PARAMS];
	int nmetrics;
	struct mb_metric metrics[MB_MAX_METRICS];
	int has_counters;
	struct mb_counters start, delta; /* whole run */
};

/* Options: one table for every subcommand; each benchmark lists the ones it
 * takes (MB_OPT_* bits) and main rejects the rest. */
enum {
	MB_OPT_THREADS = 1 << 0,
	MB_OPT_SIZE = 1 << 1,
	MB_OPT_THP = 1 << 2,
	MB_OPT_LOOPS = 1 << 3,
	MB_OPT_OPS = 1 << 4,
	MB_OPT_OP_KIB = 1 << 5,
	MB_OPT_PAGES = 1 << 6,
	MB_OPT_WRITERS = 1 << 7,
	MB_OPT_SECONDS = 1 << 8,
	MB_OPT_DRAIN = 1 << 9,
	MB_OPT_BENCHMARKS = 1 << 10,
	MB_OPT_GATE = 1 << 11, /* smoke --state-dir and its options */
	MB_OPT_ROUNDS = 1 << 12,
	MB_OPT_CONTENTION = 1 << 13, /* --min-moved-fraction */
	MB_OPT_INJECT = 1 << 14,     /* --inject-corruption */
	MB_OPT_KINDS = 1 << 15,      /* integrity: --kind, --mover, --dir, --min-migrations, --sharers */
	MB_OPT_SHAPE = 1 << 16,      /* fault, munmap: --shape (opts.c's shape table grants it) */
	MB_OPT_KEEP = 1 << 17,       /* compaction: --keep-every */
};

/* --shape: which seed tool's parameters a fault or munmap run follows
 * (docs/developing/bench-shapes.md). Each command's first is its default. */
#define MB_SHAPE_PAGE_FAULT1 "page_fault1" /* fault: will-it-scale page_fault1, anonymous */
#define MB_SHAPE_PAGE_FAULT2 "page_fault2" /* fault: will-it-scale page_fault2, file COW */
#define MB_SHAPE_DEFAULT "default"         /* munmap: mmap/touch/munmap and MADV_DONTNEED */
#define MB_SHAPE_EBIZZY "ebizzy"           /* munmap: ebizzy -m */

struct mb_opts {
	int json;             /* JSON on stdout, human summary on stderr */
	const char *output;   /* JSON into this file (written atomically) */
	int quick;
	int reps;             /* 0: the benchmark's default */
	int threads;          /* 0: one per CPU */
	long size_mib;        /* 0: default */
	int thp;
	long loops, ops, op_kib, pages, writers;
	double seconds;
	const char *drain_knob;
	const char *drain_cmd;
	const char *benchmarks; /* smoke: comma list */
	const char *config;     /* smoke: `mmbatchd --show-smoke` output file */
	/* smoke --state-dir: the first-boot verdict (gate.c) */
	const char *state_dir;
	const char *kver;       /* NULL: uname -r */
	const char *stamp;      /* NULL: UTC now, %Y%m%dT%H%M%SZ */
	const char *input;      /* judge this result instead of running */
	double threshold;       /* percent */
	const char *threshold_text; /* as given, for the messages */
	double timeout_s;
	const char *timeout_text;
	long rounds;            /* contention: move rounds per repetition */
	double min_moved_fraction;   /* contention: fail below it (with the text) */
	const char *min_moved_text;
	int inject_corruption;  /* contention, integrity --kind, test only: break the data on purpose */
	/* integrity --kind (integrity_kinds.h): the lists as given */
	const char *kinds;
	const char *movers;
	const char *dir;        /* the file kind's directory */
	long min_migrations;    /* fail below it, per kind (with the text) */
	const char *min_migrations_text;
	long sharers;           /* child processes of the shared kinds */
	long keep_every;        /* compaction: keep one page of every N (0: 2) */
	const char *shape;      /* fault, munmap: an MB_SHAPE_* name; NULL: the default, and
				 * no "shape" parameter in the result */
};

/* opts.c: the usage text and the parser of every subcommand's options
 * (allowed: the MB_OPT_* bits the subcommand takes). Returns 0, 1 after
 * --help (printed), or -EINVAL after printing one error line. */
void mb_usage(FILE *f);
int mb_parse_opts(const char *cmd, unsigned allowed, int argc, char **argv, struct mb_opts *o);

/* Every benchmark: fills r, returns 0 (status in r) or negative errno. */
typedef int (*mb_bench_fn)(const struct mb_opts *o, struct mb_result *r);
int bench_fault(const struct mb_opts *o, struct mb_result *r);
int bench_migrate(const struct mb_opts *o, struct mb_result *r);
int bench_munmap(const struct mb_opts *o, struct mb_result *r);
int bench_exitdrain(const struct mb_opts *o, struct mb_result *r);
int bench_integrity(const struct mb_opts *o, struct mb_result *r);
int bench_contention(const struct mb_opts *o, struct mb_result *r);
int bench_compaction(const struct mb_opts *o, struct mb_result *r);
int bench_numa_hinting(const struct mb_opts *o, struct mb_result *r);

/* The option checks of compaction and numa-hinting (struct mb_bench's
 * check): 0, or -EINVAL with one line in err naming the option. */
#define MB_COMPACTION_MIN_MIB 8   /* 4 page blocks to fragment */
#define MB_COMPACTION_MAX_KEEP 512 /* --keep-every: at least one page per page block */
#define MB_NUMA_HINTING_MIN_S 1.0 /* less ends before NUMA balancing has scanned once */
int mb_compaction_check_opts(const struct mb_opts *o, char *err, size_t err_size);
int mb_numa_hinting_check_opts(const struct mb_opts *o, char *err, size_t err_size);

struct mb_bench {
	const char *name;
	mb_bench_fn fn;
	unsigned opts;
	const char *summary;
	/* NULL, or a check of the options beyond their ranges: 0, or -EINVAL
	 * with one line in err naming the option (main: exit 2). */
	int (*check)(const struct mb_opts *o, char *err, size_t err_size);
};
const struct mb_bench *mb_find_bench(const char *name);
extern const struct mb_bench mb_benches[];

/* report.c: filling and writing results */
void mb_result_init(struct mb_result *r, const char *bench);
void mb_param_num(struct mb_result *r, const char *key, double v);
void mb_param_str(struct mb_result *r, const char *key, const char *s);
int mb_metric_add(struct mb_result *r, const char *name, const char *unit, enum mb_better b);
void mb_metric_push(struct mb_result *r, int idx, double v);
void mb_skip(struct mb_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Picks the two memory nodes a migration benchmark moves pages between and
 * records them as parameters. Returns 0, 1 when the machine has fewer than
 * two (r is then marked skipped), or a negative errno. */
int mb_pick_two_nodes(struct mb_result *r, int *ret_a, int *ret_b);
void mb_fail(struct mb_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int mb_run_begin(struct mb_result *r);
int mb_run_end(struct mb_result *r);
int mb_reps(const struct mb_opts *o, int normal, int quick);

/* Writes the document (schema, system, results) to o->output atomically
 * and/or stdout (--json), and the human summary. Returns 0 or -errno. */
int mb_emit(const struct mb_opts *o, const char *command, struct mb_result **results, int n,
	    double duration_s);
void mb_print_summary(FILE *f, const struct mb_result *r);

/* smoke.c, compare.c */
int mb_smoke(const struct mb_opts *o, const char *prog);
int mb_compare_main(int argc, char **argv);

#endif
