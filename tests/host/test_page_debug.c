/*
 * Debug detections on free (mm_debug on): each is reported with the
 * caller's address, counted, and refused, so the allocator stays
 * consistent; freed pages are poisoned.
 */
#include <string.h>

#include "mm_test.h"
#include "zone.h"

static int setup(void **state)
{
	mm_test_setup_2nodes(state);
	mm_debug_set(true);
	mm_debug_set_quiet(true);
	return 0;
}

static void test_double_free_is_caught_and_refused(void **state)
{
	(void)state;
	struct page *p = alloc_pages(GFP_KERNEL, 0);
	__free_pages(p, 0);
	__free_pages(p, 0);
	assert_int_equal(mm_debug_count(MM_DBG_DOUBLE_FREE), 1);
	assert_int_equal(mm_debug_total(), 1);
	mm_test_assert_caller_in(test_double_free_is_caught_and_refused);
	/* Still one copy on the lists: the next two allocations differ. */
	struct page *a = alloc_pages(GFP_KERNEL, 0);
	struct page *b = alloc_pages(GFP_KERNEL, 0);
	assert_ptr_not_equal(a, b);
	__free_pages(a, 0);
	__free_pages(b, 0);
	mm_test_drain_and_verify();
}

static void test_double_free_after_merge_is_caught(void **state)
{
	(void)state;
	pcp_set_enabled(false);
	struct page *p = alloc_pages(GFP_KERNEL, 5);
	__free_pages(p, 5);
	__free_pages(p, 5); /* now inside a merged free block */
	assert_int_equal(mm_debug_total(), 1);
	mm_test_drain_and_verify();
}

static void test_free_of_a_tail_page_is_not_allocated(void **state)
{
	(void)state;
	struct page *p = alloc_pages(GFP_KERNEL, 2);
	__free_pages(p + 1, 0);
	assert_int_equal(mm_debug_count(MM_DBG_NOT_ALLOCATED), 1);
	mm_test_assert_caller_in(test_free_of_a_tail_page_is_not_allocated);
	__free_pages(p, 2);
	assert_int_equal(mm_debug_total(), 1);
}

static void test_free_pages_of_a_foreign_address_is_caught(void **state)
{
	(void)state;
	static char not_ours[2 * MM_PAGE_SIZE];
	free_pages(not_ours, 0);
	assert_int_equal(mm_debug_count(MM_DBG_NOT_ALLOCATED), 1);
	mm_test_assert_caller_in(
		test_free_pages_of_a_foreign_address_is_caught);
}

static void test_free_of_a_never_allocated_page_is_caught(void **state)
{
	(void)state;
	/* The node's last page is free, inside a large buddy block. */
	struct zone *z = &mm_zones[0];
	struct page *p = &z->mem_map[z->spanned_pages - 1];
	unsigned long before = nr_free_pages();
	__free_pages(p, 0);
	assert_int_equal(mm_debug_count(MM_DBG_NOT_ALLOCATED), 1);
	assert_int_equal(nr_free_pages(), before);
}

static void test_wrong_order_is_caught_and_refused(void **state)
{
	(void)state;
	struct page *p = alloc_pages(GFP_KERNEL, 2);
	__free_pages(p, 1);
	assert_int_equal(mm_debug_count(MM_DBG_WRONG_ORDER), 1);
	mm_test_assert_caller_in(test_wrong_order_is_caught_and_refused);
	assert_int_equal(page_ref_count(p), 1); /* refused: still ours */
	__free_pages(p, 2);
	assert_int_equal(mm_debug_total(), 1);
	mm_test_drain_and_verify();
}

static void test_page_claiming_another_node_is_wrong_zone(void **state)
{
	(void)state;
	struct page *p = alloc_pages_node(0, GFP_KERNEL, 0);
	p->nid = 1; /* a corrupted struct page */
	__free_pages(p, 0);
	assert_int_equal(mm_debug_count(MM_DBG_WRONG_ZONE), 1);
	p->nid = 0;
	__free_pages(p, 0);
	assert_int_equal(mm_debug_total(), 1);
}

static void test_struct_page_outside_every_mem_map_is_wrong_zone(void **state)
{
	(void)state;
	struct page fake;
	memset(&fake, 0, sizeof(fake));
	atomic_init(&fake._refcount, 1);
	__free_pages(&fake, 0);
	assert_int_equal(mm_debug_count(MM_DBG_WRONG_ZONE), 1);
	mm_test_assert_caller_in(
		test_struct_page_outside_every_mem_map_is_wrong_zone);
}

static void test_freed_pages_are_poisoned(void **state)
{
	(void)state;
	struct page *p = alloc_pages(GFP_KERNEL, 1);
	unsigned char *a = page_address(p);
	memset(a, 0, 2 * MM_PAGE_SIZE);
	__free_pages(p, 1);
	for (size_t i = 0; i < 2 * MM_PAGE_SIZE; i++)
		assert_int_equal(a[i], PAGE_POISON_BYTE);
}

static void test_checks_are_off_when_debug_is_off(void **state)
{
	(void)state;
	mm_debug_set(false);
	struct page *p = alloc_pages(GFP_KERNEL, 0);
	unsigned char *a = page_address(p);
	a[0] = 1;
	__free_pages(p, 0);
	assert_int_equal(a[0], 1); /* not poisoned */
	assert_int_equal(mm_debug_total(), 0);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, mm_test_teardown)
	const struct CMUnitTest tests[] = {
		T(test_double_free_is_caught_and_refused),
		T(test_double_free_after_merge_is_caught),
		T(test_free_of_a_tail_page_is_not_allocated),
		T(test_free_pages_of_a_foreign_address_is_caught),
		T(test_free_of_a_never_allocated_page_is_caught),
		T(test_wrong_order_is_caught_and_refused),
		T(test_page_claiming_another_node_is_wrong_zone),
		T(test_struct_page_outside_every_mem_map_is_wrong_zone),
		T(test_freed_pages_are_poisoned),
		T(test_checks_are_off_when_debug_is_off),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
