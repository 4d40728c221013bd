/* integrity --kind: the children of a repetition (see integrity_kinds.h):
 * the shared kinds' sharers, forked once; fork-shared's readers, forked
 * anew every epoch; and their reaping, where a child that failed or died
 * is counted (a SIGSEGV or SIGBUS there is the kernel's too). */
#include "integrity_kinds.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Waits for a child; counts a child that failed or died, with why. */
static void reap(struct ik_run *g, pid_t pid)
{
	int st = 0;

	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return;
	g->sh->child_failures++;
	ik_lock(&g->sh->first_lock);
	if (!g->sh->first[0]) {
		if (WIFSIGNALED(st))
			snprintf(g->sh->first, sizeof(g->sh->first), "child %d killed by signal %d (%s)",
				 (int)pid, WTERMSIG(st), strsignal(WTERMSIG(st)));
		else
			snprintf(g->sh->first, sizeof(g->sh->first), "child %d exited with %d",
				 (int)pid, WEXITSTATUS(st));
	}
	ik_unlock(&g->sh->first_lock);
}

void ik_reap_all(struct ik_run *g)
{
	int n = g->sh->npids;

	for (int i = 0; i < n; i++) {
		pid_t pid = g->sh->pids[i];

		/* gone before it is reaped: the movers must not meet a reused pid */
		__atomic_store_n(&g->sh->pids[i], -1, __ATOMIC_RELEASE);
		if (pid > 0)
			reap(g, pid);
	}
	__atomic_store_n(&g->sh->npids, 0, __ATOMIC_RELEASE);
}

/* fork-shared: a new epoch. The old readers end; with every page lock
 * held (no write or zap half done) the table is copied for the new ones,
 * which the fork gives the parent's pages as they are now. */
int ik_fork_readers(struct ik_run *g)
{
	int ret = 0;

	__atomic_store_n(&g->sh->epoch_stop, 1, __ATOMIC_RELAXED);
	ik_reap_all(g);
	__atomic_store_n(&g->sh->epoch_stop, 0, __ATOMIC_RELAXED);
	for (size_t i = 0; i < g->npages; i++)
		ik_lock(&g->lock[i]);
	memcpy(g->snap_gen, g->gen, g->npages * sizeof(*g->gen));
	memcpy(g->snap_zero, g->zero, g->npages);
	for (int c = 0; c < g->nsharers; c++) {
		pid_t pid = fork();

		if (pid == 0)
			ik_snapshot_child(g, c);
		if (pid < 0) {
			ret = -errno;
			break;
		}
		__atomic_store_n(&g->sh->pids[c], pid, __ATOMIC_RELEASE);
		__atomic_store_n(&g->sh->npids, c + 1, __ATOMIC_RELEASE);
	}
	__atomic_fetch_add(&g->sh->epoch, 1, __ATOMIC_RELEASE);
	for (size_t i = 0; i < g->npages; i++)
		ik_unlock(&g->lock[i]);
	return ret;
}

int ik_fork_sharers(struct ik_run *g)
{
	for (int c = 0; c < g->nsharers; c++) {
		pid_t pid = fork();

		if (pid == 0)
			ik_sharer_child(g, c);
		if (pid < 0)
			return -errno;
		__atomic_store_n(&g->sh->pids[c], pid, __ATOMIC_RELEASE);
		__atomic_store_n(&g->sh->npids, c + 1, __ATOMIC_RELEASE);
	}
	return 0;
}
