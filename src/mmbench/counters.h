/* Kernel counters read around each repetition: every /proc/vmstat field,
 * the TLB shootdown row of /proc/interrupts, and the lru_lock acquisitions
 * from /proc/lock_stat (CONFIG_LOCK_STAT kernels only); plus the samplers
 * exitdrain needs (/proc/zoneinfo per-CPU page counts, /proc/meminfo).
 * The parsers take text so the unit tests can feed them fixtures. */
#ifndef MMBENCH_COUNTERS_H
#define MMBENCH_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

#define MB_VMSTAT_MAX 400
#define MB_LRU_LOCK_CLASS "&lruvec->lru_lock"

struct mb_kv {
	char name[48];
	uint64_t value;
};

struct mb_counters {
	size_t nvm;
	struct mb_kv vm[MB_VMSTAT_MAX];
	int has_tlb;       /* /proc/interrupts has a TLB row (x86) */
	uint64_t tlb;      /* summed over CPUs: shootdown IPIs received */
	int has_lru;       /* /proc/lock_stat has the lru_lock class */
	uint64_t lru_acq;
};

int mb_parse_vmstat(const char *text, struct mb_counters *c);
int mb_parse_tlb(const char *interrupts, uint64_t *ret);
int mb_parse_lockstat_acq(const char *lock_stat, const char *cls, uint64_t *ret);
int mb_parse_zoneinfo_pcp(const char *zoneinfo, uint64_t *ret_pages);
int mb_parse_meminfo(const char *meminfo, const char *key, uint64_t *ret_kib);

int mb_vmstat_get(const struct mb_counters *c, const char *name, uint64_t *ret);

/* Reads /proc/vmstat (required), /proc/interrupts and /proc/lock_stat
 * (optional: has_tlb/has_lru say whether they were there). */
int mb_counters_snapshot(struct mb_counters *c);
/* after - before, field by field (vmstat: fields present in both). Gauges
 * such as nr_free_pages can go down: the delta wraps like the kernel's
 * unsigned counters and is reported as a signed number by the writer. */
void mb_counters_delta(const struct mb_counters *before, const struct mb_counters *after,
		       struct mb_counters *delta);

/* One sample for exitdrain. */
struct mb_mem_sample {
	uint64_t memfree_kib;
	uint64_t pcp_pages;
	uint64_t anon_lru_pages; /* nr_inactive_anon + nr_active_anon */
};
int mb_mem_sample(struct mb_mem_sample *s);

#endif
