/*
 * NUMA: the current CPU's node is preferred, fallback follows SLIT
 * distance, __GFP_THISNODE never falls back, and numastat counts as Linux.
 */
#include <stdlib.h>

#include "mm_test.h"
#include "zone.h"

#define MAX_PAGES 16384

static struct page **held;
static unsigned long nheld;

static int setup(void **state)
{
	(void)state;
	held = calloc(MAX_PAGES, sizeof(*held));
	nheld = 0;
	return 0;
}

static int teardown(void **state)
{
	free(held);
	return mm_test_teardown(state);
}

/* Hold every page of node nid (THISNODE, so nothing falls back). */
static void exhaust_node(int nid)
{
	struct page *p;
	while ((p = alloc_pages_node(nid, __GFP_THISNODE | __GFP_NOWARN, 0))) {
		assert_true(nheld < MAX_PAGES);
		held[nheld++] = p;
	}
}

static void release_all(void)
{
	while (nheld)
		__free_pages(held[--nheld], 0);
}

static void alloc_on_this_cpu(void *arg)
{
	struct page *p = alloc_pages(GFP_KERNEL, 0);
	assert_non_null(p);
	*(int *)arg = page_to_nid(p);
	__free_pages(p, 0);
}

static void test_alloc_pages_prefers_the_current_cpus_node(void **state)
{
	setup(state);
	mm_test_boot(4, 8, 4);
	for (int cpu = 0; cpu < 4; cpu++) {
		int nid = -1;
		mm_test_on_cpu(cpu, alloc_on_this_cpu, &nid);
		assert_int_equal(nid, mm_cpu_to_node(cpu));
	}
}

static void test_fallback_follows_distance_order(void **state)
{
	setup(state);
	/* From node 0: node 2 (15) is nearest, then 3 (20), then 1 (30). */
	static const int dist[16] = {10, 30, 15, 20, 30, 10, 20, 20,
				     15, 20, 10, 20, 20, 20, 20, 10};
	struct mm_host_config cfg = {.nr_nodes = 4,
				     .bytes_per_node = 8u << 20,
				     .nr_cpus = 4,
				     .distance = dist};
	assert_int_equal(mm_host_boot_config(&cfg), 0);
	static const int expect[3] = {2, 3, 1};
	exhaust_node(0);
	for (int i = 0; i < 3; i++) {
		struct page *p = alloc_pages_node(0, GFP_KERNEL, 0);
		assert_non_null(p);
		assert_int_equal(page_to_nid(p), expect[i]);
		__free_pages(p, 0);
		exhaust_node(expect[i]);
	}
	assert_null(alloc_pages_node(0, __GFP_NOWARN, 0));
	release_all();
}

static void test_thisnode_fails_rather_than_fall_back(void **state)
{
	setup(state);
	mm_test_boot(2, 8, 2);
	exhaust_node(1);
	assert_null(alloc_pages_node(1, __GFP_THISNODE | __GFP_NOWARN, 0));
	struct page *p = alloc_pages_node(1, __GFP_NOWARN, 0);
	assert_non_null(p);
	assert_int_equal(page_to_nid(p), 0);
	__free_pages(p, 0);
	release_all();
}

static void free_on_cpu1(void *arg)
{
	__free_pages(arg, 0);
}

/* __GFP_NORETRY is one try of the preferred node: no other node, and no
 * drain of the per-CPU lists (a page parked on CPU 1's list stays there). */
static void test_noretry_tries_only_the_preferred_node(void **state)
{
	setup(state);
	mm_test_boot(2, 8, 2);
	exhaust_node(0);
	struct page *pages[4];
	assert_null(alloc_pages_node(0, __GFP_NORETRY | __GFP_NOWARN, 0));
	assert_null(alloc_pages(__GFP_NORETRY | __GFP_NOWARN, 3));
	assert_int_equal(
		alloc_pages_bulk(__GFP_NORETRY | __GFP_NOWARN, 4, pages), 0);
	/* A node-0 page now waits on CPU 1's per-CPU list. */
	mm_test_on_cpu(1, free_on_cpu1, held[--nheld]);
	assert_null(alloc_pages_node(0, __GFP_NORETRY | __GFP_NOWARN, 0));
	assert_int_equal(pcp_count(0, 1, 0), 1);
	/* Without NORETRY, THISNODE drains the lists and finds it. */
	struct page *p = alloc_pages_node(0, __GFP_THISNODE | __GFP_NOWARN, 0);
	assert_non_null(p);
	assert_int_equal(page_to_nid(p), 0);
	__free_pages(p, 0);
	release_all();
}

static void test_numastat_local_hit(void **state)
{
	setup(state);
	mm_test_boot(2, 8, 2);
	struct page *p = alloc_pages(GFP_KERNEL, 1); /* CPU 0, node 0 */
	assert_int_equal(numa_stat_read(0, NUMA_HIT), 2);
	assert_int_equal(numa_stat_read(0, NUMA_LOCAL), 2);
	assert_int_equal(numa_stat_read(0, NUMA_OTHER), 0);
	assert_int_equal(numa_stat_read(1, NUMA_HIT), 0);
	__free_pages(p, 1);
}

static void test_numastat_remote_request_is_hit_and_other_node(void **state)
{
	setup(state);
	mm_test_boot(2, 8, 2);
	struct page *p = alloc_pages_node(1, GFP_KERNEL, 0); /* from CPU 0 */
	assert_int_equal(page_to_nid(p), 1);
	assert_int_equal(numa_stat_read(1, NUMA_HIT), 1);
	assert_int_equal(numa_stat_read(1, NUMA_OTHER), 1);
	assert_int_equal(numa_stat_read(1, NUMA_LOCAL), 0);
	assert_int_equal(numa_stat_read(0, NUMA_FOREIGN), 0);
	__free_pages(p, 0);
}

static void test_numastat_fallback_is_miss_and_foreign(void **state)
{
	setup(state);
	mm_test_boot(2, 8, 2);
	exhaust_node(0);
	unsigned long hit0 = numa_stat_read(0, NUMA_HIT);
	struct page *p = alloc_pages(__GFP_NOWARN, 0); /* CPU 0 wants node 0 */
	assert_int_equal(page_to_nid(p), 1);
	assert_int_equal(numa_stat_read(1, NUMA_MISS), 1);
	assert_int_equal(numa_stat_read(0, NUMA_FOREIGN), 1);
	assert_int_equal(numa_stat_read(1, NUMA_OTHER), 1);
	assert_int_equal(numa_stat_read(0, NUMA_HIT), hit0);
	assert_int_equal(numa_stat_read(1, NUMA_HIT), 0);
	__free_pages(p, 0);
	release_all();
}

static void bulk_on_cpu(void *arg)
{
	struct page *pages[100];
	unsigned int n = alloc_pages_bulk(GFP_KERNEL, 100, pages);
	assert_int_equal(n, 100);
	for (unsigned int i = 0; i < n; i++) {
		assert_int_equal(page_to_nid(pages[i]), 1);
		assert_int_equal(page_ref_count(pages[i]), 1);
		for (unsigned int j = 0; j < i; j++)
			assert_ptr_not_equal(pages[i], pages[j]);
	}
	for (unsigned int i = 0; i < n; i++)
		__free_pages(pages[i], 0);
	*(unsigned long *)arg = n;
}

static void test_bulk_fills_from_the_local_node(void **state)
{
	setup(state);
	mm_test_boot(2, 8, 2);
	unsigned long n = 0;
	mm_test_on_cpu(1, bulk_on_cpu, &n);
	assert_int_equal(n, 100);
	assert_int_equal(numa_stat_read(1, NUMA_HIT), 100);
	assert_int_equal(numa_stat_read(1, NUMA_LOCAL), 100);
}

static void test_bulk_falls_back_when_the_node_runs_short(void **state)
{
	setup(state);
	mm_test_boot(2, 8, 2);
	exhaust_node(0);
	__free_pages(held[--nheld], 0);
	__free_pages(held[--nheld], 0);
	struct page *pages[8];
	assert_int_equal(alloc_pages_bulk(GFP_KERNEL, 8, pages), 8);
	int local = 0;
	for (int i = 0; i < 8; i++) {
		local += page_to_nid(pages[i]) == 0;
		__free_pages(pages[i], 0);
	}
	assert_int_equal(local, 2);
	/* With THISNODE only the 2 node-0 pages just freed come back. */
	assert_int_equal(
		alloc_pages_bulk(__GFP_THISNODE | __GFP_NOWARN, 8, pages), 2);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(page_to_nid(pages[i]), 0);
		__free_pages(pages[i], 0);
	}
	release_all();
}

int main(void)
{
#define T(f) cmocka_unit_test_teardown(f, teardown)
	const struct CMUnitTest tests[] = {
		T(test_alloc_pages_prefers_the_current_cpus_node),
		T(test_fallback_follows_distance_order),
		T(test_thisnode_fails_rather_than_fall_back),
		T(test_noretry_tries_only_the_preferred_node),
		T(test_numastat_local_hit),
		T(test_numastat_remote_request_is_hit_and_other_node),
		T(test_numastat_fallback_is_miss_and_foreign),
		T(test_bulk_fills_from_the_local_node),
		T(test_bulk_falls_back_when_the_node_runs_short),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
