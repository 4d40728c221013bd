/* See sysfs_keys.h. Every file here exists on both bases (Debian 6.1 and
 * 6.12) when its feature is built in; each holds one setting that reads
 * back as written, so the journal's original, written back, restores it. */
#include "sysfs_keys.h"

#include <stdlib.h>
#include <string.h>

#include "value_schema.h"

#define THP "/sys/kernel/mm/transparent_hugepage/"
#define KHUGEPAGED THP "khugepaged/"

/* Sorted by path, for bsearch (test_knob checks the order). */
static const struct sysfs_key sysfs_keys[] = {
	{ "/sys/kernel/mm/lru_gen/enabled", false, "multi-gen LRU on/off and its capabilities (CONFIG_LRU_GEN, 6.1+)" },
	{ "/sys/kernel/mm/lru_gen/min_ttl_ms", false, "multi-gen LRU working-set protection (CONFIG_LRU_GEN, 6.1+)" },
	{ "/sys/kernel/mm/numa/demotion_enabled", false, "demotion to slower memory tiers in reclaim (5.15+)" },
	{ "/sys/kernel/mm/swap/vma_ra_enabled", false, "VMA-based swap readahead" },
	{ THP "defrag", true, "THP allocation stalls: direct compaction or not" },
	{ THP "enabled", true, "THP policy for anonymous memory" },
	{ KHUGEPAGED "alloc_sleep_millisecs", false, "khugepaged back-off after a failed huge page allocation" },
	{ KHUGEPAGED "defrag", false, "whether khugepaged compacts to collapse" },
	{ KHUGEPAGED "max_ptes_none", false, "empty PTEs a collapse may fill (memory khugepaged may add)" },
	{ KHUGEPAGED "max_ptes_shared", false, "shared PTEs a collapse may copy (5.8+)" },
	{ KHUGEPAGED "max_ptes_swap", false, "swapped-out PTEs a collapse may read in" },
	{ KHUGEPAGED "pages_to_scan", false, "pages khugepaged scans per wake-up" },
	{ KHUGEPAGED "scan_sleep_millisecs", false, "khugepaged's pause between scans" },
	{ THP "shmem_enabled", true, "THP policy for tmpfs and shared memory" },
	{ THP "use_zero_page", false, "whether read faults map the huge zero page" },
};

static int cmp_path(const void *key, const void *entry)
{
	return strcmp(key, ((const struct sysfs_key *)entry)->path);
}

const struct sysfs_key *sysfs_key_find(const char *path)
{
	return bsearch(path, sysfs_keys, sizeof(sysfs_keys) / sizeof(sysfs_keys[0]), sizeof(sysfs_keys[0]),
		       cmp_path);
}

bool sysfs_is_choice_file(const char *path)
{
	const struct sysfs_key *k = sysfs_key_find(path);

	return k && k->choice_file;
}

void sysfs_keys_print(FILE *f)
{
	char values[512];

	for (size_t i = 0; i < sizeof(sysfs_keys) / sizeof(sysfs_keys[0]); i++) {
		value_schema_describe(value_schema_find(sysfs_keys[i].path), values, sizeof(values));
		fprintf(f, "%s\t%s\t%s\t%s\n", sysfs_keys[i].path, sysfs_keys[i].path, sysfs_keys[i].reason, values);
	}
}
