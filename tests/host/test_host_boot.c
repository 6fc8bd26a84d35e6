/*
 * The host world's machine (mm/host/mm_host.h): a thread can only be a CPU
 * the machine has, and every boot is a fresh machine.
 */
#include <stdlib.h>
#include <string.h>

#include "mm_test.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(
			test_set_cpu_refuses_a_cpu_the_machine_does_not_have,
			mm_test_teardown),
		cmocka_unit_test_teardown(
			test_set_cpu_without_a_machine_is_refused,
			mm_test_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
