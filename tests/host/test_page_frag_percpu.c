/*
 * Unit tests of the per-CPU fragment caches (mm/page_frag_percpu.c):
 * NUMA-local refill, one cache per CPU and per context, and draining.
 * Each test boots a fresh two-node machine, CPU 0 on node 0, CPU 1 on 1.
 */
#include <stdint.h>

#include "mm_test.h"
#include "zone.h"

static int boot(void **state)
{
	static const int cpu_to_node[2] = {0, 1};

	(void)state;
	if (mm_host_boot(2, 16u << 20, 2, cpu_to_node))
		return -1;
	assert_int_equal(mm_host_set_cpu(0), 0);
	return 0;
}

static int shutdown(void **state)
{
	(void)state;
	page_frag_percpu_drain(0);
	page_frag_percpu_drain(1);
	return mm_test_teardown(state);
}

/* Free pages with every per-CPU list flushed and every free list checked. */
static unsigned long free_pages_now(void)
{
	return mm_test_drain_and_verify();
}

static int node_of(void *va)
{
	return page_to_nid(virt_to_head_page(va));
}

static void test_napi_alloc_frag_refills_from_the_cpu_node(void **s)
{
	void *on0, *on1;

	(void)s;
	on0 = napi_alloc_frag(256);
	assert_int_equal(mm_host_set_cpu(1), 0);
	on1 = napi_alloc_frag(256);
	assert_non_null(on0);
	assert_non_null(on1);
	assert_int_equal(node_of(on0), 0);
	assert_int_equal(node_of(on1), 1);
	page_frag_free(on0);
	page_frag_free(on1);
}

static void test_netdev_alloc_frag_refills_from_the_cpu_node(void **s)
{
	void *on0, *on1;

	(void)s;
	assert_int_equal(mm_host_set_cpu(1), 0);
	on1 = netdev_alloc_frag(1500);
	assert_int_equal(mm_host_set_cpu(0), 0);
	on0 = netdev_alloc_frag(1500);
	assert_int_equal(node_of(on0), 0);
	assert_int_equal(node_of(on1), 1);
	page_frag_free(on0);
	page_frag_free(on1);
}

static void test_napi_and_netdev_caches_are_separate(void **s)
{
	char *a = napi_alloc_frag(64);
	char *b = netdev_alloc_frag(64);
	char *c = napi_alloc_frag(64);

	(void)s;
	assert_ptr_not_equal(virt_to_head_page(a), virt_to_head_page(b));
	/* The NAPI cache carried on where it was. */
	assert_ptr_equal(c, a + 64);
	page_frag_free(a);
	page_frag_free(b);
	page_frag_free(c);
}

static void test_each_cpu_has_its_own_cache(void **s)
{
	static const int same_node[2] = {0, 0};
	char *a, *b;

	(void)s;
	/* One node this time, so only the CPU tells the caches apart. */
	mm_host_shutdown();
	assert_int_equal(mm_host_boot(1, 16u << 20, 2, same_node), 0);
	assert_int_equal(mm_host_set_cpu(0), 0);
	a = napi_alloc_frag(64);
	assert_int_equal(mm_host_set_cpu(1), 0);
	b = napi_alloc_frag(64);
	assert_ptr_not_equal(virt_to_head_page(a), virt_to_head_page(b));
	page_frag_free(a);
	page_frag_free(b);
}

static void test_aligned_variants_align(void **s)
{
	char *odd = napi_alloc_frag(3);
	char *a = napi_alloc_frag_align(100, 64);
	char *b = netdev_alloc_frag_align(100, 256);

	(void)s;
	assert_int_equal((uintptr_t)a & 63, 0);
	assert_int_equal((uintptr_t)b & 255, 0);
	assert_null(napi_alloc_frag_align(100, 3));
	assert_null(netdev_alloc_frag(MM_PAGE_SIZE + 1));
	page_frag_free(odd);
	page_frag_free(a);
	page_frag_free(b);
}

static void test_percpu_drain_gives_every_page_back(void **s)
{
	unsigned long free0 = free_pages_now();
	void *p[300];

	(void)s;
	for (int cpu = 0; cpu < 2; cpu++) {
		assert_int_equal(mm_host_set_cpu(cpu), 0);
		for (int i = 0; i < 150; i++) {
			p[cpu * 150 + i] = i & 1 ? napi_alloc_frag(700)
						 : netdev_alloc_frag(900);
			assert_non_null(p[cpu * 150 + i]);
		}
	}
	for (int i = 0; i < 300; i++)
		page_frag_free(p[i]);
	assert_true(free_pages_now() < free0);
	page_frag_percpu_drain(0);
	page_frag_percpu_drain(1);
	assert_int_equal(free_pages_now(), free0);
}

/*
 * Node 0 has thousands of free pages but no free 32 KiB block (every other
 * page is in use); node 1 has plenty of both. The refill must stay local:
 * one node-0 page, not an order-3 block from node 1.
 */
static void test_refill_prefers_a_local_page_to_a_remote_block(void **s)
{
	struct page_frag_stats a, b;
	size_t n, freed = 0;
	struct page **held = mm_test_take_node(0, &n);
	unsigned long miss1 = numa_stat_read(1, NUMA_MISS);
	char *p;

	(void)s;
	for (size_t i = 0; i < n; i++) {
		if (page_to_pfn(held[i]) & 1) {
			__free_pages(held[i], 0);
			held[i] = NULL;
			freed++;
		}
	}
	drain_all_pages();
	assert_true(freed > 1000);
	assert_int_equal(mm_test_free_blocks(0, 3), 0);
	page_frag_stats_read(&a);
	p = napi_alloc_frag(1500);
	page_frag_stats_read(&b);
	assert_non_null(p);
	assert_int_equal(node_of(p), 0);
	assert_int_equal(virt_to_head_page(p)->order, 0);
	assert_int_equal(b.order3_fallbacks - a.order3_fallbacks, 1);
	assert_int_equal(b.refills_order0 - a.refills_order0, 1);
	assert_int_equal(b.refills_remote - a.refills_remote, 0);
	assert_int_equal(numa_stat_read(1, NUMA_MISS), miss1);
	page_frag_free(p);
	page_frag_percpu_drain(0);
	mm_test_give_back(held, n);
}

/*
 * Node 0 has no page at all: then, and only then, the refill takes one
 * page from node 1, counted as refills_remote and numa_miss. Once node 0
 * has memory again, the next refill is local (and order 3) again.
 */
static void test_refill_goes_remote_only_when_the_local_node_is_empty(void **s)
{
	struct page_frag_stats a, b;
	size_t n;
	struct page **held = mm_test_take_node(0, &n);
	unsigned long miss1 = numa_stat_read(1, NUMA_MISS);
	unsigned long foreign0 = numa_stat_read(0, NUMA_FOREIGN);
	char *p, *q;

	(void)s;
	page_frag_stats_read(&a);
	p = napi_alloc_frag(1024);
	page_frag_stats_read(&b);
	assert_non_null(p);
	assert_int_equal(node_of(p), 1);
	assert_int_equal(virt_to_head_page(p)->order, 0);
	assert_int_equal(b.refills_remote - a.refills_remote, 1);
	assert_int_equal(numa_stat_read(1, NUMA_MISS), miss1 + 1);
	assert_int_equal(numa_stat_read(0, NUMA_FOREIGN), foreign0 + 1);
	mm_test_give_back(held, n);
	/* Use up the remote page (4 KiB: four 1 KiB fragments in all). */
	for (int i = 0; i < 3; i++) {
		q = napi_alloc_frag(1024);
		assert_int_equal(node_of(q), 1);
		page_frag_free(q);
	}
	q = napi_alloc_frag(1024);
	assert_int_equal(node_of(q), 0);
	assert_int_equal(virt_to_head_page(q)->order, 3);
	page_frag_free(p);
	page_frag_free(q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, boot, shutdown)
		T(test_napi_alloc_frag_refills_from_the_cpu_node),
		T(test_netdev_alloc_frag_refills_from_the_cpu_node),
		T(test_napi_and_netdev_caches_are_separate),
		T(test_each_cpu_has_its_own_cache),
		T(test_aligned_variants_align),
		T(test_percpu_drain_gives_every_page_back),
		T(test_refill_prefers_a_local_page_to_a_remote_block),
		T(test_refill_goes_remote_only_when_the_local_node_is_empty),
#undef T
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
