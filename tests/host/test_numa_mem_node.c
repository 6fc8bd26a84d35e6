/*
 * A CPU whose node has no memory (a memoryless node) takes the nearest
 * node with memory as its local one, as Linux's numa_mem_id(): its slab
 * magazines, fragment caches and qmempool localq cache that node's memory,
 * and the page allocator prefers that node (so __GFP_NORETRY still finds
 * a page).
 */
#include <stdlib.h>
#include <string.h>

#include "mm_test.h"
#include "slab_test.h"
#include "zone.h"

#define MiB ((size_t)1 << 20)

/* Node 0: 16 MiB; node 1: none; node 2: 16 MiB, nearer to node 1 than
 * node 0 is. CPU 0 on node 0, CPU 1 on memoryless node 1, CPU 2 on 2. */
static int boot_memoryless(void **state)
{
	static const struct mm_host_range r[] = {
		{.nid = 0, .offset = 0, .len = 16 * MiB},
		{.nid = 2, .offset = 16 * MiB, .len = 16 * MiB},
	};
	static const int cpu_to_node[3] = {0, 1, 2};
	static const int distance[9] = {
		10, 30, 40, /* from node 0 */
		30, 10, 20, /* from node 1: node 2 is nearest */
		40, 20, 10, /* from node 2 */
	};
	struct mm_host_config c = {
		.nr_nodes = 3,
		.nr_cpus = 3,
		.cpu_to_node = cpu_to_node,
		.distance = distance,
		.ranges = r,
		.nr_ranges = 2,
	};
	(void)state;
	if (mm_host_boot_config(&c))
		return -1;
	mm_debug_set(false);
	mm_debug_reset_counts();
	return 0;
}

static void test_each_cpu_has_a_memory_node(void **state)
{
	(void)state;
	assert_int_equal(cpu_to_mem(0), 0);
	assert_int_equal(cpu_to_mem(1), 2); /* nearest node with memory */
	assert_int_equal(cpu_to_mem(2), 2);
	assert_int_equal(mm_cpu_to_node(1), 1); /* its node stays node 1 */
	assert_int_equal(mm_host_set_cpu(1), 0);
	assert_int_equal(numa_mem_id(), 2);
	assert_int_equal(mm_host_set_cpu(0), 0);
	assert_int_equal(numa_mem_id(), 0);
}

/* The page allocator prefers the memory node: __GFP_NORETRY (one node, no
 * drain) succeeds, and numastat counts a hit there, an other_node for a
 * CPU of node 1 (Linux's semantics). */
static void test_pages_come_from_the_memory_node(void **state)
{
	(void)state;
	assert_int_equal(mm_host_set_cpu(1), 0);
	struct page *p = alloc_pages(GFP_KERNEL | __GFP_NORETRY, 0);
	assert_non_null(p);
	assert_int_equal(page_to_nid(p), 2);
	struct page *b[8];
	assert_int_equal(alloc_pages_bulk(GFP_KERNEL | __GFP_NORETRY, 8, b), 8);
	for (int i = 0; i < 8; i++) {
		assert_int_equal(page_to_nid(b[i]), 2);
		__free_pages(b[i], 0);
	}
	__free_pages(p, 0);
	assert_int_equal(numa_stat_read(2, NUMA_HIT), 9);
	assert_int_equal(numa_stat_read(2, NUMA_MISS), 0);
	assert_int_equal(numa_stat_read(1, NUMA_FOREIGN), 0);
	assert_int_equal(numa_stat_read(2, NUMA_OTHER), 9);
	assert_int_equal(mm_host_set_cpu(0), 0);
}

/* Slab: CPU 1's magazine caches node 2's objects, so allocations after the
 * first refill are magazine hits, not fallbacks one object at a time. */
static void test_slab_magazine_caches_the_memory_nodes_objects(void **state)
{
	(void)state;
	struct kmem_cache *s = kmem_cache_create("memless", 128, 0, 0, NULL);
	void *p[64];
	assert_non_null(s);
	assert_int_equal(mm_host_set_cpu(1), 0);
	for (int round = 0; round < 4; round++) {
		for (int i = 0; i < 64; i++) {
			p[i] = kmem_cache_alloc(s, GFP_KERNEL);
			assert_non_null(p[i]);
			assert_int_equal(page_to_nid(virt_to_head_page(p[i])),
					 2);
		}
		for (int i = 0; i < 64; i++)
			kmem_cache_free(s, p[i]);
	}
	assert_int_equal(slab_test_field("memless", "fallback_allocs"), 0);
	assert_true(slab_test_field("memless", "cpu_cached") > 0);
	kmem_cache_shrink(s);
	assert_int_equal(mm_host_set_cpu(0), 0);
	kmem_cache_destroy(s);
}

/* page_frag: CPU 1 refills from node 2 without counting a remote refill,
 * and its frees there are local. */
static void test_page_frag_refills_from_the_memory_node(void **state)
{
	(void)state;
	struct page_frag_stats st;
	void *f[64];
	assert_int_equal(mm_host_set_cpu(1), 0);
	for (int i = 0; i < 64; i++) {
		f[i] = napi_alloc_frag(1024);
		assert_non_null(f[i]);
		assert_int_equal(page_to_nid(virt_to_head_page(f[i])), 2);
	}
	for (int i = 0; i < 64; i++)
		page_frag_free(f[i]);
	page_frag_percpu_drain(1);
	page_frag_stats_read(&st);
	assert_int_equal(st.refills_remote, 0);
	assert_int_equal(st.remote_frees, 0);
	assert_true(st.refills_order3 > 0);
	assert_int_equal(mm_host_set_cpu(0), 0);
}

/* qmempool: CPU 1's localq serves node 2's objects. */
static void test_qmempool_localq_holds_the_memory_nodes_objects(void **state)
{
	(void)state;
	struct kmem_cache *s = kmem_cache_create("memless-q", 64, 0, 0, NULL);
	assert_non_null(s);
	struct qmempool *q = qmempool_create(64, 256, 0, s, GFP_KERNEL);
	assert_non_null(q);
	assert_int_equal(mm_host_set_cpu(1), 0);
	void *o[32];
	for (int round = 0; round < 4; round++) {
		for (int i = 0; i < 32; i++) {
			o[i] = qmempool_alloc(q, GFP_KERNEL);
			assert_non_null(o[i]);
			assert_int_equal(page_to_nid(virt_to_head_page(o[i])),
					 2);
		}
		for (int i = 0; i < 32; i++)
			qmempool_free(q, o[i]);
	}
	struct qmempool_stats st;
	qmempool_get_stats(q, &st);
	assert_true(st.localq_hit > 0);
	assert_int_equal(st.remote_free, 0);
	assert_int_equal(mm_host_set_cpu(0), 0);
	qmempool_destroy(q);
	kmem_cache_destroy(s);
}

int main(void)
{
#define T(f) \
	cmocka_unit_test_setup_teardown(f, boot_memoryless, mm_test_teardown)
	const struct CMUnitTest tests[] = {
		T(test_each_cpu_has_a_memory_node),
		T(test_pages_come_from_the_memory_node),
		T(test_slab_magazine_caches_the_memory_nodes_objects),
		T(test_page_frag_refills_from_the_memory_node),
		T(test_qmempool_localq_holds_the_memory_nodes_objects),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
