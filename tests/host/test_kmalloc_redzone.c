/*
 * Debug build (mm_debug on): kmalloc's large blocks (above 8 KiB) have red
 * zones, a page before the object and at least a cache line after it,
 * checked on kfree: an overflow or an underflow is reported with how far
 * it went, whatever the debug flag says at free time, and the pointer
 * stays page-aligned. The slab classes' own red zones (a cache line each
 * side) are checked for every class size here too.
 */
#include <string.h>

#include "mm_test.h"

static void test_overflow_of_a_cache_line_past_10000_bytes(void **state)
{
	(void)state;
	unsigned char *b = kmalloc(10000, GFP_KERNEL);
	assert_non_null(b);
	assert_int_equal((uintptr_t)b % MM_PAGE_SIZE, 0);
	assert_int_equal(ksize(b), 10000);
	memset(b, 1, 10000); /* all of it is the owner's */
	b[10000 + MM_CACHE_LINE - 1] = 0;
	kfree(b);
	assert_int_equal(mm_debug_count(MM_DBG_RED_ZONE), 1);
	assert_int_equal(mm_debug_total(), 1);
	mm_test_assert_report_says("(10000 bytes) overflowed");
	mm_test_assert_report_says("64 bytes past its end");
	mm_test_drain_and_verify(); /* freed all the same */
}

static void test_one_byte_overflow_of_10000_bytes(void **state)
{
	(void)state;
	unsigned char *b = kmalloc(10000, GFP_KERNEL);
	b[10000] = 0;
	kfree(b);
	assert_int_equal(mm_debug_count(MM_DBG_RED_ZONE), 1);
	mm_test_assert_report_says("1 bytes past its end");
}

static void test_underflow_of_a_word_of_10000_bytes(void **state)
{
	(void)state;
	uint64_t *b = kmalloc(10000, GFP_KERNEL);
	b[-1] = 0;
	kfree(b);
	assert_int_equal(mm_debug_count(MM_DBG_RED_ZONE), 1);
	assert_int_equal(mm_debug_total(), 1);
	mm_test_assert_report_says("underflowed");
	mm_test_assert_report_says("8 bytes before its start");
}

/* Every large size from just above the largest class: the byte after the
 * block and the word before it are both guarded. */
static void test_every_large_size_is_guarded(void **state)
{
	(void)state;
	static const size_t sizes[] = {8193,  9000,	 12287,	 12288,
				       16384, 65536 - 1, 100000, 1 << 20};
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		mm_debug_reset_counts();
		unsigned char *b = kmalloc(sizes[i], GFP_KERNEL);
		assert_non_null(b);
		b[sizes[i]] = 0;
		((uint64_t *)b)[-1] = 0;
		kfree(b);
		assert_int_equal(mm_debug_count(MM_DBG_RED_ZONE), 2);
	}
	mm_test_drain_and_verify();
}

static void test_intact_large_block_is_quiet(void **state)
{
	(void)state;
	unsigned char *b = kmalloc(10000, GFP_KERNEL);
	memset(b, 0xbb ^ 0xff, 10000);
	kfree(b);
	assert_int_equal(mm_debug_total(), 0);
}

/* Guarded or not is the block's own fact, not the flag's at free time. */
static void test_guard_follows_the_block_not_the_flag(void **state)
{
	(void)state;
	unsigned char *guarded = kmalloc(10000, GFP_KERNEL);
	mm_debug_set(false);
	unsigned char *plain = kmalloc(10000, GFP_KERNEL);
	assert_int_equal(ksize(plain), 4 * MM_PAGE_SIZE);
	plain[10000] = 0; /* inside its block: no red zone, no report */
	guarded[10000] = 0;
	kfree(guarded); /* checked although debug is off now */
	assert_int_equal(mm_debug_count(MM_DBG_RED_ZONE), 1);
	mm_debug_set(true);
	kfree(plain); /* not guarded: quiet */
	assert_int_equal(mm_debug_total(), 1);
	mm_test_drain_and_verify();
}

/* The page start of a guarded block is not what kmalloc returned. */
static void test_free_of_the_guard_page_is_refused(void **state)
{
	(void)state;
	unsigned char *b = kmalloc(10000, GFP_KERNEL);
	kfree(b - MM_PAGE_SIZE);
	assert_int_equal(mm_debug_count(MM_DBG_NOT_ALLOCATED), 1);
	kfree(b);
	assert_int_equal(mm_debug_total(), 1);
	mm_test_drain_and_verify();
}

/* The slab classes: a one-cache-line overflow of the class size and a
 * one-word underflow are caught for every class. */
static void test_every_class_is_guarded(void **state)
{
	(void)state;
	for (size_t size = 8; size <= 8192; size *= 2) {
		mm_debug_reset_counts();
		unsigned char *b = kmalloc(size, GFP_KERNEL);
		assert_non_null(b);
		b[size + MM_CACHE_LINE - 1] = 0;
		((uint64_t *)b)[-1] = 0;
		kfree(b);
		assert_int_equal(mm_debug_count(MM_DBG_RED_ZONE), 2);
	}
}

int main(void)
{
#define T(f)                                                          \
	cmocka_unit_test_setup_teardown(f, mm_test_setup_1node_debug, \
					mm_test_teardown)
	const struct CMUnitTest tests[] = {
		T(test_overflow_of_a_cache_line_past_10000_bytes),
		T(test_one_byte_overflow_of_10000_bytes),
		T(test_underflow_of_a_word_of_10000_bytes),
		T(test_every_large_size_is_guarded),
		T(test_intact_large_block_is_quiet),
		T(test_guard_follows_the_block_not_the_flag),
		T(test_free_of_the_guard_page_is_refused),
		T(test_every_class_is_guarded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
