/* The value schema: for every key of the two allowlists (keys.h,
 * sysfs_keys.h) the values a profile may write, and which of them are
 * dangerous.
 *
 * The ranges are the kernel's own, read from the handlers of Debian's 6.1
 * and 6.12 (extra1/extra2 of proc_dointvec_minmax and friends, the sysfs
 * store functions' kstrto* and checks) and admin-guide/sysctl/vm.rst; where
 * the two bases differ the narrower range is used, and the entry says so.
 * A value outside it is an error at load time (FILE:LINE:COL of the value),
 * before the kernel refuses it halfway through an apply. Integers are
 * decimal without sign or leading zeros unless negative values are allowed:
 * the form the kernel prints back, which the apply compares against.
 *
 * Dangerous values (a panic on OOM, no memory-failure recovery, a watermark
 * that starves the host, strict overcommit, no periodic writeback, ...) are
 * in range, but can take a host down; a profile must name the key in its
 * allow_dangerous list to set one, and the daemon logs each at warning when
 * it applies it. */
#ifndef MMBATCHD_VALUE_SCHEMA_H
#define MMBATCHD_VALUE_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>

enum schema_type {
	SCHEMA_INT,    /* one decimal integer in [min, max] */
	SCHEMA_INTS,   /* 1 to 8 such integers separated by spaces (per-zone vectors) */
	SCHEMA_CHOICE, /* one word of choices */
};

struct value_schema {
	const char *key;        /* dotted sysctl key, or the sysfs path */
	enum schema_type type;
	long long min, max;     /* SCHEMA_INT(S) */
	const char *choices;    /* SCHEMA_CHOICE: words separated by one space */
	long long danger_min, danger_max; /* SCHEMA_INT: dangerous in [danger_min, danger_max]; none when min > max */
	const char *danger_choices;       /* SCHEMA_CHOICE: the dangerous words, or NULL */
	const char *danger_why; /* what a dangerous value does, NULL when none is */
	const char *source;     /* where the range comes from */
};

/* The schema of a key (dotted sysctl key or sysfs path), or NULL. */
const struct value_schema *value_schema_find(const char *key);

/* Checks value against s. Returns 0 (with *dangerous set) or -EINVAL with
 * a message "expected ..." in why (size bytes). */
int value_schema_check(const struct value_schema *s, const char *value, bool *dangerous, char *why, size_t size);

/* One line for --list-keys and the docs: "0..200", "always|madvise|never",
 * with "; dangerous: ..." when some values are. NULL s: "-". */
void value_schema_describe(const struct value_schema *s, char *buf, size_t size);

/* Every schema entry, for the test that each allowlisted key has one. */
const struct value_schema *value_schema_all(size_t *n);

#endif
