/*
 * Debug build (mm_debug on): a page freed with the checks on is poisoned,
 * and the poison is checked when the page is handed out again, whatever
 * its order and path (per-CPU list, buddy lists, bulk, a large kmalloc
 * block). A write after free is reported once per block with the pfn,
 * the address, the first changed offset and who freed it; a page freed
 * while the checks were off is never reported.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm_test.h"
#include "page_alloc_tunables.h"

/* The report says "freed by 0x..." with an address inside fn. */
static void assert_freed_by(void (*fn)(void **))
{
	const char *at = strstr(mm_test_last_report(), "freed by ");
	assert_non_null(at);
	uintptr_t who = (uintptr_t)strtoull(at + 9, NULL, 16);
	assert_true(who > (uintptr_t)fn && who < (uintptr_t)fn + 4096);
}

static void assert_says(const char *fmt, unsigned long v)
{
	char want[64];
	snprintf(want, sizeof(want), fmt, v);
	mm_test_assert_report_says(want);
}

/* Allocate order-`order` blocks until `want` comes back (the per-CPU list
 * is LIFO, the buddy lists hand the lowest block out first: a few tries
 * at most); frees the others. */
static struct page *alloc_until(unsigned int order, struct page *want)
{
	struct page *got[32];
	int n = 0;
	struct page *p;

	while ((p = alloc_pages(GFP_KERNEL, order)) != want && n < 32)
		got[n++] = p;
	for (int i = 0; i < n; i++)
		__free_pages(got[i], order);
	return p;
}

static void test_write_after_free_of_a_page_is_reported(void **state)
{
	(void)state;
	struct page *p = alloc_pages(GFP_KERNEL, 0);
	unsigned char *a = page_address(p);
	__free_pages(p, 0);
	a[100] = 1; /* through a dangling pointer */
	assert_int_equal(mm_debug_total(), 0);
	assert_ptr_equal(alloc_until(0, p), p);
	assert_int_equal(mm_debug_count(MM_DBG_WRITE_AFTER_FREE), 1);
	assert_int_equal(mm_debug_total(), 1);
	assert_says("pfn %#lx", page_to_pfn(p));
	assert_says("offset %lu of the page", 100);
	assert_freed_by(test_write_after_free_of_a_page_is_reported);
	__free_pages(p, 0);
	mm_test_drain_and_verify();
}

/* Order 5: above every per-CPU list, from the buddy lists; the write is in
 * the block's fourth page, and the report names that page. */
static void test_write_after_free_in_a_buddy_block_is_reported(void **state)
{
	(void)state;
	struct page *p = alloc_pages(GFP_KERNEL, 5);
	unsigned char *a = page_address(p);
	__free_pages(p, 5);
	a[3 * MM_PAGE_SIZE + 4095] = 0;
	struct page *q = alloc_until(5, p);
	assert_ptr_equal(q, p);
	assert_int_equal(mm_debug_count(MM_DBG_WRITE_AFTER_FREE), 1);
	assert_says("pfn %#lx", page_to_pfn(p) + 3);
	assert_says("offset %lu of the page", 4095);
	__free_pages(q, 5);
	mm_test_drain_and_verify();
}

/* The freed block is split: the damaged page comes back as one page of a
 * smaller allocation, and is still caught. */
static void test_write_after_free_is_caught_through_a_split(void **state)
{
	(void)state;
	pcp_set_enabled(false); /* order 0 from the buddy lists, in order */
	struct page *p = alloc_pages(GFP_KERNEL, 4);
	unsigned char *a = page_address(p);
	__free_pages(p, 4);
	a[0] = 0x6c;
	struct page *q = alloc_until(0, p);
	assert_ptr_equal(q, p);
	assert_int_equal(mm_debug_count(MM_DBG_WRITE_AFTER_FREE), 1);
	assert_says("offset %lu of the page", 0);
	__free_pages(q, 0);
	pcp_set_enabled(true);
	mm_test_drain_and_verify();
}

static void test_write_after_free_seen_by_bulk_alloc(void **state)
{
	(void)state;
	struct page *p = alloc_pages(GFP_KERNEL, 0);
	unsigned char *a = page_address(p);
	__free_pages(p, 0);
	a[2048] = 7;
	struct page *pages[4];
	unsigned int n = alloc_pages_bulk(GFP_KERNEL, 4, pages);
	assert_int_equal(n, 4);
	assert_int_equal(mm_debug_count(MM_DBG_WRITE_AFTER_FREE), 1);
	assert_says("offset %lu of the page", 2048);
	for (unsigned int i = 0; i < n; i++)
		__free_pages(pages[i], 0);
}

/* A block above kmalloc's largest class: the poison is checked when its
 * pages come back, and the freeing caller is kfree's caller. */
static void test_write_after_free_of_a_large_kmalloc_block(void **state)
{
	(void)state;
	char *b = kmalloc(10000, GFP_KERNEL);
	assert_non_null(b);
	kfree(b);
	b[9000] = 'x';
	char *c = kmalloc(10000, GFP_KERNEL);
	assert_ptr_equal(c, b); /* order 2, LIFO on the per-CPU list */
	assert_int_equal(mm_debug_count(MM_DBG_WRITE_AFTER_FREE), 1);
	assert_says("offset %lu of the page", 9000 % MM_PAGE_SIZE);
	assert_freed_by(test_write_after_free_of_a_large_kmalloc_block);
	kfree(c);
}

/* An intact freed page is not reported, and the stamp is gone once the
 * page is handed out: its owner's writes are its own. */
static void test_an_intact_page_is_quiet(void **state)
{
	(void)state;
	struct page *p = alloc_pages(GFP_KERNEL, 0);
	__free_pages(p, 0);
	assert_ptr_equal(alloc_until(0, p), p);
	assert_int_equal(p->poison_epoch, 0);
	memset(page_address(p), 0, MM_PAGE_SIZE);
	__free_pages(p, 0);
	assert_ptr_equal(alloc_until(0, p), p);
	assert_int_equal(mm_debug_total(), 0);
	__free_pages(p, 0);
}

/* Freed with the checks off: not poisoned, never reported; stamped in an
 * earlier on-period and used unchecked since: not reported either. */
static void test_pages_freed_with_checks_off_are_not_reported(void **state)
{
	(void)state;
	struct page *p = alloc_pages(GFP_KERNEL, 0);
	mm_debug_set(false);
	__free_pages(p, 0);
	mm_debug_set(true);
	assert_ptr_equal(alloc_until(0, p), p);
	assert_int_equal(mm_debug_total(), 0);

	__free_pages(p, 0); /* stamped, epoch e */
	mm_debug_set(false);
	assert_ptr_equal(alloc_until(0, p), p); /* unchecked: stamp stays */
	memset(page_address(p), 0, MM_PAGE_SIZE);
	__free_pages(p, 0); /* not poisoned */
	mm_debug_set(true); /* epoch e + 1 */
	assert_ptr_equal(alloc_until(0, p), p);
	assert_int_equal(mm_debug_total(), 0);
	__free_pages(p, 0);
}

int main(void)
{
#define T(f)                                                          \
	cmocka_unit_test_setup_teardown(f, mm_test_setup_1node_debug, \
					mm_test_teardown)
	const struct CMUnitTest tests[] = {
		T(test_write_after_free_of_a_page_is_reported),
		T(test_write_after_free_in_a_buddy_block_is_reported),
		T(test_write_after_free_is_caught_through_a_split),
		T(test_write_after_free_seen_by_bulk_alloc),
		T(test_write_after_free_of_a_large_kmalloc_block),
		T(test_an_intact_page_is_quiet),
		T(test_pages_freed_with_checks_off_are_not_reported),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
