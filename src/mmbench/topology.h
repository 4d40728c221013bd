/* What machine and kernel a result came from (the "system" object of the
 * JSON), and the NUMA facts the migration benchmarks need. */
#ifndef MMBENCH_TOPOLOGY_H
#define MMBENCH_TOPOLOGY_H

#include <stdint.h>

#include "json_out.h"

/* Nodes that have memory (N_MEMORY), as a bitmask; -errno on failure. */
int mb_memory_nodes(uint64_t *ret_mask);
/* The first two memory nodes, or -ENODEV when there are fewer than two. */
int mb_two_nodes(int *ret_a, int *ret_b, int *ret_count);

/* Writes "system": {...} into an open object. */
void mb_write_system(struct jw *w);

/* SHA-256 of a buffer as 64 hex characters (+NUL). */
void mb_sha256_hex(const void *data, size_t len, char out[65]);

#endif
