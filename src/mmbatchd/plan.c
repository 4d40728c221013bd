/* See plan.h. */
#include "plan.h"

#include <errno.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "knob_change.h"
#include "log.h"
#include "value_schema.h"

static const char *kind_name(enum knob_kind k)
{
	return k == KNOB_SYSCTL ? "sysctl" : "sysfs";
}

#define FAIL_MARK(err, m, ...) (mb_error_set((err), (m).file, (m).line, (m).col, __VA_ARGS__), -EINVAL)

static int plan_item_init(struct plan_item *it, const char *root, const struct knob_setting *k, struct mb_error *err)
{
	char raw[KNOB_VALUE_MAX], canon[KNOB_VALUE_MAX];
	const char *why = NULL;
	struct stat st;
	int r;

	it->k = k;
	it->name = knob_display_name(k->path);
	r = knob_resolve(root, k->path, &it->real, &why);
	if (r == -ENOENT && k->optional) {
		it->absent = true;
		return 0;
	}
	if (r == -ENOENT)
		return FAIL_MARK(err, k->mark, "%s '%s' does not exist on the running kernel (%s%s); mark it optional if that is expected",
				 kind_name(k->kind), it->name, root, k->path);
	if (r == -EPERM)
		return FAIL_MARK(err, k->mark, "%s '%s' %s", kind_name(k->kind), it->name, why);
	if (r < 0)
		return FAIL_MARK(err, k->mark, "cannot resolve %s '%s': %s", kind_name(k->kind), it->name, strerror(-r));
	if (stat(it->real, &st) < 0 || !S_ISREG(st.st_mode))
		return FAIL_MARK(err, k->mark, "%s '%s' is not a regular file", kind_name(k->kind), it->name);
	if (!(st.st_mode & 0222))
		return FAIL_MARK(err, k->mark, "%s '%s' is read-only", kind_name(k->kind), it->name);
	r = knob_read(it->real, raw, sizeof(raw));
	if (r < 0)
		return FAIL_MARK(err, k->mark, "cannot read %s '%s': %s", kind_name(k->kind), it->name, strerror(-r));
	/* Choice files ("always [madvise] never") are the allowlist's flagged
	 * entries; any other file's text is never read as one, brackets or
	 * not (a memcg path "/a[1].service" is journaled whole). */
	if (!knob_choice_allowed(k->path, raw, k->value))
		return FAIL_MARK(err, k->value_mark, "'%s' is not one of the choices of '%s': %s", k->value, it->name, raw);
	knob_canonical(k->path, raw, canon, sizeof(canon));
	it->current = xstrdup(canon);
	knob_original(k->path, raw, canon, sizeof(canon));
	it->original = xstrdup(canon);
	it->change = !knob_matches(k->path, raw, k->value);
	return 0;
}

int plan_new(const struct profile *p, const char *root, struct plan **ret, struct mb_error *err)
{
	struct plan *pl = xcalloc(1, sizeof(*pl));
	int r = 0;

	pl->p = p;
	pl->root = xstrdup(root);
	pl->items = xcalloc(p->n_knobs, sizeof(*pl->items));
	pl->drain_method = p->drain.method;
	for (size_t i = 0; i < p->n_knobs && r == 0; i++, pl->n++)
		r = plan_item_init(&pl->items[i], root, &p->knobs[i], err);
	if (r == 0 && p->drain.on_exit && drain_method_resolve(root, p->drain.method, &pl->drain_method) < 0)
		r = FAIL_MARK(err, p->drain_method_mark, "drain method '%s' is not supported by the running kernel%s",
			      drain_method_name(p->drain.method),
			      p->drain.method == DRAIN_SYSCTL ? " (no /proc/sys/vm/drain_percpu)"
			      : p->drain.method == DRAIN_MIGRATE_PAGES ? " (migrate_pages(2) needs CONFIG_NUMA)"
			      : " (neither the drain knob nor migrate_pages(2))");
	if (r < 0) {
		plan_free(pl);
		return r;
	}
	*ret = pl;
	return 0;
}

void plan_free(struct plan *pl)
{
	if (!pl)
		return;
	for (size_t i = 0; i < pl->n; i++) {
		free(pl->items[i].name);
		free(pl->items[i].real);
		free(pl->items[i].current);
		free(pl->items[i].original);
	}
	free(pl->items);
	free(pl->root);
	free(pl);
}

void plan_print(const struct plan *pl, FILE *f)
{
	for (size_t i = 0; i < pl->n; i++) {
		const struct plan_item *it = &pl->items[i];

		if (it->absent)
			fprintf(f, "'%s' absent on this kernel (optional), skipped\n", it->name);
		else if (it->change)
			fprintf(f, "'%s' (%s) -> (%s)\n", it->name, it->current, it->k->value);
		else
			fprintf(f, "'%s' (%s) unchanged\n", it->name, it->current);
	}
	if (pl->p->drain.on_exit)
		fprintf(f, "drain on exit: min_rss_mb %llu, max_per_second %g, method %s\n",
			(unsigned long long)pl->p->drain.min_rss_mb, pl->p->drain.max_per_second,
			drain_method_name(pl->drain_method));
}

/* A dangerous value (value_schema.h) the profile opted into: a warning,
 * so that it stands out in the journal beside the notice of the change. */
static void log_dangerous(const struct plan_item *it)
{
	const struct value_schema *s = value_schema_find(it->name);

	log_warning("'%s' set to (%s), a dangerous value allowed by allow_dangerous (%s:%d:%d): %s", it->name,
		    it->k->value, it->k->value_mark.file, it->k->value_mark.line, it->k->value_mark.col,
		    s && s->danger_why ? s->danger_why : "see mmbatchd.yaml(5)");
}

int plan_apply(const struct plan *pl, const char *state_dir, struct journal **journal, struct mb_error *err)
{
	char boot_id[BOOT_ID_MAX];
	struct journal *j;
	bool fresh = !*journal;
	size_t done;
	int r, changed = 0;

	r = boot_id_read(pl->root, boot_id, sizeof(boot_id));
	if (r < 0) {
		mb_error_set(err, pl->root[0] ? pl->root : "/", 0, 0, "cannot read the boot id (%s%s): %s", pl->root,
			     BOOT_ID_PATH, strerror(-r));
		return r;
	}
	j = *journal ? *journal : journal_new(pl->p->path, boot_id);
	free(j->profile);
	j->profile = xstrdup(pl->p->path);
	for (size_t i = 0; i < pl->n; i++)
		if (!pl->items[i].absent)
			journal_add(j, pl->items[i].k->path, pl->items[i].original);
	r = journal_save(state_dir, j);
	if (r < 0) {
		mb_error_set(err, state_dir, 0, 0, "cannot write the journal: %s", strerror(-r));
		if (fresh)
			journal_free(j);
		return r;
	}
	*journal = j;

	for (done = 0; done < pl->n; done++) {
		const struct plan_item *it = &pl->items[done];

		if (it->absent || !it->change)
			continue;
		r = knob_write_checked(it->k->path, it->real, it->k->value);
		if (r < 0) {
			mb_error_set(err, it->k->mark.file, it->k->mark.line, it->k->mark.col, "writing '%s' to '%s' failed: %s",
				     it->k->value, it->name, r == -EREMOTEIO ? "the kernel kept another value" : strerror(-r));
			break;
		}
		knob_log_change(pl->root, it->name, it->k->path, it->original, it->k->value, "applied");
		if (it->k->dangerous)
			log_dangerous(it);
		changed++;
	}
	if (done == pl->n)
		return changed;

	/* Put back what we wrote, newest first, including the failed knob
	 * (a partial write may have changed it). */
	log_error("%s", err->msg);
	for (size_t i = done + 1; i-- > 0;) {
		const struct plan_item *it = &pl->items[i];

		if (it->absent || !it->change)
			continue;
		if (knob_write_checked(it->k->path, it->real, it->original) < 0)
			log_error("restoring '%s' to (%s) failed, it is still recorded in the journal", it->name, it->original);
		else if (i != done)
			knob_log_change(pl->root, it->name, it->k->path, it->k->value, it->original, "restored after failed apply");
	}
	if (fresh) {
		(void)journal_remove(state_dir);
		journal_free(j);
		*journal = NULL;
	}
	return r;
}

int plan_verify(const struct plan *pl, FILE *f)
{
	char raw[KNOB_VALUE_MAX], canon[KNOB_VALUE_MAX];
	int drifted = 0, r;

	for (size_t i = 0; i < pl->n; i++) {
		const struct plan_item *it = &pl->items[i];

		if (it->absent)
			continue;
		r = knob_read(it->real, raw, sizeof(raw));
		if (r < 0)
			return r;
		if (knob_matches(it->k->path, raw, it->k->value))
			continue;
		knob_canonical(it->k->path, raw, canon, sizeof(canon));
		fprintf(f, "drifted: '%s' live (%s) profile (%s)\n", it->name, canon, it->k->value);
		drifted++;
	}
	return drifted;
}
