/* Unit tests for the numa-hinting benchmark's pure parts: the pages of one
 * mapping per node from /proc/self/numa_maps text, a node's meminfo, its
 * table entry and its options through the parser and its check; and the
 * numa_maps reader on a mapping of this process. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "mmbench.h"
#include "node_mem.h"
#include "topology.h"

static const char maps[] =
	"55f54dac1000 default file=/usr/bin/cat mapped=2 N0=2 kernelpagesize_kB=4\n"
	"7f0000000000 default anon=8192 dirty=8192 active=0 N0=1000 N1=7192 kernelpagesize_kB=4\n"
	"7f0000800000 bind:1 anon=16 dirty=16 N1=16 kernelpagesize_kB=4\n"
	"7f0001000000 default\n"
	"7f0002000000 default anon=512 dirty=512 N12=512 kernelpagesize_kB=4\n"
	"7ffd1c3e2000 default stack anon=3 dirty=3 N0=3 kernelpagesize_kB=4";

static void test_numa_maps(void **state)
{
	uint64_t on = 99, all = 99;

	(void)state;
	assert_int_equal(mb_parse_numa_maps(maps, 0x7f0000000000UL, 0, &on, &all), 0);
	assert_int_equal(on, 1000);
	assert_int_equal(all, 8192);
	assert_int_equal(mb_parse_numa_maps(maps, 0x7f0000000000UL, 1, &on, &all), 0);
	assert_int_equal(on, 7192);
	/* a policy other than default, a node with two digits */
	assert_int_equal(mb_parse_numa_maps(maps, 0x7f0000800000UL, 0, &on, &all), 0);
	assert_int_equal(on, 0);
	assert_int_equal(all, 16);
	assert_int_equal(mb_parse_numa_maps(maps, 0x7f0002000000UL, 12, &on, &all), 0);
	assert_int_equal(on, 512);
	assert_int_equal(mb_parse_numa_maps(maps, 0x7f0002000000UL, 1, &on, &all), 0);
	assert_int_equal(on, 0);
	/* nothing faulted in yet: no N fields */
	assert_int_equal(mb_parse_numa_maps(maps, 0x7f0001000000UL, 0, &on, &all), 0);
	assert_int_equal(all, 0);
	/* the last line has no newline */
	assert_int_equal(mb_parse_numa_maps(maps, 0x7ffd1c3e2000UL, 0, &on, &all), 0);
	assert_int_equal(on, 3);
	/* an address inside a mapping is no start */
	assert_int_equal(mb_parse_numa_maps(maps, 0x7f0000001000UL, 0, &on, &all), -ENOENT);
	assert_int_equal(mb_parse_numa_maps("", 0x7f0000000000UL, 0, &on, &all), -ENOENT);
}

static void test_numa_maps_self(void **state)
{
	size_t bytes = 64 * 4096;
	char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t mask = 0, on = 0, all = 0, sum = 0;

	(void)state;
	assert_true(p != MAP_FAILED);
	(void)madvise(p, bytes, MADV_NOHUGEPAGE);
	for (size_t off = 0; off < bytes; off += 4096)
		p[off] = 1;
	assert_true(mb_memory_nodes(&mask) > 0);
	for (int n = 0; n < 64; n++) {
		if (!(mask & (1ULL << n)))
			continue;
		assert_int_equal(mb_numa_maps_pages(p, n, &on, &all), 0);
		sum += on;
	}
	assert_int_equal(all, 64);
	assert_int_equal(sum, 64);
	munmap(p, bytes);
}

static void test_node_meminfo(void **state)
{
	const char text[] = "Node 1 MemTotal:        8873720 kB\n"
			    "Node 1 MemFree:         7098844 kB\n"
			    "Node 1 MemUsed:         1774876 kB\n"
			    "Node 1 HugePages_Free:      0\n";
	uint64_t kib = 0;

	(void)state;
	assert_int_equal(mb_parse_node_meminfo(text, "MemFree", &kib), 0);
	assert_int_equal(kib, 7098844);
	assert_int_equal(mb_parse_node_meminfo(text, "HugePages_Free", &kib), 0);
	assert_int_equal(kib, 0);
	assert_int_equal(mb_parse_node_meminfo(text, "MemFre", &kib), -ENOENT);
	assert_int_equal(mb_parse_node_meminfo("MemFree: 5 kB\n", "MemFree", &kib), -ENOENT);
}

static int parse(struct mb_opts *o, int argc, char **argv)
{
	const struct mb_bench *b = mb_find_bench("numa-hinting");

	memset(o, 0, sizeof(*o));
	assert_non_null(b);
	return mb_parse_opts("numa-hinting", b->opts, argc, argv, o);
}

static void test_opts(void **state)
{
	char *ok[] = { "numa-hinting", "--size-mib", "16", "--threads", "2", "--seconds", "12.5",
		       "--quick", "--json", NULL };
	char *short_wait[] = { "numa-hinting", "--seconds", "0.5", NULL };
	char *rounds[] = { "numa-hinting", "--rounds", "5", NULL };
	struct mb_opts o;
	char err[200];

	(void)state;
	assert_int_equal(parse(&o, 9, ok), 0);
	assert_int_equal(o.size_mib, 16);
	assert_int_equal(o.threads, 2);
	assert_float_equal(o.seconds, 12.5, 0);
	assert_int_equal(mb_numa_hinting_check_opts(&o, err, sizeof(err)), 0);
	memset(&o, 0, sizeof(o));
	assert_int_equal(mb_numa_hinting_check_opts(&o, err, sizeof(err)), 0); /* the defaults */

	assert_int_equal(parse(&o, 3, short_wait), 0);
	assert_int_equal(mb_numa_hinting_check_opts(&o, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "option '--seconds': 0.5 s, numa-hinting waits at least 1 s "
			    "for the memory to become local");
	assert_int_equal(parse(&o, 3, rounds), -EINVAL);
}

static void test_table(void **state)
{
	const struct mb_bench *b = mb_find_bench("numa-hinting");

	(void)state;
	assert_non_null(b);
	assert_true(b->fn == bench_numa_hinting);
	assert_true(b->check == mb_numa_hinting_check_opts);
	assert_int_equal(b->opts, MB_OPT_THREADS | MB_OPT_SIZE | MB_OPT_SECONDS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numa_maps),
		cmocka_unit_test(test_numa_maps_self),
		cmocka_unit_test(test_node_meminfo),
		cmocka_unit_test(test_opts),
		cmocka_unit_test(test_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
