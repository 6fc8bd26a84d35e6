/*
 * Unit tests of the TX-side page fragment API (mm/page_frag_tx.c):
 * prepare reports room without taking it, commit takes what was used,
 * probe never refills, abort gives the last fragment back, and misuse is
 * refused and counted. Each test boots a fresh machine.
 */
#include <stdint.h>
#include <string.h>

#include "mm_test.h"

#define BLOCK (MM_PAGE_SIZE << PAGE_FRAG_CACHE_MAX_ORDER)

static struct page_frag_stats before;

static int boot(void **state)
{
	static const int cpu_to_node[1] = {0};

	(void)state;
	if (mm_host_boot(1, 16u << 20, 1, cpu_to_node))
		return -1;
	assert_int_equal(mm_host_set_cpu(0), 0);
	page_frag_stats_read(&before);
	return 0;
}

static int shutdown(void **state)
{
	(void)state;
	return mm_test_teardown(state);
}

static uint64_t fragments_taken(void)
{
	struct page_frag_stats now;

	page_frag_stats_read(&now);
	return now.fragments - before.fragments;
}

static uint64_t misuses(void)
{
	struct page_frag_stats now;

	page_frag_stats_read(&now);
	return now.tx_misuse - before.tx_misuse;
}

/* Free pages with every per-CPU list flushed and every free list checked. */
static unsigned long free_pages_now(void)
{
	return mm_test_drain_and_verify();
}

static void test_prepare_reports_all_room_and_takes_nothing(void **s)
{
	struct page_frag_cache nc = {0};
	struct page_frag pf, again;
	char *va = page_frag_prepare(&nc, 100, &pf, GFP_KERNEL);

	(void)s;
	assert_non_null(va);
	assert_ptr_equal(va, (char *)page_address(pf.page) + pf.offset);
	assert_int_equal(pf.offset, 0);
	assert_int_equal(pf.size, BLOCK);
	assert_int_equal(fragments_taken(), 0);
	/* Nothing was taken, so preparing again sees the same room. */
	assert_ptr_equal(page_frag_prepare(&nc, 100, &again, GFP_KERNEL), va);
	assert_int_equal(again.size, pf.size);
	page_frag_cache_drain(&nc);
}

static void test_commit_takes_only_the_bytes_used(void **s)
{
	struct page_frag_cache nc = {0};
	struct page_frag pf;
	char *va = page_frag_prepare(&nc, 1000, &pf, GFP_KERNEL), *next;

	(void)s;
	memset(va, 'a', 37);
	assert_true(page_frag_commit(&nc, &pf, 37));
	assert_int_equal(fragments_taken(), 1);
	next = page_frag_alloc(&nc, 10, GFP_KERNEL);
	assert_ptr_equal(next, va + 37);
	page_frag_free(next);
	page_frag_free(va);
	page_frag_cache_drain(&nc);
}

static void test_prepare_align_starts_at_an_aligned_address(void **s)
{
	struct page_frag_cache nc = {0};
	struct page_frag pf;
	char *odd = page_frag_alloc(&nc, 5, GFP_KERNEL);
	char *va = page_frag_prepare_align(&nc, 64, &pf, GFP_KERNEL, 64);

	(void)s;
	assert_int_equal((uintptr_t)va & 63, 0);
	assert_int_equal(pf.offset, 64);
	assert_int_equal(pf.size, BLOCK - 64);
	assert_true(page_frag_commit(&nc, &pf, 64));
	page_frag_free(odd);
	page_frag_free(va);
	page_frag_cache_drain(&nc);
}

static void test_prepare_refills_when_the_block_is_too_full(void **s)
{
	struct page_frag_cache nc = {0};
	struct page_frag pf;
	char *big = page_frag_alloc(&nc, MM_PAGE_SIZE, GFP_KERNEL);
	char *va;

	(void)s;
	for (unsigned int i = 1; i < BLOCK / MM_PAGE_SIZE - 1; i++)
		page_frag_free(page_frag_alloc(&nc, MM_PAGE_SIZE, GFP_KERNEL));
	page_frag_free(page_frag_alloc(&nc, MM_PAGE_SIZE - 100, GFP_KERNEL));
	/* 100 bytes left: prepare(200) must move to a new block. */
	va = page_frag_prepare(&nc, 200, &pf, GFP_KERNEL);
	assert_non_null(va);
	assert_ptr_not_equal(pf.page, virt_to_head_page(big));
	assert_int_equal(pf.offset, 0);
	page_frag_free(big);
	page_frag_cache_drain(&nc);
}

static void test_probe_on_an_empty_cache_finds_nothing(void **s)
{
	struct page_frag_cache nc = {0};
	struct page_frag pf;
	unsigned long free0 = free_pages_now();

	(void)s;
	assert_null(page_frag_probe(&nc, 1, &pf));
	assert_int_equal(nc.encoded_block, 0);
	assert_int_equal(free_pages_now(), free0);
}

static void test_probe_shows_room_without_refilling(void **s)
{
	struct page_frag_cache nc = {0};
	struct page_frag pf;
	char *a = page_frag_alloc(&nc, 100, GFP_KERNEL);
	char *va = page_frag_probe(&nc, 50, &pf);

	(void)s;
	assert_ptr_equal(va, a + 100);
	assert_int_equal(pf.offset, 100);
	assert_int_equal(pf.size, BLOCK - 100);
	assert_null(page_frag_probe(&nc, BLOCK - 99, &pf));
	assert_int_equal(fragments_taken(), 1);
	page_frag_free(a);
	page_frag_cache_drain(&nc);
}

static void test_probe_refuses_a_size_that_would_wrap_the_offset(void **s)
{
	struct page_frag_cache nc = {0};
	struct page_frag pf;
	struct page_frag_stats now;
	char *a = page_frag_alloc(&nc, 100, GFP_KERNEL);

	(void)s;
	/* offset 100 + this size wraps to 49: it must not look like room. */
	assert_null(page_frag_probe(&nc, 0xffffffffu - 50, &pf));
	assert_null(page_frag_probe(&nc, MM_PAGE_SIZE + 1, &pf));
	assert_null(page_frag_probe(&nc, 0, &pf));
	page_frag_stats_read(&now);
	assert_int_equal(now.err_oversize - before.err_oversize, 3);
	/* A valid size that does not fit (3996 bytes left) is no error. */
	for (int i = 0; i < 7; i++)
		page_frag_free(page_frag_alloc(&nc, MM_PAGE_SIZE, GFP_KERNEL));
	assert_null(page_frag_probe(&nc, MM_PAGE_SIZE, &pf));
	assert_non_null(
		page_frag_probe(&nc, BLOCK - 100 - 7 * MM_PAGE_SIZE, &pf));
	page_frag_stats_read(&now);
	assert_int_equal(now.err_oversize - before.err_oversize, 3);
	page_frag_free(a);
	page_frag_cache_drain(&nc);
}

static void test_abort_gives_back_the_last_fragment(void **s)
{
	unsigned long free0 = free_pages_now();
	struct page_frag_cache nc = {0};
	char *a = page_frag_alloc(&nc, 64, GFP_KERNEL);
	char *b = page_frag_alloc(&nc, 64, GFP_KERNEL);

	(void)s;
	assert_true(page_frag_abort(&nc, b, 64));
	assert_ptr_equal(page_frag_alloc(&nc, 64, GFP_KERNEL), b);
	page_frag_free(a);
	page_frag_free(b);
	page_frag_cache_drain(&nc);
	/* The aborted reference went back to the bias: nothing leaked. */
	assert_int_equal(free_pages_now(), free0);
}

static void test_abort_of_an_older_fragment_is_refused(void **s)
{
	struct page_frag_cache nc = {0};
	char *a = page_frag_alloc(&nc, 64, GFP_KERNEL);
	char *b = page_frag_alloc(&nc, 64, GFP_KERNEL);

	(void)s;
	assert_false(page_frag_abort(&nc, a, 64));
	assert_false(page_frag_abort(&nc, b, 32));
	assert_int_equal(misuses(), 2);
	assert_ptr_equal(page_frag_alloc(&nc, 8, GFP_KERNEL), b + 64);
	page_frag_free(a);
	page_frag_free(b);
	page_frag_free(b + 64);
	page_frag_cache_drain(&nc);
}

static void test_abort_of_a_range_spanning_two_fragments_is_refused(void **s)
{
	struct page_frag_cache nc = {0};
	char *a = page_frag_alloc(&nc, 10, GFP_KERNEL);
	char *b = page_frag_alloc(&nc, 10, GFP_KERNEL);

	(void)s;
	assert_ptr_equal(b, a + 10);
	/* [5, 20) ends where B ends, but is half of A and all of B. */
	assert_false(page_frag_abort(&nc, a + 5, 15));
	assert_false(page_frag_abort(&nc, b + 5, 5));
	assert_int_equal(misuses(), 2);
	/* Nothing was rewound: the next fragment follows B. */
	assert_ptr_equal(page_frag_alloc(&nc, 8, GFP_KERNEL), b + 10);
	page_frag_free(a);
	page_frag_free(b);
	page_frag_free(b + 10);
	page_frag_cache_drain(&nc);
}

static void test_only_one_abort_per_fragment(void **s)
{
	unsigned long free0 = free_pages_now();
	struct page_frag_cache nc = {0};
	char *a = page_frag_alloc(&nc, 64, GFP_KERNEL);
	char *b = page_frag_alloc(&nc, 64, GFP_KERNEL);

	(void)s;
	assert_true(page_frag_abort(&nc, b, 64));
	assert_false(page_frag_abort(&nc, b, 64));
	assert_false(page_frag_abort(&nc, a, 64));
	assert_int_equal(misuses(), 2);
	assert_ptr_equal(page_frag_alloc(&nc, 64, GFP_KERNEL), b);
	page_frag_free(a);
	page_frag_free(b);
	page_frag_cache_drain(&nc);
	assert_int_equal(free_pages_now(), free0);
}

static void
test_abort_takes_back_a_committed_fragment_and_its_extension(void **s)
{
	unsigned long free0 = free_pages_now();
	struct page_frag_cache nc = {0};
	struct page_frag pf;
	char *a = page_frag_alloc(&nc, 30, GFP_KERNEL);
	char *va = page_frag_prepare(&nc, 100, &pf, GFP_KERNEL);

	(void)s;
	assert_true(page_frag_commit(&nc, &pf, 100));
	assert_non_null(page_frag_probe(&nc, 50, &pf));
	assert_true(page_frag_commit_noref(&nc, &pf, 50));
	/* The fragment is now 150 bytes: only all of it can go back. */
	assert_false(page_frag_abort(&nc, va, 100));
	assert_true(page_frag_abort(&nc, va, 150));
	assert_ptr_equal(page_frag_alloc(&nc, 1, GFP_KERNEL), a + 30);
	page_frag_free(a + 30);
	page_frag_free(a);
	page_frag_cache_drain(&nc);
	assert_int_equal(free_pages_now(), free0);
}

static void test_commit_noref_without_a_fragment_to_extend_is_refused(void **s)
{
	unsigned long free0 = free_pages_now();
	struct page_frag_cache nc = {0};
	struct page_frag pf;
	char *a;

	(void)s;
	/* A fresh block: nothing to extend, so no reference would cover it. */
	assert_non_null(page_frag_prepare(&nc, 100, &pf, GFP_KERNEL));
	assert_false(page_frag_commit_noref(&nc, &pf, 50));
	/* Nor after the last fragment was aborted. */
	a = page_frag_alloc(&nc, 20, GFP_KERNEL);
	assert_true(page_frag_abort(&nc, a, 20));
	assert_non_null(page_frag_probe(&nc, 10, &pf));
	assert_false(page_frag_commit_noref(&nc, &pf, 10));
	assert_int_equal(misuses(), 2);
	assert_int_equal(fragments_taken(), 1);
	page_frag_cache_drain(&nc);
	assert_int_equal(free_pages_now(), free0);
}

static void test_commit_after_another_allocation_is_refused(void **s)
{
	struct page_frag_cache nc = {0};
	struct page_frag pf;
	char *va = page_frag_prepare(&nc, 100, &pf, GFP_KERNEL);
	char *other = page_frag_alloc(&nc, 10, GFP_KERNEL);

	(void)s;
	assert_ptr_equal(other, va);
	assert_false(page_frag_commit(&nc, &pf, 50));
	assert_int_equal(misuses(), 1);
	assert_int_equal(fragments_taken(), 1);
	page_frag_free(other);
	page_frag_cache_drain(&nc);
}

static void test_commit_of_more_than_prepared_is_refused(void **s)
{
	struct page_frag_cache nc = {0};
	struct page_frag pf;

	(void)s;
	assert_non_null(page_frag_prepare(&nc, 100, &pf, GFP_KERNEL));
	assert_false(page_frag_commit(&nc, &pf, pf.size + 1));
	assert_false(page_frag_commit(&nc, &pf, 0));
	assert_int_equal(misuses(), 2);
	assert_int_equal(fragments_taken(), 0);
	page_frag_cache_drain(&nc);
}

static void test_commit_noref_extends_without_a_reference(void **s)
{
	unsigned long free0 = free_pages_now();
	struct page_frag_cache nc = {0};
	struct page_frag pf;
	char *va = page_frag_prepare(&nc, 100, &pf, GFP_KERNEL);

	(void)s;
	assert_true(page_frag_commit(&nc, &pf, 100));
	/* More data for the same fragment: no new reference. */
	assert_ptr_equal(page_frag_probe(&nc, 50, &pf), va + 100);
	assert_true(page_frag_commit_noref(&nc, &pf, 50));
	assert_int_equal(fragments_taken(), 1);
	assert_ptr_equal(page_frag_alloc(&nc, 1, GFP_KERNEL), va + 150);
	page_frag_free(va + 150);
	page_frag_cache_drain(&nc);
	/* One free for the 150-byte fragment is the last reference. */
	page_frag_free(va);
	assert_int_equal(free_pages_now(), free0);
}

static void test_prepare_refuses_bad_arguments(void **s)
{
	struct page_frag_cache nc = {0};
	struct page_frag pf;
	struct page_frag_stats now;

	(void)s;
	assert_null(page_frag_prepare(&nc, MM_PAGE_SIZE + 1, &pf, GFP_KERNEL));
	assert_null(page_frag_prepare_align(&nc, 64, &pf, GFP_KERNEL, 24));
	page_frag_stats_read(&now);
	assert_int_equal(now.err_oversize - before.err_oversize, 1);
	assert_int_equal(now.err_bad_align - before.err_bad_align, 1);
	assert_int_equal(nc.encoded_block, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, boot, shutdown)
		T(test_prepare_reports_all_room_and_takes_nothing),
		T(test_commit_takes_only_the_bytes_used),
		T(test_prepare_align_starts_at_an_aligned_address),
		T(test_prepare_refills_when_the_block_is_too_full),
		T(test_probe_on_an_empty_cache_finds_nothing),
		T(test_probe_shows_room_without_refilling),
		T(test_probe_refuses_a_size_that_would_wrap_the_offset),
		T(test_abort_gives_back_the_last_fragment),
		T(test_abort_of_an_older_fragment_is_refused),
		T(test_abort_of_a_range_spanning_two_fragments_is_refused),
		T(test_only_one_abort_per_fragment),
		T(test_abort_takes_back_a_committed_fragment_and_its_extension),
		T(test_commit_noref_without_a_fragment_to_extend_is_refused),
		T(test_commit_after_another_allocation_is_refused),
		T(test_commit_of_more_than_prepared_is_refused),
		T(test_commit_noref_extends_without_a_reference),
		T(test_prepare_refuses_bad_arguments),
#undef T
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
