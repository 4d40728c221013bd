/* Knobs: the /proc/sys and /sys files a profile may set.
 *
 * A knob is named by its logical path (/proc/sys/vm/swappiness,
 * /sys/kernel/mm/transparent_hugepage/enabled); --root prefixes it. The same
 * allowlists (keys.h, sysfs_keys.h) guard profiles and the journal, so
 * neither can name a file outside them. */
#ifndef MMBATCHD_KNOB_H
#define MMBATCHD_KNOB_H

#include <stdbool.h>
#include <stddef.h>

enum knob_kind { KNOB_SYSCTL, KNOB_SYSFS };

#define KNOB_VALUE_MAX 4096

/* Maps a dotted sysctl key (vm.swappiness) to its logical path. Returns NULL
 * with *why set when the key is malformed or not in the mm allowlist
 * (keys.h). Caller frees. */
char *knob_sysctl_path(const char *key, const char **why);

/* The dotted key for a logical /proc/sys path (caller frees). */
char *knob_sysctl_key(const char *path);

/* Checks a logical path lexically: absolute, no "." / ".." / empty
 * components, only [A-Za-z0-9_.:-] characters, a /proc/sys path of the mm
 * allowlist (keys.h) or a file of the sysfs allowlist (sysfs_keys.h), both
 * by exact name. Returns the kind, or -EPERM with *why set. */
int knob_check_path(const char *path, const char **why);

/* Resolves ROOT+path, following symlinks, and checks the result is
 * ROOT+path itself: no symlink at all, for sysctls and sysfs files alike.
 * Returns 0 with the real path in *ret, -ENOENT when it does not exist,
 * -EPERM (with *why) when it is a symlink or lies under one. */
int knob_resolve(const char *root, const char *path, char **ret, const char **why);

/* Reads a knob's current content, trailing whitespace removed. */
int knob_read(const char *real, char *buf, size_t size);

/* Writes value (plus a newline) to a knob. */
int knob_write(const char *real, const char *value);

/* Choice files ("always [madvise] never") are the sysfs allowlist entries
 * flagged so (sysfs_keys.h), known by path, never by brackets in what the
 * file holds: a text such as "/system.slice/app[1].service" or
 * "/crash/core [%e] %p" in any other file stays whole. */

/* The value as shown to a user: for a choice file the bracketed choice
 * ("always [madvise] never" -> "madvise"), else the content with runs of
 * whitespace collapsed to one space (multi-value sysctls print tabs). */
void knob_canonical(const char *path, const char *raw, char *out, size_t size);

/* The value that puts the file back exactly as raw shows it: the raw
 * content itself (byte for byte, as read), except for a choice file, whose
 * bracketed choice is what it accepts. */
void knob_original(const char *path, const char *raw, char *out, size_t size);

/* Whether raw content already holds target: equal as text (whitespace runs
 * collapsed), or path is a choice file and target its bracketed choice. */
bool knob_matches(const char *path, const char *raw, const char *target);

/* For choice files: whether target is one of the listed choices. Returns true
 * for files that are not choice files. */
bool knob_choice_allowed(const char *path, const char *raw, const char *target);

/* The user-facing name: dotted key for sysctls, the path for sysfs. */
char *knob_display_name(const char *path);

/* A runnable shell line that sets path to value (sysctl -w for sysctls,
 * echo > FILE for sysfs; with a --root the file is named under it). The
 * value is single-quoted (each ' as '\''), and so is the file name when it
 * has other than path characters: no value can become a command. */
char *knob_undo_line(const char *root, const char *path, const char *value);

#endif
