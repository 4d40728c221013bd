/* mmbench: the command line. Parses the shared options (opts.c: the table,
 * the usage, which subcommand takes which), runs the benchmark and writes the
 * result.
 * Exit codes: 0 ok, 1 corruption/regression/runtime error, 2 bad input,
 * 77 skipped (this machine cannot run the benchmark). */
#include "gate.h"
#include "mmbench.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int run_one(const struct mb_bench *b, const struct mb_opts *o)
{
	struct mb_result *res = malloc(sizeof(*res));
	uint64_t t0 = mb_now_ns();
	int r, rc;

	if (!res) {
		fprintf(stderr, "mmbench %s: out of memory\n", b->name);
		return MB_EXIT_FAIL;
	}
	mb_result_init(res, b->name);
	r = b->fn(o, res);
	if (r < 0) {
		fprintf(stderr, "mmbench %s: %s\n", b->name, strerror(-r));
		free(res);
		return MB_EXIT_FAIL;
	}
	r = mb_emit(o, b->name, &res, 1, (double)(mb_now_ns() - t0) / 1e9);
	if (r < 0) {
		fprintf(stderr, "mmbench %s: cannot write the result%s%s: %s\n", b->name,
			o->output ? " to " : "", o->output ? o->output : "", strerror(-r));
		free(res);
		return MB_EXIT_FAIL;
	}
	rc = res->status == MB_STATUS_OK ? MB_EXIT_OK :
	     res->status == MB_STATUS_SKIPPED ? MB_EXIT_SKIPPED : MB_EXIT_FAIL;
	free(res);
	return rc;
}

int main(int argc, char **argv)
{
	struct mb_opts o = { 0 };
	const struct mb_bench *b;
	const char *cmd;
	int r;

	if (argc < 2) {
		fprintf(stderr, "mmbench: no command given (see mmbench --help)\n");
		return MB_EXIT_USAGE;
	}
	cmd = argv[1];
	if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0) {
		mb_usage(stdout);
		return MB_EXIT_OK;
	}
	/* MB_PKG_VERSION: specs/mmbatchd/VERSION, defined by the build (mk/common.mk). */
	if (strcmp(cmd, "--version") == 0) {
		if (argc > 2) {
			fprintf(stderr, "mmbench: --version takes no arguments\n");
			return MB_EXIT_USAGE;
		}
		printf("mmbench %s\n", MB_PKG_VERSION);
		return MB_EXIT_OK;
	}
	if (strcmp(cmd, "compare") == 0)
		return mb_compare_main(argc - 1, argv + 1);

	b = mb_find_bench(cmd);
	if (!b && strcmp(cmd, "smoke") != 0) {
		fprintf(stderr, "mmbench: unknown command '%s' (see mmbench --help)\n", cmd);
		return MB_EXIT_USAGE;
	}
	r = mb_parse_opts(cmd, b ? b->opts : MB_OPT_BENCHMARKS | MB_OPT_GATE, argc - 1, argv + 1, &o);
	if (r < 0)
		return MB_EXIT_USAGE;
	if (r > 0)
		return MB_EXIT_OK;
	if (b && b->check) {
		char err[200];

		if (b->check(&o, err, sizeof(err)) < 0) {
			fprintf(stderr, "mmbench %s: %s\n", cmd, err);
			return MB_EXIT_USAGE;
		}
	}
	if (!b && o.state_dir) {
		if (!o.threshold_text) {
			o.threshold = 5.0;
			o.threshold_text = "5";
		}
		if (!o.timeout_text) {
			o.timeout_s = 60;
			o.timeout_text = "60";
		}
		return mb_smoke_gate(&o);
	}
	if (!b)
		return mb_smoke(&o, "mmbench smoke");
	return run_one(b, &o);
}
