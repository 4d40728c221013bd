/* Memory per NUMA node (see node_mem.h). */
#include "node_mem.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The line that starts with start in hex, as numa_maps prints it. */
static const char *find_mapping(const char *text, uintptr_t start)
{
	for (const char *p = text; p && *p;) {
		char *end;
		unsigned long long a = strtoull(p, &end, 16);

		if (end != p && *end == ' ' && a == (unsigned long long)start)
			return end;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

int mb_parse_numa_maps(const char *text, uintptr_t start, int node, uint64_t *ret_on_node,
		       uint64_t *ret_pages)
{
	const char *p = find_mapping(text, start);
	uint64_t on = 0, all = 0;

	if (!p)
		return -ENOENT;
	/* tokens "N<k>=<pages>" up to the end of the line; the others
	 * (anon=, dirty=, the policy, file=) are not per node */
	while (*p && *p != '\n') {
		int k, len = 0;
		unsigned long long v;

		while (*p == ' ')
			p++;
		if (sscanf(p, "N%d=%llu%n", &k, &v, &len) == 2 && len > 0 &&
		    (p[len] == ' ' || p[len] == '\n' || p[len] == '\0')) {
			all += v;
			if (k == node)
				on += v;
		}
		while (*p && *p != ' ' && *p != '\n')
			p++;
	}
	*ret_on_node = on;
	*ret_pages = all;
	return 0;
}

int mb_numa_maps_pages(const void *start, int node, uint64_t *ret_on_node, uint64_t *ret_pages)
{
	char *text;
	int r = mb_read_file("/proc/self/numa_maps", &text, NULL);

	if (r < 0)
		return r;
	r = mb_parse_numa_maps(text, (uintptr_t)start, node, ret_on_node, ret_pages);
	free(text);
	return r;
}

uint64_t mb_pagemap_pfn(uint64_t entry)
{
	return entry >> 63 ? entry & ((1ULL << 55) - 1) : 0;
}

int mb_pagemap_pfns(const void *addr, size_t n, size_t stride, uint64_t *pfns)
{
	size_t first = (uintptr_t)addr / MB_PAGE, span = n ? (n - 1) * stride + 1 : 0, chunk = 4096;
	uint64_t *buf = malloc(chunk * sizeof(*buf));
	int fd, r = 0;

	if (!buf)
		return -ENOMEM;
	fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		goto out;
	}
	/* one pread per chunk of entries, not per page: 1 GiB is 256K entries */
	for (size_t at = 0; at < span && r == 0; at += chunk) {
		size_t want = span - at < chunk ? span - at : chunk;
		ssize_t got = pread(fd, buf, want * sizeof(*buf), (off_t)((first + at) * sizeof(*buf)));

		if (got != (ssize_t)(want * sizeof(*buf))) {
			r = got < 0 ? -errno : -EIO;
			break;
		}
		for (size_t i = (stride - at % stride) % stride; i < want; i += stride)
			pfns[(at + i) / stride] = mb_pagemap_pfn(buf[i]);
	}
	close(fd);
out:
	free(buf);
	return r;
}

int mb_parse_node_meminfo(const char *text, const char *key, uint64_t *ret_kib)
{
	size_t klen = strlen(key);

	for (const char *p = text; p && *p;) {
		int node, len = 0;
		unsigned long long v;

		/* "Node <n> <key>: <value> kB" */
		if (sscanf(p, "Node %d %n", &node, &len) == 1 && len > 0 &&
		    strncmp(p + len, key, klen) == 0 && p[len + klen] == ':' &&
		    sscanf(p + len + klen + 1, "%llu", &v) == 1) {
			*ret_kib = v;
			return 0;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -ENOENT;
}

int mb_node_memfree_kib(int node, uint64_t *ret_kib)
{
	char path[80], *text;
	int r;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", node);
	r = mb_read_file(path, &text, NULL);
	if (r < 0)
		return r;
	r = mb_parse_node_meminfo(text, "MemFree", ret_kib);
	free(text);
	return r;
}

int mb_node_cpus(int node, uint64_t *ret_mask)
{
	char path[80], line[256];
	int r;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist", node);
	r = mb_read_line(path, line, sizeof(line));
	if (r < 0)
		return r;
	if (line[0] == '\0') { /* a memory-only node */
		*ret_mask = 0;
		return 0;
	}
	return mb_parse_list(line, ret_mask);
}
