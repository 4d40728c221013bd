/* See value_schema.h. Sources: kernel/sysctl.c, kernel/sched/{core,fair}.c,
 * mm/{compaction,hugetlb,hugetlb_vmemmap,memory-failure,oom_kill,
 * page-writeback,page_alloc,swap,util}.c for the sysctls, mm/{huge_memory,
 * khugepaged,shmem,memory-tiers,swap_state,vmscan}.c for the sysfs files, of
 * Debian's linux-source-6.1 and linux-source-6.12. */
#include "value_schema.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Unsigned long knobs: proc_doulongvec_minmax takes up to ULONG_MAX; no
 * size or count of a real host comes near LLONG_MAX, which is our limit. */
#define ULONG_KNOB LLONG_MAX
/* proc_dointvec_jiffies refuses seconds above INT_MAX / HZ; HZ is at most
 * 1000 (Debian: 250), so this bound holds on every build. */
#define JIFFIES_SECONDS_MAX (INT_MAX / 1000)
#define NO_DANGER 1, 0

#define INT_RANGE(k, lo, hi, src) { .key = (k), .type = SCHEMA_INT, .min = (lo), .max = (hi), .danger_min = 1, .danger_max = 0, .source = (src) }
#define INT_DANGER(k, lo, hi, dlo, dhi, why, src)                                                          \
	{ .key = (k), .type = SCHEMA_INT, .min = (lo), .max = (hi), .danger_min = (dlo), .danger_max = (dhi), \
	  .danger_why = (why), .source = (src) }
#define CHOICE(k, words, src) { .key = (k), .type = SCHEMA_CHOICE, .choices = (words), .danger_min = 1, .danger_max = 0, .source = (src) }

#define THP "/sys/kernel/mm/transparent_hugepage/"
#define KHUGEPAGED THP "khugepaged/"

/* Sorted by key (strcmp), for bsearch: "/sys/..." sorts before the
 * lower-case sysctl keys. */
static const struct value_schema schemas[] = {
	CHOICE("/sys/kernel/mm/lru_gen/enabled", "0x0000 0x0001 0x0002 0x0003 0x0004 0x0005 0x0006 0x0007",
	       "vmscan.c enabled_store: kstrtouint of a capability mask; shown as 0x%04x (3 capabilities)"),
	/* min_ttl makes reclaim OOM-kill rather than evict pages younger than
	 * it. multigen_lru.rst's example is 1000 (one second); at ten seconds
	 * and more it is an OOM policy, not thrashing protection: the finding
	 * was its maximum, which OOM-kills whenever memory is short at all. */
	INT_DANGER("/sys/kernel/mm/lru_gen/min_ttl_ms", 0, UINT_MAX, 10001, UINT_MAX,
		   "OOM-kills whenever the working set of that many seconds does not fit in memory",
		   "vmscan.c min_ttl_ms_store: kstrtouint"),
	CHOICE("/sys/kernel/mm/numa/demotion_enabled", "true false",
	       "memory-tiers.c: kstrtobool, shown as true/false (the form that reads back)"),
	CHOICE("/sys/kernel/mm/swap/vma_ra_enabled", "true false",
	       "swap_state.c: kstrtobool, shown as true/false (the form that reads back)"),
	CHOICE(THP "defrag", "always defer defer+madvise madvise never", "huge_memory.c defrag_store: sysfs_streq"),
	CHOICE(THP "enabled", "always madvise never", "huge_memory.c enabled_store: sysfs_streq"),
	INT_RANGE(KHUGEPAGED "alloc_sleep_millisecs", 0, UINT_MAX, "khugepaged.c: kstrtouint"),
	INT_RANGE(KHUGEPAGED "defrag", 0, 1, "huge_memory.c single_hugepage_flag_store: value > 1 is -EINVAL"),
	INT_RANGE(KHUGEPAGED "max_ptes_none", 0, 511, "khugepaged.c: > HPAGE_PMD_NR - 1 is -EINVAL (4 KiB pages)"),
	INT_RANGE(KHUGEPAGED "max_ptes_shared", 0, 511, "khugepaged.c: > HPAGE_PMD_NR - 1 is -EINVAL (4 KiB pages)"),
	INT_RANGE(KHUGEPAGED "max_ptes_swap", 0, 511, "khugepaged.c: > HPAGE_PMD_NR - 1 is -EINVAL (4 KiB pages)"),
	INT_RANGE(KHUGEPAGED "pages_to_scan", 1, UINT_MAX, "khugepaged.c: kstrtouint, 0 is -EINVAL"),
	INT_RANGE(KHUGEPAGED "scan_sleep_millisecs", 0, UINT_MAX, "khugepaged.c: kstrtouint"),
	/* transhuge.rst: deny "for use in emergencies, to force the huge
	 * option off from all mounts", force "for testing": force puts huge
	 * pages under every shmem user (SysV shm, memfd, tmpfs) regardless of
	 * its mount options. */
	{ .key = THP "shmem_enabled", .type = SCHEMA_CHOICE, .choices = "always within_size advise never deny force",
	  .danger_min = 1, .danger_max = 0, .danger_choices = "deny force",
	  .danger_why = "overrides every tmpfs mount's huge= option (transhuge.rst: for emergencies and testing)",
	  .source = "shmem.c shmem_parse_huge" },
	INT_RANGE(THP "use_zero_page", 0, 1, "huge_memory.c single_hugepage_flag_store: value > 1 is -EINVAL"),
	/* sysctl_numa_balancing takes 0..4 (SYSCTL_FOUR), but only bits 0 and
	 * 1 are modes (kernel.rst: 0 off, 1 normal, 2 memory tiering, 3 both). */
	INT_RANGE("kernel.numa_balancing", 0, 3, "sched/core.c sysctl_numa_balancing; kernel.rst modes 0..3"),
	INT_RANGE("kernel.numa_balancing_promote_rate_limit_MBps", 0, INT_MAX, "proc_dointvec_minmax, extra1 0"),
	INT_RANGE("vm.admin_reserve_kbytes", 0, ULONG_KNOB, "proc_doulongvec_minmax"),
	INT_RANGE("vm.compact_unevictable_allowed", 0, 1, "proc_dointvec_minmax 0..1"),
	INT_RANGE("vm.compaction_proactiveness", 0, 100, "proc_dointvec_minmax 0..100"),
	INT_RANGE("vm.defrag_mode", 0, 1, "6.15+: proc_dointvec_minmax 0..1"),
	/* extra1 SYSCTL_LONG_ONE: 0 is refused, though the file reads 0 while
	 * the ratio is in use (write the ratio to go back to it). */
	INT_RANGE("vm.dirty_background_bytes", 1, ULONG_KNOB, "proc_doulongvec_minmax, extra1 1"),
	INT_RANGE("vm.dirty_background_ratio", 0, 100, "proc_dointvec_minmax 0..100"),
	INT_RANGE("vm.dirty_bytes", 8192, ULONG_KNOB, "proc_doulongvec_minmax, extra1 dirty_bytes_min = 2 * PAGE_SIZE"),
	INT_RANGE("vm.dirty_expire_centisecs", 0, INT_MAX, "proc_dointvec_minmax, extra1 0"),
	INT_RANGE("vm.dirty_ratio", 0, 100, "proc_dointvec_minmax 0..100"),
	/* proc_dointvec into an unsigned int: a negative value would wrap. */
	INT_DANGER("vm.dirty_writeback_centisecs", 0, INT_MAX, 0, 0,
		   "turns periodic writeback off: dirty data is written only under memory pressure, sync or dirty limits",
		   "proc_dointvec (vm.rst: 0 disables periodic writeback)"),
	INT_RANGE("vm.dirtytime_expire_seconds", 0, INT_MAX, "proc_dointvec_minmax, extra1 0"),
	INT_RANGE("vm.drain_percpu", 1, 1, "mmbatch patch: proc_dointvec_minmax 1..1, write-only"),
	INT_RANGE("vm.enable_soft_offline", 0, 1, "6.11+: proc_dointvec_minmax 0..1"),
	INT_RANGE("vm.extfrag_threshold", 0, 1000, "proc_dointvec_minmax 0..1000"),
	INT_RANGE("vm.hugetlb_optimize_vmemmap", 0, 1, "proc_dobool"),
	INT_RANGE("vm.laptop_mode", 0, JIFFIES_SECONDS_MAX, "proc_dointvec_jiffies (seconds <= INT_MAX / HZ)"),
	{ .key = "vm.lowmem_reserve_ratio", .type = SCHEMA_INTS, .min = 0, .max = INT_MAX, .danger_min = 1,
	  .danger_max = 0, .source = "proc_dointvec_minmax over MAX_NR_ZONES ints; below 1 reads back 0" },
	INT_RANGE("vm.max_map_count", 0, INT_MAX, "proc_dointvec_minmax, extra1 0"),
	INT_RANGE("vm.memory_failure_early_kill", 0, 1, "proc_dointvec_minmax 0..1"),
	INT_DANGER("vm.memory_failure_recovery", 0, 1, 0, 0,
		   "a hardware memory error panics the host instead of killing the tasks using the page",
		   "proc_dointvec_minmax 0..1"),
	/* The kernel sizes min_free_kbytes itself and caps its own value at
	 * 262144 (256 MiB, init_per_zone_wmark_min); above it the reserve
	 * grows past any allocator's need and, set near the memory size,
	 * sends every allocation into reclaim and the OOM killer at once. A
	 * fixed cap, not a share of MemTotal, so that a profile is valid or not
	 * the same on every host it is checked on. */
	INT_DANGER("vm.min_free_kbytes", 0, INT_MAX, 262145, INT_MAX,
		   "above the kernel's own cap of 262144: memory held back from every allocation, OOM if near the memory size",
		   "proc_dointvec_minmax, extra1 0"),
	INT_RANGE("vm.min_slab_ratio", 0, 100, "proc_dointvec_minmax 0..100"),
	INT_RANGE("vm.min_unmapped_ratio", 0, 100, "proc_dointvec_minmax 0..100"),
	INT_RANGE("vm.nr_hugepages", 0, ULONG_KNOB, "hugetlb_sysctl_handler (unsigned long)"),
	INT_RANGE("vm.nr_hugepages_mempolicy", 0, ULONG_KNOB, "hugetlb_mempolicy_sysctl_handler (unsigned long)"),
	INT_RANGE("vm.nr_overcommit_hugepages", 0, ULONG_KNOB, "hugetlb_overcommit_handler (unsigned long)"),
	INT_RANGE("vm.numa_stat", 0, 1, "proc_dointvec_minmax 0..1"),
	/* The handler accepts any word starting with d, D, n or N and stores
	 * nothing: the file always reads "Node", so only that reads back. */
	CHOICE("vm.numa_zonelist_order", "Node", "numa_zonelist_order_handler: a no-op that always reads Node"),
	INT_RANGE("vm.oom_dump_tasks", 0, 1, "proc_dointvec (vm.rst: 0 or non-zero)"),
	INT_RANGE("vm.oom_kill_allocating_task", 0, 1, "proc_dointvec (vm.rst: 0 or non-zero)"),
	INT_DANGER("vm.overcommit_kbytes", 0, ULONG_KNOB, 1, 1048575,
		   "in strict overcommit mode a commit limit under 1 GiB makes allocations fail host-wide",
		   "proc_doulongvec_minmax"),
	/* Mode 2 (strict) caps committed memory at overcommit_ratio% of RAM
	 * plus swap, or overcommit_kbytes: fork and malloc fail host-wide
	 * once it is reached, and whether it is safe depends on values the
	 * profile may not even set. */
	INT_DANGER("vm.overcommit_memory", 0, 2, 2, 2,
		   "strict overcommit: allocations fail host-wide beyond the commit limit (overcommit_ratio/kbytes)",
		   "overcommit_policy_handler, proc_dointvec_minmax 0..2"),
	INT_DANGER("vm.overcommit_ratio", 0, INT_MAX, 0, 49,
		   "below the default 50, strict overcommit's limit falls under half of RAM (0: swap only)",
		   "overcommit_ratio_handler: proc_dointvec (a percentage)"),
	/* 6.12 bounds it at page_cluster_max = 31; 6.1 has no extra2, but
	 * swap readahead shifts 1 by it, so above 31 is no value at all. */
	INT_RANGE("vm.page-cluster", 0, 31, "proc_dointvec_minmax 0..31 (6.12 page_cluster_max; 6.1 unbounded)"),
	INT_RANGE("vm.page_lock_unfairness", 0, INT_MAX, "proc_dointvec_minmax, extra1 0"),
	INT_DANGER("vm.panic_on_oom", 0, 2, 1, 2,
		   "an OOM, even one inside any memory-limited cgroup (2) or cpuset, panics the host",
		   "proc_dointvec_minmax 0..2"),
	INT_RANGE("vm.percpu_pagelist_high_fraction", 0, INT_MAX,
		  "percpu_pagelist_high_fraction_sysctl_handler: 0, or at least MIN_PERCPU_PAGELIST_HIGH_FRACTION (8)"),
	INT_RANGE("vm.stat_interval", 0, JIFFIES_SECONDS_MAX, "proc_dointvec_jiffies (seconds <= INT_MAX / HZ)"),
	INT_RANGE("vm.swappiness", 0, 200, "proc_dointvec_minmax 0..200 (SYSCTL_TWO_HUNDRED)"),
	INT_RANGE("vm.user_reserve_kbytes", 0, ULONG_KNOB, "proc_doulongvec_minmax"),
	INT_RANGE("vm.vfs_cache_pressure", 0, INT_MAX, "proc_dointvec_minmax, extra1 0"),
	INT_RANGE("vm.vfs_cache_pressure_denom", 100, INT_MAX, "6.15+: proc_dointvec_minmax, extra1 100"),
	INT_RANGE("vm.watermark_boost_factor", 0, INT_MAX, "proc_dointvec_minmax, extra1 0"),
	INT_RANGE("vm.watermark_scale_factor", 1, 3000, "proc_dointvec_minmax 1..3000"),
	INT_RANGE("vm.zone_reclaim_mode", 0, 7, "proc_dointvec_minmax, extra1 0; vm.rst: bits 1, 2 and 4"),
};

/* percpu_pagelist_high_fraction refuses 1..7 (-EINVAL, the old value
 * stays): the one range with a hole. */
#define PCP_FRACTION_KEY "vm.percpu_pagelist_high_fraction"
#define PCP_FRACTION_MIN 8

static int cmp_key(const void *key, const void *entry)
{
	return strcmp(key, ((const struct value_schema *)entry)->key);
}

const struct value_schema *value_schema_find(const char *key)
{
	return bsearch(key, schemas, sizeof(schemas) / sizeof(schemas[0]), sizeof(schemas[0]), cmp_key);
}

const struct value_schema *value_schema_all(size_t *n)
{
	*n = sizeof(schemas) / sizeof(schemas[0]);
	return schemas;
}

/* Parses one integer in the form the kernel prints: decimal, no '+', no
 * leading zero, '-' only when negatives are allowed. Returns false when s
 * is no such number or lies outside [min, max]. */
static bool parse_int(const char *s, size_t len, long long min, long long max, long long *ret)
{
	char buf[32], *end;
	long long v;

	if (len == 0 || len >= sizeof(buf))
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (buf[0] == '-' && min >= 0)
		return false;
	if (strspn(buf + (buf[0] == '-'), "0123456789") != len - (buf[0] == '-') || len == (size_t)(buf[0] == '-'))
		return false;
	if (buf[buf[0] == '-'] == '0' && len > (size_t)(buf[0] == '-') + 1)
		return false;
	if (strcmp(buf, "-0") == 0)
		return false;
	errno = 0;
	v = strtoll(buf, &end, 10);
	if (errno || *end || v < min || v > max)
		return false;
	*ret = v;
	return true;
}

static bool has_word(const char *words, const char *w)
{
	size_t n = strlen(w);

	for (const char *p = words; p && *p;) {
		size_t len = strcspn(p, " ");

		if (len == n && strncmp(p, w, n) == 0)
			return true;
		p += len;
		p += *p == ' ';
	}
	return false;
}

/* "a|b|c" from "a b c". */
static void words_with_bars(const char *words, char *buf, size_t size)
{
	size_t i;

	snprintf(buf, size, "%s", words);
	for (i = 0; buf[i]; i++)
		if (buf[i] == ' ')
			buf[i] = '|';
}

static void range_text(const struct value_schema *s, char *buf, size_t size)
{
	if (strcmp(s->key, PCP_FRACTION_KEY) == 0)
		snprintf(buf, size, "0 or %d..%lld", PCP_FRACTION_MIN, s->max);
	else
		snprintf(buf, size, "%lld..%lld", s->min, s->max);
}

int value_schema_check(const struct value_schema *s, const char *value, bool *dangerous, char *why, size_t size)
{
	char range[96], words[256];
	long long v = 0;

	*dangerous = false;
	switch (s->type) {
	case SCHEMA_INT:
		range_text(s, range, sizeof(range));
		if (!parse_int(value, strlen(value), s->min, s->max, &v) ||
		    (strcmp(s->key, PCP_FRACTION_KEY) == 0 && v > 0 && v < PCP_FRACTION_MIN)) {
			if (strchr(range, ' '))
				snprintf(why, size, "expected 0 or an integer in %s", strchr(range, ' ') + 4);
			else
				snprintf(why, size, "expected an integer in %s", range);
			return -EINVAL;
		}
		*dangerous = s->danger_min <= s->danger_max && v >= s->danger_min && v <= s->danger_max;
		return 0;
	case SCHEMA_INTS: {
		size_t n = 0;

		for (const char *p = value; *p;) {
			size_t len = strcspn(p, " \t");

			if (!parse_int(p, len, s->min, s->max, &v) || ++n > 8)
				break;
			p += len;
			p += strspn(p, " \t");
			if (!*p)
				return 0;
		}
		snprintf(why, size, "expected 1 to 8 integers in %lld..%lld separated by spaces", s->min, s->max);
		return -EINVAL;
	}
	case SCHEMA_CHOICE:
		if (!has_word(s->choices, value)) {
			words_with_bars(s->choices, words, sizeof(words));
			snprintf(why, size, "expected one of %s", words);
			return -EINVAL;
		}
		*dangerous = s->danger_choices && has_word(s->danger_choices, value);
		return 0;
	}
	snprintf(why, size, "no schema");
	return -EINVAL;
}

void value_schema_describe(const struct value_schema *s, char *buf, size_t size)
{
	char main_part[128], danger[160] = "";

	if (!s) {
		snprintf(buf, size, "-");
		return;
	}
	switch (s->type) {
	case SCHEMA_INT:
		range_text(s, main_part, sizeof(main_part));
		if (s->danger_min <= s->danger_max) {
			if (s->danger_min == s->danger_max)
				snprintf(danger, sizeof(danger), "; dangerous: %lld", s->danger_min);
			else
				snprintf(danger, sizeof(danger), "; dangerous: %lld..%lld", s->danger_min, s->danger_max);
		}
		break;
	case SCHEMA_INTS:
		snprintf(main_part, sizeof(main_part), "1 to 8 of %lld..%lld", s->min, s->max);
		break;
	case SCHEMA_CHOICE:
		words_with_bars(s->choices, main_part, sizeof(main_part));
		if (s->danger_choices) {
			char w[96];

			words_with_bars(s->danger_choices, w, sizeof(w));
			snprintf(danger, sizeof(danger), "; dangerous: %s", w);
		}
		break;
	}
	snprintf(buf, size, "%s%s", main_part, danger);
}
