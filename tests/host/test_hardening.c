/*
 * The normal build's always-on checks (debug off): a slab double free of
 * the object freed last, or of one already first on its slab's free
 * list, and a free of a pointer that is not an object start are refused,
 * counted and reported with the caller, and no block is ever handed to
 * two owners afterwards; kfree of pointers never returned ((void *)1, the
 * stack, a plain page) is reported, only NULL and ZERO_SIZE_PTR are
 * silent; a large block or a page freed twice is reported as a double
 * free. And the exact-division test behind the start check agrees with a
 * real division for every offset of every layout.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mm.h"
#include "mm_host.h"
#include "mm_test.h"
#include "slab_internal.h"

#define DRAW 64 /* allocations checked for a second owner */

/* The latest report named a caller inside fn (the test that freed). */
static void assert_caller_in(void (*fn)(void **))
{
	uintptr_t c = (uintptr_t)mm_debug_last_caller();
	assert_true(c > (uintptr_t)fn && c < (uintptr_t)fn + 4096);
}

static unsigned long counted_double_free(void)
{
	struct slab_debug_counts d;
	slab_debug_counts(&d);
	return d.double_free;
}

static unsigned long counted_invalid_free(void)
{
	struct slab_debug_counts d;
	slab_debug_counts(&d);
	return d.invalid_free;
}

/* DRAW allocations of size from kmalloc: fails if any two are the same
 * block or overlap (pointers closer than the class size), or if one is
 * `bad`. Frees them all. */
static void assert_one_owner_each(size_t size, const void *bad)
{
	char *p[DRAW];

	for (int i = 0; i < DRAW; i++) {
		p[i] = kmalloc(size, GFP_KERNEL);
		assert_non_null(p[i]);
		assert_ptr_not_equal(p[i], bad);
		for (int j = 0; j < i; j++) {
			uintptr_t d = p[i] > p[j] ? (uintptr_t)(p[i] - p[j])
						  : (uintptr_t)(p[j] - p[i]);
			assert_true(d >= size);
		}
	}
	for (int i = 0; i < DRAW; i++)
		kfree(p[i]);
}

static void
test_kfree_twice_is_refused_and_no_block_gets_two_owners(void **state)
{
	(void)state;
	mm_debug_set_quiet(true);
	char *p = kmalloc(64, GFP_KERNEL);
	assert_non_null(p);
	kfree(p);
	kfree(p); /* the object freed last, again */
	assert_int_equal(counted_double_free(), 1);
	assert_int_equal(mm_debug_count(MM_DBG_DOUBLE_FREE), 1);
	assert_caller_in(
		test_kfree_twice_is_refused_and_no_block_gets_two_owners);
	assert_one_owner_each(64, NULL);
}

static void test_kmem_cache_free_twice_is_refused(void **state)
{
	(void)state;
	mm_debug_set_quiet(true);
	struct kmem_cache *s = kmem_cache_create("hard-96", 96, 0, 0, NULL);
	assert_non_null(s);
	void *a = kmem_cache_alloc(s, GFP_KERNEL);
	kmem_cache_free(s, a);
	kmem_cache_free(s, a);
	assert_int_equal(counted_double_free(), 1);
	assert_caller_in(test_kmem_cache_free_twice_is_refused);
	void *x = kmem_cache_alloc(s, GFP_KERNEL);
	void *y = kmem_cache_alloc(s, GFP_KERNEL);
	assert_ptr_not_equal(x, y);
	kmem_cache_free(s, x);
	kmem_cache_free(s, y);
	kmem_cache_destroy(s);
}

/* kfree(p + 1) and frees of pointers inside objects of every class,
 * power-of-two strides or not, are refused; later allocations never
 * return them. */
static void test_free_of_a_pointer_inside_an_object_is_refused(void **state)
{
	static const size_t sizes[] = {8, 16, 64, 96, 192, 256, 1024, 8192};
	(void)state;
	mm_debug_set_quiet(true);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		char *p = kmalloc(sizes[i], GFP_KERNEL);
		assert_non_null(p);
		unsigned long before = counted_invalid_free();
		kfree(p + 1);
		assert_caller_in(
			test_free_of_a_pointer_inside_an_object_is_refused);
		kfree(p + sizes[i] / 2);
		assert_int_equal(counted_invalid_free(), before + 2);
		assert_one_owner_each(sizes[i], p + 1);
		kfree(p); /* the real start still frees */
	}
	assert_int_equal(mm_debug_count(MM_DBG_INVALID_FREE), 16);
	assert_int_equal(mm_debug_count(MM_DBG_DOUBLE_FREE), 0);
}

/* Debug build (mm_debug=1): kmem_cache_free into the wrong cache. The
 * normal build checks the object's place in a slab of that layout, not
 * which cache owns the slab (that would cost kmem_cache_free a page
 * lookup). */
static void
test_kmem_cache_free_of_another_caches_object_is_refused(void **state)
{
	(void)state;
	mm_debug_set_quiet(true);
	mm_debug_set(true);
	struct kmem_cache *a = kmem_cache_create("hard-a", 128, 0, 0, NULL);
	struct kmem_cache *b = kmem_cache_create("hard-b", 128, 0, 0, NULL);
	void *obj = kmem_cache_alloc(a, GFP_KERNEL);
	unsigned long before = counted_invalid_free();

	kmem_cache_free(b, obj);
	assert_int_equal(counted_invalid_free(), before + 1);
	assert_int_equal(mm_debug_count(MM_DBG_NOT_ALLOCATED), 1);
	void *x = kmem_cache_alloc(b, GFP_KERNEL);
	assert_ptr_not_equal(x, obj);
	kmem_cache_free(b, x);
	kmem_cache_free(a, obj);
	kmem_cache_destroy(a);
	kmem_cache_destroy(b);
}

/* A destroyed-while-busy cache frees straight to its slabs: a second free
 * finds the object first on its slab's free list. */
static void test_double_free_found_on_the_slab_free_list(void **state)
{
	(void)state;
	mm_debug_set_quiet(true);
	struct kmem_cache *s = kmem_cache_create("hard-dead", 64, 0, 0, NULL);
	void *keep = kmem_cache_alloc(s, GFP_KERNEL);
	void *obj = kmem_cache_alloc(s, GFP_KERNEL);

	kmem_cache_destroy(s); /* busy: lives on for the frees */
	kmem_cache_free(s, obj);
	assert_int_equal(counted_double_free(), 0);
	kmem_cache_free(s, obj);
	assert_int_equal(counted_double_free(), 1);
	assert_int_equal(mm_debug_count(MM_DBG_DOUBLE_FREE), 1);
	struct page *page = virt_to_head_page(keep);
	assert_int_equal(page->inuse, 1); /* only keep is in use */
	kmem_cache_free(s, keep);
}

/* Only NULL and ZERO_SIZE_PTR are silent; every other pointer kmalloc
 * never returned is reported as not allocated, and nothing is freed. */
static void test_kfree_of_pointers_never_returned_is_reported(void **state)
{
	int on_stack;
	(void)state;
	mm_debug_set_quiet(true);
	kfree(NULL);
	kfree(ZERO_SIZE_PTR);
	assert_int_equal(mm_debug_total(), 0);

	kfree((void *)1);
	assert_int_equal(mm_debug_count(MM_DBG_NOT_ALLOCATED), 1);
	assert_caller_in(test_kfree_of_pointers_never_returned_is_reported);
	kfree((void *)15);
	kfree(&on_stack);
	assert_int_equal(mm_debug_count(MM_DBG_NOT_ALLOCATED), 3);

	/* A page from alloc_pages is not kmalloc's: refused, still ours. */
	struct page *pg = alloc_pages(GFP_KERNEL, 0);
	assert_non_null(pg);
	unsigned long free_before = mm_test_drain_and_verify();
	kfree(page_address(pg));
	assert_int_equal(mm_debug_count(MM_DBG_NOT_ALLOCATED), 4);
	assert_int_equal(mm_test_drain_and_verify(), free_before);
	assert_int_equal(page_ref_count(pg), 1);
	__free_pages(pg, 0);
	assert_int_equal(mm_debug_total(), 4);
	assert_int_equal(counted_invalid_free(), 4);
}

/* A 256 KiB kmalloc block (the page allocator's) freed twice: a double
 * free, not "not allocated", and the free lists stay whole. */
static void test_large_block_freed_twice_is_a_double_free(void **state)
{
	(void)state;
	mm_debug_set_quiet(true);
	unsigned long free0 = mm_test_drain_and_verify();
	char *p = kmalloc(256 << 10, GFP_KERNEL);
	assert_non_null(p);
	kfree(p);
	unsigned long free1 = mm_test_drain_and_verify();
	assert_int_equal(free1, free0);
	kfree(p);
	assert_int_equal(mm_debug_count(MM_DBG_DOUBLE_FREE), 1);
	assert_int_equal(mm_debug_count(MM_DBG_NOT_ALLOCATED), 0);
	assert_caller_in(test_large_block_freed_twice_is_a_double_free);
	assert_int_equal(mm_test_drain_and_verify(), free1);
	/* One owner: two new large blocks do not overlap. */
	char *a = kmalloc(256 << 10, GFP_KERNEL);
	char *b = kmalloc(256 << 10, GFP_KERNEL);
	assert_true(a + (256 << 10) <= b || b + (256 << 10) <= a);
	kfree(a);
	kfree(b);
}

/* __free_pages of a block that was freed already (its count is 0): a
 * double free in the normal build too, and the count is not driven
 * below zero (so a later owner's free still works). */
static void test_page_freed_twice_is_a_double_free(void **state)
{
	(void)state;
	mm_debug_set_quiet(true);
	struct page *pg = alloc_pages(GFP_KERNEL, 5);
	assert_non_null(pg);
	__free_pages(pg, 5);
	__free_pages(pg, 5);
	assert_int_equal(mm_debug_count(MM_DBG_DOUBLE_FREE), 1);
	assert_caller_in(test_page_freed_twice_is_a_double_free);
	assert_int_equal(page_ref_count(pg), 0);
	mm_test_drain_and_verify();
}

/* slab_obj_start against a division, for every offset of one slab and
 * beyond, for strides odd, even, powers of two, with red zones. */
static void test_start_test_agrees_with_a_division(void **state)
{
	static const size_t sizes[] = {8,   24,	 40,   96,   100,  192,
				       250, 256, 1000, 3000, 4096, 8192};
	(void)state;
	for (int dbg = 0; dbg < 2; dbg++)
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			struct kmem_cache *s = kmem_cache_create(
				"hard-div", sizes[i], 0,
				dbg ? SLAB_RED_ZONE : 0, NULL);
			assert_non_null(s);
			uintptr_t end =
				(MM_PAGE_SIZE << s->order) + 2 * s->stride;
			for (uintptr_t off = 0; off < end; off++) {
				bool want = off >= s->obj_offset &&
					    (off - s->obj_offset) % s->stride ==
						    0 &&
					    (off - s->obj_offset) / s->stride <
						    s->objects;
				if (slab_obj_start(s, off) != want)
					fail_msg("size %zu stride %u off %lu: "
						 "%d, want %d",
						 sizes[i], s->stride,
						 (unsigned long)off,
						 slab_obj_start(s, off), want);
			}
			assert_false(slab_obj_start(s, UINTPTR_MAX));
			kmem_cache_destroy(s);
		}
}

/* DRAW objects of s: fails if two are the same or one is `bad`. */
static void assert_one_owner_each_in(struct kmem_cache *s, const void *bad)
{
	void *p[DRAW];

	for (int i = 0; i < DRAW; i++) {
		p[i] = kmem_cache_alloc(s, GFP_KERNEL);
		assert_non_null(p[i]);
		assert_ptr_not_equal(p[i], bad);
		for (int j = 0; j < i; j++)
			assert_ptr_not_equal(p[i], p[j]);
	}
	kmem_cache_free_bulk(s, DRAW, p);
}

/* kmem_cache_free_bulk makes the single free's checks: a pointer twice
 * in a row, the object freed last, a pointer inside an object. The good
 * objects of the bulk are freed, the bad ones refused and counted. Both
 * the fast path (room in the magazine) and the slow one (a bulk larger
 * than the magazine's room). */
static void test_free_bulk_checks_like_single_frees(void **state)
{
	(void)state;
	mm_debug_set_quiet(true);
	struct kmem_cache *s = kmem_cache_create("hard-bulk", 96, 0, 0, NULL);
	assert_non_null(s);
	char *a = kmem_cache_alloc(s, GFP_KERNEL);
	char *b = kmem_cache_alloc(s, GFP_KERNEL);
	void *twice[3] = {b, a, a};
	kmem_cache_free_bulk(s, 3, twice);
	assert_int_equal(counted_double_free(), 1);
	assert_caller_in(test_free_bulk_checks_like_single_frees);
	assert_one_owner_each_in(s, NULL);

	a = kmem_cache_alloc(s, GFP_KERNEL);
	kmem_cache_free(s, a);
	void *last[1] = {a}; /* the object on top of the magazine */
	kmem_cache_free_bulk(s, 1, last);
	assert_int_equal(counted_double_free(), 2);
	assert_one_owner_each_in(s, NULL);

	a = kmem_cache_alloc(s, GFP_KERNEL);
	void *inside[1] = {a + 8};
	unsigned long before = counted_invalid_free();
	kmem_cache_free_bulk(s, 1, inside);
	assert_int_equal(counted_invalid_free(), before + 1);
	assert_one_owner_each_in(s, a + 8);
	kmem_cache_free(s, a);

	/* More than the magazine holds: the slow path checks the same. */
	enum { BIG = 600 };
	static void *many[BIG + 1];
	for (int i = 0; i < BIG; i++)
		many[i] = kmem_cache_alloc(s, GFP_KERNEL);
	many[BIG] = many[BIG - 1];
	kmem_cache_free_bulk(s, BIG + 1, many);
	assert_int_equal(counted_double_free(), 3);
	assert_one_owner_each_in(s, NULL);
	assert_int_equal(mm_debug_count(MM_DBG_DOUBLE_FREE), 3);
	assert_int_equal(mm_debug_count(MM_DBG_INVALID_FREE), 1);
	kmem_cache_destroy(s);
	mm_test_drain_and_verify();
}

#define T(fn)                                                    \
	cmocka_unit_test_setup_teardown(fn, mm_test_setup_1node, \
					mm_test_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_kfree_twice_is_refused_and_no_block_gets_two_owners),
		T(test_kmem_cache_free_twice_is_refused),
		T(test_free_of_a_pointer_inside_an_object_is_refused),
		T(test_kmem_cache_free_of_another_caches_object_is_refused),
		T(test_double_free_found_on_the_slab_free_list),
		T(test_kfree_of_pointers_never_returned_is_reported),
		T(test_large_block_freed_twice_is_a_double_free),
		T(test_page_freed_twice_is_a_double_free),
		T(test_start_test_agrees_with_a_division),
		T(test_free_bulk_checks_like_single_frees),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
