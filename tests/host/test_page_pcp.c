/*
 * Per-CPU page lists: batch refill, the high watermark, draining other
 * CPUs' lists, which orders use them, and the switch that turns them off.
 */
#include "mm_test.h"
#include "zone.h"

static struct pcp_stats *stats(int nid, int cpu)
{
	return &mm_zones[nid].pcp[cpu].stats;
}

static void test_limits_fit_tunables_and_zone_size(void **state)
{
	(void)state;
	for (unsigned int o = 0; o <= PCP_MAX_ORDER; o++) {
		assert_true(pcp_batch(0, o) >= 1);
		assert_true(pcp_batch(0, o) <= pcp_high(0, o) ||
			    pcp_high(0, o) == 0);
	}
	assert_int_equal(pcp_batch(0, 0), PCP_BATCH_ORDER0);
	/* All lists of all CPUs stay within 1/PCP_ZONE_SHARE of the zone. */
	unsigned long cached = 0;
	for (unsigned int o = 0; o <= PCP_MAX_ORDER; o++)
		cached += (unsigned long)pcp_high(0, o) << o;
	assert_true(cached * mm_nr_cpus() <=
		    mm_zones[0].managed_pages / PCP_ZONE_SHARE);
}

static void test_first_alloc_refills_one_batch(void **state)
{
	(void)state;
	unsigned long before = nr_free_pages();
	assert_int_equal(pcp_count(0, 0, 0), 0);
	struct page *p = alloc_pages(GFP_KERNEL, 0);
	assert_non_null(p);
	assert_int_equal(pcp_count(0, 0, 0), pcp_batch(0, 0) - 1);
	assert_int_equal(nr_free_pages(), before - pcp_batch(0, 0));
	assert_int_equal(stats(0, 0)->refill, 1);
	assert_int_equal(stats(0, 0)->refill, 1);
	__free_pages(p, 0);
}

static void test_allocs_within_a_batch_hit_the_list(void **state)
{
	(void)state;
	struct page *p[64];
	int batch = pcp_batch(0, 0);
	assert_true(batch <= 64);
	for (int i = 0; i < batch; i++)
		assert_non_null(p[i] = alloc_pages(GFP_KERNEL, 0));
	assert_int_equal(stats(0, 0)->refill, 1);
	assert_int_equal(pcp_alloc_hits(&mm_zones[0].pcp[0]), batch - 1);
	assert_int_equal(pcp_count(0, 0, 0), 0);
	for (int i = 0; i < batch; i++)
		__free_pages(p[i], 0);
	assert_int_equal(pcp_count(0, 0, 0), batch);
}

/* Every allocation the list serves is counted once, whichever path took
 * it: the single fast path, the bulk's run from the list, the general
 * path's refill. */
static void test_every_list_hit_is_counted_once(void **state)
{
	(void)state;
	struct page *one, *bulk[8];
	assert_non_null(one = alloc_pages(GFP_KERNEL, 0)); /* refills */
	unsigned long hits = pcp_alloc_hits(&mm_zones[0].pcp[0]);
	assert_int_equal(hits, 0);
	assert_true(pcp_count(0, 0, 0) >= 8 + 1);
	assert_int_equal(alloc_pages_bulk(GFP_KERNEL, 8, bulk), 8);
	assert_int_equal(pcp_alloc_hits(&mm_zones[0].pcp[0]), 8);
	__free_pages(one, 0);
	assert_non_null(one = alloc_pages(GFP_KERNEL, 0));
	assert_int_equal(pcp_alloc_hits(&mm_zones[0].pcp[0]), 9);
	__free_pages(one, 0);
	for (int i = 0; i < 8; i++)
		__free_pages(bulk[i], 0);
}

static void test_free_above_high_gives_back_one_batch(void **state)
{
	(void)state;
	int high = pcp_high(0, 0), batch = pcp_batch(0, 0);
	struct page *p[512];
	assert_true(high + 1 <= 512);
	for (int i = 0; i <= high; i++)
		assert_non_null(p[i] = alloc_pages(GFP_KERNEL, 0));
	drain_all_pages();
	unsigned long drains = stats(0, 0)->drain;
	for (int i = 0; i < high; i++)
		__free_pages(p[i], 0);
	assert_int_equal(pcp_count(0, 0, 0), high);
	assert_int_equal(stats(0, 0)->drain, drains);
	__free_pages(p[high], 0);
	assert_int_equal(pcp_count(0, 0, 0), high + 1 - batch);
	assert_int_equal(stats(0, 0)->drain, drains + 1);
	assert_true(mm_verify_free_lists() >= 0);
}

static void alloc_free_one(void *arg)
{
	unsigned int order = *(unsigned int *)arg;
	struct page *p = alloc_pages(GFP_KERNEL, order);
	assert_non_null(p);
	__free_pages(p, order);
}

static void test_drain_all_pages_empties_other_cpus_lists(void **state)
{
	(void)state;
	unsigned long before = mm_test_drain_and_verify();
	unsigned int order = 0;
	mm_test_on_cpu(1, alloc_free_one, &order); /* CPU 1 is on node 1 */
	assert_int_equal(pcp_count(1, 1, 0), pcp_batch(1, 0));
	assert_true(nr_free_pages() < before);
	drain_all_pages(); /* from CPU 0 */
	assert_int_equal(pcp_count(1, 1, 0), 0);
	assert_int_equal(mm_test_drain_and_verify(), before);
}

static struct page *cross_page;
static void free_cross_page(void *arg)
{
	(void)arg;
	__free_pages(cross_page, 0);
}

static void test_free_lands_on_the_freeing_cpus_list(void **state)
{
	(void)state;
	cross_page = alloc_pages(GFP_KERNEL, 0);
	assert_non_null(cross_page);
	int on_cpu0 = pcp_count(0, 0, 0);
	mm_test_on_cpu(1, free_cross_page, NULL);
	assert_int_equal(pcp_count(0, 1, 0), 1);
	assert_int_equal(pcp_count(0, 0, 0), on_cpu0);
}

static void test_order3_uses_the_list_and_order4_does_not(void **state)
{
	(void)state;
	struct page *p3 = alloc_pages(GFP_KERNEL, 3);
	struct page *p4 = alloc_pages(GFP_KERNEL, 4);
	assert_non_null(p3);
	assert_non_null(p4);
	assert_int_equal(pcp_count(0, 0, 3), pcp_batch(0, 3) - 1);
	unsigned long free_before = nr_free_pages();
	__free_pages(p4, 4);
	assert_int_equal(nr_free_pages(), free_before + 16);
	__free_pages(p3, 3);
	assert_int_equal(pcp_count(0, 0, 3), pcp_batch(0, 3));
	assert_int_equal(nr_free_pages(), free_before + 16);
}

static void test_disabled_pcp_goes_straight_to_buddy(void **state)
{
	(void)state;
	struct page *keep = alloc_pages(GFP_KERNEL, 0);
	pcp_set_enabled(false);
	assert_int_equal(pcp_count(0, 0, 0), 0); /* disabling drained */
	unsigned long before = nr_free_pages();
	struct page *p = alloc_pages(GFP_KERNEL, 0);
	assert_int_equal(nr_free_pages(), before - 1);
	__free_pages(p, 0);
	__free_pages(keep, 0);
	assert_int_equal(pcp_count(0, 0, 0), 0);
	assert_int_equal(nr_free_pages(), before + 1);
	pcp_set_enabled(true);
}

int main(void)
{
#define T(f)                                                    \
	cmocka_unit_test_setup_teardown(f, mm_test_setup_1node, \
					mm_test_teardown)
#define T2(f)                                                    \
	cmocka_unit_test_setup_teardown(f, mm_test_setup_2nodes, \
					mm_test_teardown)
	const struct CMUnitTest tests[] = {
		T(test_limits_fit_tunables_and_zone_size),
		T(test_first_alloc_refills_one_batch),
		T(test_allocs_within_a_batch_hit_the_list),
		T(test_every_list_hit_is_counted_once),
		T(test_free_above_high_gives_back_one_batch),
		T2(test_drain_all_pages_empties_other_cpus_lists),
		T2(test_free_lands_on_the_freeing_cpus_list),
		T(test_order3_uses_the_list_and_order4_does_not),
		T(test_disabled_pcp_goes_straight_to_buddy),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
