/* integrity --kind, the pure parts: the names of the kinds and movers, the
 * option checks and sizes, and the page data with its check (see
 * integrity_kinds.h). No system calls here but stat(2) of --dir. */
#include "integrity_kinds.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static const char *const kind_names[IK_NKINDS] = {
	"anon", "anon-thp", "fork-shared", "shmem", "file", "ksm", "mixed",
};
static const char *const kind_keys[IK_NKINDS] = {
	"anon", "anon_thp", "fork_shared", "shmem", "file", "ksm", "mixed",
};
static const char *const mover_names[IM_NMOVERS] = {
	"move_pages", "mbind", "migrate_pages", "compact", "numa-balancing",
};

const char *ik_kind_name(int kind) { return kind_names[kind]; }
const char *ik_kind_key(int kind) { return kind_keys[kind]; }
const char *ik_mover_name(int mover) { return mover_names[mover]; }

int ik_private(int kind)
{
	return kind != IK_SHMEM && kind != IK_FILE;
}

static int parse_names(const char *opt, const char *list, const char *const *names, int n,
		       unsigned *ret_mask, char *err, size_t err_size)
{
	unsigned mask = 0;
	const char *p = list;

	if (strcmp(list, "all") == 0) {
		*ret_mask = (1u << n) - 1;
		return 0;
	}
	for (;;) {
		size_t len = strcspn(p, ",");
		int found = -1;

		for (int i = 0; i < n && found < 0; i++)
			if (strlen(names[i]) == len && strncmp(p, names[i], len) == 0)
				found = i;
		if (found < 0) {
			char all[160] = "";

			for (int i = 0; i < n; i++)
				snprintf(all + strlen(all), sizeof(all) - strlen(all), "%s, ",
					 names[i]);
			snprintf(err, err_size, "option '%s': unknown name '%.*s' (one of: %sall)", opt,
				 (int)(len > 40 ? 40 : len), p, all);
			return -EINVAL;
		}
		mask |= 1u << found;
		if (!p[len])
			break;
		p += len + 1;
	}
	*ret_mask = mask;
	return 0;
}

int ik_parse_kinds(const char *list, unsigned *ret_mask, char *err, size_t err_size)
{
	return parse_names("--kind", list, kind_names, IK_NKINDS, ret_mask, err, err_size);
}

int ik_parse_movers(const char *list, unsigned *ret_mask, char *err, size_t err_size)
{
	return parse_names("--mover", list, mover_names, IM_NMOVERS, ret_mask, err, err_size);
}

void ik_mask_names(unsigned mask, int movers, char *buf, size_t size)
{
	int n = movers ? IM_NMOVERS : IK_NKINDS;

	buf[0] = '\0';
	for (int i = 0; i < n; i++)
		if (mask & (1u << i))
			snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", buf[0] ? "," : "",
				 movers ? mover_names[i] : kind_names[i]);
}

size_t ik_kind_pages(int kind, size_t pages)
{
	if (kind == IK_ANON_THP || kind == IK_MIXED) {
		/* mixed: at least one THP and as many small pages */
		size_t min = kind == IK_MIXED ? 2 * IK_THP_PAGES : IK_THP_PAGES;

		pages = (pages + IK_THP_PAGES - 1) / IK_THP_PAGES * IK_THP_PAGES;
		return pages < min ? min : pages;
	}
	return pages;
}

int ik_config(const struct mb_opts *o, struct ik_cfg *c, char *err, size_t err_size)
{
	const char *need = o->movers ? "--mover" : o->dir ? "--dir" :
			   o->min_migrations_text ? "--min-migrations" :
			   o->sharers ? "--sharers" : o->inject_corruption ? "--inject-corruption" :
			   NULL;
	struct stat st;
	int r;

	memset(c, 0, sizeof(*c));
	if (!o->kinds) {
		if (need) {
			snprintf(err, err_size, "option '%s' needs --kind", need);
			return -EINVAL;
		}
		return 0;
	}
	r = ik_parse_kinds(o->kinds, &c->kinds, err, err_size);
	if (r == 0)
		r = ik_parse_movers(o->movers ? o->movers : "all", &c->movers, err, err_size);
	if (r < 0)
		return r;
	if (o->dir && !(c->kinds & (1u << IK_FILE))) {
		snprintf(err, err_size, "option '--dir': only --kind file uses it");
		return -EINVAL;
	}
	if (o->dir && stat(o->dir, &st) < 0) {
		snprintf(err, err_size, "option '--dir': %s: %s", o->dir, strerror(errno));
		return -EINVAL;
	}
	if (o->dir && !S_ISDIR(st.st_mode)) {
		snprintf(err, err_size, "option '--dir': %s: %s", o->dir, strerror(ENOTDIR));
		return -EINVAL;
	}
	c->pages = o->pages ? (size_t)o->pages : o->quick ? IK_PAGES_QUICK : IK_PAGES;
	c->seconds = o->seconds > 0 ? o->seconds : o->quick ? 1.0 : 5.0;
	c->reps = mb_reps(o, 1, 1);
	c->writers = o->writers ? (int)o->writers : IK_WRITERS;
	c->sharers = o->sharers ? (int)o->sharers : IK_SHARERS;
	if (c->pages < IK_MIN_PAGES) {
		snprintf(err, err_size, "option '--pages': %zu pages, --kind needs at least %d",
			 c->pages, IK_MIN_PAGES);
		return -EINVAL;
	}
	if (c->writers > IK_MAX_WRITERS) {
		snprintf(err, err_size, "option '--writers': at most %d with --kind", IK_MAX_WRITERS);
		return -EINVAL;
	}
	if ((size_t)(c->writers + c->sharers) > c->pages / IK_CHUNK) {
		snprintf(err, err_size, "option '--writers': %d writers and %d sharers for %zu pages "
			 "(at most one per %d pages)", c->writers, c->sharers, c->pages, IK_CHUNK);
		return -EINVAL;
	}
	return 0;
}

int mb_integrity_check_opts(const struct mb_opts *o, char *err, size_t err_size)
{
	struct ik_cfg c;

	return ik_config(o, &c, err, err_size);
}

/* ---- the data ---- */

#define IK_MAGIC 0x6d6d696e74ULL /* "mmint" */

static uint64_t mix(uint64_t key, uint64_t gen, uint64_t word)
{
	uint64_t x = (key << 40 ^ gen << 12 ^ word) * 0x9E3779B97F4A7C15ULL;

	return x ^ x >> 29;
}

void ik_fill(volatile uint64_t *page, uint64_t key, uint64_t gen)
{
	page[0] = IK_MAGIC << 20 ^ key;
	page[1] = gen;
	for (size_t w = 2; w < IK_WORDS; w++)
		page[w] = mix(key, gen, w);
}

enum ik_verdict ik_check(const volatile uint64_t *page, uint64_t key, uint64_t gen, int zero,
			 uint64_t *ret_bad_bytes)
{
	uint64_t bad = 0, seen;
	int older;

	*ret_bad_bytes = 0;
	if (zero) {
		for (size_t w = 0; w < IK_WORDS; w++)
			bad += mb_diff_bytes(page[w], 0);
		*ret_bad_bytes = bad;
		return bad ? IK_CORRUPT : IK_OK;
	}
	bad = mb_diff_bytes(page[0], IK_MAGIC << 20 ^ key) + mb_diff_bytes(page[1], gen);
	for (size_t w = 2; w < IK_WORDS; w++)
		bad += mb_diff_bytes(page[w], mix(key, gen, w));
	if (bad == 0)
		return IK_OK;
	/* a whole earlier generation of this page: the later writes were lost */
	seen = page[1];
	older = page[0] == (IK_MAGIC << 20 ^ key) && seen < gen;
	for (size_t w = 2; older && w < IK_WORDS; w++)
		older = page[w] == mix(key, seen, w);
	if (older)
		return IK_LOST;
	*ret_bad_bytes = bad;
	return IK_CORRUPT;
}
