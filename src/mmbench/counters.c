/* Kernel counter parsers and snapshots (see counters.h). */
#include "counters.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mb_parse_vmstat(const char *text, struct mb_counters *c)
{
	const char *p = text;

	c->nvm = 0;
	while (*p) {
		const char *eol = strchr(p, '\n');
		char name[48];
		unsigned long long v;

		if (!eol)
			eol = p + strlen(p);
		if (sscanf(p, "%47s %llu", name, &v) == 2 && c->nvm < MB_VMSTAT_MAX) {
			snprintf(c->vm[c->nvm].name, sizeof(c->vm[c->nvm].name), "%s", name);
			c->vm[c->nvm].value = v;
			c->nvm++;
		}
		p = *eol ? eol + 1 : eol;
	}
	return c->nvm > 0 ? 0 : -EINVAL;
}

int mb_vmstat_get(const struct mb_counters *c, const char *name, uint64_t *ret)
{
	for (size_t i = 0; i < c->nvm; i++)
		if (strcmp(c->vm[i].name, name) == 0) {
			*ret = c->vm[i].value;
			return 0;
		}
	return -ENOENT;
}

/* Finds the line whose first token is `label` (e.g. "TLB:"). */
static const char *find_row(const char *text, const char *label)
{
	size_t len = strlen(label);

	for (const char *p = text; p && *p;) {
		const char *s = p;

		while (*s == ' ' || *s == '\t')
			s++;
		if (strncmp(s, label, len) == 0 && (s[len] == ' ' || s[len] == '\t'))
			return s + len;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

int mb_parse_tlb(const char *interrupts, uint64_t *ret)
{
	const char *p = find_row(interrupts, "TLB:");
	uint64_t sum = 0;
	int ncols = 0;

	if (!p)
		return -ENOENT;
	/* per-CPU columns are numbers; the description ("TLB shootdowns") ends them */
	for (;;) {
		char *end;
		unsigned long long v;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!isdigit((unsigned char)*p))
			break;
		v = strtoull(p, &end, 10);
		sum += v;
		ncols++;
		p = end;
	}
	if (ncols == 0)
		return -EINVAL;
	*ret = sum;
	return 0;
}

/* lock_stat rows: "<class>: con-bounces contentions waittime-min -max -total
 * [-avg] acq-bounces acquisitions holdtime...". Version 0.4 added the two
 * -avg columns, so acquisitions is the 8th number there and the 7th in 0.3. */
int mb_parse_lockstat_acq(const char *text, const char *cls, uint64_t *ret)
{
	char want[96];
	int acq_index, found = 0;
	uint64_t sum = 0;
	unsigned major, minor;

	if (sscanf(text, "lock_stat version %u.%u", &major, &minor) != 2)
		return -EINVAL;
	if (major == 0 && minor == 3)
		acq_index = 6;
	else if (major == 0 && minor == 4)
		acq_index = 7;
	else
		return -EINVAL;
	snprintf(want, sizeof(want), "%s:", cls);

	for (const char *p = text; p && *p;) {
		const char *s = p;
		size_t wl = strlen(want);

		while (*s == ' ')
			s++;
		/* the class row itself, and its -R / -W read/write rows */
		if (strncmp(s, cls, strlen(cls)) == 0 &&
		    (strncmp(s, want, wl) == 0 || strncmp(s + strlen(cls), "-R:", 3) == 0 ||
		     strncmp(s + strlen(cls), "-W:", 3) == 0)) {
			const char *q = strchr(s, ':') + 1;
			double v = 0;

			for (int i = 0; i <= acq_index; i++) {
				char *end;

				v = strtod(q, &end);
				if (end == q)
					return -EINVAL;
				q = end;
			}
			sum += (uint64_t)v;
			found = 1;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	if (!found)
		return -ENOENT;
	*ret = sum;
	return 0;
}

int mb_parse_zoneinfo_pcp(const char *zoneinfo, uint64_t *ret_pages)
{
	uint64_t sum = 0;
	int found = 0;

	for (const char *p = zoneinfo; p && *p;) {
		const char *s = p;
		unsigned long long v;

		while (*s == ' ')
			s++;
		if (strncmp(s, "count:", 6) == 0 && sscanf(s + 6, "%llu", &v) == 1) {
			sum += v;
			found = 1;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	if (!found)
		return -ENOENT;
	*ret_pages = sum;
	return 0;
}

int mb_parse_meminfo(const char *meminfo, const char *key, uint64_t *ret_kib)
{
	char label[64];
	const char *p;
	unsigned long long v;

	snprintf(label, sizeof(label), "%s:", key);
	p = find_row(meminfo, label);
	if (!p || sscanf(p, "%llu", &v) != 1)
		return -ENOENT;
	*ret_kib = v;
	return 0;
}

int mb_counters_snapshot(struct mb_counters *c)
{
	char *text;
	int r;

	r = mb_read_file("/proc/vmstat", &text, NULL);
	if (r < 0)
		return r;
	r = mb_parse_vmstat(text, c);
	free(text);
	if (r < 0)
		return r;

	c->has_tlb = 0;
	if (mb_read_file("/proc/interrupts", &text, NULL) == 0) {
		c->has_tlb = mb_parse_tlb(text, &c->tlb) == 0;
		free(text);
	}
	c->has_lru = 0;
	if (mb_read_file("/proc/lock_stat", &text, NULL) == 0) {
		c->has_lru = mb_parse_lockstat_acq(text, MB_LRU_LOCK_CLASS, &c->lru_acq) == 0;
		free(text);
	}
	return 0;
}

void mb_counters_delta(const struct mb_counters *before, const struct mb_counters *after,
		       struct mb_counters *delta)
{
	delta->nvm = 0;
	for (size_t i = 0; i < after->nvm; i++) {
		uint64_t old;

		if (mb_vmstat_get(before, after->vm[i].name, &old) < 0)
			continue;
		delta->vm[delta->nvm] = after->vm[i];
		delta->vm[delta->nvm].value = after->vm[i].value - old;
		delta->nvm++;
	}
	delta->has_tlb = before->has_tlb && after->has_tlb;
	delta->tlb = delta->has_tlb ? after->tlb - before->tlb : 0;
	delta->has_lru = before->has_lru && after->has_lru;
	delta->lru_acq = delta->has_lru ? after->lru_acq - before->lru_acq : 0;
}

int mb_mem_sample(struct mb_mem_sample *s)
{
	struct mb_counters *c;
	uint64_t inactive = 0, active = 0;
	char *text;
	int r;

	r = mb_read_file("/proc/meminfo", &text, NULL);
	if (r < 0)
		return r;
	r = mb_parse_meminfo(text, "MemFree", &s->memfree_kib);
	free(text);
	if (r < 0)
		return r;

	r = mb_read_file("/proc/zoneinfo", &text, NULL);
	if (r < 0)
		return r;
	r = mb_parse_zoneinfo_pcp(text, &s->pcp_pages);
	free(text);
	if (r < 0)
		return r;

	c = malloc(sizeof(*c));
	if (!c)
		return -ENOMEM;
	r = mb_read_file("/proc/vmstat", &text, NULL);
	if (r == 0) {
		r = mb_parse_vmstat(text, c);
		free(text);
	}
	if (r == 0) {
		(void)mb_vmstat_get(c, "nr_inactive_anon", &inactive);
		(void)mb_vmstat_get(c, "nr_active_anon", &active);
		s->anon_lru_pages = inactive + active;
	}
	free(c);
	return r;
}
