/* The sysfs allowlist: the /sys files a profile may set (and so the journal
 * may restore), one entry per file, each with the reason it is there, as
 * keys.h does for sysctls.
 *
 * It used to be a prefix rule (anything under /sys/kernel/mm and
 * /sys/devices/system/node), which let a profile write node uevents, start
 * DAMON's paddr pageout on all memory, unmerge every KSM page, allocate
 * 1 GiB HugeTLB pages by the hundred thousand, and write DAMON's nr_* files,
 * whose writes delete directories the journal cannot bring back. Now a file
 * is allowed only when writing it back restores the state exactly. Left out
 * on purpose:
 *  - DAMON (/sys/kernel/mm/damon): nr_* writes create and delete objects,
 *    state=on starts work on any memory;
 *  - KSM run (2 unmerges every page, which can OOM a host); the other KSM
 *    files tune nothing while run is the operator's;
 *  - HugeTLB counts (hugepages-SIZE/nr_hugepages, nr_overcommit_hugepages,
 *    and the same below nodeN/): a write allocates memory by the GiB;
 *  - every uevent (a write makes the kernel send an event to udev);
 *  - everything below /sys/devices/system/node/nodeN/: on 6.1 and 6.12 its
 *    writable files are HugeTLB counts, one-shot actions (compact), uevent
 *    and runtime-PM control, none a tunable that a write restores. So no
 *    node file is allowed and the unit opens none.
 * Paths are exact: no nodeN, no hugepages-SIZE pattern, no prefix. The same
 * table is the source of the unit's sysfs ReadWritePaths= (checked by
 * `make check-daemon-unit-file` against `mmbatchd --list-keys`). */
#ifndef MMBATCHD_SYSFS_KEYS_H
#define MMBATCHD_SYSFS_KEYS_H

#include <stdbool.h>
#include <stdio.h>

struct sysfs_key {
	const char *path;   /* the file, e.g. /sys/kernel/mm/transparent_hugepage/enabled */
	bool choice_file;   /* reads "a [b] c": the bracketed word is the value */
	const char *reason; /* why an mm tuning profile may set it */
};

/* The file's entry, or NULL when path is not an allowed sysfs file. */
const struct sysfs_key *sysfs_key_find(const char *path);

/* Whether path is an allowed sysfs file that lists choices in brackets. Only
 * these are read as choice files: a bracket in any other file's value is
 * text (a DAMON memcg_path of /a[1].service was once journaled as "1"). */
bool sysfs_is_choice_file(const char *path);

/* Prints PATH<TAB>PATH<TAB>REASON<TAB>VALUES, one line per allowed file
 * (the --list-keys format, keys.h). */
void sysfs_keys_print(FILE *f);

#endif
