/* Where memory sits, per NUMA node: the pages of one mapping on each node
 * (/proc/self/numa_maps), the page frames behind a range (/proc/self/pagemap:
 * did compaction move them), a node's free memory and its CPUs (sysfs). The
 * parsers take text so the unit tests can feed them fixtures. */
#ifndef MMBENCH_NODE_MEM_H
#define MMBENCH_NODE_MEM_H

#include <stddef.h>
#include <stdint.h>

/* The numa_maps line of the mapping that starts at start: its pages on
 * node (N<node>=) and on every node (the sum of the N<k>= fields; 0 when
 * none is present yet). 0, or -ENOENT when no line starts at start. */
int mb_parse_numa_maps(const char *text, uintptr_t start, int node, uint64_t *ret_on_node,
		       uint64_t *ret_pages);
/* The same from this process's /proc/self/numa_maps. */
int mb_numa_maps_pages(const void *start, int node, uint64_t *ret_on_node, uint64_t *ret_pages);

/* The page frame of one /proc/self/pagemap entry: bits 0-54 when present
 * (bit 63), else 0. Without CAP_SYS_ADMIN the kernel reports 0 frames. */
uint64_t mb_pagemap_pfn(uint64_t entry);
/* The frames of n pages from addr, every stride-th page (pfns[0..n)).
 * 0 or -errno. */
int mb_pagemap_pfns(const void *addr, size_t n, size_t stride, uint64_t *pfns);

/* "Node 0 MemFree:  123 kB" (a node's meminfo): the value of key in KiB.
 * 0 or -ENOENT. */
int mb_parse_node_meminfo(const char *text, const char *key, uint64_t *ret_kib);
/* MemFree of node from /sys/devices/system/node/node<node>/meminfo. */
int mb_node_memfree_kib(int node, uint64_t *ret_kib);
/* The node's CPUs (its cpulist) as a mask of up to 64; the count or -errno. */
int mb_node_cpus(int node, uint64_t *ret_mask);

#endif
