/* integrity --kind: the movers (see integrity_kinds.h). One thread takes
 * the explicit movers in turn, two rounds each (to node b, back to node
 * a): move_pages(2) and migrate_pages(2) of the parent and of every child
 * (a child's COW copies are its own pages), mbind(2) MPOL_MF_MOVE of the
 * parent's range, and a write of 1 to /proc/sys/vm/compact_memory. NUMA
 * balancing needs no thread here: the run turns it on and moves the
 * workers between the nodes' CPUs (integrity_stress.c). After each round
 * the mover takes the frames it freed back, poisoned (integrity_reuse.c). */
#include "integrity_kinds.h"
#include "numa.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MPOL_BIND_ 2
#define MPOL_MF_MOVE_ (1 << 1)
#define MPOL_MF_MOVE_ALL_ (1 << 2)
#define COMPACT "/proc/sys/vm/compact_memory"
#define NUMA_BALANCING "/proc/sys/kernel/numa_balancing"

const char *ik_mover_unavailable(int mover, int two_nodes, char *buf, size_t size)
{
	if (mover == IM_COMPACT) {
		if (access(COMPACT, W_OK) < 0) {
			snprintf(buf, size, "cannot write " COMPACT ": %s", strerror(errno));
			return buf;
		}
		return NULL;
	}
	if (!two_nodes)
		return "needs 2 NUMA nodes with memory";
	if (mover == IM_NUMA_BALANCING && access(NUMA_BALANCING, W_OK) < 0) {
		snprintf(buf, size, "cannot write " NUMA_BALANCING " (CONFIG_NUMA_BALANCING?): %s",
			 strerror(errno));
		return buf;
	}
	return NULL;
}

/* Errors a round may meet while the disturber has a chunk unmapped or a
 * child just exited; they end the round, not the run. */
static int transient(int err)
{
	return err == -EBUSY || err == -EAGAIN || err == -EIO || err == -ENOMEM ||
	       err == -EFAULT || err == -ENOENT || err == -ESRCH;
}

/* A child that is exiting has no mm left: move_pages(2) and
 * migrate_pages(2) say -EINVAL for it. */
static int transient_for(pid_t pid, int err)
{
	return transient(err) || (pid != 0 && err == -EINVAL);
}

struct mover {
	struct ik_run *g;
	void **pages, **req;
	int *nodes, *status, *before;
	int nslots;             /* the parent, then each child */
};

/* The pid of a slot, read when it is used: a call can take longer than a
 * fork-shared epoch, so a list taken at the start of the round would be
 * stale. *epoch: the epoch that pid belongs to. */
static pid_t slot_pid(struct mover *m, int slot, uint64_t *epoch)
{
	struct ik_shared *sh = m->g->sh;

	*epoch = __atomic_load_n(&sh->epoch, __ATOMIC_ACQUIRE);
	return slot == 0 ? 0 : __atomic_load_n(&sh->pids[slot - 1], __ATOMIC_RELAXED);
}

/* A child's pages were moved in its epoch: fork-shared may start the next. */
static void moved_child(struct mover *m, int slot, uint64_t epoch)
{
	struct ik_shared *sh = m->g->sh;

	if (slot > 0 && __atomic_load_n(&sh->epoch, __ATOMIC_ACQUIRE) == epoch)
		__atomic_store_n(&sh->epoch_moved, epoch, __ATOMIC_RELEASE);
}

/* A failed migration ends a move_pages(2) call: the pages after it keep
 * the status we put there (INT_MIN; seen with KSM pages, where the list
 * holds each KSM folio many times). Those are asked again, a few times. */
#define MOVE_TRIES 4

static int round_move_pages(struct mover *m, int target)
{
	struct ik_run *g = m->g;
	int flags = g->move_all ? MPOL_MF_MOVE_ALL_ : MPOL_MF_MOVE_;

	for (int slot = 0; slot < m->nslots; slot++) {
		size_t n = g->npages;
		uint64_t epoch;
		pid_t pid = slot_pid(m, slot, &epoch);
		long r;

		if (pid < 0)
			continue;
		/* where the pages are now: a page already on target is no move */
		r = syscall(SYS_move_pages, pid, (unsigned long)n, m->pages, NULL, m->before, 0);
		if (r < 0 && !transient_for(pid, -errno))
			return -errno;
		for (size_t i = 0; i < n; i++) {
			m->req[i] = m->pages[i];
			if (r < 0)
				m->before[i] = INT_MIN;
		}
		for (int t = 0; t < MOVE_TRIES && n > 0; t++) {
			size_t left = 0;

			for (size_t i = 0; i < n; i++) {
				m->nodes[i] = target;
				m->status[i] = INT_MIN;
			}
			r = syscall(SYS_move_pages, pid, (unsigned long)n, m->req, m->nodes,
				    m->status, flags);
			if (r < 0 && !transient_for(pid, -errno))
				return -errno;
			if (r < 0) {
				g->mover_errors++;
				break;
			}
			for (size_t i = 0; i < n; i++) {
				if (m->status[i] == INT_MIN) {
					m->req[left] = m->req[i];
					m->before[left++] = m->before[i];
					continue;
				}
				g->moved += m->status[i] == target && m->before[i] >= 0 &&
					    m->before[i] != target;
			}
			n = left;
			moved_child(m, slot, epoch);
		}
	}
	return 0;
}

static int round_mbind(struct mover *m, int target)
{
	struct ik_run *g = m->g;
	unsigned long mask = 1UL << target;
	int flags = MPOL_MF_MOVE_ | (g->move_all ? MPOL_MF_MOVE_ALL_ : 0), r = 0;

	if (syscall(SYS_mbind, g->mem, g->bytes, MPOL_BIND_, &mask, sizeof(mask) * 8 + 1, flags) < 0)
		r = -errno;
	/* back to the policy the run chose: both nodes, or none for NUMA
	 * balancing, which scans only VMAs without a policy */
	if (g->bound)
		(void)mb_mbind_two(g->mem, g->bytes, g->na, g->nb);
	else
		(void)mb_mbind_default(g->mem, g->bytes);
	return r;
}

static int round_migrate_pages(struct mover *m, int target)
{
	struct ik_run *g = m->g;
	unsigned long from = 1UL << (target == g->na ? g->nb : g->na), to = 1UL << target;

	for (int slot = 0; slot < m->nslots; slot++) {
		uint64_t epoch;
		pid_t pid = slot_pid(m, slot, &epoch);

		if (pid < 0)
			continue;
		if (syscall(SYS_migrate_pages, pid, sizeof(from) * 8 + 1, &from, &to) < 0) {
			if (!transient_for(pid, -errno))
				return -errno;
			g->mover_errors++;
			continue;
		}
		moved_child(m, slot, epoch);
	}
	return 0;
}

static int round_compact(struct mover *m)
{
	int r = mb_write_string(COMPACT, "1");

	/* every write compacts every zone: give the workers time in between */
	mb_sleep_until_ns(mb_now_ns() + 50 * 1000000ULL);
	(void)m;
	return r;
}

void *ik_mover_main(void *arg)
{
	struct mover m = { .g = arg };
	struct ik_run *g = m.g;
	int list[IM_NMOVERS], n = 0;

	for (int i = 0; i < IM_NMOVERS; i++)
		if (i != IM_NUMA_BALANCING && (g->movers & (1u << i)))
			list[n++] = i;
	if (n == 0)
		return NULL;
	m.pages = calloc(g->npages, sizeof(*m.pages));
	m.nodes = calloc(g->npages, sizeof(*m.nodes));
	m.status = calloc(g->npages, sizeof(*m.status));
	m.before = calloc(g->npages, sizeof(*m.before));
	m.req = calloc(g->npages, sizeof(*m.req));
	if (!m.pages || !m.nodes || !m.status || !m.before || !m.req) {
		g->mover_err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < g->npages; i++)
		m.pages[i] = g->mem + i * 4096;
	for (uint64_t k = 0; !__atomic_load_n(&g->sh->stop, __ATOMIC_RELAXED); k++) {
		int target = k % 2 == 0 ? g->nb : g->na, mover = list[(k / 2) % (uint64_t)n], r;

		m.nslots = 1 + g->nsharers;
		switch (mover) {
		case IM_MOVE_PAGES: r = round_move_pages(&m, target); break;
		case IM_MBIND: r = round_mbind(&m, target); break;
		case IM_MIGRATE_PAGES: r = round_migrate_pages(&m, target); break;
		default: r = round_compact(&m); break;
		}
		if (r < 0 && !transient(r)) {
			g->err_what = mover == IM_MOVE_PAGES ? "move_pages(2)" : mover == IM_MBIND ?
				      "mbind(2)" : mover == IM_MIGRATE_PAGES ? "migrate_pages(2)" :
				      "write 1 to " COMPACT;
			g->mover_err = r;
			break;
		}
		if (r < 0)
			g->mover_errors++;
		g->rounds++;
		/* the old copies are on the node the pages left */
		(void)ik_reuse_release(g);
		ik_reuse_take(g, target == g->nb ? g->na : g->nb);
	}
	/* --inject-corruption: a stray write into the frames, as a stale TLB
	 * entry would make one */
	if (g->inject && g->reuse.held)
		g->reuse.mem[g->reuse.bytes / 2] ^= 0x5a;
	(void)ik_reuse_release(g);
out:
	free(m.pages);
	free(m.nodes);
	free(m.status);
	free(m.before);
	free(m.req);
	return NULL;
}
