/* The journal: the original value of every knob the daemon set, written
 * before the first knob write, so that a stop, a daemon crash or --rollback
 * can put every value back.
 *
 * Its lifetime is one boot: sysctl and sysfs values never survive a reboot,
 * so a journal written in an earlier boot (after a power loss, a panic, a
 * canary kernel that crashed) describes values that are gone; restoring it
 * would write the previous boot's values, perhaps another kernel's
 * defaults, over this boot's own. The journal records the boot id
 * (/proc/sys/kernel/random/boot_id) and one from another boot is discarded
 * with a log line. For the same reason it is not fsync'd: it must outlive a
 * crash of the daemon, which the page cache alone guarantees, not a crash
 * of the machine.
 *
 * Format (text, one entry a line, fields separated by a tab, every field
 * escaped with sb_escaped() so that no byte of a path or value can start a
 * line of its own):
 *   # mmbatchd journal v2
 *   boot_id<TAB>4e9f0c3a-...
 *   profile<TAB>/etc/mmbatch/mmbatchd.yaml
 *   /proc/sys/vm/swappiness<TAB>60
 * Values are the originals byte for byte (knob_original()). Reading it
 * applies the profile rules again: the file must be trusted and every path
 * must pass the knob allowlist, or nothing is restored. */
#ifndef MMBATCHD_JOURNAL_H
#define MMBATCHD_JOURNAL_H

#include <stddef.h>

#include "util.h"

/* STATE_DIR/mmbatchd/journal: a directory of its own, which
 * mmbatch-smoke.service (allowed to write the rest of the state tree) cannot
 * reach. Journals of earlier versions were STATE_DIR/journal; statedir_open()
 * moves one there once, when it creates the directory. */
#define JOURNAL_DIR "mmbatchd"
#define JOURNAL_NAME "journal"
#define BOOT_ID_PATH "/proc/sys/kernel/random/boot_id"
#define BOOT_ID_MAX 64

struct journal_entry {
	char *path;  /* logical path */
	char *value; /* original value, exact */
};

struct journal {
	char *profile;
	char *boot_id;
	struct journal_entry *entries;
	size_t n;
};

/* STATE_DIR/mmbatchd/journal (caller frees). */
char *journal_path(const char *state_dir);

/* Reads ROOT/proc/sys/kernel/random/boot_id into buf. Negative errno. */
int boot_id_read(const char *root, char *buf, size_t size);

/* Finds the entry for path, or NULL. */
const struct journal_entry *journal_find(const struct journal *j, const char *path);

/* Adds (or keeps, when already present: the first original wins). */
void journal_add(struct journal *j, const char *path, const char *value);

/* Writes atomically (temp file + rename; no fsync, see above), creating
 * STATE_DIR/mmbatchd (0700) when missing. Negative errno. */
int journal_save(const char *state_dir, const struct journal *j);

/* Returns 0 with *ret; -ENOENT when there is no journal; -ESTALE when it
 * was written in another boot than boot_id (err says which; the caller
 * discards it); another negative errno with err naming JOURNAL:LINE:COL for
 * untrusted or invalid content. */
int journal_load(const char *state_dir, const char *boot_id, struct journal **ret, struct mb_error *err);

/* Removes the journal; 0 when already absent. */
int journal_remove(const char *state_dir);

struct journal *journal_new(const char *profile, const char *boot_id);
void journal_free(struct journal *j);

struct plan;

/* Restores every journal entry (except those keep names, when keep is not
 * NULL) under root. Every entry is re-checked against the allowlist first:
 * one bad entry and nothing is written (-EPERM). Returns the number of
 * knobs written, or a negative errno after trying them all. */
int journal_restore(const struct journal *j, const char *root, const struct plan *keep, struct mb_error *err);

#endif
