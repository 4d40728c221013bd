/* Kernel knobs a benchmark changes for its run (/sys/kernel/mm/ksm/run,
 * /proc/sys/kernel/numa_balancing, ...) and must put back: the first set of
 * a knob saves its value, mb_knob_restore_all writes every saved value back
 * (also from SIGINT/SIGTERM/SIGHUP, which then end the process). */
#ifndef MMBENCH_KNOBS_H
#define MMBENCH_KNOBS_H

/* Writes value to path, after saving what path held. 0 or -errno. */
int mb_knob_set(const char *path, const char *value);
/* Puts every saved knob back (newest first) and forgets them. */
void mb_knob_restore_all(void);
/* A forked child: the parent restores, the child must not (default
 * signal dispositions, nothing saved). */
void mb_knob_forget_in_child(void);

#endif
