/* The command line's options: one table for every subcommand (mb_opts in
 * mmbench.h), the usage text, and the parser main.c calls (here, outside
 * main.c, so the unit tests can drive it). */
#include "mmbench.h"
#include "integrity_kinds.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

void mb_usage(FILE *f)
{
	fprintf(f,
		"usage: mmbench COMMAND [options]\n"
		"       mmbench --help | --version\n"
		"commands:\n");
	for (const struct mb_bench *b = mb_benches; b->name; b++)
		fprintf(f, "  %-12s %s\n", b->name, b->summary);
	fprintf(f,
		"  %-12s %s\n"
		"  %-12s %s\n"
		"options (each command takes the ones that apply):\n"
		"  --benchmarks LIST  smoke: comma-separated benchmarks (default fault,munmap,exitdrain,integrity)\n"
		"  --config FILE      smoke: the JSON of `mmbatchd --show-smoke PROFILE` (takes its list)\n"
		"  --dir DIR          integrity --kind file: where its file lives (default $TMPDIR or /tmp)\n"
		"  --drain-cmd CMD    exitdrain: run CMD (sh -c) right after the child exits\n"
		"  --drain-knob[=P]   exitdrain: write 1 to P (/proc/sys/vm/drain_percpu) right after exit\n"
		"  --inject-corruption  contention, integrity --kind, test only: break one page and\n"
		"                     lose one write after the run, to show the check fails (exit 1)\n"
		"  --input FILE       smoke --state-dir: judge this result instead of running the benchmarks\n"
		"  --json             JSON document on stdout (summary goes to stderr)\n"
		"  --keep-every N     compaction: keep one page of every N of the fragmented memory\n"
		"                     (default 2: half of each page block; 2 to 512)\n"
		"  --kind LIST        integrity: migration stress per kind of memory instead of the default\n"
		"                     run, each for --seconds: all, or a comma list of anon, anon-thp,\n"
		"                     fork-shared, shmem, file, ksm, mixed\n"
		"  --kver KVER        smoke --state-dir: the kernel release (default: the running one)\n"
		"  --loops N          fault: map/touch/unmap cycles per thread and repetition\n"
		"  --min-migrations N integrity --kind: fail (exit 1) when the kernel migrated fewer\n"
		"                     than N pages (pgmigrate_success) during a kind\n"
		"  --min-moved-fraction F  contention: fail (exit 1) when less than F (0..1) of the\n"
		"                     requested pages moved\n"
		"  --mover LIST       integrity --kind: all (default), or a comma list of move_pages,\n"
		"                     mbind, migrate_pages, compact, numa-balancing\n"
		"  --op-kib N         munmap: size of one mapping (--shape ebizzy: of one chunk)\n"
		"  --ops N            munmap: operations per thread and repetition\n"
		"  -o, --output FILE  JSON document into FILE (written atomically)\n"
		"  --pages N          integrity: one variant with N pages instead of small+large\n"
		"                     (--kind: pages per kind, default 4096, --quick 1024)\n"
		"  --quick            short run (smoke, tests)\n"
		"  --reps N           repetitions (default 5, --quick 3; integrity --kind: 1;\n"
		"                     numa-hinting: 3, --quick 2)\n"
		"  --rounds N         contention: move_pages(2) rounds per repetition (default 16, --quick 6)\n"
		"  --seconds S        integrity: seconds per repetition (--kind: per kind and repetition);\n"
		"                     numa-hinting: the longest wait for the memory to become local\n"
		"                     (default 30, --quick 15, at least 1)\n"
		"  --shape NAME       fault: page_fault1 (default) or page_fault2, after will-it-scale's\n"
		"                     tests (page_fault2: each thread's file, a memfd, mapped private);\n"
		"                     munmap: default, or ebizzy (ebizzy -m: 2 threads per CPU copy\n"
		"                     chunks into fresh mappings); see mmbench(1)\n"
		"  --sharers N        integrity --kind: child processes mapping the pages of fork-shared,\n"
		"                     shmem and file (default 2)\n"
		"  --size-mib N       buffer size (fault: per thread, page_fault2: its file; exitdrain:\n"
		"                     whole child; migrate; contention: the shared region, default 16,\n"
		"                     --quick 4; compaction: the memory to fragment, default 3/4 of the\n"
		"                     node's free memory up to 1024, --quick 64, at least 8;\n"
		"                     numa-hinting: the remote memory, default 256, --quick 32)\n"
		"  --stamp STAMP      smoke --state-dir: result file name (default: UTC now, YYYYMMDDTHHMMSSZ)\n"
		"  --state-dir DIR    smoke: first-boot verdict of a pending kernel in DIR (/var/lib/mmbatch):\n"
		"                     run, store, compare with the baseline, write the verdict (SCHEMA.md)\n"
		"  --thp              fault: allow transparent huge pages (default: MADV_NOHUGEPAGE;\n"
		"                     not with --shape page_fault2)\n"
		"  --threads N        worker threads (default: one per CPU; compaction: one per other CPU;\n"
		"                     numa-hinting: one per CPU of the workers' node; munmap --shape\n"
		"                     ebizzy: two per CPU)\n"
		"  --threshold PCT    smoke --state-dir: a worse metric beyond PCT %% fails (default 5)\n"
		"  --timeout S        smoke --state-dir: seconds the benchmarks may take (default 60)\n"
		"  --writers N        integrity, contention: writer threads (contention: 2 per other CPU;\n"
		"                     integrity --kind: 2, the readers of ksm)\n"
		"exit: 0 ok, 1 corruption/regression/error, 2 bad input, 77 skipped on this machine\n"
		"see `mmbench compare --help` for the comparison, mmbench(1) for the manual\n",
		"smoke", "quick subset after a kernel install (--state-dir: its first-boot verdict)",
		"compare", "A.json B.json: medians, 95% CI, better/same/worse");
}

enum {
	OPT_JSON = 256, OPT_QUICK, OPT_REPS, OPT_THREADS, OPT_SIZE, OPT_THP, OPT_LOOPS, OPT_OPS,
	OPT_OP_KIB, OPT_PAGES, OPT_WRITERS, OPT_SECONDS, OPT_DRAIN_KNOB, OPT_DRAIN_CMD,
	OPT_BENCHMARKS, OPT_CONFIG, OPT_STATE_DIR, OPT_KVER, OPT_STAMP, OPT_INPUT, OPT_THRESHOLD,
	OPT_TIMEOUT, OPT_ROUNDS, OPT_MIN_MOVED, OPT_INJECT, OPT_KIND, OPT_MOVER, OPT_DIR,
	OPT_MIN_MIGRATIONS, OPT_SHARERS, OPT_SHAPE, OPT_KEEP,
};

static const struct option long_opts[] = {
	{ "json", no_argument, NULL, OPT_JSON },
	{ "output", required_argument, NULL, 'o' },
	{ "quick", no_argument, NULL, OPT_QUICK },
	{ "reps", required_argument, NULL, OPT_REPS },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "size-mib", required_argument, NULL, OPT_SIZE },
	{ "thp", no_argument, NULL, OPT_THP },
	{ "loops", required_argument, NULL, OPT_LOOPS },
	{ "ops", required_argument, NULL, OPT_OPS },
	{ "op-kib", required_argument, NULL, OPT_OP_KIB },
	{ "pages", required_argument, NULL, OPT_PAGES },
	{ "writers", required_argument, NULL, OPT_WRITERS },
	{ "seconds", required_argument, NULL, OPT_SECONDS },
	{ "drain-knob", optional_argument, NULL, OPT_DRAIN_KNOB },
	{ "drain-cmd", required_argument, NULL, OPT_DRAIN_CMD },
	{ "benchmarks", required_argument, NULL, OPT_BENCHMARKS },
	{ "config", required_argument, NULL, OPT_CONFIG },
	{ "state-dir", required_argument, NULL, OPT_STATE_DIR },
	{ "kver", required_argument, NULL, OPT_KVER },
	{ "stamp", required_argument, NULL, OPT_STAMP },
	{ "input", required_argument, NULL, OPT_INPUT },
	{ "threshold", required_argument, NULL, OPT_THRESHOLD },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "rounds", required_argument, NULL, OPT_ROUNDS },
	{ "min-moved-fraction", required_argument, NULL, OPT_MIN_MOVED },
	{ "inject-corruption", no_argument, NULL, OPT_INJECT },
	{ "kind", required_argument, NULL, OPT_KIND },
	{ "mover", required_argument, NULL, OPT_MOVER },
	{ "dir", required_argument, NULL, OPT_DIR },
	{ "min-migrations", required_argument, NULL, OPT_MIN_MIGRATIONS },
	{ "sharers", required_argument, NULL, OPT_SHARERS },
	{ "shape", required_argument, NULL, OPT_SHAPE },
	{ "keep-every", required_argument, NULL, OPT_KEEP },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Which MB_OPT_* bit an option needs (0: every command takes it). */
static unsigned opt_bit(int c)
{
	switch (c) {
	case OPT_THREADS: return MB_OPT_THREADS;
	case OPT_SIZE: return MB_OPT_SIZE;
	case OPT_THP: return MB_OPT_THP;
	case OPT_LOOPS: return MB_OPT_LOOPS;
	case OPT_OPS: return MB_OPT_OPS;
	case OPT_OP_KIB: return MB_OPT_OP_KIB;
	case OPT_PAGES: return MB_OPT_PAGES;
	case OPT_WRITERS: return MB_OPT_WRITERS;
	case OPT_SECONDS: return MB_OPT_SECONDS;
	case OPT_DRAIN_KNOB: case OPT_DRAIN_CMD: return MB_OPT_DRAIN;
	case OPT_BENCHMARKS: case OPT_CONFIG: return MB_OPT_BENCHMARKS;
	case OPT_STATE_DIR: case OPT_KVER: case OPT_STAMP: case OPT_INPUT: case OPT_THRESHOLD:
	case OPT_TIMEOUT: return MB_OPT_GATE;
	case OPT_ROUNDS: return MB_OPT_ROUNDS;
	case OPT_MIN_MOVED: return MB_OPT_CONTENTION;
	case OPT_INJECT: return MB_OPT_INJECT;
	case OPT_KIND: case OPT_MOVER: case OPT_DIR: case OPT_MIN_MIGRATIONS: case OPT_SHARERS:
		return MB_OPT_KINDS;
	case OPT_SHAPE: return MB_OPT_SHAPE;
	case OPT_KEEP: return MB_OPT_KEEP;
	}
	return 0;
}

/* The commands that take --shape and their shapes, the default first. A
 * command listed here takes --shape whatever its mb_benches entry lists,
 * so its shape names and its permission to take --shape cannot disagree. */
static const struct {
	const char *cmd;
	const char *names[3];
	const char *choices; /* for the error message */
} shape_table[] = {
	{ "fault", { MB_SHAPE_PAGE_FAULT1, MB_SHAPE_PAGE_FAULT2, NULL },
	  MB_SHAPE_PAGE_FAULT1 " or " MB_SHAPE_PAGE_FAULT2 },
	{ "munmap", { MB_SHAPE_DEFAULT, MB_SHAPE_EBIZZY, NULL }, MB_SHAPE_DEFAULT " or " MB_SHAPE_EBIZZY },
};

static int shape_entry(const char *cmd)
{
	for (size_t i = 0; i < sizeof(shape_table) / sizeof(shape_table[0]); i++)
		if (strcmp(shape_table[i].cmd, cmd) == 0)
			return (int)i;
	return -1;
}

/* Stores the canonical name (a static string), so the benchmarks may
 * compare it with the MB_SHAPE_* names; -EINVAL when cmd has no such shape. */
static int parse_shape(int entry, const char *arg, const char **ret)
{
	for (int k = 0; shape_table[entry].names[k]; k++)
		if (strcmp(shape_table[entry].names[k], arg) == 0) {
			*ret = shape_table[entry].names[k];
			return 0;
		}
	return -EINVAL;
}

int mb_parse_opts(const char *cmd, unsigned allowed, int argc, char **argv, struct mb_opts *o)
{
	int shapes = shape_entry(cmd), c;

	if (shapes >= 0)
		allowed |= MB_OPT_SHAPE;
	opterr = 0;
	optind = 1;
	for (;;) {
		int li = -1;
		char name[40];
		const char *bad;
		long v;
		int r = 0;

		c = getopt_long(argc, argv, ":o:h", long_opts, &li);
		if (c == -1)
			break;
		/* the option as typed: argv may hold its value instead */
		if (li >= 0)
			snprintf(name, sizeof(name), "--%s", long_opts[li].name);
		else if (c == 'o')
			snprintf(name, sizeof(name), "-o");
		else
			snprintf(name, sizeof(name), "%s", argv[optind - 1]);
		bad = name;

		if (c == '?') {
			fprintf(stderr, "mmbench %s: unknown option '%s' (see mmbench --help)\n", cmd, bad);
			return -EINVAL;
		}
		if (c == ':') {
			fprintf(stderr, "mmbench %s: option '%s' needs a value\n", cmd, bad);
			return -EINVAL;
		}
		if (c == 'h') {
			mb_usage(stdout);
			return 1;
		}
		if (opt_bit(c) && !(allowed & opt_bit(c))) {
			fprintf(stderr, "mmbench %s: option '%s' does not apply to %s\n", cmd, bad, cmd);
			return -EINVAL;
		}
		switch (c) {
		case OPT_JSON: o->json = 1; break;
		case 'o': o->output = optarg; break;
		case OPT_QUICK: o->quick = 1; break;
		case OPT_REPS: r = mb_parse_long(optarg, 1, MB_MAX_REPS, &v); o->reps = (int)v; break;
		case OPT_THREADS: r = mb_parse_long(optarg, 1, 1024, &v); o->threads = (int)v; break;
		case OPT_SIZE: r = mb_parse_long(optarg, 1, 1 << 20, &o->size_mib); break;
		case OPT_THP: o->thp = 1; break;
		case OPT_LOOPS: r = mb_parse_long(optarg, 1, 1000000, &o->loops); break;
		case OPT_OPS: r = mb_parse_long(optarg, 1, 100000000, &o->ops); break;
		case OPT_OP_KIB: r = mb_parse_long(optarg, 4, 1 << 22, &o->op_kib); break;
		case OPT_PAGES: r = mb_parse_long(optarg, 1, 1 << 24, &o->pages); break;
		case OPT_WRITERS: r = mb_parse_long(optarg, 1, 1024, &o->writers); break;
		case OPT_SECONDS:
			r = mb_parse_double(optarg, &o->seconds);
			if (r == 0 && (o->seconds <= 0 || o->seconds > 86400))
				r = -EINVAL;
			break;
		case OPT_DRAIN_KNOB: o->drain_knob = optarg ? optarg : "/proc/sys/vm/drain_percpu"; break;
		case OPT_DRAIN_CMD: o->drain_cmd = optarg; break;
		case OPT_BENCHMARKS: o->benchmarks = optarg; break;
		case OPT_CONFIG: o->config = optarg; break;
		case OPT_STATE_DIR: o->state_dir = optarg; break;
		case OPT_KVER: o->kver = optarg; break;
		case OPT_STAMP: o->stamp = optarg; break;
		case OPT_INPUT: o->input = optarg; break;
		case OPT_THRESHOLD:
			r = mb_parse_double(optarg, &o->threshold);
			if (r == 0 && (o->threshold < 0 || !(o->threshold < 1e6)))
				r = -EINVAL;
			o->threshold_text = optarg;
			break;
		case OPT_TIMEOUT:
			r = mb_parse_double(optarg, &o->timeout_s);
			if (r == 0 && (o->timeout_s <= 0 || o->timeout_s > 86400))
				r = -EINVAL;
			o->timeout_text = optarg;
			break;
		case OPT_ROUNDS: r = mb_parse_long(optarg, 1, 100000, &o->rounds); break;
		case OPT_MIN_MOVED:
			r = mb_parse_double(optarg, &o->min_moved_fraction);
			if (r == 0 && !(o->min_moved_fraction >= 0 && o->min_moved_fraction <= 1))
				r = -EINVAL;
			o->min_moved_text = optarg;
			break;
		case OPT_INJECT: o->inject_corruption = 1; break;
		case OPT_KIND: o->kinds = optarg; break;
		case OPT_MOVER: o->movers = optarg; break;
		case OPT_DIR: o->dir = optarg; break;
		case OPT_MIN_MIGRATIONS:
			r = mb_parse_long(optarg, 0, 1L << 62, &o->min_migrations);
			o->min_migrations_text = optarg;
			break;
		case OPT_SHARERS: r = mb_parse_long(optarg, 1, IK_MAX_SHARERS, &o->sharers); break;
		case OPT_KEEP: r = mb_parse_long(optarg, 2, MB_COMPACTION_MAX_KEEP, &o->keep_every); break;
		case OPT_SHAPE:
			if (parse_shape(shapes, optarg, &o->shape) < 0) {
				fprintf(stderr, "mmbench %s: bad value '%s' for option '%s' (%s)\n", cmd,
					optarg, bad, shape_table[shapes].choices);
				return -EINVAL;
			}
			break;
		}
		if (r < 0) {
			fprintf(stderr, "mmbench %s: bad value '%s' for option '%s'\n", cmd, optarg, bad);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "mmbench %s: unexpected argument '%s'\n", cmd, argv[optind]);
		return -EINVAL;
	}
	if (o->drain_knob && o->drain_cmd) {
		fprintf(stderr, "mmbench %s: --drain-knob and --drain-cmd exclude each other\n", cmd);
		return -EINVAL;
	}
	if (o->benchmarks && o->config) {
		fprintf(stderr, "mmbench %s: --benchmarks and --config exclude each other\n", cmd);
		return -EINVAL;
	}
	if (!o->state_dir && (o->kver || o->stamp || o->input || o->threshold_text ||
			      o->timeout_text)) {
		fprintf(stderr, "mmbench %s: --kver, --stamp, --input, --threshold and --timeout "
			"need --state-dir\n", cmd);
		return -EINVAL;
	}
	/* a private file mapping's copy-on-write faults are 4 KiB pages whatever
	 * the madvise: --thp would only change the label */
	if (o->thp && o->shape && strcmp(o->shape, MB_SHAPE_PAGE_FAULT2) == 0) {
		fprintf(stderr, "mmbench %s: --thp does not apply to --shape %s\n", cmd, o->shape);
		return -EINVAL;
	}
	if (o->state_dir && (o->output || o->json)) {
		fprintf(stderr, "mmbench %s: --state-dir writes results/<kver>/<stamp>.json itself: "
			"no -o or --json\n", cmd);
		return -EINVAL;
	}
	return 0;
}

