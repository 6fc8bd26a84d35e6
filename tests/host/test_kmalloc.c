/*
 * kmalloc / kmalloc_node / kfree / ksize: size classes, the large path to
 * the page allocator, node placement, kfree without a size, and slabinfo.
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
#include "slab_test.h"

static const char *cache_of(const void *p)
{
	struct page *page = virt_to_head_page(p);
	assert_true(page->flags & PG_slab);
	return kmem_cache_name(page->slab_cache);
}

static void test_sizes_map_to_the_smallest_class_that_fits(void **state)
{
	static const struct {
		size_t size, class;
	} cases[] = {
		{1, 8},	      {8, 8},	    {9, 16},	  {17, 32},
		{33, 64},     {64, 64},	    {65, 96},	  {96, 96},
		{97, 128},    {128, 128},   {129, 192},	  {192, 192},
		{193, 256},   {256, 256},   {257, 512},	  {1000, 1024},
		{1025, 2048}, {3000, 4096}, {4097, 8192}, {8192, 8192},
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		void *p = kmalloc(cases[i].size, GFP_KERNEL);
		assert_non_null(p);
		assert_int_equal(ksize(p), cases[i].class);
		memset(p, 0x11, cases[i].size);
		kfree(p);
	}
}

/* kmalloc of a constant size folds its class at compile time (slab.h);
 * the table for run-time sizes (kmalloc.c) must agree for every size. */
static void test_constant_and_runtime_sizes_pick_the_same_class(void **state)
{
	(void)state;
	for (size_t n = 1; n <= KMALLOC_MAX_CACHE; n++) {
		void *a = __kmalloc(n, GFP_KERNEL);
		void *b = __kmalloc_class(kmalloc_size_class(n), GFP_KERNEL);
		assert_non_null(a);
		assert_non_null(b);
		assert_int_equal(ksize(a), ksize(b));
		assert_true(ksize(a) >= n);
		assert_string_equal(cache_of(a), cache_of(b));
		kfree(a);
		kfree(b);
	}
	/* And through kmalloc itself, with literal sizes at the class
	 * edges against the same sizes known only at run time. */
	static const size_t edges[] = {1,   8,	 9,    96,   97,  192,
				       193, 256, 4096, 4097, 8192};
	void *c[] = {kmalloc(1, 0),    kmalloc(8, 0),	kmalloc(9, 0),
		     kmalloc(96, 0),   kmalloc(97, 0),	kmalloc(192, 0),
		     kmalloc(193, 0),  kmalloc(256, 0), kmalloc(4096, 0),
		     kmalloc(4097, 0), kmalloc(8192, 0)};
	for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++) {
		volatile size_t n = edges[i];
		void *r = kmalloc(n, 0);
		assert_int_equal(ksize(c[i]), ksize(r));
		kfree(c[i]);
		kfree(r);
	}
}

static void test_class_names_follow_sizes(void **state)
{
	(void)state;
	void *a = kmalloc(90, 0), *b = kmalloc(150, 0), *c = kmalloc(3000, 0);
	assert_string_equal(cache_of(a), "kmalloc-96");
	assert_string_equal(cache_of(b), "kmalloc-192");
	assert_string_equal(cache_of(c), "kmalloc-4k");
	kfree(a);
	kfree(b);
	kfree(c);
}

static void test_objects_aligned_to_their_class(void **state)
{
	(void)state;
	for (size_t size = 8; size <= 8192; size *= 2) {
		for (int i = 0; i < 10; i++) {
			void *p = kmalloc(size, 0);
			assert_int_equal((uintptr_t)p % size, 0);
		}
	}
}

static void test_large_sizes_come_from_the_page_allocator(void **state)
{
	(void)state;
	drain_all_pages();
	unsigned long before = nr_free_pages();
	char *p = kmalloc(10000, GFP_KERNEL); /* 3 pages -> order 2 */
	assert_non_null(p);
	assert_int_equal((uintptr_t)p % MM_PAGE_SIZE, 0);
	struct page *page = virt_to_head_page(p + 9000);
	assert_ptr_equal(page_address(page), p);
	assert_false(page->flags & PG_slab);
	assert_int_equal(ksize(p), 4 * MM_PAGE_SIZE);
	memset(p, 1, 10000);
	drain_all_pages();
	assert_int_equal(nr_free_pages(), before - 4);
	kfree(p);
	drain_all_pages();
	assert_int_equal(nr_free_pages(), before);
}

static void test_too_large_fails(void **state)
{
	(void)state;
	assert_null(kmalloc((size_t)1 << 40, __GFP_NOWARN));
}

static void test_zero_size_gives_zero_size_ptr(void **state)
{
	(void)state;
	void *p = kmalloc(0, 0);
	assert_ptr_equal(p, ZERO_SIZE_PTR);
	kfree(p);
	kfree(NULL);
}

static void test_kmalloc_node_places_on_that_node(void **state)
{
	(void)state;
	for (int nid = 0; nid < 2; nid++) {
		void *small = kmalloc_node(200, 0, nid);
		void *large = kmalloc_node(20000, 0, nid);
		assert_int_equal(page_to_nid(virt_to_page(small)), nid);
		assert_int_equal(page_to_nid(virt_to_page(large)), nid);
		kfree(small);
		kfree(large);
	}
}

static void test_gfp_zero_is_honoured(void **state)
{
	(void)state;
	unsigned char *p = kmalloc(100, 0);
	memset(p, 0xff, 100);
	kfree(p);
	p = kmalloc(100, __GFP_ZERO);
	for (int i = 0; i < 100; i++)
		assert_int_equal(p[i], 0);
}

static void test_kfree_of_foreign_pointer_is_refused(void **state)
{
	struct slab_debug_counts before, after;
	(void)state;
	struct page *pg = alloc_pages(0, 0);
	char *addr = page_address(pg);

	mm_debug_set_quiet(true);
	slab_debug_counts(&before);
	kfree(addr + 8); /* a page that is neither slab nor kmalloc-large */
	slab_debug_counts(&after);
	mm_debug_set_quiet(false);
	assert_int_equal(after.invalid_free, before.invalid_free + 1);
	assert_int_equal(page_ref_count(pg), 1); /* untouched */
	__free_pages(pg, 0);
}

static void test_slabinfo_text_lists_every_class(void **state)
{
	static char buf[1 << 16];
	(void)state;
	kfree(kmalloc(1, 0));
	int n = slabinfo_text(buf, sizeof(buf));
	assert_int_equal((size_t)n, strlen(buf));
	assert_non_null(strstr(buf, "kmalloc-8 "));
	assert_non_null(strstr(buf, "kmalloc-96 "));
	assert_non_null(strstr(buf, "kmalloc-8k "));
}

static void test_slabinfo_truncates_like_snprintf(void **state)
{
	static char full[1 << 16];
	char small[100];
	(void)state;
	kfree(kmalloc(1, 0));
	int want = slabinfo_json(full, sizeof(full));
	memset(small, 'x', sizeof(small));
	int got = slabinfo_json(small, 40);
	assert_int_equal(got, want);
	assert_int_equal(strlen(small), 39);
	assert_memory_equal(small, full, 39);
	assert_int_equal(small[40], 'x'); /* nothing past the size */
	assert_int_equal(slabinfo_text(NULL, 0), slabinfo_text(full, 1 << 16));
}

static void test_slabinfo_json_counts_objects(void **state)
{
	static char buf[1 << 16];
	(void)state;
	void *p[3];
	for (int i = 0; i < 3; i++)
		p[i] = kmalloc(600, 0);
	slabinfo_json(buf, sizeof(buf));
	const char *c = strstr(buf, "\"kmalloc-1k\":{");
	assert_non_null(c);
	assert_non_null(strstr(c, "\"object_size\":1024"));
	assert_int_equal(strtol(strstr(c, "\"active_objs\":") + 14, NULL, 10),
			 3);
	assert_int_equal(strtol(strstr(c, "\"allocs\":") + 9, NULL, 10), 3);
	assert_int_equal(buf[0], '{');
	assert_int_equal(buf[strlen(buf) - 1], '}');
	for (int i = 0; i < 3; i++)
		kfree(p[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f)                                                         \
	cmocka_unit_test_setup_teardown(f, slab_test_boot_two_nodes, \
					slab_test_shutdown)
		T(test_sizes_map_to_the_smallest_class_that_fits),
		T(test_constant_and_runtime_sizes_pick_the_same_class),
		T(test_class_names_follow_sizes),
		T(test_objects_aligned_to_their_class),
		T(test_large_sizes_come_from_the_page_allocator),
		T(test_too_large_fails),
		T(test_zero_size_gives_zero_size_ptr),
		T(test_kmalloc_node_places_on_that_node),
		T(test_gfp_zero_is_honoured),
		T(test_kfree_of_foreign_pointer_is_refused),
		T(test_slabinfo_text_lists_every_class),
		T(test_slabinfo_truncates_like_snprintf),
		T(test_slabinfo_json_counts_objects),
#undef T
	};
	return cmocka_run_group_tests_name("kmalloc", tests, NULL, NULL);
}
