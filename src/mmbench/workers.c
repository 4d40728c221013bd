/* Worker-thread harness (see workers.h). A start gate (mutex + condvar)
 * rather than a barrier, so a failed pthread_create cannot leave the
 * started threads waiting forever. */
#include "workers.h"
#include "util.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

struct gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int ready;
	int go;
};

struct slot {
	struct mb_worker *w;
	void (*work)(struct mb_worker *);
	struct gate *gate;
	int cpu;
};

static void *worker_main(void *arg)
{
	struct slot *s = arg;
	struct gate *g = s->gate;

	(void)mb_pin_to_cpu(s->cpu); /* best effort: cpusets may forbid it */
	pthread_mutex_lock(&g->lock);
	g->ready++;
	pthread_cond_broadcast(&g->cond);
	while (!g->go)
		pthread_cond_wait(&g->cond, &g->lock);
	pthread_mutex_unlock(&g->lock);
	if (g->go > 0)
		s->work(s->w);
	return NULL;
}

int mb_run_workers(int n, void (*work)(struct mb_worker *), void *ctx,
		   struct mb_worker *workers, uint64_t *ret_ns)
{
	struct gate g = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0 };
	pthread_t *tids = calloc((size_t)n, sizeof(*tids));
	struct slot *slots = calloc((size_t)n, sizeof(*slots));
	int ncpus = mb_online_cpus(), started = 0, r = 0;
	uint64_t t0;

	if (!tids || !slots) {
		free(tids);
		free(slots);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		workers[i] = (struct mb_worker){ .index = i, .ctx = ctx };
		slots[i] = (struct slot){ &workers[i], work, &g, i % ncpus };
		r = -pthread_create(&tids[i], NULL, worker_main, &slots[i]);
		if (r < 0)
			break;
		started++;
	}
	pthread_mutex_lock(&g.lock);
	while (g.ready < started)
		pthread_cond_wait(&g.cond, &g.lock);
	g.go = r < 0 ? -1 : 1; /* -1: release the threads without work */
	pthread_cond_broadcast(&g.cond);
	pthread_mutex_unlock(&g.lock);
	t0 = mb_now_ns();
	for (int i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	*ret_ns = mb_now_ns() - t0;
	free(tids);
	free(slots);
	for (int i = 0; i < n && r == 0; i++)
		if (workers[i].err < 0)
			r = workers[i].err;
	return r;
}

int mb_thread_count(int requested)
{
	return requested > 0 ? requested : mb_online_cpus();
}
