/* The state directory of the first-boot smoke run (default /var/lib/mmbatch;
 * layout in SCHEMA.md, "State directory"): pending/<kver>, results/<kver>/
 * <stamp>.json, verdict/<kver>, last-booted. Used by `mmbench smoke
 * --state-dir`. Functions return negative errno and print nothing. */
#ifndef MMBENCH_STATE_H
#define MMBENCH_STATE_H

#include <stddef.h>

/* A kernel release or stamp usable as one file name: not empty, no '/',
 * not starting with '.', at most 200 bytes. */
int mb_state_valid_name(const char *s);

/* The baseline for a run of kver whose result is new_path: the lexically
 * last <stamp>.json in results/<last-booted>/ other than new_path; when
 * last-booted is absent, empty, not a valid name or has no such result, the
 * result with the lexically last file name in any results/<other kver>/.
 * Returns 0 and a malloc'ed path in ret_path, 1 when there is none, or
 * -errno. */
int mb_state_baseline(const char *state, const char *kver, const char *new_path,
		      char **ret_path);

/* verdict/<kver> = "result=R\nreason=ONE LINE\nat=STAMP\n" (newlines in the
 * reason become spaces), written to a temp name and renamed. */
int mb_state_write_verdict(const char *state, const char *kver, const char *result,
			   const char *reason, const char *stamp);

/* last-booted = "<kver>\n", written to a temp name and renamed. */
int mb_state_set_last_booted(const char *state, const char *kver);

/* mkdir -p DIR (mode 0755). */
int mb_state_mkdir_p(const char *dir);

/* Writes text to path through path.tmpXXXXXX, fsync and rename. */
int mb_state_write_atomic(const char *path, const char *text);

#endif
