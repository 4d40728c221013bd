/* Raw NUMA syscalls (no libnuma: the static binary runs in a busybox
 * initramfs). Each returns 0 or negative errno. */
#ifndef MMBENCH_NUMA_H
#define MMBENCH_NUMA_H

#include <stddef.h>

/* Moves count pages of this process to node; ret_moved counts pages whose
 * status afterwards is that node. */
int mb_move_pages_to(void **pages, int *nodes, int *status, size_t count, int node,
		     size_t *ret_moved);
/* The first negative per-page status seen (e.g. -EBUSY), 0 if none:
 * diagnostics for results where pages did not move. */
extern int mb_move_pages_last_error;

/* mbind(MPOL_BIND, node, MPOL_MF_MOVE): moves the range's pages to node. */
int mb_mbind_move(void *addr, size_t len, int node);
/* mbind(MPOL_BIND, {a, b}) without moving: pages may live on either node,
 * and NUMA balancing leaves the range alone (it scans only VMAs without a
 * policy or with MPOL_F_MOF), so its PROT_NONE hinting PTEs cannot make
 * move_pages(2) report -ENOENT (seen on 6.1). */
int mb_mbind_two(void *addr, size_t len, int a, int b);
/* Back to the default policy for the range. */
int mb_mbind_default(void *addr, size_t len);

#endif
