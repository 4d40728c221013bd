/* The journal: the original value of every knob the daemon set, written
 * (0600, fsync'd with its directory) before the first knob write, so that a
 * stop, a crash or --rollback can put every value back.
 *
 * Format (text, one entry a line, PATH and VALUE separated by a tab):
 *   # mmbatchd journal v1
 *   profile<TAB>/etc/mmbatch/mmbatchd.yaml
 *   /proc/sys/vm/swappiness<TAB>60
 * Reading it applies the profile rules again: the file must be trusted and
 * every path must pass the knob allowlist, or nothing is restored. */
#ifndef MMBATCHD_JOURNAL_H
#define MMBATCHD_JOURNAL_H

#include <stddef.h>

#include "util.h"

#define JOURNAL_NAME "journal"

struct journal_entry {
	char *path;  /* logical path */
	char *value; /* original value, canonical */
};

struct journal {
	char *profile;
	struct journal_entry *entries;
	size_t n;
};

/* STATE_DIR/journal (caller frees). */
char *journal_path(const char *state_dir);

/* Finds the entry for path, or NULL. */
const struct journal_entry *journal_find(const struct journal *j, const char *path);

/* Adds (or keeps, when already present: the first original wins). */
void journal_add(struct journal *j, const char *path, const char *value);

/* Writes atomically and durably. Negative errno. */
int journal_save(const char *state_dir, const struct journal *j);

/* Returns 0 with *ret, -ENOENT when there is no journal, or another negative
 * errno with err naming JOURNAL:LINE:COL for untrusted or invalid content. */
int journal_load(const char *state_dir, struct journal **ret, struct mb_error *err);

/* Removes the journal and syncs the directory; 0 when already absent. */
int journal_remove(const char *state_dir);

struct journal *journal_new(const char *profile);
void journal_free(struct journal *j);

#endif
