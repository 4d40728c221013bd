/* Unit tests for the /proc parsers in counters.c and the helpers in
 * util.c / topology.c, on fixture text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "counters.h"
#include "topology.h"
#include "util.h"

static void test_vmstat(void **state)
{
	struct mb_counters *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b)),
			   *d = calloc(1, sizeof(*d));
	uint64_t v = 0;

	(void)state;
	assert_int_equal(mb_parse_vmstat("nr_free_pages 100\npgmigrate_success 7\n", a), 0);
	assert_int_equal(mb_parse_vmstat("nr_free_pages 90\npgmigrate_success 19\nnew_one 3\n", b), 0);
	assert_int_equal(mb_vmstat_get(b, "pgmigrate_success", &v), 0);
	assert_int_equal(v, 19);
	mb_counters_delta(a, b, d);
	assert_int_equal(d->nvm, 2); /* new_one is only in the second */
	assert_int_equal(mb_vmstat_get(d, "pgmigrate_success", &v), 0);
	assert_int_equal(v, 12);
	assert_int_equal(mb_vmstat_get(d, "nr_free_pages", &v), 0);
	assert_int_equal((int64_t)v, -10);
	assert_int_equal(mb_vmstat_get(d, "absent", &v), -ENOENT);
	assert_int_equal(mb_parse_vmstat("", a), -EINVAL);
	free(a);
	free(b);
	free(d);
}

static void test_tlb_row(void **state)
{
	const char *irq =
		"           CPU0       CPU1\n"
		"  0:         41          0   IO-APIC   2-edge      timer\n"
		" NMI:          0          0   Non-maskable interrupts\n"
		" TLB:       1200         34   TLB shootdowns\n"
		" TRM:          0          0   Thermal event interrupts\n";
	uint64_t v = 0;

	(void)state;
	assert_int_equal(mb_parse_tlb(irq, &v), 0);
	assert_int_equal(v, 1234);
	assert_int_equal(mb_parse_tlb("           CPU0\n NMI:   0   Non-maskable\n", &v), -ENOENT);
}

static const char *lockstat04 =
	"lock_stat version 0.4\n"
	"-----------------------------------------------------------------------------\n"
	"                              class name    con-bounces    contentions   waittime-min   waittime-max waittime-total   waittime-avg    acq-bounces   acquisitions   holdtime-min   holdtime-max holdtime-total   holdtime-avg\n"
	"-----------------------------------------------------------------------------\n"
	"\n"
	"                      &lruvec->lru_lock:           120            130           0.10          12.50         900.00           6.92           4000          65800           0.05          20.00       99999.00           1.52\n"
	"                      ---------------------\n"
	"                      &lruvec->lru_lock             60          [<ffffffff81234567>] folio_batch_move_lru+0x8c/0x1a0\n"
	"\n"
	"                          &mm->mmap_lock-W:            46             84           0.26         939.10       16371.53         194.90          47291        2922365           0.16     2220301.69 17464026916.32        5975.99\n"
	"                          &mm->mmap_lock-R:            37            100           1.31      299502.61      325629.52        3256.30         212344       34316685           0.10        7744.91    95016910.20           2.77\n";

static void test_lockstat(void **state)
{
	uint64_t v = 0;
	char *old;

	(void)state;
	assert_int_equal(mb_parse_lockstat_acq(lockstat04, MB_LRU_LOCK_CLASS, &v), 0);
	assert_int_equal(v, 65800);
	/* read/write classes are summed over their -R and -W rows */
	assert_int_equal(mb_parse_lockstat_acq(lockstat04, "&mm->mmap_lock", &v), 0);
	assert_int_equal(v, 2922365 + 34316685);
	assert_int_equal(mb_parse_lockstat_acq(lockstat04, "&zone->lock", &v), -ENOENT);
	/* version 0.3 has no -avg columns: acquisitions is one column earlier */
	old = strdup(
		"lock_stat version 0.3\n"
		"  &lruvec->lru_lock:   1   2   0.1   9.0   20.0   300   4500   0.1   5.0   70.0\n");
	assert_int_equal(mb_parse_lockstat_acq(old, MB_LRU_LOCK_CLASS, &v), 0);
	assert_int_equal(v, 4500);
	free(old);
	assert_int_equal(mb_parse_lockstat_acq("lock_stat version 9.9\n", MB_LRU_LOCK_CLASS, &v), -EINVAL);
	assert_int_equal(mb_parse_lockstat_acq("garbage\n", MB_LRU_LOCK_CLASS, &v), -EINVAL);
}

static void test_zoneinfo_meminfo(void **state)
{
	const char *zi =
		"Node 0, zone   Normal\n"
		"  pages free     12345\n"
		"  pagesets\n"
		"    cpu: 0\n"
		"              count: 700\n"
		"              high:  1000\n"
		"    cpu: 1\n"
		"              count: 44\n"
		"              high:  1000\n";
	const char *mi = "MemTotal:       24000000 kB\nMemFree:         3160000 kB\n";
	uint64_t v = 0;

	(void)state;
	assert_int_equal(mb_parse_zoneinfo_pcp(zi, &v), 0);
	assert_int_equal(v, 744);
	assert_int_equal(mb_parse_zoneinfo_pcp("Node 0, zone DMA\n", &v), -ENOENT);
	assert_int_equal(mb_parse_meminfo(mi, "MemFree", &v), 0);
	assert_int_equal(v, 3160000);
	assert_int_equal(mb_parse_meminfo(mi, "Cached", &v), -ENOENT);
}

static void test_lists_numbers_hash(void **state)
{
	uint64_t mask = 0;
	long l;
	double d;
	char hex[65];

	(void)state;
	assert_int_equal(mb_parse_list("0-1,4\n", &mask), 3);
	assert_int_equal(mask, 0x13);
	assert_int_equal(mb_parse_list("0", &mask), 1);
	assert_int_equal(mb_parse_list("1-0", &mask), -EINVAL);
	assert_int_equal(mb_parse_list("x", &mask), -EINVAL);
	assert_int_equal(mb_parse_long("12", 1, 100, &l), 0);
	assert_int_equal(l, 12);
	assert_int_equal(mb_parse_long("12x", 1, 100, &l), -EINVAL);
	assert_int_equal(mb_parse_long("0", 1, 100, &l), -EINVAL);
	assert_int_equal(mb_parse_double("2.5", &d), 0);
	assert_int_equal(mb_parse_double("nan", &d), -EINVAL);
	mb_sha256_hex("abc", 3, hex);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	mb_sha256_hex("", 0, hex);
	assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vmstat),
		cmocka_unit_test(test_tlb_row),
		cmocka_unit_test(test_lockstat),
		cmocka_unit_test(test_zoneinfo_meminfo),
		cmocka_unit_test(test_lists_numbers_hash),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
