/* See keys.h. Left out on purpose, though they live under vm.: the address
 * space hardening knobs (mmap_min_addr, mmap_rnd_bits, mmap_rnd_compat_bits,
 * legacy_va_layout, vdso_enabled), the unprivileged_userfaultfd and
 * memfd_noexec policies, hugetlb_shm_group (grants a group a privilege), and
 * the one-shot actions drop_caches, compact_memory and stat_refresh (nothing
 * to roll back). Of kernel., only NUMA balancing tunes memory placement. */
#include "keys.h"

#include <stdlib.h>
#include <string.h>

#include "sysfs_keys.h"
#include "value_schema.h"

/* Sorted by key, for bsearch (test_knob checks the order). */
static const struct mm_key mm_keys[] = {
	{ "kernel.numa_balancing", "NUMA balancing on/off (memory tiering mode 2)" },
	{ "kernel.numa_balancing_promote_rate_limit_MBps", "NUMA tiering promotion rate" },
	{ "vm.admin_reserve_kbytes", "memory kept back for the administrator under overcommit" },
	{ "vm.compact_unevictable_allowed", "whether compaction may move unevictable (mlocked) pages" },
	{ "vm.compaction_proactiveness", "how hard proactive compaction works" },
	{ "vm.defrag_mode", "anti-fragmentation mode of the page allocator (6.15+)" },
	{ "vm.dirty_background_bytes", "dirty page cache at which background writeback starts" },
	{ "vm.dirty_background_ratio", "dirty page cache at which background writeback starts" },
	{ "vm.dirty_bytes", "dirty page cache at which writers are throttled" },
	{ "vm.dirty_expire_centisecs", "age at which dirty pages are written back" },
	{ "vm.dirty_ratio", "dirty page cache at which writers are throttled" },
	{ "vm.dirty_writeback_centisecs", "period of the writeback flusher" },
	{ "vm.dirtytime_expire_seconds", "age at which lazytime inodes are written back" },
	{ "vm.drain_percpu", "per-CPU cache drain of mmbatch kernels (the exit drain writes it)" },
	{ "vm.enable_soft_offline", "whether corrected-error pages are soft-offlined" },
	{ "vm.extfrag_threshold", "fragmentation index above which compaction runs instead of reclaim" },
	{ "vm.hugetlb_optimize_vmemmap", "frees the vmemmap pages of HugeTLB pages" },
	{ "vm.laptop_mode", "delays writeback to batch disk activity" },
	{ "vm.lowmem_reserve_ratio", "memory each zone keeps back from allocations that could use a higher zone" },
	{ "vm.max_map_count", "mappings a process may have" },
	{ "vm.memory_failure_early_kill", "kill policy for processes mapping a poisoned page" },
	{ "vm.memory_failure_recovery", "whether memory failures are recovered from or panic" },
	{ "vm.min_free_kbytes", "the page allocator's minimum watermark" },
	{ "vm.min_slab_ratio", "reclaimable slab at which zone reclaim also shrinks slab" },
	{ "vm.min_unmapped_ratio", "unmapped page cache zone reclaim keeps" },
	{ "vm.nr_hugepages", "size of the HugeTLB pool" },
	{ "vm.nr_hugepages_mempolicy", "size of the HugeTLB pool, on the writer's NUMA policy" },
	{ "vm.nr_overcommit_hugepages", "surplus HugeTLB pages allowed" },
	{ "vm.numa_stat", "whether NUMA allocation statistics are counted" },
	{ "vm.numa_zonelist_order", "zonelist order (NUMA)" },
	{ "vm.oom_dump_tasks", "whether the OOM killer logs every task" },
	{ "vm.oom_kill_allocating_task", "whether the OOM killer kills the allocating task" },
	{ "vm.overcommit_kbytes", "overcommit limit in strict mode" },
	{ "vm.overcommit_memory", "overcommit policy" },
	{ "vm.overcommit_ratio", "overcommit limit in strict mode" },
	{ "vm.page-cluster", "pages read from swap at once" },
	{ "vm.page_lock_unfairness", "page lock stealing before a waiter gets it" },
	{ "vm.panic_on_oom", "OOM policy: kill a task or panic" },
	{ "vm.percpu_pagelist_high_fraction", "size of the per-CPU free page lists" },
	{ "vm.stat_interval", "period of the vmstat counter update" },
	{ "vm.swappiness", "balance of anonymous and file reclaim" },
	{ "vm.user_reserve_kbytes", "memory kept back from a single process under strict overcommit" },
	{ "vm.vfs_cache_pressure", "reclaim of dentry and inode caches" },
	{ "vm.vfs_cache_pressure_denom", "denominator of vfs_cache_pressure (6.15+)" },
	{ "vm.watermark_boost_factor", "reclaim boost after a fragmentation event" },
	{ "vm.watermark_scale_factor", "distance between the zone watermarks (kswapd start)" },
	{ "vm.zone_reclaim_mode", "reclaim in the local node before allocating remotely" },
};

static int cmp_key(const void *key, const void *entry)
{
	return strcmp(key, ((const struct mm_key *)entry)->key);
}

const struct mm_key *mm_key_find(const char *key)
{
	return bsearch(key, mm_keys, sizeof(mm_keys) / sizeof(mm_keys[0]), sizeof(mm_keys[0]), cmp_key);
}

void mm_keys_print(FILE *f)
{
	char values[512];

	for (size_t i = 0; i < sizeof(mm_keys) / sizeof(mm_keys[0]); i++) {
		fprintf(f, "%s\t/proc/sys/", mm_keys[i].key);
		for (const char *c = mm_keys[i].key; *c; c++)
			fputc(*c == '.' ? '/' : *c, f);
		value_schema_describe(value_schema_find(mm_keys[i].key), values, sizeof(values));
		fprintf(f, "\t%s\t%s\n", mm_keys[i].reason, values);
	}
	/* One table for both kinds: the unit's ReadWritePaths= and the docs
	 * are checked against all of it. */
	sysfs_keys_print(f);
}
