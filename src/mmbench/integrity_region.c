/* integrity --kind: the region of each kind (mapping, madvise/mbind, the
 * munmap+remap disturbance), what the machine must offer for it (THP, KSM,
 * a directory), and KSM's start (see integrity_kinds.h). */
#include "integrity_kinds.h"
#include "knobs.h"
#include "numa.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

/* /sys/kernel/mm, or (tests only) the tree MMBENCH_MM_SYSFS names, so a
 * host test can show the refusals of a kernel without THP or KSM. */
static const char *mm_path(char *buf, size_t size, const char *rel)
{
	const char *root = getenv("MMBENCH_MM_SYSFS");

	snprintf(buf, size, "%s/%s", root && *root ? root : "/sys/kernel/mm", rel);
	return buf;
}

const char *ik_kind_unavailable(int kind, const char *dir, char *buf, size_t size)
{
	char line[128], path[300];

	if (kind == IK_ANON_THP || kind == IK_MIXED) {
		mm_path(path, sizeof(path), "transparent_hugepage/enabled");
		if (mb_read_line(path, line, sizeof(line)) < 0)
			snprintf(buf, size, "no transparent huge pages (no %s)", path);
		else if (strstr(line, "[never]"))
			snprintf(buf, size, "transparent huge pages are off (%s: never)", path);
		else
			buf[0] = '\0';
		if (buf[0])
			return buf;
	}
	if (kind == IK_KSM) {
		mm_path(path, sizeof(path), "ksm/run");
		if (access(path, W_OK) < 0) {
			snprintf(buf, size, "no KSM: cannot write %s: %s", path, strerror(errno));
			return buf;
		}
	}
	if (kind == IK_FILE && access(dir, W_OK | X_OK) < 0) {
		snprintf(buf, size, "cannot create a file in %s: %s", dir, strerror(errno));
		return buf;
	}
	return NULL;
}

/* THP kinds: 2 MiB aligned, so the huge part is whole PMDs. */
static char *map_aligned(size_t bytes)
{
	size_t align = IK_THP_PAGES * 4096UL, extra = bytes + align;
	char *p = mmap(NULL, extra, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uintptr_t a;

	if (p == MAP_FAILED)
		return p;
	a = ((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1);
	if (a > (uintptr_t)p)
		munmap(p, a - (uintptr_t)p);
	if (a + bytes < (uintptr_t)p + extra)
		munmap((char *)(a + bytes), (uintptr_t)p + extra - (a + bytes));
	return (char *)a;
}

int ik_region_map(struct ik_run *g, const char *dir)
{
	int r = 0;

	g->fd = -1;
	g->path[0] = '\0';
	g->mem = MAP_FAILED;
	if (g->kind == IK_SHMEM)
		g->fd = memfd_create("mmbench-integrity", MFD_CLOEXEC);
	else if (g->kind == IK_FILE) {
		snprintf(g->path, sizeof(g->path), "%s/mmbench-integrity.XXXXXX", dir);
		g->fd = mkostemp(g->path, O_CLOEXEC);
		if (g->fd < 0)
			g->path[0] = '\0';
	}
	if (!ik_private(g->kind)) {
		if (g->fd < 0 || ftruncate(g->fd, (off_t)g->bytes) < 0)
			return -errno;
		g->mem = mmap(NULL, g->bytes, PROT_READ | PROT_WRITE, MAP_SHARED, g->fd, 0);
	} else if (g->kind == IK_ANON_THP || g->kind == IK_MIXED) {
		g->mem = map_aligned(g->bytes);
	} else {
		g->mem = mmap(NULL, g->bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			      -1, 0);
	}
	if (g->mem == MAP_FAILED) {
		g->mem = NULL;
		return -errno;
	}
	if (g->kind == IK_KSM && madvise(g->mem, g->bytes, MADV_MERGEABLE) < 0)
		return -errno;
	/* the policy once for the whole range: a failure here is an error */
	if (g->bound)
		r = mb_mbind_two(g->mem, g->bytes, g->na, g->nb);
	ik_region_advise(g, 0, g->npages);
	return r;
}

void ik_region_unmap(struct ik_run *g)
{
	if (g->mem)
		munmap(g->mem, g->bytes);
	g->mem = NULL;
	if (g->fd >= 0)
		close(g->fd);
	g->fd = -1;
	if (g->path[0])
		unlink(g->path);
	g->path[0] = '\0';
}

size_t ik_huge_pages(const struct ik_run *g)
{
	/* mixed: the first half THPs (whole PMDs), the rest small folios, so
	 * one move_pages(2) list holds both */
	if (g->kind == IK_MIXED)
		return g->npages / 2 / IK_THP_PAGES * IK_THP_PAGES;
	return g->kind == IK_ANON_THP ? g->npages : 0;
}

void ik_region_advise(struct ik_run *g, size_t first, size_t n)
{
	char *p = g->mem + first * 4096;
	size_t huge = ik_huge_pages(g);

	for (size_t i = first; i < first + n;) {
		size_t end = i < huge ? (first + n < huge ? first + n : huge) : first + n;

		(void)madvise(g->mem + i * 4096, (end - i) * 4096,
			      i < huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
		i = end;
	}
	if (g->kind == IK_KSM)
		(void)madvise(p, n * 4096, MADV_MERGEABLE);
	if (g->bound)
		(void)mb_mbind_two(p, n * 4096, g->na, g->nb);
}

int ik_region_remap(struct ik_run *g, size_t first, size_t n)
{
	char *p = g->mem + first * 4096, *q;

	if (munmap(p, n * 4096) < 0)
		return -errno;
	/* NOREPLACE: had another thread's mmap taken the hole, MAP_FIXED would
	 * silently destroy it */
	if (ik_private(g->kind))
		q = mmap(p, n * 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	else
		q = mmap(p, n * 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED_NOREPLACE,
			 g->fd, (off_t)(first * 4096));
	if (q == MAP_FAILED)
		return -errno;
	if (q != p) {
		munmap(q, n * 4096); /* a kernel without MAP_FIXED_NOREPLACE took it as a hint */
		return -EEXIST;
	}
	ik_region_advise(g, first, n);
	return 0;
}

uint64_t ik_anon_huge_kib(void)
{
	char *buf, *p;
	unsigned long long kib = 0;

	if (mb_read_file("/proc/self/smaps_rollup", &buf, NULL) < 0)
		return 0;
	p = strstr(buf, "\nAnonHugePages:");
	if (p)
		(void)sscanf(p + 15, " %llu", &kib);
	free(buf);
	return kib;
}

long ik_ksm_pages_sharing(void)
{
	char line[64];
	char path[300];
	int r = mb_read_line(mm_path(path, sizeof(path), "ksm/pages_sharing"), line, sizeof(line));

	return r < 0 ? r : strtol(line, NULL, 10);
}

long ik_ksm_start(double timeout_s, long want)
{
	uint64_t deadline = mb_now_ns() + (uint64_t)(timeout_s * 1e9);
	long sharing;
	char path[300];
	int r;

	/* a fast scan, so a guest run of a few seconds sees merged pages */
	r = mb_knob_set(mm_path(path, sizeof(path), "ksm/pages_to_scan"), "4000");
	if (r == 0)
		r = mb_knob_set(mm_path(path, sizeof(path), "ksm/sleep_millisecs"), "10");
	if (r == 0)
		r = mb_knob_set(mm_path(path, sizeof(path), "ksm/run"), "1");
	if (r < 0)
		return r;
	do {
		sharing = ik_ksm_pages_sharing();
		if (sharing < 0 || sharing >= want)
			return sharing;
		mb_sleep_until_ns(mb_now_ns() + 50 * 1000000ULL);
	} while (mb_now_ns() < deadline);
	return sharing;
}
