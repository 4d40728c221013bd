/* Raw NUMA syscalls (no libnuma: the static binary runs in a busybox
 * initramfs). Each returns 0 or negative errno. */
#ifndef MMBENCH_NUMA_H
#define MMBENCH_NUMA_H

#include <stddef.h>

/* Moves count pages of this process to node; ret_moved counts pages whose
 * status afterwards is that node. */
int mb_move_pages_to(void **pages, int *nodes, int *status, size_t count, int node,
		     size_t *ret_moved);
/* mbind(MPOL_BIND, node, MPOL_MF_MOVE): moves the range's pages to node. */
int mb_mbind_move(void *addr, size_t len, int node);
/* Back to the default policy for the range. */
int mb_mbind_default(void *addr, size_t len);

#endif
