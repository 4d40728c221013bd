/* A checked knob write and the notice of a change: shared by plan_apply()
 * (plan.c) and journal_restore() (journal.c). Kept out of knob.c so that
 * their knob_write() calls cross objects: test_plan wraps knob_write at link
 * time (-Wl,--wrap), which only reaches calls from other objects. */
#ifndef MMBATCHD_KNOB_CHANGE_H
#define MMBATCHD_KNOB_CHANGE_H

/* Writes value to real (path resolved by knob_resolve()) and reads it back:
 * a knob that silently keeps another value (a kernel that clamps or ignores
 * it) counts as a failed write, -EREMOTEIO. */
int knob_write_checked(const char *path, const char *real, const char *value);

/* The notice of one change of path (shown as name) from -> to, with why and
 * the shell line that undoes it. */
void knob_log_change(const char *root, const char *name, const char *path, const char *from, const char *to,
		     const char *why);

#endif
