/*
 * Buddy allocator behaviour: splitting, coalescing, exhaustion, holes, the
 * mem_map lookups and rebooting. The PCP is switched off where exact
 * buddy addresses matter, so every call reaches the buddy lists.
 */
#include <stdlib.h>
#include <string.h>

#include "mm_test.h"
#include "zone.h"

#define MAX_PAGES 8192

/* Take every order-0 page of the machine; returns how many. */
static unsigned long take_all(struct page **pages)
{
	unsigned long n = 0;
	struct page *p;
	while (n < MAX_PAGES &&
	       (p = alloc_pages(GFP_KERNEL | __GFP_NOWARN, 0)) != NULL)
		pages[n++] = p;
	return n;
}

/*
 * Leave exactly one free block: the order-MAX_ORDER block at pfn *base.
 * Returns the other pages still held (in pages[], count in *held).
 */
static void isolate_one_max_block(struct page **pages, unsigned long *held,
				  unsigned long *base)
{
	unsigned long n = take_all(pages);
	assert_true(n > (1UL << MAX_ORDER));
	/* The last node page is in a whole max-order block (node sizes are
	 * multiples of 4 MiB and the mem_map sits at the start). */
	*base = page_to_pfn(pages[n - 1]) & ~((1UL << MAX_ORDER) - 1);
	unsigned long keep = 0;
	for (unsigned long i = 0; i < n; i++) {
		unsigned long pfn = page_to_pfn(pages[i]);
		if (pfn - *base < (1UL << MAX_ORDER))
			__free_pages(pages[i], 0);
		else
			pages[keep++] = pages[i];
	}
	*held = keep;
}

static void release(struct page **pages, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		__free_pages(pages[i], 0);
}

static int setup_nopcp(void **state)
{
	mm_test_setup_1node(state);
	pcp_set_enabled(false);
	return 0;
}

static void
test_freeing_all_pages_of_a_block_coalesces_to_max_order(void **state)
{
	(void)state;
	struct page **pages = calloc(MAX_PAGES, sizeof(*pages));
	unsigned long held, base;
	isolate_one_max_block(pages, &held, &base);

	assert_int_equal(mm_test_free_blocks(0, MAX_ORDER), 1);
	for (unsigned int o = 0; o < MAX_ORDER; o++)
		assert_int_equal(mm_test_free_blocks(0, o), 0);
	assert_int_equal(nr_free_pages(), 1UL << MAX_ORDER);
	release(pages, held);
	free(pages);
}

static void
test_split_returns_block_start_and_keeps_upper_halves_free(void **state)
{
	(void)state;
	struct page **pages = calloc(MAX_PAGES, sizeof(*pages));
	unsigned long held, base;
	isolate_one_max_block(pages, &held, &base);

	struct page *p = alloc_pages(GFP_KERNEL, 0);
	assert_non_null(p);
	assert_int_equal(page_to_pfn(p), base);
	/* One free block of every order below MAX_ORDER: the split halves. */
	for (unsigned int o = 0; o < MAX_ORDER; o++)
		assert_int_equal(mm_test_free_blocks(0, o), 1);
	assert_int_equal(mm_test_free_blocks(0, MAX_ORDER), 0);

	/* The next blocks are the buddies: pfn ^ (1 << order). */
	struct page *b0 = alloc_pages(GFP_KERNEL, 0);
	struct page *b1 = alloc_pages(GFP_KERNEL, 1);
	struct page *b2 = alloc_pages(GFP_KERNEL, 2);
	assert_int_equal(page_to_pfn(b0), base ^ 1);
	assert_int_equal(page_to_pfn(b1), base ^ 2);
	assert_int_equal(page_to_pfn(b2), base ^ 4);

	__free_pages(b1, 1);
	__free_pages(p, 0);
	__free_pages(b2, 2);
	__free_pages(b0, 0);
	assert_int_equal(mm_test_free_blocks(0, MAX_ORDER), 1);
	release(pages, held);
	free(pages);
}

static void test_exhaustion_returns_null_then_recovers_every_page(void **state)
{
	(void)state;
	pcp_set_enabled(true);
	struct page **pages = calloc(MAX_PAGES, sizeof(*pages));
	unsigned long before = mm_test_drain_and_verify();

	unsigned long n = take_all(pages);
	assert_int_equal(n, before);
	assert_null(alloc_pages(GFP_KERNEL | __GFP_NOWARN, 0));
	assert_null(alloc_pages(GFP_KERNEL | __GFP_NOWARN, 3));
	assert_true(mm_zones[0].alloc_fail >= 2);

	release(pages, n);
	assert_int_equal(mm_test_drain_and_verify(), before);
	assert_non_null(pages[0] = alloc_pages(GFP_KERNEL, MAX_ORDER));
	__free_pages(pages[0], MAX_ORDER);
	free(pages);
}

static void test_order_above_max_fails_without_touching_lists(void **state)
{
	(void)state;
	unsigned long before = nr_free_pages();
	assert_null(alloc_pages(GFP_KERNEL | __GFP_NOWARN, MAX_ORDER + 1));
	assert_int_equal(nr_free_pages(), before);
}

static void test_mem_map_lookups_round_trip(void **state)
{
	(void)state;
	struct page *p = alloc_pages(GFP_KERNEL, 2);
	assert_non_null(p);
	char *addr = page_address(p);
	assert_int_equal((uintptr_t)addr & (MM_PAGE_SIZE - 1), 0);
	assert_ptr_equal(virt_to_page(addr), p);
	assert_ptr_equal(virt_to_page(addr + 3 * MM_PAGE_SIZE + 17), p + 3);
	assert_ptr_equal(pfn_to_page(page_to_pfn(p)), p);
	assert_int_equal(page_to_pfn(p), (uintptr_t)addr >> MM_PAGE_SHIFT);
	assert_int_equal(page_to_nid(p), 0);
	assert_int_equal(page_ref_count(p), 1);
	memset(addr, 0xa5, 4 * MM_PAGE_SIZE); /* the memory is usable */
	assert_null(virt_to_page(&p));	      /* a stack address: no page */
	__free_pages(p, 2);
}

static void test_holes_are_reserved_and_never_handed_out(void **state)
{
	(void)state;
	mm_host_shutdown();
	/* 1 MiB hole at 4 MiB, and 3 pages in the middle of a block. */
	struct mm_host_hole holes[] = {
		{0, 4u << 20, 1u << 20},
		{0, (9u << 20) + 5 * MM_PAGE_SIZE, 3 * MM_PAGE_SIZE},
	};
	struct mm_host_config cfg = {.nr_nodes = 1,
				     .bytes_per_node = 16u << 20,
				     .nr_cpus = 1,
				     .holes = holes,
				     .nr_holes = 2};
	assert_int_equal(mm_host_boot_config(&cfg), 0);
	struct zone *z = &mm_zones[0];
	uintptr_t base = z->start_pfn << MM_PAGE_SHIFT;
	unsigned long mem_map_pages =
		(z->spanned_pages * sizeof(struct page) + MM_PAGE_SIZE - 1) /
		MM_PAGE_SIZE;
	assert_int_equal(z->managed_pages,
			 z->spanned_pages - 256 - 3 - mem_map_pages);

	struct page **pages = calloc(MAX_PAGES, sizeof(*pages));
	unsigned long n = take_all(pages);
	assert_int_equal(n, z->managed_pages);
	for (unsigned long i = 0; i < n; i++) {
		uintptr_t off = (uintptr_t)page_address(pages[i]) - base;
		assert_false(off >= (4u << 20) && off < (5u << 20));
		assert_false(off >= (9u << 20) + 5 * MM_PAGE_SIZE &&
			     off < (9u << 20) + 8 * MM_PAGE_SIZE);
		assert_false(off < mem_map_pages * MM_PAGE_SIZE);
	}
	assert_true(virt_to_page((void *)(base + (4u << 20)))->flags &
		    PG_reserved);
	release(pages, n);
	assert_int_equal(mm_test_drain_and_verify(), z->managed_pages);
	free(pages);
}

static void test_boot_again_after_shutdown_gives_a_fresh_machine(void **state)
{
	(void)state;
	unsigned long fresh = nr_free_pages();
	struct page *leak = alloc_pages(GFP_KERNEL, 5);
	assert_non_null(leak);
	mm_host_shutdown();
	assert_int_equal(nr_free_pages(), 0);
	mm_test_boot(1, 16, 1);
	assert_int_equal(nr_free_pages(), fresh);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			test_freeing_all_pages_of_a_block_coalesces_to_max_order,
			setup_nopcp, mm_test_teardown),
		cmocka_unit_test_setup_teardown(
			test_split_returns_block_start_and_keeps_upper_halves_free,
			setup_nopcp, mm_test_teardown),
		cmocka_unit_test_setup_teardown(
			test_exhaustion_returns_null_then_recovers_every_page,
			mm_test_setup_1node, mm_test_teardown),
		cmocka_unit_test_setup_teardown(
			test_order_above_max_fails_without_touching_lists,
			mm_test_setup_1node, mm_test_teardown),
		cmocka_unit_test_setup_teardown(test_mem_map_lookups_round_trip,
						mm_test_setup_1node,
						mm_test_teardown),
		cmocka_unit_test_setup_teardown(
			test_holes_are_reserved_and_never_handed_out,
			mm_test_setup_1node, mm_test_teardown),
		cmocka_unit_test_setup_teardown(
			test_boot_again_after_shutdown_gives_a_fresh_machine,
			mm_test_setup_1node, mm_test_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
