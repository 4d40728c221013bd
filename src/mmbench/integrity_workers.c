/* integrity --kind: the workers (see integrity_kinds.h).
 *
 * The protocol. The shared table (gen, zero, lock: MAP_SHARED memory, so
 * the parent's threads and the children all see it) says what every page
 * must hold: generation gen[i] of its pattern, or zeros when zero[i] (a
 * private page that was zapped). Whoever touches page i through a mapping
 * holds lock[i]: a writer checks the page, then writes gen[i]+1; a reader
 * checks it; the disturber holds the locks of its chunk across mprotect,
 * MADV_DONTNEED or munmap+remap and sets zero[] for the private kinds. So
 * every check knows exactly what the page must hold, and a mismatch is the
 * kernel's: a write that went through a stale TLB entry to the old copy
 * of a migrated page reads back as an earlier generation (a lost write), a
 * read through one sees whatever the freed page holds now (corrupt bytes).
 * A mismatch is counted once: the checker rewrites the page with what it
 * should hold.
 *
 * fork-shared children are the exception. Anonymous pages stay shared
 * across fork only while nobody writes them (a write COWs the page into the
 * writer's own copy), so the children never write: every page of theirs is
 * the one folio all of them map (and the parent too, until its writers COW
 * it away), which the movers move with MPOL_MF_MOVE_ALL, unmapping it from
 * every mm at once. Each child checks every page, over and over, against
 * the table as it was at the fork (snap_gen/snap_zero, copied with every
 * lock held), without locks: nothing in its mm changes them but the
 * kernel. The parent forks new readers every IK_EPOCH_MS, so its COW
 * faults keep racing with the migration of the folios they copy. */
#include "integrity_kinds.h"
#include "knobs.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MS 1000000ULL

static int stopped(const struct ik_run *g)
{
	return __atomic_load_n(&g->sh->stop, __ATOMIC_RELAXED);
}

void ik_note(struct ik_run *g, const char *who, size_t page, uint64_t gen, int zero,
	     enum ik_verdict v, uint64_t bad)
{
	struct ik_shared *sh = g->sh;

	if (v == IK_LOST)
		__atomic_fetch_add(&sh->lost, 1, __ATOMIC_RELAXED);
	else
		__atomic_fetch_add(&sh->corrupt_bytes, bad, __ATOMIC_RELAXED);
	ik_lock(&sh->first_lock);
	if (!sh->first[0]) {
		if (v == IK_LOST)
			snprintf(sh->first, sizeof(sh->first),
				 "page %zu (%s, pid %d): generation %llu, expected %llu: writes lost",
				 page, who, (int)getpid(), (unsigned long long)ik_page(g, page)[1],
				 (unsigned long long)gen);
		else
			snprintf(sh->first, sizeof(sh->first),
				 "page %zu (%s, pid %d): %llu corrupt bytes, expected %s %llu",
				 page, who, (int)getpid(), (unsigned long long)bad,
				 zero ? "zeros (zapped), generation" : "generation",
				 (unsigned long long)gen);
	}
	ik_unlock(&sh->first_lock);
}

int ik_check_locked(struct ik_run *g, size_t i, const char *who)
{
	uint64_t bad, gen = g->gen[i];
	int zero = g->zero[i];
	enum ik_verdict v = ik_check(ik_page(g, i), ik_key(g, i), gen, zero, &bad);

	if (v == IK_OK)
		return 0;
	ik_note(g, who, i, gen, zero, v, bad);
	ik_fill(ik_page(g, i), ik_key(g, i), gen);
	g->zero[i] = 0;
	return 1;
}

void ik_follow_node(struct ik_run *g, int *mine)
{
	int n;
	cpu_set_t set;

	if (!(g->movers & (1u << IM_NUMA_BALANCING)))
		return;
	n = __atomic_load_n(&g->sh->node_now, __ATOMIC_RELAXED);
	if (n == *mine)
		return;
	CPU_ZERO(&set);
	for (int c = 0; c < 64 && c < CPU_SETSIZE; c++)
		if (g->cpus[n] & (1ULL << c))
			CPU_SET(c, &set);
	(void)sched_setaffinity(0, sizeof(set), &set);
	*mine = n;
}

static void write_page(struct ik_run *g, size_t i, const char *who, uint64_t *checks)
{
	ik_lock(&g->lock[i]);
	(void)ik_check_locked(g, i, who);
	g->gen[i]++;
	ik_fill(ik_page(g, i), ik_key(g, i), g->gen[i]);
	g->zero[i] = 0;
	ik_unlock(&g->lock[i]);
	(*checks)++;
}

static void sweep(struct ik_run *g, const char *who, uint64_t *checks)
{
	for (size_t i = 0; i < g->npages && !stopped(g); i++) {
		ik_lock(&g->lock[i]);
		(void)ik_check_locked(g, i, who);
		ik_unlock(&g->lock[i]);
		(*checks)++;
	}
}

/* An owner of the pages i = owner (mod owners): check, write the next
 * generation; with do_sweep also a check of every page after each pass,
 * so every page is checked in this mm too. It goes over its pages
 * IK_HOT_PAGES at a time and writes that group IK_HOT_ROUNDS times, round
 * robin, before the next: the group stays in this CPU's TLB, as a hot
 * working set does. A migration that copies one of those pages before the
 * stale TLB entries are flushed then loses the writes that follow, and the
 * next check through the new page sees them lost. With one write per page
 * and pass, an entry was evicted long before the owner came back to its
 * page, so only a write under way at the moment of the copy could be lost. */
static void owner_loop(struct ik_run *g, int owner, int owners, int do_sweep, const char *who)
{
	uint64_t checks = 0, writes = 0;
	size_t step = (size_t)owners, group = IK_HOT_PAGES * step;
	int node = -1;

	while (!stopped(g)) {
		ik_follow_node(g, &node);
		for (size_t first = (size_t)owner; first < g->npages && !stopped(g); first += group) {
			size_t end = first + group < g->npages ? first + group : g->npages;

			for (int round = 0; round < IK_HOT_ROUNDS && !stopped(g); round++)
				for (size_t i = first; i < end && !stopped(g); i += step) {
					write_page(g, i, who, &checks);
					writes++;
				}
		}
		if (do_sweep)
			sweep(g, who, &checks);
	}
	__atomic_fetch_add(&g->sh->checked, checks, __ATOMIC_RELAXED);
	__atomic_fetch_add(&g->sh->writes, writes, __ATOMIC_RELAXED);
}

static void reader_loop(struct ik_run *g, const char *who)
{
	uint64_t checks = 0;
	int node = -1;

	while (!stopped(g)) {
		ik_follow_node(g, &node);
		sweep(g, who, &checks);
	}
	__atomic_fetch_add(&g->sh->checked, checks, __ATOMIC_RELAXED);
}

/* ksm: one group at a time gets its next generation, then KSM has time to
 * merge it again while the readers check; the pages stay identical within
 * a group. */
static void ksm_writer_loop(struct ik_run *g)
{
	uint64_t checks = 0, writes = 0;

	for (uint64_t step = 0; !stopped(g); step++) {
		for (size_t i = step % ik_ksm_groups(g); i < g->npages; i += ik_ksm_groups(g)) {
			write_page(g, i, "ksm writer", &checks);
			writes++;
		}
		mb_sleep_until_ns(mb_now_ns() + 200 * MS);
	}
	__atomic_fetch_add(&g->sh->checked, checks, __ATOMIC_RELAXED);
	__atomic_fetch_add(&g->sh->writes, writes, __ATOMIC_RELAXED);
}

/* mprotect(PROT_READ) and back, MADV_DONTNEED, munmap+remap, in turn, on a
 * chunk whose locks it holds: nobody touches those pages meanwhile. In the
 * THP part a chunk is a whole THP (2 MiB aligned): the THP is protected,
 * zapped or remapped whole and faults back in as a THP, where 16 pages
 * would split it for good within the first milliseconds. */
static void disturber_loop(struct ik_run *g)
{
	size_t chunks = g->npages / IK_CHUNK, huge = ik_huge_pages(g);
	uint64_t x = 0x2545F4914F6CDD1DULL ^ (uint64_t)getpid(), n = 0;

	while (!stopped(g) && g->worker_err == 0) {
		size_t first, pages = IK_CHUNK, len;
		char *p;
		int r = 0;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		first = (size_t)(x % chunks) * IK_CHUNK;
		if (first < huge) {
			first = first / IK_THP_PAGES * IK_THP_PAGES;
			pages = IK_THP_PAGES;
		}
		p = g->mem + first * 4096;
		len = pages * 4096;
		for (size_t i = first; i < first + pages; i++)
			ik_lock(&g->lock[i]);
		switch (n % 3) {
		case 0:
			if (mprotect(p, len, PROT_READ) < 0)
				r = -errno;
			mb_sleep_until_ns(mb_now_ns() + 200000);
			if (mprotect(p, len, PROT_READ | PROT_WRITE) < 0 && r == 0)
				r = -errno;
			break;
		case 1:
			if (madvise(p, len, MADV_DONTNEED) < 0)
				r = -errno;
			break;
		default:
			r = ik_region_remap(g, first, pages);
			break;
		}
		/* a zapped THP is faulted back by a write: the writers check it
		 * before they write, and a read would map the huge zero page,
		 * whose COW gives small pages */
		if (r == 0 && n % 3 != 0 && pages == IK_THP_PAGES)
			*(volatile char *)p = 0;
		/* private memory reads as zeros after a zap; shmem and file pages
		 * stay in the page cache */
		if (n % 3 != 0 && ik_private(g->kind))
			for (size_t i = first; i < first + pages; i++)
				g->zero[i] = 1;
		for (size_t i = first; i < first + pages; i++)
			ik_unlock(&g->lock[i]);
		if (r < 0) {
			g->err_what = n % 3 == 0 ? "mprotect(2)" : n % 3 == 1 ? "madvise(MADV_DONTNEED)" :
				      "munmap+mmap(MAP_FIXED_NOREPLACE)";
			g->worker_err = r;
		}
		n++;
		mb_sleep_until_ns(mb_now_ns() + MS);
	}
	__atomic_fetch_add(&g->sh->disturbances, n, __ATOMIC_RELAXED);
}

/* file: fsync(2) and msync(MS_SYNC) in turn, so pages are under writeback
 * while they migrate (on tmpfs both return at once). After each call it
 * pauses as long as the call took: a folio under writeback or locked for
 * it fails the MIGRATE_ASYNC batch (-EBUSY) and moves alone, unbatched, in
 * the synchronous retry, so without the pauses the batched path, the one
 * whose TLB flush this kind must prove, would see almost no file folio. */
static void syncer_loop(struct ik_run *g)
{
	uint64_t n = 0;

	while (!stopped(g) && g->worker_err == 0) {
		uint64_t t0 = mb_now_ns(), now;

		if (n % 2 == 0 && fsync(g->fd) < 0) {
			g->err_what = "fsync(2)";
			g->worker_err = -errno;
		}
		/* ENOMEM: a chunk is unmapped for a moment (the disturber) */
		if (n % 2 == 1 && msync(g->mem, g->bytes, MS_SYNC) < 0 && errno != ENOMEM) {
			g->err_what = "msync(MS_SYNC)";
			g->worker_err = -errno;
		}
		n++;
		now = mb_now_ns();
		mb_sleep_until_ns(now + MS + (now - t0));
	}
	__atomic_fetch_add(&g->sh->syncs, n, __ATOMIC_RELAXED);
}

void *ik_worker_main(void *arg)
{
	struct ik_worker *w = arg;
	struct ik_run *g = w->g;
	int shared = !ik_private(g->kind);

	if (!(g->movers & (1u << IM_NUMA_BALANCING)))
		(void)mb_pin_to_cpu(w->cpu);
	switch (w->role) {
	case IK_ROLE_WRITER:
		owner_loop(g, w->index, g->nwriters + (shared ? g->nsharers : 0),
			   shared && w->index == 0, "writer");
		break;
	case IK_ROLE_READER:
		reader_loop(g, "reader");
		break;
	case IK_ROLE_KSM_WRITER:
		ksm_writer_loop(g);
		break;
	case IK_ROLE_DISTURBER:
		disturber_loop(g);
		break;
	case IK_ROLE_SYNCER:
		syncer_loop(g);
		break;
	}
	return NULL;
}

static void child_start(struct ik_run *g, int index)
{
	mb_knob_forget_in_child();
	if (!(g->movers & (1u << IM_NUMA_BALANCING)))
		(void)mb_pin_to_cpu((g->nwriters + index) % mb_online_cpus());
}

void ik_sharer_child(struct ik_run *g, int index)
{
	uint64_t checks = 0;

	child_start(g, index);
	owner_loop(g, g->nwriters + index, g->nwriters + g->nsharers, 1, "sharer child");
	/* the last check of every page through this mm's mapping */
	for (size_t i = 0; i < g->npages; i++) {
		ik_lock(&g->lock[i]);
		(void)ik_check_locked(g, i, "sharer child, final");
		ik_unlock(&g->lock[i]);
		checks++;
	}
	__atomic_fetch_add(&g->sh->checked, checks, __ATOMIC_RELAXED);
	_exit(0);
}

static uint64_t snapshot_pass(struct ik_run *g, uint8_t *reported, const char *who)
{
	uint64_t bad, checks = 0;

	for (size_t i = 0; i < g->npages; i++) {
		uint64_t gen = g->snap_gen[i];
		enum ik_verdict v = ik_check(ik_page(g, i), ik_key(g, i), gen, g->snap_zero[i], &bad);

		checks++;
		/* no repair: a write would end the page's sharing; count it once */
		if (v != IK_OK && !reported[i]) {
			reported[i] = 1;
			ik_note(g, who, i, gen, g->snap_zero[i], v, bad);
		}
	}
	return checks;
}

void ik_snapshot_child(struct ik_run *g, int index)
{
	uint8_t *reported = calloc(g->npages, 1);
	uint64_t checks = 0;
	int node = -1;

	child_start(g, index);
	if (!reported)
		_exit(1);
	while (!__atomic_load_n(&g->sh->epoch_stop, __ATOMIC_RELAXED) && !stopped(g)) {
		ik_follow_node(g, &node);
		checks += snapshot_pass(g, reported, "fork-shared child");
	}
	checks += snapshot_pass(g, reported, "fork-shared child, final");
	__atomic_fetch_add(&g->sh->checked, checks, __ATOMIC_RELAXED);
	_exit(0);
}
