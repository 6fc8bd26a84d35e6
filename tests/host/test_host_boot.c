/*
 * The host world's machine (mm/host/mm_host.h): a thread can only be a CPU
 * the machine has, and every boot is a fresh machine.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "mm_test.h"
#include "zone.h"

static const int two_nodes[2] = {0, 1};

/* CPUs outside 0..nr_cpus-1 are refused and the thread stays what it was:
 * slab and qmempool size their per-CPU arrays by nr_cpus. */
static void test_set_cpu_refuses_a_cpu_the_machine_does_not_have(void **s)
{
	(void)s;
	assert_int_equal(mm_host_boot(2, 16u << 20, 2, two_nodes), 0);
	assert_int_equal(mm_this_cpu(), 0);
	assert_int_equal(mm_host_set_cpu(5), -1);
	assert_int_equal(mm_this_cpu(), 0);
	assert_int_equal(mm_host_set_cpu(2), -1);
	assert_int_equal(mm_host_set_cpu(-1), -1);
	assert_int_equal(mm_host_set_cpu(MM_MAX_CPUS), -1);
	assert_int_equal(mm_this_cpu(), 0);
	assert_int_equal(mm_host_set_cpu(1), 0);
	assert_int_equal(mm_this_cpu(), 1);
	assert_int_equal(mm_host_set_cpu(2), -1);
	assert_int_equal(mm_this_cpu(), 1);
	/* ... and the allocators serve CPU 1 from its own slot. */
	struct kmem_cache *c = kmem_cache_create("cpu1", 64, 0, 0, NULL);
	assert_non_null(c);
	void *obj = kmem_cache_alloc(c, GFP_KERNEL);
	assert_non_null(obj);
	assert_int_equal(page_to_nid(virt_to_head_page(obj)), 1);
	kmem_cache_free(c, obj);
	kmem_cache_destroy(c);
	assert_int_equal(mm_host_set_cpu(0), 0);
}

/* With no machine there is no CPU to be. */
static void test_set_cpu_without_a_machine_is_refused(void **s)
{
	(void)s;
	mm_host_shutdown();
	assert_int_equal(mm_host_set_cpu(0), -1);
	assert_int_equal(mm_this_cpu(), 0);
}

/* Is addr inside the booted machine's memory (by its range list)? */
static bool in_machine(const void *addr)
{
	for (int i = 0; i < mm_host_machine.nr_ranges; i++) {
		const struct mm_range *r = &mm_host_machine.ranges[i];
		if ((uintptr_t)addr - r->start < r->end - r->start)
			return true;
	}
	return false;
}

/* The previous machine: per-CPU fragment caches holding blocks, a cache,
 * a pool, counters and a debug detection, none of them given back. */
static void use_and_abandon_a_machine(void)
{
	assert_int_equal(mm_host_boot(2, 16u << 20, 2, two_nodes), 0);
	assert_non_null(napi_alloc_frag(256));
	assert_non_null(netdev_alloc_frag(256));
	assert_int_equal(mm_host_set_cpu(1), 0);
	assert_non_null(napi_alloc_frag(256));
	assert_non_null(netdev_alloc_frag(256));
	assert_int_equal(mm_host_set_cpu(0), 0);
	struct kmem_cache *c = kmem_cache_create("old-machine", 64, 0, 0, NULL);
	assert_non_null(c);
	assert_non_null(kmem_cache_alloc(c, GFP_KERNEL));
	assert_non_null(qmempool_create(64, 256, 0, c, GFP_KERNEL));
	assert_non_null(kmalloc(100, GFP_KERNEL));
	mm_debug_set_quiet(true);
	kfree((void *)8192); /* reported and counted */
	mm_debug_set_quiet(false);
	assert_true(mm_debug_total() > 0);
	mm_host_shutdown(); /* nothing drained, nothing freed */
}

/* Every fragment cache of every CPU carves from a block of the new
 * machine that nobody else can get: taking every page of every node never
 * hands out a page holding one of the fragments. */
static void check_fragments_have_one_owner(void)
{
	void *f[4];
	f[0] = napi_alloc_frag(256);
	f[1] = netdev_alloc_frag(256);
	assert_int_equal(mm_host_set_cpu(1), 0);
	f[2] = napi_alloc_frag(256);
	f[3] = netdev_alloc_frag(256);
	assert_int_equal(mm_host_set_cpu(0), 0);
	for (int i = 0; i < 4; i++) {
		assert_non_null(f[i]);
		assert_true(in_machine(f[i]));
		memset(f[i], 0x5a, 256); /* faults in an unmapped old block */
	}
	for (int nid = 0; nid < 2; nid++) {
		size_t n;
		struct page **pages = mm_test_take_node(nid, &n);
		for (size_t k = 0; k < n; k++)
			for (int i = 0; i < 4; i++)
				assert_false((uintptr_t)f[i] -
						     (uintptr_t)page_address(
							     pages[k]) <
					     MM_PAGE_SIZE);
		mm_test_give_back(pages, n);
	}
	for (int i = 0; i < 4; i++)
		page_frag_free(f[i]);
}

/* A boot after a shutdown is a fresh machine: no per-CPU cache, counter,
 * cache or pool of the old one is still there. */
static void test_a_new_boot_is_a_fresh_machine(void **s)
{
	(void)s;
	use_and_abandon_a_machine();
	assert_int_equal(mm_host_boot(2, 16u << 20, 2, two_nodes), 0);
	struct page_frag_stats fs;
	page_frag_stats_read(&fs);
	assert_int_equal(fs.fragments, 0);
	assert_int_equal(fs.refills_order3 + fs.refills_order0, 0);
	assert_int_equal(mm_debug_total(), 0);
	struct slab_debug_counts dc;
	slab_debug_counts(&dc);
	assert_int_equal(dc.invalid_free, 0);
	char buf[4096];
	slabinfo_text(buf, sizeof(buf));
	assert_null(strstr(buf, "old-machine"));
	qmempool_stats_text(buf, sizeof(buf));
	assert_null(strstr(buf, "qmempool0"));
	for (int nid = 0; nid < 2; nid++)
		for (int i = 0; i < NR_NUMA_STATS; i++)
			assert_int_equal(numa_stat_read(nid, i), 0);
	check_fragments_have_one_owner();
	/* Everything the new machine handed out came back. */
	for (int cpu = 0; cpu < 2; cpu++)
		page_frag_percpu_drain(cpu);
	assert_int_equal(mm_test_drain_and_verify(),
			 nr_managed_pages_node(0) + nr_managed_pages_node(1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(
			test_set_cpu_refuses_a_cpu_the_machine_does_not_have,
			mm_test_teardown),
		cmocka_unit_test_teardown(
			test_set_cpu_without_a_machine_is_refused,
			mm_test_teardown),
		cmocka_unit_test_teardown(test_a_new_boot_is_a_fresh_machine,
					  mm_test_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
