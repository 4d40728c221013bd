/* Helpers for the unit tests: a temp dir holding a fake /proc+/sys tree
 * (used as --root), a state dir and profile files. Header-only so every
 * test_*.c stays a single translation unit. */
#ifndef MMBATCHD_TEST_FAKE_TREE_H
#define MMBATCHD_TEST_FAKE_TREE_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The fake tree's boot id (the journal records it). */
#define FAKE_BOOT_ID "0f5a3c9e-1b2d-4e6f-8a7b-9c0d1e2f3a4b"

struct fake {
	char dir[256];
	char root[300];
	char state[300];
};

static inline void fake_mkdirs(const char *path)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p == '/') {
			*p = '\0';
			mkdir(buf, 0755);
			*p = '/';
		}
	}
	mkdir(buf, 0755);
}

/* Writes content to DIR/rel (creating directories), mode 0644. */
static inline void fake_write(const char *dir, const char *rel, const char *content)
{
	char path[512], parent[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	snprintf(parent, sizeof(parent), "%s", path);
	*strrchr(parent, '/') = '\0';
	fake_mkdirs(parent);
	f = fopen(path, "we");
	assert_non_null(f);
	fputs(content, f);
	fclose(f);
	chmod(path, 0644);
}

/* The content of DIR/rel without its trailing newline (static buffer). */
static inline const char *fake_read(const char *dir, const char *rel)
{
	static char buf[4096];
	char path[512];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "re");
	if (!f)
		return "(missing)";
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return buf;
}

static inline int fake_setup(void **state)
{
	struct fake *f = calloc(1, sizeof(*f));
	const char *tmp = getenv("TMPDIR");

	snprintf(f->dir, sizeof(f->dir), "%s/mmbatchd-unit.XXXXXX", tmp ? tmp : "/tmp");
	if (!mkdtemp(f->dir))
		return -1;
	chmod(f->dir, 0755);
	snprintf(f->root, sizeof(f->root), "%s/root", f->dir);
	snprintf(f->state, sizeof(f->state), "%s/state", f->dir);
	fake_mkdirs(f->root);
	mkdir(f->state, 0700);
	fake_write(f->root, "proc/sys/vm/swappiness", "60\n");
	fake_write(f->root, "proc/sys/vm/dirty_ratio", "20\n");
	fake_write(f->root, "proc/sys/vm/min_free_kbytes", "67584\n");
	fake_write(f->root, "proc/sys/kernel/numa_balancing", "1\n");
	fake_write(f->root, "sys/kernel/mm/transparent_hugepage/enabled", "always [madvise] never\n");
	fake_write(f->root, "sys/devices/system/node/node0/reclaim", "0\n");
	fake_write(f->root, "proc/sys/kernel/random/boot_id", FAKE_BOOT_ID "\n");
	*state = f;
	return 0;
}

static inline int fake_teardown(void **state)
{
	struct fake *f = *state;
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		return -1;
	free(f);
	return 0;
}

#endif
