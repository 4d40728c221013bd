/* smoke: a quick subset of the benchmarks after a kernel install (≤ 60 s on
 * 2 CPUs). The list comes from --benchmarks, from --config (the JSON that
 * `mmbatchd --show-smoke PROFILE` prints), or the default below. All
 * results go into one document; exit 1 when any benchmark failed (an
 * integrity mismatch), 0 otherwise: skipped benchmarks are not failures.
 * With --state-dir, gate.c runs this in a child and judges the result. */
#include "mmbench.h"
#include "util.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define SMOKE_DEFAULT "fault,munmap,exitdrain,integrity"
#define SMOKE_MAX 16

/* Appends name to list (comma-separated), checking it is a benchmark. */
static int add_name(const char *prog, const char *where, const char *name,
		    const struct mb_bench **list, int *n)
{
	const struct mb_bench *b = mb_find_bench(name);

	if (!b) {
		fprintf(stderr, "%s: unknown benchmark '%s' in %s\n", prog, name, where);
		return -EINVAL;
	}
	if (*n >= SMOKE_MAX) {
		fprintf(stderr, "%s: too many benchmarks in %s\n", prog, where);
		return -EINVAL;
	}
	list[(*n)++] = b;
	return 0;
}

static int list_from_string(const char *prog, const char *s, const struct mb_bench **list, int *n)
{
	char *copy = strdup(s), *save = NULL;
	int r = 0;

	if (!copy)
		return -ENOMEM;
	for (char *t = strtok_r(copy, ",", &save); t && r == 0; t = strtok_r(NULL, ",", &save))
		r = add_name(prog, "--benchmarks", t, list, n);
	free(copy);
	if (r == 0 && *n == 0) {
		fprintf(stderr, "%s: --benchmarks is empty\n", prog);
		r = -EINVAL;
	}
	return r;
}

static int list_from_config(const char *prog, const char *path, const struct mb_bench **list,
			    int *n)
{
	json_error_t err;
	json_t *root = json_load_file(path, 0, &err), *arr;
	size_t i;
	int r = 0;

	if (!root) {
		fprintf(stderr, "%s: %s:%d:%d: %s\n", prog, path, err.line, err.column, err.text);
		return -EINVAL;
	}
	arr = json_object_get(root, "benchmarks");
	if (!json_is_array(arr) || json_array_size(arr) == 0) {
		fprintf(stderr, "%s: %s: 'benchmarks' must be a non-empty array of names\n", prog, path);
		json_decref(root);
		return -EINVAL;
	}
	for (i = 0; i < json_array_size(arr) && r == 0; i++) {
		json_t *v = json_array_get(arr, i);

		if (!json_is_string(v)) {
			fprintf(stderr, "%s: %s: benchmarks[%zu] is not a string\n", prog, path, i);
			r = -EINVAL;
			break;
		}
		r = add_name(prog, path, json_string_value(v), list, n);
	}
	json_decref(root);
	return r;
}

int mb_smoke(const struct mb_opts *o, const char *prog)
{
	const struct mb_bench *list[SMOKE_MAX];
	struct mb_result *res[SMOKE_MAX] = { 0 };
	struct mb_opts sub = *o;
	uint64_t t0 = mb_now_ns();
	int n = 0, done = 0, r, rc = MB_EXIT_OK;

	if (o->config)
		r = list_from_config(prog, o->config, list, &n);
	else
		r = list_from_string(prog, o->benchmarks ? o->benchmarks : SMOKE_DEFAULT, list, &n);
	if (r < 0)
		return r == -ENOMEM ? MB_EXIT_FAIL : MB_EXIT_USAGE;

	sub.quick = 1;
	sub.json = 0;
	sub.output = NULL;
	for (int i = 0; i < n; i++) {
		res[i] = malloc(sizeof(*res[i]));
		if (!res[i]) {
			fprintf(stderr, "%s: out of memory\n", prog);
			rc = MB_EXIT_FAIL;
			goto out;
		}
		done++;
		mb_result_init(res[i], list[i]->name);
		fprintf(stderr, "%s: running %s --quick\n", prog, list[i]->name);
		r = list[i]->fn(&sub, res[i]);
		if (r < 0)
			mb_fail(res[i], "error: %s", strerror(-r));
		if (res[i]->status == MB_STATUS_FAILED)
			rc = MB_EXIT_FAIL;
	}
	r = mb_emit(o, "smoke", res, n, (double)(mb_now_ns() - t0) / 1e9);
	if (r < 0) {
		fprintf(stderr, "%s: cannot write the result: %s\n", prog, strerror(-r));
		rc = MB_EXIT_FAIL;
	}
out:
	for (int i = 0; i < done; i++)
		free(res[i]);
	return rc;
}
