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
 * them through the next round. A stale reader then reads poison instead of
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

int ik_reuse_take(struct ik_run *g, struct ik_reuse *r, int node)
{
	volatile uint64_t *w;
	size_t words;

	r->bytes = g->bytes;
	r->mem = mmap(NULL, r->bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r->mem == MAP_FAILED) {
		r->mem = NULL;
		return -errno;
	}
	/* small frames, as most of the freed ones are; an error here only
	 * weakens the pressure, it cannot hide a stray write */
	(void)madvise(r->mem, r->bytes, MADV_NOHUGEPAGE);
	/* fork-shared's readers, forked meanwhile, must not keep them */
	(void)madvise(r->mem, r->bytes, MADV_DONTFORK);
	(void)mb_mbind_two(r->mem, r->bytes, node, node);
	w = (volatile uint64_t *)r->mem;
	words = r->bytes / sizeof(*w);
	for (size_t i = 0; i < words; i++)
		w[i] = poison(i);
	return 0;
}

uint64_t ik_reuse_release(struct ik_run *g, struct ik_reuse *r)
{
	const volatile uint64_t *w = (const volatile uint64_t *)r->mem;
	uint64_t bad = 0;
	size_t words = r->bytes / sizeof(*w), first = words;

	if (!r->mem)
		return 0;
	for (size_t i = 0; i < words; i++) {
		uint64_t b = mb_diff_bytes(w[i], poison(i));

		if (b && first == words)
			first = i;
		bad += b;
	}
	munmap(r->mem, r->bytes);
	r->mem = NULL;
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
