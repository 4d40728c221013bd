/* The benchmark table: names, entry points, the options each takes. */
#include "contention.h"
#include "integrity_kinds.h"
#include "mmbench.h"

#include <string.h>

const struct mb_bench mb_benches[] = {
	{ "fault", bench_fault, MB_OPT_THREADS | MB_OPT_SIZE | MB_OPT_THP | MB_OPT_LOOPS,
	  "threads fault and unmap anonymous memory (page_fault1-style)", NULL },
	{ "migrate", bench_migrate, MB_OPT_SIZE,
	  "move a buffer between two NUMA nodes with move_pages(2)", NULL },
	{ "munmap", bench_munmap, MB_OPT_THREADS | MB_OPT_OPS | MB_OPT_OP_KIB,
	  "threads sharing an mm: mmap/touch/munmap and MADV_DONTNEED loops", NULL },
	{ "exitdrain", bench_exitdrain, MB_OPT_THREADS | MB_OPT_SIZE | MB_OPT_DRAIN,
	  "memory left in per-CPU caches after a large process exits", NULL },
	{ "integrity", bench_integrity,
	  MB_OPT_PAGES | MB_OPT_WRITERS | MB_OPT_SECONDS | MB_OPT_KINDS | MB_OPT_INJECT,
	  "writers vs a migrator thread; every byte verified (--kind: per kind of memory)",
	  mb_integrity_check_opts },
	{ "contention", bench_contention,
	  MB_OPT_SIZE | MB_OPT_ROUNDS | MB_OPT_WRITERS | MB_OPT_CONTENTION | MB_OPT_INJECT,
	  "move_pages(2) of shmem pages that writers and faulters keep locked",
	  mb_cont_check_opts },
	{ "compaction", bench_compaction, MB_OPT_THREADS | MB_OPT_SIZE | MB_OPT_KEEP,
	  "fragment a node, then fault THPs and compact it while threads run",
	  mb_compaction_check_opts },
	{ "numa-hinting", bench_numa_hinting, MB_OPT_THREADS | MB_OPT_SIZE | MB_OPT_SECONDS,
	  "NUMA balancing's hinting faults move remote memory to its threads",
	  mb_numa_hinting_check_opts },
	{ NULL, NULL, 0, NULL, NULL },
};

const struct mb_bench *mb_find_bench(const char *name)
{
	for (const struct mb_bench *b = mb_benches; b->name; b++)
		if (strcmp(b->name, name) == 0)
			return b;
	return NULL;
}
