/* integrity --kind: reuse pressure on the frames a move round freed (see
 * integrity_kinds.h).
 *
 * Without it a kernel that copies a folio before the stale TLB entries of
 * other CPUs are gone is caught only by a writer: a reader that keeps
 * reading the old frame through its stale entry sees the right bytes, as
 * nothing changed the frame, so fork-shared's read-only children catch
 * nothing. The mover therefore takes the frames back at once: right after
 * a round it maps as many pages as it moved, bound to the node they left,
 * and fills them with a poison pattern, on its own CPU, whose per-CPU free
 * lists the old copies just went to (last freed, first reused). It holds
 * them through the next round, then frees them (MADV_DONTNEED) for the
 * next take. The mapping itself is made before any worker runs. A stale reader then reads poison instead of
 * its page (corrupt bytes), and a stale write lands in the poison, which is
 * checked byte for byte before the pages go back (stray bytes). On a
 * correct kernel nothing but this thread can reach those pages. */
#include "integrity_kinds.h"
#include "numa.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <sys/mman.h>

#define POISON 0xa5c35a3cc3a53c5aULL

static uint64_t poison(size_t word)
{
	return POISON ^ (uint64_t)word << 32;
}

int ik_reuse_map(struct ik_run *g)
{
	struct ik_reuse *r = &g->reuse;
	void *p = mmap(NULL, g->bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return -errno;
	r->mem = p;
	r->bytes = g->bytes;
	r->held = 0;
	/* small frames, as most of the freed ones are; an error here only
	 * weakens the pressure, it cannot hide a stray write */
	(void)madvise(r->mem, r->bytes, MADV_NOHUGEPAGE);
	/* fork-shared's readers, forked meanwhile, must not keep them */
	(void)madvise(r->mem, r->bytes, MADV_DONTFORK);
	return 0;
}

void ik_reuse_unmap(struct ik_run *g)
{
	if (g->reuse.mem)
		munmap(g->reuse.mem, g->reuse.bytes);
	g->reuse.mem = NULL;
}

void ik_reuse_take(struct ik_run *g, int node)
{
	struct ik_reuse *r = &g->reuse;
	volatile uint64_t *w = (volatile uint64_t *)r->mem;
	size_t words = r->bytes / sizeof(*w);

	if (!r->mem)
		return;
	/* the policy of the faults below: the node the pages just left */
	(void)mb_mbind_two(r->mem, r->bytes, node, node);
	for (size_t i = 0; i < words; i++)
		w[i] = poison(i);
	r->held = 1;
}

uint64_t ik_reuse_release(struct ik_run *g)
{
	struct ik_reuse *r = &g->reuse;
	const volatile uint64_t *w = (const volatile uint64_t *)r->mem;
	uint64_t bad = 0;
	size_t words = r->bytes / sizeof(*w), first = words;

	if (!r->mem || !r->held)
		return 0;
	for (size_t i = 0; i < words; i++) {
		uint64_t b = mb_diff_bytes(w[i], poison(i));

		if (b && first == words)
			first = i;
		bad += b;
	}
	/* the frames go back; the next take faults new ones */
	(void)madvise(r->mem, r->bytes, MADV_DONTNEED);
	r->held = 0;
	if (bad) {
		struct ik_shared *sh = g->sh;

		__atomic_fetch_add(&sh->stray_bytes, bad, __ATOMIC_RELAXED);
		ik_lock(&sh->first_lock);
		if (!sh->first[0])
			snprintf(sh->first, sizeof(sh->first),
				 "%llu bytes written into frames a move round had freed "
				 "(first at byte %zu of the poisoned pages): stale TLB writes",
				 (unsigned long long)bad, first * sizeof(*w));
		ik_unlock(&sh->first_lock);
	}
	return bad;
}
