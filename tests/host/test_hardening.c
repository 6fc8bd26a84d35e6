/*
 * The normal build's always-on checks (debug off): a slab double free at
 * any distance (the free marker: a, b, a; after a flush to the slab; in a
 * bulk; in a constructor cache, whose state survives), a free into
 * another cache of the same layout, and a free of a pointer that is not
 * an object start are refused,
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
	mm_test_assert_caller_in(
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
	mm_test_assert_caller_in(test_kmem_cache_free_twice_is_refused);
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
		mm_test_assert_caller_in(
			test_free_of_a_pointer_inside_an_object_is_refused);
		kfree(p + sizes[i] / 2);
		assert_int_equal(counted_invalid_free(), before + 2);
		assert_one_owner_each(sizes[i], p + 1);
		kfree(p); /* the real start still frees */
	}
	assert_int_equal(mm_debug_count(MM_DBG_INVALID_FREE), 16);
	assert_int_equal(mm_debug_count(MM_DBG_DOUBLE_FREE), 0);
}

/* Debug build (mm_debug=1): kmem_cache_free into the wrong cache. */
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
	mm_test_assert_caller_in(
		test_kfree_of_pointers_never_returned_is_reported);
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
	mm_test_assert_caller_in(test_large_block_freed_twice_is_a_double_free);
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
	mm_test_assert_caller_in(test_page_freed_twice_is_a_double_free);
	assert_int_equal(page_ref_count(pg), 0);
	mm_test_drain_and_verify();
}

/* slab_obj_start against a division, for every offset of one slab and
 * beyond, for strides odd, even, powers of two, with red zones: every
 * size up to 520 (all the small strides), then samples up to the
 * largest. */
static void test_start_test_agrees_with_a_division(void **state)
{
	static const size_t large[] = {1000, 1500, 2048, 3000, 4000,
				       4096, 5000, 6144, 8000, 8192};
	size_t sizes[520 + sizeof(large) / sizeof(large[0])];
	size_t nr = 0;

	(void)state;
	for (size_t size = 1; size <= 520; size++)
		sizes[nr++] = size;
	for (size_t i = 0; i < sizeof(large) / sizeof(large[0]); i++)
		sizes[nr++] = large[i];
	for (int dbg = 0; dbg < 2; dbg++)
		for (size_t i = 0; i < nr; i++) {
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
	mm_test_assert_caller_in(test_free_bulk_checks_like_single_frees);
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

/* The older double free: kfree(a); kfree(b); kfree(a), and with two frees
 * between, for an 8-byte class (the marker shares the free pointer's word:
 * caught while the object is in the magazine) and a 64-byte one. */
static void test_older_double_free_is_refused(void **state)
{
	static const size_t sizes[] = {8, 64};
	unsigned long want = 0;
	(void)state;
	mm_debug_set_quiet(true);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		char *a = kmalloc(sizes[i], GFP_KERNEL);
		char *b = kmalloc(sizes[i], GFP_KERNEL);
		kfree(a);
		kfree(b);
		kfree(a); /* a, b, a */
		assert_int_equal(counted_double_free(), ++want);
		mm_test_assert_caller_in(test_older_double_free_is_refused);
		assert_one_owner_each(sizes[i], NULL);

		a = kmalloc(sizes[i], GFP_KERNEL);
		b = kmalloc(sizes[i], GFP_KERNEL);
		char *c = kmalloc(sizes[i], GFP_KERNEL);
		kfree(a);
		kfree(b);
		kfree(c);
		kfree(a); /* a, b, c, a */
		assert_int_equal(counted_double_free(), ++want);
		assert_one_owner_each(sizes[i], NULL);
	}
	assert_int_equal(mm_debug_count(MM_DBG_DOUBLE_FREE), want);
}

static int cmp_ptr(const void *x, const void *y)
{
	uintptr_t a = (uintptr_t) * (void *const *)x;
	uintptr_t b = (uintptr_t) * (void *const *)y;
	return a < b ? -1 : a > b;
}

/* n objects of s, all different (a block freed twice into a magazine and
 * onto its slab would come back twice); frees them. */
static void assert_distinct_objects(struct kmem_cache *s, size_t n, void **p)
{
	for (size_t i = 0; i < n; i++) {
		p[i] = kmem_cache_alloc(s, GFP_KERNEL);
		assert_non_null(p[i]);
	}
	void **sorted = malloc(n * sizeof(void *));
	assert_non_null(sorted);
	memcpy(sorted, p, n * sizeof(void *));
	qsort(sorted, n, sizeof(void *), cmp_ptr);
	for (size_t i = 1; i < n; i++)
		assert_ptr_not_equal(sorted[i], sorted[i - 1]);
	free(sorted);
	for (size_t i = 0; i < n; i++)
		kmem_cache_free(s, p[i]);
}

/* A double free of an object that the magazine already flushed back to
 * its slab (not first on the slab's free list): refused. */
static void test_double_free_after_the_magazine_flushed_is_refused(void **state)
{
	enum { N = 2048 };
	static void *p[N + 1];
	(void)state;
	mm_debug_set_quiet(true);
	struct kmem_cache *s = kmem_cache_create("hard-flush", 96, 0, 0, NULL);
	assert_non_null(s);
	for (int i = 0; i < N; i++)
		p[i] = kmem_cache_alloc(s, GFP_KERNEL);
	void *a = p[0], *pin = p[1]; /* pin keeps a's slab from going */
	assert_ptr_equal(virt_to_head_page(a), virt_to_head_page(pin));
	kmem_cache_free(s, a); /* a first: flushed to its slab */
	for (int i = 2; i < N; i++)
		kmem_cache_free(s, p[i]);
	struct kmem_cache_cpu *c = cache_cpu(s, mm_this_cpu());
	assert_true(stat_read(&c->flush) > 0);
	for (unsigned int i = 0; i < cpu_avail(c); i++)
		assert_ptr_not_equal(c->objs[i], a);
	assert_ptr_not_equal(virt_to_head_page(a)->freelist, a);

	kmem_cache_free(s, a);
	assert_int_equal(counted_double_free(), 1);
	mm_test_assert_caller_in(
		test_double_free_after_the_magazine_flushed_is_refused);
	kmem_cache_free(s, pin);
	assert_distinct_objects(s, N + 1, p);
	kmem_cache_destroy(s);
	assert_int_equal(mm_debug_count(MM_DBG_DOUBLE_FREE), 1);
}

/* Objects now in this CPU's magazine of s. */
static unsigned int magazine_objects(struct kmem_cache *s)
{
	return cpu_avail(cache_cpu(s, mm_this_cpu()));
}

/* Normal build: kmem_cache_free into another cache of the same layout,
 * single and bulk, is refused at the free (the fast path asks the slab's
 * head page which cache owns it), reported with the caller, and the
 * object never enters the wrong cache's magazine, so that cache never
 * hands it out; its own cache still frees it and is destroyed with
 * nothing busy. */
static void test_free_into_a_cache_of_the_same_layout_is_refused(void **state)
{
	(void)state;
	mm_debug_set_quiet(true);
	struct kmem_cache *a = kmem_cache_create("hard-a", 128, 0, 0, NULL);
	struct kmem_cache *b = kmem_cache_create("hard-b", 128, 0, 0, NULL);
	assert_true(a->stride == b->stride && a->order == b->order);
	void *mine = kmem_cache_alloc(b, GFP_KERNEL); /* b's magazine warm */
	kmem_cache_free(b, mine);
	void *obj = kmem_cache_alloc(a, GFP_KERNEL);
	struct page *page = virt_to_head_page(obj);
	unsigned int inuse = page->inuse; /* a's magazine's objects too */
	unsigned int in_b = magazine_objects(b);
	unsigned long before = counted_invalid_free();

	kmem_cache_free(b, obj);
	assert_int_equal(counted_invalid_free(), before + 1);
	assert_int_equal(mm_debug_count(MM_DBG_NOT_ALLOCATED), 1);
	mm_test_assert_caller_in(
		test_free_into_a_cache_of_the_same_layout_is_refused);
	assert_int_equal(magazine_objects(b), in_b);
	void *x = kmem_cache_alloc(b, GFP_KERNEL);
	assert_ptr_not_equal(x, obj);
	kmem_cache_free(b, x);
	assert_one_owner_each_in(b, obj);
	assert_ptr_equal(page->slab_cache, a);
	assert_int_equal(page->inuse, inuse);

	mine = kmem_cache_alloc(b, GFP_KERNEL);
	in_b = magazine_objects(b);
	void *bulk[2] = {mine, obj};
	kmem_cache_free_bulk(b, 2, bulk); /* mine freed, obj refused */
	assert_int_equal(counted_invalid_free(), before + 2);
	mm_test_assert_caller_in(
		test_free_into_a_cache_of_the_same_layout_is_refused);
	assert_int_equal(magazine_objects(b), in_b + 1);
	assert_one_owner_each_in(b, obj);
	assert_int_equal(page->inuse, inuse);

	kmem_cache_free(a, obj);
	struct slab_debug_counts d;
	kmem_cache_destroy(a);
	kmem_cache_destroy(b);
	slab_debug_counts(&d);
	assert_int_equal(d.destroy_busy, 0);
	assert_int_equal(d.invalid_free, before + 2);
	assert_int_equal(mm_debug_count(MM_DBG_DOUBLE_FREE), 0);
}

/* The same on two nodes: an object of the other node's slab of another
 * cache goes to the slow path (not local), which refuses it as well; a
 * remote object of the right cache still goes home. And NULL is ignored
 * by kmem_cache_free, with nothing counted. */
static void test_wrong_cache_refused_for_a_remote_object(void **state)
{
	(void)state;
	mm_debug_set_quiet(true);
	struct kmem_cache *a = kmem_cache_create("hard-ra", 256, 0, 0, NULL);
	struct kmem_cache *b = kmem_cache_create("hard-rb", 256, 0, 0, NULL);
	int other = 1 - numa_mem_id();
	void *ra = kmem_cache_alloc_node(a, GFP_KERNEL, other);
	void *rb = kmem_cache_alloc_node(b, GFP_KERNEL, other);
	assert_int_equal(virt_to_page(ra)->nid, other);
	unsigned long before = counted_invalid_free();

	kmem_cache_free(b, ra);
	assert_int_equal(counted_invalid_free(), before + 1);
	mm_test_assert_caller_in(test_wrong_cache_refused_for_a_remote_object);
	kmem_cache_free(b, rb); /* the right cache: home to its node */
	kmem_cache_free(a, NULL);
	assert_int_equal(counted_invalid_free(), before + 1);
	assert_int_equal(mm_debug_count(MM_DBG_NOT_ALLOCATED), 1);
	kmem_cache_free(a, ra);
	kmem_cache_destroy(a);
	kmem_cache_destroy(b);
	struct slab_debug_counts d;
	slab_debug_counts(&d);
	assert_int_equal(d.destroy_busy, 0);
}

/* kmem_cache_free_bulk catches a pointer twice anywhere in the array and
 * an object freed earlier (not the last one), on both of its paths. */
static void test_free_bulk_catches_the_older_double_free(void **state)
{
	(void)state;
	mm_debug_set_quiet(true);
	struct kmem_cache *s = kmem_cache_create("hard-bulk2", 96, 0, 0, NULL);
	void *a = kmem_cache_alloc(s, GFP_KERNEL);
	void *b = kmem_cache_alloc(s, GFP_KERNEL);
	void *c = kmem_cache_alloc(s, GFP_KERNEL);
	void *aba[3] = {a, b, a};
	kmem_cache_free_bulk(s, 3, aba);
	assert_int_equal(counted_double_free(), 1);
	mm_test_assert_caller_in(test_free_bulk_catches_the_older_double_free);
	assert_one_owner_each_in(s, NULL);

	a = kmem_cache_alloc(s, GFP_KERNEL);
	b = kmem_cache_alloc(s, GFP_KERNEL);
	kmem_cache_free(s, a);
	kmem_cache_free(s, b);
	void *again[2] = {c, a}; /* a freed two frees ago */
	kmem_cache_free_bulk(s, 2, again);
	assert_int_equal(counted_double_free(), 2);
	assert_one_owner_each_in(s, NULL);

	enum { BIG = 600 }; /* more than the magazine's room: slow path */
	static void *many[BIG + 1];
	for (int i = 0; i < BIG; i++)
		many[i] = kmem_cache_alloc(s, GFP_KERNEL);
	for (int i = 2; i < BIG; i++) /* many[1]: one of many[0]'s slab */
		if (virt_to_head_page(many[i]) == virt_to_head_page(many[0])) {
			void *t = many[1];
			many[1] = many[i];
			many[i] = t;
		}
	void *pin = many[1]; /* keeps many[0]'s slab from going */
	assert_ptr_equal(virt_to_head_page(many[0]), virt_to_head_page(pin));
	memmove(&many[1], &many[2], (BIG - 2) * sizeof(void *));
	many[BIG - 1] = many[0]; /* first and last */
	kmem_cache_free_bulk(s, BIG, many);
	assert_int_equal(counted_double_free(), 3);
	kmem_cache_free(s, pin);
	assert_distinct_objects(s, BIG + 1, many);
	kmem_cache_destroy(s);
	assert_int_equal(mm_debug_count(MM_DBG_DOUBLE_FREE), 3);
}

#define CTOR_WORDS 4
#define CTOR_MAGIC 0x5ca1ab1e0000ull

static void ctor_fill(void *obj)
{
	uint64_t *w = obj;
	for (int i = 0; i < CTOR_WORDS; i++)
		w[i] = CTOR_MAGIC + (uint64_t)i;
}

static void assert_constructed(const void *obj)
{
	const uint64_t *w = obj;
	for (int i = 0; i < CTOR_WORDS; i++)
		assert_int_equal(w[i], CTOR_MAGIC + (uint64_t)i);
}

/* A cache with a constructor: the constructed state (every word, the
 * second included) survives free and reallocation, single and bulk, and
 * the older double free is refused there too. */
static void
test_constructor_state_survives_and_double_free_is_refused(void **state)
{
	(void)state;
	mm_debug_set_quiet(true);
	struct kmem_cache *s = kmem_cache_create(
		"hard-ctor", CTOR_WORDS * sizeof(uint64_t), 0, 0, ctor_fill);
	assert_non_null(s);
	void *a = kmem_cache_alloc(s, GFP_KERNEL);
	void *b = kmem_cache_alloc(s, GFP_KERNEL);
	assert_constructed(a);
	kmem_cache_free(s, a);
	kmem_cache_free(s, b);
	kmem_cache_free(s, a); /* a, b, a */
	assert_int_equal(counted_double_free(), 1);
	void *x = kmem_cache_alloc(s, GFP_KERNEL);
	void *y = kmem_cache_alloc(s, GFP_KERNEL);
	assert_ptr_not_equal(x, y);
	assert_constructed(x);
	assert_constructed(y);

	void *p[16];
	assert_int_equal(kmem_cache_alloc_bulk(s, GFP_KERNEL, 16, p), 16);
	kmem_cache_free_bulk(s, 16, p);
	assert_int_equal(kmem_cache_alloc_bulk(s, GFP_KERNEL, 16, p), 16);
	for (int i = 0; i < 16; i++)
		assert_constructed(p[i]);
	kmem_cache_free_bulk(s, 16, p);
	kmem_cache_free(s, x);
	kmem_cache_free(s, y);
	kmem_cache_destroy(s);
	assert_int_equal(mm_debug_count(MM_DBG_DOUBLE_FREE), 1);
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
		T(test_older_double_free_is_refused),
		T(test_double_free_after_the_magazine_flushed_is_refused),
		T(test_free_into_a_cache_of_the_same_layout_is_refused),
		cmocka_unit_test_setup_teardown(
			test_wrong_cache_refused_for_a_remote_object,
			mm_test_setup_2nodes, mm_test_teardown),
		T(test_free_bulk_catches_the_older_double_free),
		T(test_constructor_state_survives_and_double_free_is_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
