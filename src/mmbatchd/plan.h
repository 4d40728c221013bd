/* Plans, applies and verifies knob values (journal_restore(), journal.h,
 * puts the originals back).
 *
 * plan_new() is the second half of validation: it resolves every knob under
 * --root (allowlist, symlinks), checks it exists (unless optional), is
 * writable and accepts the value (choice files), checks the drain method,
 * and reads every current value. Nothing is written before all of that has
 * passed. */
#ifndef MMBATCHD_PLAN_H
#define MMBATCHD_PLAN_H

#include <stdbool.h>
#include <stdio.h>

#include "drain.h"
#include "journal.h"
#include "profile.h"
#include "util.h"

struct plan_item {
	const struct knob_setting *k;
	char *name;    /* the key: dotted sysctl key, or the sysfs path */
	char *real;    /* real path (--root + path, resolved), NULL when absent */
	char *current; /* canonical current value (for display), NULL when absent */
	char *original; /* the value that restores it exactly (knob_original()) */
	bool absent;   /* optional and missing on this kernel */
	bool change;   /* current differs from target */
};

struct plan {
	const struct profile *p;
	char *root;
	struct plan_item *items;
	size_t n;
	enum drain_method drain_method; /* resolved, when drain.on_exit */
};

int plan_new(const struct profile *p, const char *root, struct plan **ret, struct mb_error *err);
void plan_free(struct plan *pl);

/* One line per knob: 'key' (current) -> (target) | unchanged | absent. */
void plan_print(const struct plan *pl, FILE *f);

/* Adds every original value to *journal (created when NULL; originals
 * already there win), saves it, then writes the targets. On a failed write
 * it restores what it wrote, in reverse order, and returns the error (the
 * journal is removed again when it was new). Returns the number of knobs
 * changed. */
int plan_apply(const struct plan *pl, const char *state_dir, struct journal **journal, struct mb_error *err);

/* Prints every knob whose live value differs from the target; returns how
 * many (or a negative errno when a knob cannot be read). */
int plan_verify(const struct plan *pl, FILE *f);

#endif
