/* Raw NUMA syscalls (see numa.h). */
#include "numa.h"

#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

/* From <linux/mempolicy.h>, spelled out to avoid needing the header. */
#define MB_MPOL_DEFAULT 0
#define MB_MPOL_BIND 2
#define MB_MPOL_MF_MOVE (1 << 1)

int mb_move_pages_last_error;

int mb_move_pages_to(void **pages, int *nodes, int *status, size_t count, int node,
		     size_t *ret_moved)
{
	size_t moved = 0;
	long r;

	for (size_t i = 0; i < count; i++)
		nodes[i] = node;
	r = syscall(SYS_move_pages, 0, (unsigned long)count, pages, nodes, status, MB_MPOL_MF_MOVE);
	if (r < 0)
		return -errno;
	for (size_t i = 0; i < count; i++)
		if (status[i] == node)
			moved++;
		else if (status[i] < 0 && mb_move_pages_last_error == 0)
			mb_move_pages_last_error = status[i];
	*ret_moved = moved;
	return 0;
}

int mb_mbind_move(void *addr, size_t len, int node)
{
	unsigned long mask = 1UL << node;

	/* maxnode counts bits plus one, as the kernel drops the last bit */
	if (syscall(SYS_mbind, addr, len, MB_MPOL_BIND, &mask, sizeof(mask) * 8 + 1,
		    MB_MPOL_MF_MOVE) < 0)
		return -errno;
	return 0;
}

int mb_mbind_two(void *addr, size_t len, int a, int b)
{
	unsigned long mask = 1UL << a | 1UL << b;

	if (syscall(SYS_mbind, addr, len, MB_MPOL_BIND, &mask, sizeof(mask) * 8 + 1, 0) < 0)
		return -errno;
	return 0;
}

int mb_mbind_default(void *addr, size_t len)
{
	if (syscall(SYS_mbind, addr, len, MB_MPOL_DEFAULT, NULL, 0, 0) < 0)
		return -errno;
	return 0;
}
