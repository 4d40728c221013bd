/* See profile.h. Loading is two steps per file: build a node tree
 * (yamltree.c), then walk it into the merged profile. Includes are merged
 * first, in order, then the including file's own keys: later keys win. A
 * file already loaded (same device and inode) is not loaded again: its keys
 * took effect where it was first included.
 *
 * Every step is O(n log n) or better in the input size, so that the limits in
 * profile.h bound the time of a load. */
#include "profile.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sysfs_keys.h"
#include "trust.h"
#include "value_schema.h"
#include "yamltree.h"

static const char *search_dir = PROFILE_DIR_DEFAULT;

void profile_set_search_dir(const char *dir)
{
	search_dir = dir;
}

/* One file being loaded; the chain of them detects include cycles. */
struct load_frame {
	const char *name;
	dev_t dev;
	ino_t ino;
	const struct load_frame *parent;
	int depth;
};

/* Slots of the knob index: a power of two, at least twice the most knobs. */
#define KNOB_SLOTS 2048
_Static_assert(KNOB_SLOTS >= 2 * PROFILE_MAX_KNOBS && (KNOB_SLOTS & (KNOB_SLOTS - 1)) == 0, "KNOB_SLOTS");

struct file_id {
	dev_t dev;
	ino_t ino;
};

struct loader {
	struct profile *p;
	struct mb_error *err;
	bool allow_include;
	size_t n_includes;          /* include entries seen, repeats too */
	size_t total_bytes;         /* read from all files */
	struct file_id *loaded;     /* every file loaded, to skip repeats */
	size_t n_loaded;
	uint32_t *knob_slots;       /* open addressing: 1 + index into p->knobs, 0 free */
};


#define FAIL_AT(ld, file, node, ...)                                                  \
	(mb_error_set((ld)->err, (file), (node)->line, (node)->col, __VA_ARGS__), -EINVAL)

static const char *remember_file(struct profile *p, const char *name)
{
	p->files = xreallocarray(p->files, p->n_files + 1, sizeof(*p->files));
	p->files[p->n_files] = xstrdup(name);
	return p->files[p->n_files++];
}

static struct mark mark_of(const char *file, const struct ynode *n)
{
	return (struct mark){ .file = file, .line = n->line, .col = n->col };
}

static const char *type_name(const struct ynode *n)
{
	return n->type == YNODE_MAP ? "a mapping" : n->type == YNODE_SEQ ? "a list" : "a scalar";
}

struct key_ref {
	const char *s;
	size_t i;
};

static int key_ref_cmp(const void *a, const void *b)
{
	const struct key_ref *x = a, *y = b;
	int c = strcmp(x->s, y->s);

	return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* Among the first n scalar keys of map: the first one (in file order) equal
 * to an earlier one, and the earliest of those, as a pairwise scan would
 * find them, but by sorting (key, position): O(n log n) even for the largest
 * map a file can hold. Returns false when all differ. */
static bool find_duplicate_key(const struct ynode *map, size_t n, size_t *ret_dup, size_t *ret_first)
{
	struct key_ref *refs;
	bool found = false;

	if (n < 2)
		return false;
	refs = xcalloc(n, sizeof(*refs));
	for (size_t i = 0; i < n; i++)
		refs[i] = (struct key_ref){ .s = map->items[2 * i]->value, .i = i };
	qsort(refs, n, sizeof(*refs), key_ref_cmp);
	/* In each run of equal keys the first is the earliest, the second the
	 * first repeat: report the run whose repeat comes first. */
	for (size_t j = 1; j < n; j++) {
		if (strcmp(refs[j - 1].s, refs[j].s) != 0 || (j >= 2 && strcmp(refs[j - 2].s, refs[j].s) == 0))
			continue;
		if (!found || refs[j].i < *ret_dup) {
			*ret_dup = refs[j].i;
			*ret_first = refs[j - 1].i;
			found = true;
		}
	}
	free(refs);
	return found;
}

/* Checks the map's keys are scalars and unique; the first offending key in
 * file order is reported. */
static int check_map_keys(struct loader *ld, const char *file, const struct ynode *map)
{
	size_t n = map->n_items / 2, scalars = 0, dup = 0, first = 0;

	while (scalars < n && map->items[2 * scalars]->type == YNODE_SCALAR)
		scalars++;
	if (find_duplicate_key(map, scalars, &dup, &first))
		return FAIL_AT(ld, file, map->items[2 * dup], "duplicate key '%s' (first at line %d)",
			       map->items[2 * dup]->value, map->items[2 * first]->line);
	if (scalars < n)
		return FAIL_AT(ld, file, map->items[2 * scalars], "mapping keys must be scalars, not %s",
			       type_name(map->items[2 * scalars]));
	return 0;
}

static int expect_map(struct loader *ld, const char *file, const struct ynode *n, const char *what)
{
	if (n->type != YNODE_MAP)
		return FAIL_AT(ld, file, n, "%s must be a mapping, not %s", what,
			       ynode_is_null(n) ? "empty" : type_name(n));
	return check_map_keys(ld, file, n);
}

static int expect_scalar(struct loader *ld, const char *file, const struct ynode *n, const char *what)
{
	if (n->type != YNODE_SCALAR || ynode_is_null(n))
		return FAIL_AT(ld, file, n, "%s must be a scalar value, not %s", what,
			       n->type == YNODE_SCALAR ? "empty" : type_name(n));
	return 0;
}

static int parse_bool(struct loader *ld, const char *file, const struct ynode *n, const char *what, bool *ret)
{
	int r = expect_scalar(ld, file, n, what);

	if (r < 0)
		return r;
	if (strcmp(n->value, "true") == 0)
		*ret = true;
	else if (strcmp(n->value, "false") == 0)
		*ret = false;
	else
		return FAIL_AT(ld, file, n, "%s must be true or false, not '%s'", what, n->value);
	return 0;
}

static int parse_uint(struct loader *ld, const char *file, const struct ynode *n, const char *what,
		      unsigned long long max, unsigned long long *ret)
{
	unsigned long long v = 0;
	int r = expect_scalar(ld, file, n, what);

	if (r < 0)
		return r;
	for (const char *s = n->value; *s; s++) {
		if (*s < '0' || *s > '9')
			return FAIL_AT(ld, file, n, "%s must be a non-negative integer, not '%s'", what, n->value);
		if (v > (max - (unsigned)(*s - '0')) / 10)
			return FAIL_AT(ld, file, n, "%s must be at most %llu", what, max);
		v = v * 10 + (unsigned)(*s - '0');
	}
	*ret = v;
	return 0;
}

static int parse_number(struct loader *ld, const char *file, const struct ynode *n, const char *what, double min_excl,
			double max, double *ret)
{
	char *end;
	double v;
	int r = expect_scalar(ld, file, n, what);

	if (r < 0)
		return r;
	errno = 0;
	v = strtod(n->value, &end);
	if (errno || *end || end == n->value || !isfinite(v) || strpbrk(n->value, "xXnN"))
		return FAIL_AT(ld, file, n, "%s must be a number, not '%s'", what, n->value);
	if (!(v > min_excl) || v > max)
		return FAIL_AT(ld, file, n, "%s must be greater than %g and at most %g, not '%s'", what, min_excl, max,
			       n->value);
	*ret = v;
	return 0;
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 14695981039346656037ULL; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* Sets a knob: a path seen before keeps its place (the order knobs are
 * applied in) and takes the new value; a new one goes last, up to
 * PROFILE_MAX_KNOBS. Takes k's strings on success. O(1) through the index. */
static int set_knob(struct loader *ld, const char *file, const struct ynode *key, struct knob_setting *k)
{
	struct profile *p = ld->p;
	size_t s = hash_str(k->path) & (KNOB_SLOTS - 1);

	for (; ld->knob_slots[s]; s = (s + 1) & (KNOB_SLOTS - 1)) {
		struct knob_setting *old = &p->knobs[ld->knob_slots[s] - 1];

		if (strcmp(old->path, k->path) == 0) {
			free(old->path);
			free(old->value);
			*old = *k;
			return 0;
		}
	}
	if (p->n_knobs >= PROFILE_MAX_KNOBS)
		return FAIL_AT(ld, file, key, "too many keys (limit %d sysctl and sysfs keys across the profile and its includes)",
			       PROFILE_MAX_KNOBS);
	if (p->n_knobs % 64 == 0)
		p->knobs = xreallocarray(p->knobs, p->n_knobs + 64, sizeof(*p->knobs));
	p->knobs[p->n_knobs++] = *k;
	ld->knob_slots[s] = (uint32_t)p->n_knobs;
	return 0;
}

/* The value against the key's schema: out of range is an error here, where
 * FILE:LINE:COL can name it, not a write the kernel refuses halfway through
 * an apply. Whether it is dangerous is checked once the whole profile is
 * loaded (check_dangerous), since allow_dangerous may come later. */
static int check_value(struct loader *ld, const char *file, const struct ynode *value, const char *name,
		       struct knob_setting *k)
{
	const struct value_schema *s = value_schema_find(name);
	char why[256];

	if (!s)
		return FAIL_AT(ld, file, value, "'%s' has no value schema (a bug: every allowed key has one)", name);
	if (value_schema_check(s, value->value, &k->dangerous, why, sizeof(why)) < 0)
		return FAIL_AT(ld, file, value, "invalid value '%s' for '%s': %s", value->value, name, why);
	return 0;
}

/* value: scalar, or {value: X, optional: true|false} */
static int parse_knob_value(struct loader *ld, const char *file, const struct ynode *n, const char *name,
			    struct knob_setting *k)
{
	const struct ynode *value = NULL;
	int r;

	k->optional = false;
	if (n->type == YNODE_MAP) {
		r = check_map_keys(ld, file, n);
		if (r < 0)
			return r;
		for (size_t i = 0; i < n->n_items; i += 2) {
			const struct ynode *key = n->items[i], *v = n->items[i + 1];

			if (strcmp(key->value, "value") == 0)
				value = v;
			else if (strcmp(key->value, "optional") == 0) {
				r = parse_bool(ld, file, v, "optional", &k->optional);
				if (r < 0)
					return r;
			} else
				return FAIL_AT(ld, file, key, "unknown key '%s' for '%s' (expected value, optional)",
					       key->value, name);
		}
		if (!value)
			return FAIL_AT(ld, file, n, "'%s' has no value", name);
	} else
		value = n;

	if (value->type != YNODE_SCALAR || ynode_is_null(value))
		return FAIL_AT(ld, file, value, "'%s' must have a scalar value, not %s", name,
			       value->type == YNODE_SCALAR ? "empty" : type_name(value));
	if (strlen(value->value) > PROFILE_VALUE_MAX)
		return FAIL_AT(ld, file, value, "value of '%s' is longer than %d characters", name, PROFILE_VALUE_MAX);
	if (strpbrk(value->value, "\n\r"))
		return FAIL_AT(ld, file, value, "value of '%s' must be a single line", name);
	if (strpbrk(value->value, "[]"))
		return FAIL_AT(ld, file, value, "value of '%s' must not contain brackets", name);
	r = check_value(ld, file, value, name, k);
	if (r < 0)
		return r;
	k->value_mark = mark_of(file, value);
	k->value = xstrdup(value->value);
	return 0;
}

static int parse_knobs(struct loader *ld, const char *file, const struct ynode *map, enum knob_kind kind)
{
	int r = expect_map(ld, file, map, kind == KNOB_SYSCTL ? "sysctl" : "sysfs");

	if (r < 0)
		return r;
	for (size_t i = 0; i < map->n_items; i += 2) {
		const struct ynode *key = map->items[i];
		struct knob_setting k = { .kind = kind, .mark = mark_of(file, key) };
		const char *why = NULL;

		if (kind == KNOB_SYSCTL) {
			k.path = knob_sysctl_path(key->value, &why);
			if (!k.path)
				return FAIL_AT(ld, file, key, "invalid sysctl key '%s': %s", key->value, why);
		} else {
			r = knob_check_path(key->value, &why);
			if (r < 0)
				return FAIL_AT(ld, file, key, "invalid sysfs path '%s': %s", key->value, why);
			if (r != KNOB_SYSFS)
				return FAIL_AT(ld, file, key, "invalid sysfs path '%s': /proc/sys belongs in the sysctl section",
					       key->value);
			k.path = xstrdup(key->value);
		}
		r = parse_knob_value(ld, file, map->items[i + 1], key->value, &k);
		if (r == 0)
			r = set_knob(ld, file, key, &k);
		if (r < 0) {
			free(k.path);
			free(k.value);
			return r;
		}
	}
	return 0;
}

static int parse_drain(struct loader *ld, const char *file, const struct ynode *map)
{
	int r = expect_map(ld, file, map, "drain");

	if (r < 0)
		return r;
	/* Errors about the method (also the default one) point here unless a
	 * method key says otherwise. */
	ld->p->drain_method_mark = mark_of(file, map);
	for (size_t i = 0; i < map->n_items; i += 2) {
		const struct ynode *key = map->items[i], *v = map->items[i + 1];
		unsigned long long u;

		if (strcmp(key->value, "on_exit") == 0)
			r = parse_bool(ld, file, v, "drain.on_exit", &ld->p->drain.on_exit);
		else if (strcmp(key->value, "min_rss_mb") == 0) {
			r = parse_uint(ld, file, v, "drain.min_rss_mb", 1ULL << 40, &u);
			if (r == 0)
				ld->p->drain.min_rss_mb = u;
		} else if (strcmp(key->value, "max_per_second") == 0)
			r = parse_number(ld, file, v, "drain.max_per_second", 0, 1000, &ld->p->drain.max_per_second);
		else if (strcmp(key->value, "method") == 0) {
			r = expect_scalar(ld, file, v, "drain.method");
			if (r == 0 && drain_method_parse(v->value, &ld->p->drain.method) < 0)
				r = FAIL_AT(ld, file, v, "drain.method must be auto, sysctl or migrate_pages, not '%s'",
					    v->value);
			if (r == 0)
				ld->p->drain_method_mark = mark_of(file, v);
		} else
			r = FAIL_AT(ld, file, key,
				    "unknown key 'drain.%s' (expected on_exit, min_rss_mb, max_per_second, method)",
				    key->value);
		if (r < 0)
			return r;
	}
	return 0;
}

static bool is_bench_name(const char *s)
{
	if (!*s || strlen(s) > 32)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_' || *s == '-'))
			return false;
	return true;
}

static int parse_smoke(struct loader *ld, const char *file, const struct ynode *map)
{
	struct smoke_settings *s = &ld->p->smoke;
	int r = expect_map(ld, file, map, "smoke");

	if (r < 0)
		return r;
	for (size_t i = 0; i < map->n_items; i += 2) {
		const struct ynode *key = map->items[i], *v = map->items[i + 1];
		unsigned long long u;

		if (strcmp(key->value, "benchmarks") == 0) {
			if (v->type != YNODE_SEQ || v->n_items == 0)
				return FAIL_AT(ld, file, v, "smoke.benchmarks must be a non-empty list of benchmark names");
			/* The limit keeps the pairwise check below small. */
			if (v->n_items > PROFILE_MAX_BENCHMARKS)
				return FAIL_AT(ld, file, v->items[PROFILE_MAX_BENCHMARKS],
					       "smoke.benchmarks: more than %d benchmarks", PROFILE_MAX_BENCHMARKS);
			for (size_t j = 0; j < v->n_items; j++) {
				const struct ynode *b = v->items[j];

				if (b->type != YNODE_SCALAR || !is_bench_name(b->value))
					return FAIL_AT(ld, file, b, "smoke.benchmarks: invalid benchmark name%s%s%s",
						       b->type == YNODE_SCALAR ? " '" : "",
						       b->type == YNODE_SCALAR ? b->value : "",
						       b->type == YNODE_SCALAR ? "'" : "");
				for (size_t k = 0; k < j; k++)
					if (strcmp(v->items[k]->value, b->value) == 0)
						return FAIL_AT(ld, file, b, "smoke.benchmarks: '%s' is listed twice",
							       b->value);
			}
			for (size_t j = 0; j < s->n_benchmarks; j++)
				free(s->benchmarks[j]);
			free(s->benchmarks);
			s->n_benchmarks = v->n_items;
			s->benchmarks = xcalloc(v->n_items, sizeof(char *));
			for (size_t j = 0; j < v->n_items; j++)
				s->benchmarks[j] = xstrdup(v->items[j]->value);
		} else if (strcmp(key->value, "threshold_pct") == 0)
			r = parse_number(ld, file, v, "smoke.threshold_pct", 0, 100, &s->threshold_pct);
		else if (strcmp(key->value, "timeout_s") == 0) {
			r = parse_uint(ld, file, v, "smoke.timeout_s", 86400, &u);
			if (r == 0 && u == 0)
				r = FAIL_AT(ld, file, v, "smoke.timeout_s must be at least 1");
			if (r == 0)
				s->timeout_s = (unsigned)u;
		} else
			r = FAIL_AT(ld, file, key, "unknown key 'smoke.%s' (expected benchmarks, threshold_pct, timeout_s)",
				    key->value);
		if (r < 0)
			return r;
	}
	return 0;
}

static int load_file(struct loader *ld, const char *name, const struct load_frame *parent, const char *parent_file,
		     const struct ynode *from);

/* allow_dangerous: [KEY, ...], each a key of the allowlists, as the sysctl
 * and sysfs sections name it. Added to what includes allowed. */
static int parse_allow_dangerous(struct loader *ld, const char *file, const struct ynode *v)
{
	struct profile *p = ld->p;

	if (v->type != YNODE_SEQ)
		return FAIL_AT(ld, file, v, "allow_dangerous must be a list of keys, not %s",
			       ynode_is_null(v) ? "empty" : type_name(v));
	if (v->n_items > PROFILE_MAX_KNOBS)
		return FAIL_AT(ld, file, v->items[PROFILE_MAX_KNOBS], "allow_dangerous: more than %d keys", PROFILE_MAX_KNOBS);
	for (size_t i = 0; i < v->n_items; i++) {
		const struct ynode *it = v->items[i];
		const char *why = NULL;
		char *path = NULL;
		bool known;

		if (it->type != YNODE_SCALAR || ynode_is_null(it))
			return FAIL_AT(ld, file, it, "allow_dangerous: each entry must be a key (a dotted sysctl or a sysfs path)");
		if (it->value[0] == '/')
			known = sysfs_key_find(it->value) != NULL;
		else
			known = (path = knob_sysctl_path(it->value, &why)) != NULL;
		free(path);
		if (!known)
			return FAIL_AT(ld, file, it, "allow_dangerous: '%s' is not a key a profile may set (mmbatchd --list-keys lists them)",
				       it->value);
		if (p->n_allow_dangerous >= PROFILE_MAX_KNOBS)
			return FAIL_AT(ld, file, it, "allow_dangerous: more than %d keys across the profile and its includes",
				       PROFILE_MAX_KNOBS);
		p->allow_dangerous = xreallocarray(p->allow_dangerous, p->n_allow_dangerous + 1, sizeof(char *));
		p->allow_dangerous[p->n_allow_dangerous++] = xstrdup(it->value);
	}
	return 0;
}

static bool allowed_dangerous(const struct profile *p, const char *name)
{
	for (size_t i = 0; i < p->n_allow_dangerous; i++)
		if (strcmp(p->allow_dangerous[i], name) == 0)
			return true;
	return false;
}

/* After the whole load: every dangerous value must be opted into by name.
 * The first one (in apply order) that is not is the error, at its value. */
static int check_dangerous(const struct profile *p, struct mb_error *err)
{
	for (size_t i = 0; i < p->n_knobs; i++) {
		const struct knob_setting *k = &p->knobs[i];
		const struct value_schema *s;
		char *name;

		if (!k->dangerous)
			continue;
		name = knob_display_name(k->path);
		if (allowed_dangerous(p, name)) {
			free(name);
			continue;
		}
		s = value_schema_find(name);
		mb_error_set(err, k->value_mark.file, k->value_mark.line, k->value_mark.col,
			     "'%s' for '%s' is dangerous (%s): name '%s' in allow_dangerous to set it", k->value, name,
			     s && s->danger_why ? s->danger_why : "see mmbatchd.yaml(5)", name);
		free(name);
		return -EINVAL;
	}
	return 0;
}

/* Finds an include: bare names next to the including file, then in the
 * search dir; relative paths relative to the including file. */
static char *find_include(const char *including, const char *name)
{
	char *copy = xstrdup(including), *dir, *path;

	dir = dirname(copy);
	if (name[0] == '/')
		path = xstrdup(name);
	else
		path = xasprintf("%s/%s", dir, name);
	free(copy);
	if (!strchr(name, '/') && access(path, F_OK) < 0 && search_dir) {
		free(path);
		path = xasprintf("%s/%s", search_dir, name);
	}
	return path;
}

static int parse_includes(struct loader *ld, const char *file, const struct ynode *v, const struct load_frame *frame)
{
	const struct ynode *const *items = (const struct ynode *const *)&v;
	size_t n = 1;
	int r;

	if (!ld->allow_include)
		return FAIL_AT(ld, file, v, "include is not allowed here");
	if (v->type == YNODE_SEQ) {
		items = (const struct ynode *const *)v->items;
		n = v->n_items;
	}
	for (size_t i = 0; i < n; i++) {
		const struct ynode *it = items[i];
		char *path;

		if (it->type != YNODE_SCALAR || ynode_is_null(it))
			return FAIL_AT(ld, file, it, "include must be a file name or a list of file names");
		if (++ld->n_includes > PROFILE_MAX_INCLUDES)
			return FAIL_AT(ld, file, it, "too many includes (limit %d across the profile and its includes)",
				       PROFILE_MAX_INCLUDES);
		path = find_include(file, it->value);
		r = load_file(ld, path, frame, file, it);
		free(path);
		if (r < 0)
			return r;
	}
	return 0;
}

static int walk_top(struct loader *ld, const char *file, const struct ynode *root, const struct load_frame *frame)
{
	const struct ynode *include = NULL;
	int r;

	if (!root)
		return mb_error_set(ld->err, file, 1, 1, "profile is empty (expected a mapping)"), -EINVAL;
	r = expect_map(ld, file, root, "a profile");
	if (r < 0)
		return r;
	for (size_t i = 0; i < root->n_items; i += 2)
		if (strcmp(root->items[i]->value, "include") == 0)
			include = root->items[i + 1];
	if (include) {
		r = parse_includes(ld, file, include, frame);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < root->n_items; i += 2) {
		const struct ynode *key = root->items[i], *v = root->items[i + 1];

		if (strcmp(key->value, "include") == 0)
			continue;
		if (strcmp(key->value, "sysctl") == 0)
			r = parse_knobs(ld, file, v, KNOB_SYSCTL);
		else if (strcmp(key->value, "sysfs") == 0)
			r = parse_knobs(ld, file, v, KNOB_SYSFS);
		else if (strcmp(key->value, "drain") == 0)
			r = parse_drain(ld, file, v);
		else if (strcmp(key->value, "smoke") == 0)
			r = parse_smoke(ld, file, v);
		else if (strcmp(key->value, "rollback") == 0) {
			r = expect_scalar(ld, file, v, "rollback");
			if (r == 0 && strcmp(v->value, "on_stop") == 0)
				ld->p->rollback = ROLLBACK_ON_STOP;
			else if (r == 0 && strcmp(v->value, "never") == 0)
				ld->p->rollback = ROLLBACK_NEVER;
			else if (r == 0)
				r = FAIL_AT(ld, file, v, "rollback must be on_stop or never, not '%s'", v->value);
		} else if (strcmp(key->value, "metrics_file") == 0) {
			r = expect_scalar(ld, file, v, "metrics_file");
			if (r == 0 && v->value[0] != '/')
				r = FAIL_AT(ld, file, v, "metrics_file must be an absolute path");
			if (r == 0) {
				free(ld->p->metrics_file);
				ld->p->metrics_file = xstrdup(v->value);
				ld->p->metrics_file_mark = mark_of(file, v);
			}
		} else if (strcmp(key->value, "allow_dangerous") == 0)
			r = parse_allow_dangerous(ld, file, v);
		else
			r = FAIL_AT(ld, file, key,
				    "unknown key '%s' (expected include, sysctl, sysfs, drain, smoke, rollback, metrics_file, allow_dangerous)",
				    key->value);
		if (r < 0)
			return r;
	}
	return 0;
}

static int load_data(struct loader *ld, const char *file, const char *data, size_t len, const struct load_frame *frame)
{
	struct ynode *root = NULL;
	int r;

	r = ytree_parse(file, data, len, &root, ld->err);
	if (r < 0)
		return r;
	r = walk_top(ld, file, root, frame);
	ytree_free(root);
	return r;
}

static bool already_loaded(const struct loader *ld, const struct stat *st)
{
	for (size_t i = 0; i < ld->n_loaded; i++)
		if (ld->loaded[i].dev == st->st_dev && ld->loaded[i].ino == st->st_ino)
			return true;
	return false;
}

/* from: the include item naming this file in parent_file (NULL for the top
 * file); errors about the file as a whole point there. */
static int load_file(struct loader *ld, const char *name, const struct load_frame *parent, const char *parent_file,
		     const struct ynode *from)
{
	struct load_frame frame = { .parent = parent, .depth = parent ? parent->depth + 1 : 0 };
	struct trust_refusal refusal;
	char reason[PATH_MAX + 64];
	const char *file;
	char *data = NULL;
	struct stat st;
	size_t len = 0;
	int fd, r;

#define FAIL_FILE(...) \
	(from ? FAIL_AT(ld, parent_file, from, __VA_ARGS__) : (mb_error_set(ld->err, name, 1, 1, __VA_ARGS__), -EINVAL))

	if (frame.depth > PROFILE_MAX_INCLUDE_DEPTH)
		return FAIL_FILE("includes nested deeper than %d", PROFILE_MAX_INCLUDE_DEPTH);
	/* Never blocks (a FIFO is refused unopened) and checks every directory
	 * on the way. */
	fd = trust_open(name, &st, &refusal);
	if (fd == -EPERM)
		return FAIL_FILE("refusing untrusted %s '%s': %s", from ? "include" : "profile", name,
				 trust_refusal_str(&refusal, reason, sizeof(reason)));
	if (fd < 0)
		return from ? FAIL_FILE("cannot open include '%s': %s", name, strerror(-fd))
			    : FAIL_FILE("cannot open profile: %s", strerror(-fd));
	for (const struct load_frame *f = parent; f; f = f->parent) {
		if (f->dev == st.st_dev && f->ino == st.st_ino) {
			r = FAIL_FILE("include cycle: '%s' is already being loaded", name);
			goto out;
		}
	}
	if (already_loaded(ld, &st)) {
		r = 0; /* its keys already took effect at its first include */
		goto out;
	}
	if (st.st_size > PROFILE_MAX_BYTES) {
		r = FAIL_FILE("'%s' is larger than %d bytes", name, PROFILE_MAX_BYTES);
		goto out;
	}
	if ((size_t)st.st_size > PROFILE_MAX_TOTAL_BYTES - ld->total_bytes) {
		r = FAIL_FILE("'%s' is too large: the profile and its includes may hold at most %d bytes in total", name,
			      PROFILE_MAX_TOTAL_BYTES);
		goto out;
	}
	/* Up to the size fstat saw: a file that grows meanwhile is cut there. */
	data = xcalloc((size_t)st.st_size + 1, 1);
	while (len < (size_t)st.st_size) {
		ssize_t n = read(fd, data + len, (size_t)st.st_size - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = FAIL_FILE("cannot read '%s': %s", name, strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	ld->total_bytes += len;
	ld->loaded = xreallocarray(ld->loaded, ld->n_loaded + 1, sizeof(*ld->loaded));
	ld->loaded[ld->n_loaded++] = (struct file_id){ .dev = st.st_dev, .ino = st.st_ino };
	frame.name = name;
	frame.dev = st.st_dev;
	frame.ino = st.st_ino;
	file = remember_file(ld->p, name);
	r = load_data(ld, file, data, len, &frame);
out:
	free(data);
	close(fd);
	return r;
#undef FAIL_FILE
}

static struct profile *profile_new(const char *path)
{
	struct profile *p = xcalloc(1, sizeof(*p));
	static const char *const default_benchmarks[] = { "fault", "munmap", "exitdrain", "integrity" };

	p->path = xstrdup(path);
	p->drain = (struct drain_policy){ .on_exit = false, .min_rss_mb = 256, .max_per_second = 1, .method = DRAIN_AUTO };
	p->smoke.n_benchmarks = 4;
	p->smoke.benchmarks = xcalloc(4, sizeof(char *));
	for (size_t i = 0; i < 4; i++)
		p->smoke.benchmarks[i] = xstrdup(default_benchmarks[i]);
	p->smoke.threshold_pct = 5;
	p->smoke.timeout_s = 60;
	p->rollback = ROLLBACK_ON_STOP;
	return p;
}

static void loader_init(struct loader *ld, const char *path, struct mb_error *err, bool allow_include)
{
	*ld = (struct loader){ .p = profile_new(path), .err = err, .allow_include = allow_include };
	ld->knob_slots = xcalloc(KNOB_SLOTS, sizeof(*ld->knob_slots));
}

static void loader_fini(struct loader *ld)
{
	free(ld->knob_slots);
	free(ld->loaded);
}

int profile_load(const char *path, struct profile **ret, struct mb_error *err)
{
	struct loader ld;
	int r;

	loader_init(&ld, path, err, true);
	r = load_file(&ld, path, NULL, NULL, NULL);
	if (r == 0)
		r = check_dangerous(ld.p, err);
	loader_fini(&ld);
	if (r < 0) {
		profile_free(ld.p);
		return r;
	}
	*ret = ld.p;
	return 0;
}

int profile_load_string(const char *name, const char *data, size_t len, struct profile **ret, struct mb_error *err)
{
	struct load_frame frame = { .name = name };
	struct loader ld;
	int r;

	loader_init(&ld, name, err, false);
	if (len > PROFILE_MAX_BYTES)
		r = (mb_error_set(err, name, 1, 1, "'%s' is larger than %d bytes", name, PROFILE_MAX_BYTES), -EINVAL);
	else
		r = load_data(&ld, remember_file(ld.p, name), data, len, &frame);
	if (r == 0)
		r = check_dangerous(ld.p, err);
	loader_fini(&ld);
	if (r < 0) {
		profile_free(ld.p);
		return r;
	}
	*ret = ld.p;
	return 0;
}

void profile_free(struct profile *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_knobs; i++) {
		free(p->knobs[i].path);
		free(p->knobs[i].value);
	}
	free(p->knobs);
	for (size_t i = 0; i < p->n_files; i++)
		free(p->files[i]);
	free(p->files);
	for (size_t i = 0; i < p->smoke.n_benchmarks; i++)
		free(p->smoke.benchmarks[i]);
	free(p->smoke.benchmarks);
	free(p->metrics_file);
	for (size_t i = 0; i < p->n_allow_dangerous; i++)
		free(p->allow_dangerous[i]);
	free(p->allow_dangerous);
	free(p->path);
	free(p);
}

const char *rollback_mode_name(enum rollback_mode m)
{
	return m == ROLLBACK_NEVER ? "never" : "on_stop";
}

char *profile_smoke_json(const struct profile *p)
{
	struct strbuf b = { 0 };
	char num[64];

	sb_printf(&b, "{\"benchmarks\":[");
	for (size_t i = 0; i < p->smoke.n_benchmarks; i++) {
		if (i)
			sb_printf(&b, ",");
		sb_json_str(&b, p->smoke.benchmarks[i]);
	}
	/* Always print a decimal point, so that consumers see a float. */
	snprintf(num, sizeof(num), "%.15g", p->smoke.threshold_pct);
	if (!strpbrk(num, ".e"))
		strcat(num, ".0");
	sb_printf(&b, "],\"threshold_pct\":%s,\"timeout_s\":%u}", num, p->smoke.timeout_s);
	return b.s;
}
