/* The sysctl allowlist: the memory-management keys a profile may set (and
 * so the journal may restore), each with the reason it is there.
 *
 * mmbatchd runs as root with CAP_SYS_ADMIN; a prefix rule ("vm." and
 * "kernel.") let a profile, a tampered journal or a compromised daemon set
 * kernel.core_pattern or kernel.modprobe, after which the kernel runs a
 * program of the writer's choice as root outside every sandbox. So the
 * keys are listed one by one. The same table is the source of the unit's
 * ReadWritePaths= (systemd/mmbatchd.service, checked by
 * `make check-daemon-unit-file` against `mmbatchd --list-keys`) and of the
 * table in mmbatchd.yaml(5) (configs/profiles/README.md). */
#ifndef MMBATCHD_KEYS_H
#define MMBATCHD_KEYS_H

#include <stdbool.h>
#include <stdio.h>

struct mm_key {
	const char *key;    /* dotted, e.g. vm.swappiness */
	const char *reason; /* why an mm tuning profile may set it */
};

/* The key's entry, or NULL when key is not an mm tuning key. */
const struct mm_key *mm_key_find(const char *key);

/* Prints KEY<TAB>FILE<TAB>REASON<TAB>VALUES, one line per allowed key: the
 * sysctls (FILE /proc/sys/KEY-as-path), then the sysfs files (KEY = FILE,
 * sysfs_keys.h). VALUES is the key's schema (value_schema_describe()). This
 * is `mmbatchd --list-keys`. */
void mm_keys_print(FILE *f);

#endif
