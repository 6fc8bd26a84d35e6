/*
 * ALF queues from the allocator (alf_queue_alloc*) on a simulated machine:
 * the ring lives on the node asked for, it is cache-line aligned, it works,
 * and bad arguments are refused with NULL.
 */
#include "mm_test.h"

#include "alf_queue.h"

static void alloc_node_places_the_ring_on_that_node(void **state)
{
	struct alf_queue *q = alf_queue_alloc_node(4096, 0, GFP_KERNEL, 1);

	(void)state;
	assert_non_null(q);
	assert_int_equal(page_to_nid(virt_to_page(q)), 1);
	assert_int_equal(page_to_nid(virt_to_page(&q->ring[4095])), 1);
	alf_queue_free(q);
}

static void allocated_queue_is_aligned_and_works(void **state)
{
	void *in[3] = {&in[0], &in[1], &in[2]}, *out[3];

	(void)state;
	for (uint32_t size = 1; size <= ALF_QUEUE_MAX_SIZE; size *= 4) {
		struct alf_queue *q = alf_queue_alloc(size, GFP_KERNEL);

		assert_non_null(q);
		assert_int_equal((uintptr_t)q % MM_CACHE_LINE, 0);
		assert_int_equal(alf_queue_size(q), size);
		assert_true(alf_queue_empty(q));
		assert_int_equal(alf_mp_enqueue(q, in, 1), 1);
		assert_int_equal(alf_mc_dequeue(q, out, 3), 1);
		assert_ptr_equal(out[0], in[0]);
		alf_queue_free(q);
	}
}

static void alloc_refuses_bad_flags(void **state)
{
	(void)state;
	assert_null(alf_queue_alloc_node(16, 0x100, GFP_KERNEL, 0));
}

static void free_returns_the_memory(void **state)
{
	unsigned long before;
	struct alf_queue *q;

	(void)state;
	drain_all_pages();
	before = nr_free_pages();
	/* Large enough to come from the page allocator directly. */
	q = alf_queue_alloc(ALF_QUEUE_MAX_SIZE, GFP_KERNEL);
	assert_non_null(q);
	assert_true(nr_free_pages() < before);
	alf_queue_free(q);
	drain_all_pages();
	assert_int_equal(nr_free_pages(), before);
}

static void free_of_null_is_ignored(void **state)
{
	(void)state;
	alf_queue_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			alloc_node_places_the_ring_on_that_node,
			mm_test_setup_2nodes, mm_test_teardown),
		cmocka_unit_test_setup_teardown(
			allocated_queue_is_aligned_and_works,
			mm_test_setup_1node, mm_test_teardown),
		cmocka_unit_test_setup_teardown(alloc_refuses_bad_flags,
						mm_test_setup_1node,
						mm_test_teardown),
		cmocka_unit_test_setup_teardown(free_returns_the_memory,
						mm_test_setup_1node,
						mm_test_teardown),
		cmocka_unit_test_setup_teardown(free_of_null_is_ignored,
						mm_test_setup_1node,
						mm_test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
