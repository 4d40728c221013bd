/* Unit tests for the saved kernel knobs (knobs.c), on plain files in
 * TMPDIR: a set saves the old value once, the restore writes it back,
 * newest first, and forgets it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "knobs.h"
#include "util.h"

static char dir[256];

static int setup(void **state)
{
	const char *t = getenv("TMPDIR");

	(void)state;
	snprintf(dir, sizeof(dir), "%s/test_knobs.XXXXXX", t && *t ? t : "/tmp");
	return mkdtemp(dir) ? 0 : -1;
}

static void knob_path(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", dir, name);
}

/* A knob file as sysfs has it: it exists before anyone writes it. */
static void knob_file(const char *path, const char *value)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(value, f);
	assert_int_equal(fclose(f), 0);
}

static void test_set_restore(void **state)
{
	char a[300], b[300], line[64];

	(void)state;
	knob_path(a, sizeof(a), "run");
	knob_path(b, sizeof(b), "pages_to_scan");
	knob_file(a, "0\n");
	knob_file(b, "100\n");
	assert_int_equal(mb_knob_set(a, "1"), 0);
	assert_int_equal(mb_knob_set(b, "4000"), 0);
	/* a second set keeps the first saved value */
	assert_int_equal(mb_knob_set(a, "2"), 0);
	assert_int_equal(mb_read_line(a, line, sizeof(line)), 0);
	assert_string_equal(line, "2");
	mb_knob_restore_all();
	assert_int_equal(mb_read_line(a, line, sizeof(line)), 0);
	assert_string_equal(line, "0");
	assert_int_equal(mb_read_line(b, line, sizeof(line)), 0);
	assert_string_equal(line, "100");
	/* forgotten: a restore now writes nothing */
	knob_file(a, "7");
	mb_knob_restore_all();
	assert_int_equal(mb_read_line(a, line, sizeof(line)), 0);
	assert_string_equal(line, "7");
	unlink(a);
	unlink(b);
}

static void test_missing(void **state)
{
	char a[300];

	(void)state;
	knob_path(a, sizeof(a), "absent");
	assert_int_equal(mb_knob_set(a, "1"), -ENOENT);
	mb_knob_restore_all(); /* nothing saved, nothing written */
	assert_int_equal(access(a, F_OK), -1);
}

static int teardown(void **state)
{
	(void)state;
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_restore),
		cmocka_unit_test(test_missing),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
