/* The first-boot smoke verdict (`mmbench smoke --state-dir`, gate.c). */
#ifndef MMBENCH_GATE_H
#define MMBENCH_GATE_H

struct mb_opts;

/* Runs fn(arg) in a child process (its own process group) for at most
 * timeout_s seconds. 0: it ended, its wait status in *ret_status; 1: timed
 * out (the group was killed); -EINTR: SIGTERM or SIGINT arrived (the group
 * was killed); or -errno. */
int mb_run_timeout(int (*fn)(void *), void *arg, double timeout_s, int *ret_status);

/* The whole first-boot run of o->kver in o->state_dir; returns the exit
 * code (0 pass / not pending, 1 fail, 2 error). */
int mb_smoke_gate(const struct mb_opts *o);

#endif
