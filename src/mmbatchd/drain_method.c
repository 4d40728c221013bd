/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Drain methods: which one the running kernel can do, and doing it.
 * See drain.h for what each method drains and what it cannot.
 */
#include "drain.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "log.h"

#define DRAIN_KNOB      "/proc/sys/vm/drain_percpu"
#define NODE_ONLINE     "/sys/devices/system/node/online"
#define NODE_HAS_MEMORY "/sys/devices/system/node/has_memory"
#define MEMINFO         "/proc/meminfo"
/* Node ids we accept in the online list (MAX_NUMNODES is 1024 on x86_64). */
#define DRAIN_MAX_NODES 1024
#define NODE_WORDS      (DRAIN_MAX_NODES / (8 * sizeof(unsigned long)))

static const char *const method_names[] = {
	[DRAIN_AUTO] = "auto",
	[DRAIN_SYSCTL] = "sysctl",
	[DRAIN_MIGRATE_PAGES] = "migrate_pages",
};

const char *drain_method_name(enum drain_method m)
{
	if ((unsigned)m < sizeof(method_names) / sizeof(method_names[0]))
		return method_names[m];
	return "unknown";
}

int drain_method_parse(const char *s, enum drain_method *ret)
{
	for (unsigned i = 0; i < sizeof(method_names) / sizeof(method_names[0]); i++)
		if (s && strcmp(s, method_names[i]) == 0) {
			*ret = (enum drain_method)i;
			return 0;
		}
	return -EINVAL;
}

static int root_path(char *buf, size_t size, const char *root, const char *path)
{
	int n = snprintf(buf, size, "%s%s", root ? root : "", path);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* Parses a kernel node list ("0", "0-3", "0,2-3") into a bitmask; *ret_max
 * gets the highest node set. */
static int parse_node_list(const char *s, unsigned long *mask, int *ret_max)
{
	int max = -1;

	memset(mask, 0, NODE_WORDS * sizeof(*mask));
	while (*s && *s != '\n') {
		char *end;
		long a = strtol(s, &end, 10), b;

		if (end == s || a < 0 || a >= DRAIN_MAX_NODES)
			return -EINVAL;
		b = a;
		if (*end == '-') {
			s = end + 1;
			b = strtol(s, &end, 10);
			if (end == s || b < a || b >= DRAIN_MAX_NODES)
				return -EINVAL;
		}
		for (long n = a; n <= b; n++)
			mask[n / (8 * sizeof(*mask))] |= 1UL << (n % (8 * sizeof(*mask)));
		if (b > max)
			max = (int)b;
		s = end;
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -EINVAL;
	}
	if (max < 0)
		return -EINVAL;
	*ret_max = max;
	return 0;
}

static int read_node_file(const char *root, const char *file, unsigned long *mask, int *ret_max)
{
	char path[PATH_MAX], line[4096];
	FILE *f;
	int r;

	r = root_path(path, sizeof(path), root, file);
	if (r < 0)
		return r;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	return parse_node_list(line, mask, ret_max);
}

/* The node mask for migrate_pages(2): the nodes with memory, else the online
 * ones (older trees). An online node without memory would make the kernel
 * refuse the call (EINVAL, or EPERM without CAP_SYS_NICE). */
static int read_online_nodes(const char *root, unsigned long *mask, int *ret_max)
{
	int r = read_node_file(root, NODE_HAS_MEMORY, mask, ret_max);

	return r == -ENOENT ? read_node_file(root, NODE_ONLINE, mask, ret_max) : r;
}

/* migrate_pages(2) is compiled in only with CONFIG_NUMA (else ENOSYS). A
 * pointer the kernel cannot read gives EFAULT before any work is done, so
 * this probe drains nothing. */
static bool kernel_has_migrate_pages(void)
{
	long r = syscall(SYS_migrate_pages, 0, 2UL, (const unsigned long *)8, (const unsigned long *)8);

	if (r < 0 && errno == EFAULT)
		return true;
	log_debug("drain: migrate_pages probe: %s", r < 0 ? strerror(errno) : "unexpected success");
	return false;
}

static bool has_knob(const char *root)
{
	char path[PATH_MAX];

	/* Write-only (0200): test existence, not readability. */
	return root_path(path, sizeof(path), root, DRAIN_KNOB) == 0 && access(path, F_OK) == 0;
}

static bool can_migrate_pages(const char *root)
{
	unsigned long mask[NODE_WORDS];
	int max;

	if (read_online_nodes(root, mask, &max) < 0) {
		log_debug("drain: no NUMA node list under '%s'", root ? root : "");
		return false;
	}
	return kernel_has_migrate_pages();
}

int drain_method_resolve(const char *root, enum drain_method want, enum drain_method *ret)
{
	switch (want) {
	case DRAIN_SYSCTL:
		if (!has_knob(root))
			return -EOPNOTSUPP;
		break;
	case DRAIN_MIGRATE_PAGES:
		if (!can_migrate_pages(root))
			return -EOPNOTSUPP;
		break;
	case DRAIN_AUTO:
		if (has_knob(root))
			want = DRAIN_SYSCTL;
		else if (can_migrate_pages(root))
			want = DRAIN_MIGRATE_PAGES;
		else
			return -EOPNOTSUPP;
		break;
	default:
		return -EINVAL;
	}
	*ret = want;
	return 0;
}

static int drain_by_knob(const char *root)
{
	char path[PATH_MAX];
	int fd, r;

	r = root_path(path, sizeof(path), root, DRAIN_KNOB);
	if (r < 0)
		return r;
	fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	r = write(fd, "1\n", 2) == 2 ? 0 : -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	return r;
}

/* Same old and new mask: nothing moves, but do_migrate_pages() runs
 * lru_cache_disable()/lru_cache_enable(), draining every CPU's LRU batches. */
static int drain_by_migrate_pages(const char *root)
{
	unsigned long mask[NODE_WORDS];
	int max, r;

	r = read_online_nodes(root, mask, &max);
	if (r < 0)
		return r;
	/* The kernel reads maxnode - 1 bits. */
	if (syscall(SYS_migrate_pages, 0, (unsigned long)max + 2, mask, mask) < 0)
		return -errno;
	return 0;
}

int drain_method_run(const char *root, enum drain_method m)
{
	switch (m) {
	case DRAIN_SYSCTL:
		return drain_by_knob(root);
	case DRAIN_MIGRATE_PAGES:
		return drain_by_migrate_pages(root);
	default:
		return -EINVAL;
	}
}

int drain_read_memfree_kb(const char *root, int64_t *ret)
{
	char path[PATH_MAX], line[256];
	FILE *f;
	int r;

	r = root_path(path, sizeof(path), root, MEMINFO);
	if (r < 0)
		return r;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	r = -ENODATA;
	while (fgets(line, sizeof(line), f)) {
		long long kb;

		if (sscanf(line, "MemFree: %lld kB", &kb) == 1) {
			*ret = kb;
			r = 0;
			break;
		}
	}
	fclose(f);
	return r;
}
