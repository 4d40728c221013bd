/* Unit tests for state.c (the baseline choice, verdict and last-booted
 * files) and gate.c (the first-boot verdict with --input, the timeout
 * runner), on scratch state directories. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gate.h"
#include "mmbench.h"
#include "state.h"
#include "util.h"

static char root[256];

static void put(const char *rel, const char *text)
{
	char path[512], dir[512], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	*slash = '\0';
	assert_int_equal(mb_state_mkdir_p(dir), 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static char *slurp(const char *rel)
{
	char path[512], *buf = NULL;
	size_t len;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (mb_read_file(path, &buf, &len) < 0)
		return NULL;
	return buf;
}

static int exists(const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	return access(path, F_OK) == 0;
}

static int setup(void **state)
{
	const char *tmp = getenv("TMPDIR");

	(void)state;
	snprintf(root, sizeof(root), "%s/mmbench-state.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

/* The baseline the state tree gives for kver, relative to root; "" none. */
static const char *baseline_of(const char *kver, const char *new_rel)
{
	static char rel[512];
	char new_path[512], *p = NULL;
	int r;

	snprintf(new_path, sizeof(new_path), "%s/%s", root, new_rel);
	r = mb_state_baseline(root, kver, new_path, &p);
	assert_true(r == 0 || r == 1);
	if (r == 1) {
		assert_null(p);
		return "";
	}
	assert_true(strncmp(p, root, strlen(root)) == 0);
	snprintf(rel, sizeof(rel), "%s", p + strlen(root) + 1);
	free(p);
	return rel;
}

static void test_baseline_none(void **state)
{
	(void)state;
	assert_string_equal(baseline_of("6.12-new", "results/6.12-new/20260103T000000Z.json"), "");
	/* only this kernel's own results: still none without last-booted */
	put("results/6.12-new/20260101T000000Z.json", "{}");
	assert_string_equal(baseline_of("6.12-new", "results/6.12-new/20260103T000000Z.json"), "");
}

static void test_baseline_last_booted(void **state)
{
	(void)state;
	put("results/6.1-old/20250101T000000Z.json", "{}");
	put("results/6.1-old/20250301T000000Z.json", "{}");
	put("results/6.6-other/20260201T000000Z.json", "{}"); /* newer, but not last-booted */
	put("last-booted", "6.1-old\n");
	assert_string_equal(baseline_of("6.12-new", "results/6.12-new/20260301T000000Z.json"),
			    "results/6.1-old/20250301T000000Z.json");
	/* temp files and hidden files are no results */
	put("results/6.1-old/20250401T000000Z.json.tmpAbC123", "{");
	put("results/6.1-old/.20250501T000000Z.json", "{");
	assert_string_equal(baseline_of("6.12-new", "results/6.12-new/20260301T000000Z.json"),
			    "results/6.1-old/20250301T000000Z.json");
}

static void test_baseline_same_kernel_again(void **state)
{
	(void)state;
	/* last-booted is the kernel under test: its newest result but the new one */
	put("results/6.12-new/20260101T000000Z.json", "{}");
	put("results/6.12-new/20260102T000000Z.json", "{}");
	put("last-booted", "6.12-new\n");
	assert_string_equal(baseline_of("6.12-new", "results/6.12-new/20260102T000000Z.json"),
			    "results/6.12-new/20260101T000000Z.json");
}

static void test_baseline_fallback(void **state)
{
	(void)state;
	put("results/6.1-old/20250101T000000Z.json", "{}");
	put("results/6.6-other/20260201T000000Z.json", "{}");
	put("results/6.12-new/20270101T000000Z.json", "{}"); /* own kernel: never the fallback */
	put("results/not-a-dir.json", "{}");
	/* no last-booted */
	assert_string_equal(baseline_of("6.12-new", "results/6.12-new/20270201T000000Z.json"),
			    "results/6.6-other/20260201T000000Z.json");
	/* last-booted names a kernel without results */
	put("last-booted", "5.15-gone\n");
	assert_string_equal(baseline_of("6.12-new", "results/6.12-new/20270201T000000Z.json"),
			    "results/6.6-other/20260201T000000Z.json");
	/* last-booted is empty, or no file name: ignored */
	put("last-booted", "");
	assert_string_equal(baseline_of("6.12-new", "results/6.12-new/20270201T000000Z.json"),
			    "results/6.6-other/20260201T000000Z.json");
	put("last-booted", "../6.1-old\n");
	assert_string_equal(baseline_of("6.12-new", "results/6.12-new/20270201T000000Z.json"),
			    "results/6.6-other/20260201T000000Z.json");
}

static void test_verdict_file(void **state)
{
	char *text;

	(void)state;
	assert_int_equal(mb_state_write_verdict(root, "6.12-new", "pass", "no regression", "20260101T000000Z"), 0);
	text = slurp("verdict/6.12-new");
	assert_non_null(text);
	assert_string_equal(text, "result=pass\nreason=no regression\nat=20260101T000000Z\n");
	free(text);
	/* replaced, the reason kept on one line, no temp file left */
	assert_int_equal(mb_state_write_verdict(root, "6.12-new", "fail", "two\nlines\r", "20260102T000000Z"), 0);
	text = slurp("verdict/6.12-new");
	assert_string_equal(text, "result=fail\nreason=two lines \nat=20260102T000000Z\n");
	free(text);
	{
		char dir[512];
		DIR *d;
		struct dirent *e;
		int n = 0;

		snprintf(dir, sizeof(dir), "%s/verdict", root);
		d = opendir(dir);
		assert_non_null(d);
		while ((e = readdir(d)))
			n += e->d_name[0] != '.';
		closedir(d);
		assert_int_equal(n, 1);
	}
	assert_int_equal(mb_state_set_last_booted(root, "6.12-new"), 0);
	text = slurp("last-booted");
	assert_string_equal(text, "6.12-new\n");
	free(text);
}

static void test_verdict_unwritable(void **state)
{
	(void)state;
	put("verdict", "a file where the directory should be");
	assert_true(mb_state_write_verdict(root, "6.12-new", "pass", "x", "s") < 0);
}

static void test_valid_name(void **state)
{
	(void)state;
	assert_true(mb_state_valid_name("6.12.0-mmbatch1"));
	assert_false(mb_state_valid_name(""));
	assert_false(mb_state_valid_name(NULL));
	assert_false(mb_state_valid_name(".hidden"));
	assert_false(mb_state_valid_name("a/b"));
	assert_false(mb_state_valid_name(".."));
}

/* --- gate.c ----------------------------------------------------------- */

#define DOC_HEAD "{\"schema\": \"mmbench/1\", \"results\": [{\"benchmark\": \"fault\", "
#define DOC_OK(v1, v2, v3) DOC_HEAD "\"status\": \"ok\", \"metrics\": [{\"name\": \"pages_per_s\", " \
	"\"unit\": \"pages/s\", \"better\": \"higher\", \"values\": [" v1 ", " v2 ", " v3 "]}]}]}\n"

static int gate(const char *kver, const char *stamp, const char *input_rel)
{
	struct mb_opts o = { 0 };
	char input[512];
	int rc;

	snprintf(input, sizeof(input), "%s/%s", root, input_rel);
	o.state_dir = root;
	o.kver = kver;
	o.stamp = stamp;
	o.input = input;
	o.threshold = 5;
	o.threshold_text = "5";
	o.timeout_s = 60;
	o.timeout_text = "60";
	rc = mb_smoke_gate(&o);
	fflush(stdout);
	return rc;
}

static void test_gate_corrupt_baseline(void **state)
{
	char *text, want[600];

	(void)state;
	put("in.json", DOC_OK("100", "101", "99"));
	put("results/6.1-old/20250101T000000Z.json", "{\"schema\": \"mmbench/1\", \"results\": [\n");
	put("last-booted", "6.1-old\n");
	put("pending/6.12-new", "");
	assert_int_equal(gate("6.12-new", "20260101T000000Z", "in.json"), MB_EXIT_USAGE);
	text = slurp("verdict/6.12-new");
	assert_non_null(text);
	printf("    %s", text);
	snprintf(want, sizeof(want), "result=error\nreason=unreadable baseline %s/results/6.1-old/20250101T000000Z.json:2:",
		 root);
	assert_true(strncmp(text, want, strlen(want)) == 0);
	assert_non_null(strstr(text, "; kernel 6.12-new stays pending\nat=20260101T000000Z\n"));
	free(text);
	assert_true(exists("pending/6.12-new"));
	text = slurp("last-booted");
	assert_string_equal(text, "6.1-old\n");
	free(text);
	/* a result of another program is as unreadable */
	put("results/6.1-old/20250101T000000Z.json", "{\"schema\": \"other/1\"}\n");
	assert_int_equal(gate("6.12-new", "20260101T000001Z", "in.json"), MB_EXIT_USAGE);
	text = slurp("verdict/6.12-new");
	assert_non_null(strstr(text, "result=error\n"));
	assert_non_null(strstr(text, "not an mmbench result (schema 'other/1'"));
	free(text);
}

static void test_gate_pass_fail(void **state)
{
	char *text;

	(void)state;
	put("same.json", DOC_OK("100", "101", "99"));
	put("slow.json", DOC_OK("10", "10.1", "9.9"));
	put("failed.json", DOC_HEAD "\"status\": \"failed\", \"reason\": \"3 corrupt bytes\", \"metrics\": []}]}\n");

	/* not pending: nothing happens */
	assert_int_equal(gate("6.12-new", "20260101T000000Z", "same.json"), MB_EXIT_OK);
	assert_false(exists("verdict/6.12-new"));
	assert_false(exists("results/6.12-new/20260101T000000Z.json"));

	/* first run: pass, stored, recorded, mark gone */
	put("pending/6.1-old", "");
	assert_int_equal(gate("6.1-old", "20260101T000000Z", "same.json"), MB_EXIT_OK);
	text = slurp("verdict/6.1-old");
	assert_string_equal(text, "result=pass\nreason=no earlier result to compare with (first smoke run)\nat=20260101T000000Z\n");
	free(text);
	assert_true(exists("results/6.1-old/20260101T000000Z.json"));
	assert_false(exists("pending/6.1-old"));
	text = slurp("last-booted");
	assert_string_equal(text, "6.1-old\n");
	free(text);

	/* 10x slower: fail, last-booted stays */
	put("pending/6.12-new", "");
	assert_int_equal(gate("6.12-new", "20260102T000000Z", "slow.json"), MB_EXIT_FAIL);
	text = slurp("verdict/6.12-new");
	assert_string_equal(text, "result=fail\nreason=REGRESSION against 6.1-old beyond 5 % (or a benchmark failed)\nat=20260102T000000Z\n");
	free(text);
	assert_false(exists("pending/6.12-new"));
	text = slurp("last-booted");
	assert_string_equal(text, "6.1-old\n");
	free(text);

	/* a failed benchmark: fail, naming it and why */
	put("pending/6.12-new", "");
	assert_int_equal(gate("6.12-new", "20260103T000000Z", "failed.json"), MB_EXIT_FAIL);
	text = slurp("verdict/6.12-new");
	assert_string_equal(text, "result=fail\nreason=FAILED: fault: 3 corrupt bytes\nat=20260103T000000Z\n");
	free(text);

	/* the same as the baseline: pass */
	put("pending/6.12-new", "");
	assert_int_equal(gate("6.12-new", "20260104T000000Z", "same.json"), MB_EXIT_OK);
	text = slurp("verdict/6.12-new");
	assert_string_equal(text, "result=pass\nreason=no regression beyond 5 % against 6.1-old\nat=20260104T000000Z\n");
	free(text);
	text = slurp("last-booted");
	assert_string_equal(text, "6.12-new\n");
	free(text);

	/* a bad input document: error, still pending */
	put("pending/6.12-new", "");
	put("bad.json", "not json");
	assert_int_equal(gate("6.12-new", "20260105T000000Z", "bad.json"), MB_EXIT_USAGE);
	text = slurp("verdict/6.12-new");
	assert_non_null(strstr(text, "result=error\nreason=--input: "));
	free(text);
	assert_true(exists("pending/6.12-new"));
}

static int child_exit3(void *arg) { (void)arg; return 3; }
static int child_segv(void *arg)
{
	(void)arg;
	signal(SIGSEGV, SIG_DFL); /* cmocka catches it in the test process */
	raise(SIGSEGV);
	return 0;
}
static int child_sleep(void *arg) { (void)arg; sleep(10); return 0; }

static void test_run_timeout(void **state)
{
	int status = -1;
	uint64_t t0;

	(void)state;
	assert_int_equal(mb_run_timeout(child_exit3, NULL, 10, &status), 0);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 3);
	assert_int_equal(mb_run_timeout(child_segv, NULL, 10, &status), 0);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV);
	t0 = mb_now_ns();
	assert_int_equal(mb_run_timeout(child_sleep, NULL, 0.3, &status), 1);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	assert_true(mb_now_ns() - t0 < 5000000000ULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_baseline_none, setup, teardown),
		cmocka_unit_test_setup_teardown(test_baseline_last_booted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_baseline_same_kernel_again, setup, teardown),
		cmocka_unit_test_setup_teardown(test_baseline_fallback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_verdict_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_verdict_unwritable, setup, teardown),
		cmocka_unit_test(test_valid_name),
		cmocka_unit_test_setup_teardown(test_gate_corrupt_baseline, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gate_pass_fail, setup, teardown),
		cmocka_unit_test(test_run_timeout),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
