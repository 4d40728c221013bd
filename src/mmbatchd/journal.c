/* See journal.h. */
#include "journal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "knob.h"
#include "knob_change.h"
#include "log.h"
#include "plan.h"

#define JOURNAL_HEADER "# mmbatchd journal v2"
#define JOURNAL_MAX_BYTES (1024 * 1024)

char *journal_path(const char *state_dir)
{
	return xasprintf("%s/%s/%s", state_dir, JOURNAL_DIR, JOURNAL_NAME);
}

struct journal *journal_new(const char *profile, const char *boot_id)
{
	struct journal *j = xcalloc(1, sizeof(*j));

	j->profile = xstrdup(profile ? profile : "");
	j->boot_id = xstrdup(boot_id ? boot_id : "");
	return j;
}

int boot_id_read(const char *root, char *buf, size_t size)
{
	char *path = xasprintf("%s%s", root, BOOT_ID_PATH), *data = NULL;
	int r;

	r = read_file(path, BOOT_ID_MAX, &data, NULL);
	free(path);
	if (r < 0)
		return r == -EFBIG ? -EINVAL : r;
	strip_trailing(data);
	if (!data[0] || strlen(data) >= size || strspn(data, "0123456789abcdef-") != strlen(data)) {
		free(data);
		return -EINVAL;
	}
	snprintf(buf, size, "%s", data);
	free(data);
	return 0;
}

void journal_free(struct journal *j)
{
	if (!j)
		return;
	for (size_t i = 0; i < j->n; i++) {
		free(j->entries[i].path);
		free(j->entries[i].value);
	}
	free(j->entries);
	free(j->profile);
	free(j->boot_id);
	free(j);
}

const struct journal_entry *journal_find(const struct journal *j, const char *path)
{
	for (size_t i = 0; j && i < j->n; i++)
		if (strcmp(j->entries[i].path, path) == 0)
			return &j->entries[i];
	return NULL;
}

void journal_add(struct journal *j, const char *path, const char *value)
{
	if (journal_find(j, path))
		return;
	j->entries = xreallocarray(j->entries, j->n + 1, sizeof(*j->entries));
	j->entries[j->n].path = xstrdup(path);
	j->entries[j->n].value = xstrdup(value);
	j->n++;
}

int journal_save(const char *state_dir, const struct journal *j)
{
	struct strbuf b = { 0 };
	char *path = journal_path(state_dir), *dir;
	int r;

	sb_printf(&b, "%s\nboot_id\t", JOURNAL_HEADER);
	sb_escaped(&b, j->boot_id);
	sb_printf(&b, "\nprofile\t");
	sb_escaped(&b, j->profile);
	sb_printf(&b, "\n");
	for (size_t i = 0; i < j->n; i++) {
		sb_escaped(&b, j->entries[i].path);
		sb_printf(&b, "\t");
		sb_escaped(&b, j->entries[i].value);
		sb_printf(&b, "\n");
	}
	/* Made by statedir_open() already, except for callers that skip it
	 * (unit tests). */
	dir = xasprintf("%s/%s", state_dir, JOURNAL_DIR);
	r = mkdir(dir, 0700) < 0 && errno != EEXIST ? -errno : 0;
	free(dir);
	if (r == 0)
		r = write_file_replace(path, b.s, b.len, 0600);
	sb_free(&b);
	free(path);
	return r;
}

/* Line 1 is the header, line 2 the boot id, line 3 the profile, then the
 * entries. */
static int parse_line(struct journal *j, const char *file, int lineno, char *line, struct mb_error *err)
{
	char *tab = strchr(line, '\t'), *value;
	const char *why;

	if (lineno == 1) {
		if (strcmp(line, JOURNAL_HEADER) != 0)
			return mb_error_set(err, file, 1, 1, "not an mmbatchd journal of this version (expected '%s')",
					    JOURNAL_HEADER),
			       -EINVAL;
		return 0;
	}
	if (!tab)
		return mb_error_set(err, file, lineno, 1, "expected PATH<TAB>VALUE"), -EINVAL;
	*tab = '\0';
	value = tab + 1;
	/* A raw tab in the value would be a third field (escaped ones are \t). */
	if (strchr(value, '\t') || unescape_line(line) < 0 || unescape_line(value) < 0)
		return mb_error_set(err, file, lineno, 1, "malformed escape or field"), -EINVAL;
	if (lineno == 2 || lineno == 3) {
		const char *want = lineno == 2 ? "boot_id" : "profile";
		char **field = lineno == 2 ? &j->boot_id : &j->profile;

		if (strcmp(line, want) != 0)
			return mb_error_set(err, file, lineno, 1, "expected the %s line", want), -EINVAL;
		free(*field);
		*field = xstrdup(value);
		return 0;
	}
	if (knob_check_path(line, &why) < 0)
		return mb_error_set(err, file, lineno, 1, "refusing journal entry '%s': %s", line, why), -EPERM;
	if (strlen(value) >= KNOB_VALUE_MAX)
		return mb_error_set(err, file, lineno, (int)(tab - line) + 2, "invalid value for '%s'", line), -EINVAL;
	if (journal_find(j, line))
		return mb_error_set(err, file, lineno, 1, "duplicate journal entry '%s'", line), -EINVAL;
	journal_add(j, line, value);
	return 0;
}

int journal_load(const char *state_dir, const char *boot_id, struct journal **ret, struct mb_error *err)
{
	char *path = journal_path(state_dir), *data = NULL, *line, *next;
	struct journal *j = NULL;
	const char *why;
	struct stat st;
	int fd, r, lineno = 0;
	ssize_t n;
	size_t len = 0;

	/* O_NONBLOCK: a FIFO planted as the journal must not hang the daemon
	 * (fstat then refuses it as not a regular file). */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		r = -errno;
		if (r != -ENOENT)
			mb_error_set(err, path, 1, 1, "cannot open journal: %s", strerror(-r));
		goto out;
	}
	if (fstat(fd, &st) < 0) {
		r = -errno;
		mb_error_set(err, path, 1, 1, "cannot stat journal: %s", strerror(-r));
		goto out;
	}
	if (trust_check_stat(&st, &why) < 0) {
		r = (mb_error_set(err, path, 1, 1, "refusing untrusted journal: %s", why), -EPERM);
		goto out;
	}
	if (st.st_size > JOURNAL_MAX_BYTES) {
		r = (mb_error_set(err, path, 1, 1, "journal is larger than %d bytes", JOURNAL_MAX_BYTES), -EFBIG);
		goto out;
	}
	data = xcalloc((size_t)st.st_size + 1, 1);
	while (len < (size_t)st.st_size && (n = read(fd, data + len, (size_t)st.st_size - len)) > 0)
		len += (size_t)n;
	data[len] = '\0';
	j = journal_new(NULL, NULL);
	r = 0;
	for (line = data; r == 0 && *line; line = next) {
		next = strchrnul(line, '\n');
		if (*next)
			*next++ = '\0';
		r = parse_line(j, path, ++lineno, line, err);
		/* A journal of another boot describes values that are gone:
		 * stop before its entries. */
		if (r == 0 && lineno == 2 && strcmp(j->boot_id, boot_id) != 0)
			r = (mb_error_set(err, path, 2, 1, "journal is from another boot (boot id %s, this boot %s)",
					  j->boot_id, boot_id),
			     -ESTALE);
	}
	if (r == 0 && lineno < 3)
		r = (mb_error_set(err, path, lineno + 1, 1, "journal is truncated (no %s line)",
				  lineno < 2 ? "boot_id" : "profile"),
		     -EINVAL);
out:
	if (fd >= 0)
		close(fd);
	free(data);
	free(path);
	if (r < 0) {
		journal_free(j);
		return r;
	}
	*ret = j;
	return 0;
}

int journal_remove(const char *state_dir)
{
	char *path = journal_path(state_dir);
	int r = 0;

	if (unlink(path) < 0 && errno != ENOENT)
		r = -errno;
	free(path);
	return r;
}

static bool plan_has(const struct plan *pl, const char *path)
{
	for (size_t i = 0; pl && i < pl->n; i++)
		if (!pl->items[i].absent && strcmp(pl->items[i].k->path, path) == 0)
			return true;
	return false;
}

int journal_restore(const struct journal *j, const char *root, const struct plan *keep, struct mb_error *err)
{
	char **real = xcalloc(j->n, sizeof(char *));
	int r = 0, written = 0, failed = 0;

	/* First every entry, then any write: a tampered journal writes nothing. */
	for (size_t i = 0; i < j->n && r == 0; i++) {
		const char *why = NULL;

		r = knob_resolve(root, j->entries[i].path, &real[i], &why);
		if (r == -ENOENT) {
			log_warning("journal names '%s%s', which no longer exists, ignoring", root, j->entries[i].path);
			r = 0;
		} else if (r < 0)
			mb_error_set(err, "journal", 0, 0, "refusing to restore '%s': %s", j->entries[i].path,
				     r == -EPERM ? why : strerror(-r));
	}
	for (size_t i = j->n; r == 0 && i-- > 0;) {
		const struct journal_entry *e = &j->entries[i];
		char raw[KNOB_VALUE_MAX], canon[KNOB_VALUE_MAX], *name;
		int w;

		if (!real[i] || plan_has(keep, e->path))
			continue;
		name = knob_display_name(e->path);
		w = knob_read(real[i], raw, sizeof(raw));
		if (w == 0 && knob_matches(e->path, raw, e->value)) {
			free(name);
			continue;
		}
		knob_canonical(e->path, w == 0 ? raw : "?", canon, sizeof(canon));
		w = knob_write_checked(e->path, real[i], e->value);
		if (w < 0) {
			log_error("restoring '%s' to (%s) failed: %s", name, e->value, strerror(-w));
			failed++;
		} else {
			knob_log_change(root, name, e->path, canon, e->value, "restored");
			written++;
		}
		free(name);
	}
	for (size_t i = 0; i < j->n; i++)
		free(real[i]);
	free(real);
	if (r < 0)
		return r;
	if (failed) {
		mb_error_set(err, "journal", 0, 0, "%d value(s) could not be restored", failed);
		return -EIO;
	}
	return written;
}
