/*
 * kmem_cache_alloc_bulk / kmem_cache_free_bulk: sizes 0, 1, n, more than a
 * slab and more than a magazine, NUMA homes, and the Linux semantics on
 * partial failure (return 0, nothing kept).
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
#include "slab_test.h"

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
	return (x > y) - (x < y);
}

/* Every pointer distinct, on node nid, and usable for size bytes. */
static void assert_distinct_on_node(void **p, size_t n, size_t size, int nid)
{
	void **sorted = malloc(n * sizeof(void *));
	memcpy(sorted, p, n * sizeof(void *));
	qsort(sorted, n, sizeof(void *), cmp_ptr);
	for (size_t i = 0; i < n; i++) {
		assert_non_null(sorted[i]);
		assert_int_equal(page_to_nid(virt_to_page(sorted[i])), nid);
		if (i)
			assert_true((char *)sorted[i] >=
				    (char *)sorted[i - 1] + size);
		memset(sorted[i], 0x5a, size);
	}
	free(sorted);
}

static void test_bulk_of_zero_does_nothing(void **state)
{
	void *p[1] = {NULL};
	(void)state;
	struct kmem_cache *s = kmem_cache_create("b0", 256, 0, 0, NULL);
	assert_int_equal(kmem_cache_alloc_bulk(s, GFP_KERNEL, 0, p), 0);
	assert_null(p[0]);
	kmem_cache_free_bulk(s, 0, p);
	assert_int_equal(slab_test_field("b0", "slabs"), 0);
}

static void test_bulk_of_one_gives_one_object(void **state)
{
	void *p[2] = {NULL, NULL};
	(void)state;
	struct kmem_cache *s = kmem_cache_create("b1", 256, 0, 0, NULL);
	assert_int_equal(kmem_cache_alloc_bulk(s, GFP_KERNEL, 1, p), 1);
	assert_non_null(p[0]);
	assert_null(p[1]);
	assert_int_equal(slab_test_field("b1", "active_objs"), 1);
	kmem_cache_free_bulk(s, 1, p);
	assert_int_equal(slab_test_field("b1", "active_objs"), 0);
}

static void test_bulk_of_sixteen_gives_distinct_local_objects(void **state)
{
	void *p[16];
	(void)state;
	struct kmem_cache *s = kmem_cache_create("b16", 256, 0, 0, NULL);
	assert_int_equal(kmem_cache_alloc_bulk(s, GFP_KERNEL, 16, p), 16);
	assert_distinct_on_node(p, 16, 256, 0);
	assert_int_equal(slab_test_field("b16", "active_objs"), 16);
	assert_int_equal(slab_test_field("b16", "bulk_allocs"), 1);
	kmem_cache_free_bulk(s, 16, p);
	assert_int_equal(slab_test_field("b16", "active_objs"), 0);
	assert_int_equal(slab_test_field("b16", "bulk_frees"), 1);
}

static void test_bulk_larger_than_slab_and_magazine(void **state)
{
	enum { N = 1000 };
	static void *p[N];
	(void)state;
	unsigned long before = slab_test_settled_free_pages();
	struct kmem_cache *s = kmem_cache_create("bbig", 256, 0, 0, NULL);

	assert_true(slab_test_field("bbig", "objs_per_slab") < N);
	assert_int_equal(kmem_cache_alloc_bulk(s, GFP_KERNEL, N, p), N);
	assert_distinct_on_node(p, N, 256, 0);
	assert_int_equal(slab_test_field("bbig", "active_objs"), N);
	kmem_cache_free_bulk(s, N, p);
	assert_int_equal(slab_test_field("bbig", "active_objs"), 0);
	kmem_cache_destroy(s);
	assert_int_equal(slab_test_settled_free_pages(), before);
}

static void test_bulk_takes_one_refill_and_one_flush(void **state)
{
	enum { N = 100, BIG = 1000 };
	static void *p[BIG];
	(void)state;
	struct kmem_cache *s = kmem_cache_create("bonce", 256, 0, 0, NULL);

	/* empty magazine: the whole bulk comes from one refill */
	assert_int_equal(kmem_cache_alloc_bulk(s, 0, N, p), N);
	assert_int_equal(slab_test_field("bonce", "refills"), 1);
	kmem_cache_free_bulk(s, N, p);
	assert_int_equal(slab_test_field("bonce", "flushes"), 0);
	/* larger than the magazine: one pass to the node lists on free */
	assert_int_equal(kmem_cache_alloc_bulk(s, 0, BIG, p), BIG);
	kmem_cache_free_bulk(s, BIG, p);
	assert_int_equal(slab_test_field("bonce", "flushes"), 1);
	assert_int_equal(slab_test_field("bonce", "active_objs"), 0);
}

static void test_bulk_mixes_with_single_calls(void **state)
{
	void *p[48];
	(void)state;
	struct kmem_cache *s = kmem_cache_create("bmix", 128, 0, 0, NULL);
	for (int round = 0; round < 20; round++) {
		assert_int_equal(kmem_cache_alloc_bulk(s, 0, 48, p), 48);
		void *one = kmem_cache_alloc(s, 0);
		for (int i = 0; i < 48; i++)
			assert_ptr_not_equal(one, p[i]);
		kmem_cache_free(s, one);
		kmem_cache_free_bulk(s, 48, p);
	}
	assert_int_equal(slab_test_field("bmix", "active_objs"), 0);
	assert_int_equal(slab_test_field("bmix", "allocs"), 20 * 49);
	assert_int_equal(slab_test_field("bmix", "frees"), 20 * 49);
}

static void test_bulk_free_sends_remote_objects_home(void **state)
{
	void *p[32];
	(void)state;
	struct kmem_cache *s = kmem_cache_create("bremote", 256, 0, 0, NULL);

	assert_int_equal(mm_host_set_cpu(1), 0);
	assert_int_equal(kmem_cache_alloc_bulk(s, 0, 32, p), 32);
	assert_distinct_on_node(p, 32, 256, 1);
	assert_int_equal(mm_host_set_cpu(0), 0);
	long cached = slab_test_field("bremote", "cpu_cached");
	kmem_cache_free_bulk(s, 32, p);
	assert_int_equal(slab_test_field("bremote", "cpu_cached"), cached);
	assert_int_equal(slab_test_field("bremote", "remote_frees"), 32);
	assert_int_equal(slab_test_field("bremote", "active_objs"), 0);
}

static void test_bulk_partial_failure_returns_zero_and_keeps_nothing(void **s0)
{
	enum { N = 400 };
	static void *p[N];
	(void)s0;
	slab_test_shutdown(NULL);
	assert_int_equal(mm_host_boot(1, 1u << 20, 1, NULL), 0);
	struct kmem_cache *s = kmem_cache_create("bfail", 4096, 0, 0, NULL);
	unsigned long with_cache = slab_test_settled_free_pages();

	/* 400 pages of objects from a 1 MiB (256-page) machine */
	memset(p, 0, sizeof(p));
	assert_int_equal(kmem_cache_alloc_bulk(s, __GFP_NOWARN, N, p), 0);
	assert_int_equal(slab_test_field("bfail", "active_objs"), 0);
	assert_int_equal(slab_test_field("bfail", "alloc_fails"), 1);
	kmem_cache_shrink(s);
	assert_int_equal(slab_test_settled_free_pages(), with_cache);
	/* a bulk that fits still works afterwards */
	assert_int_equal(kmem_cache_alloc_bulk(s, 0, 8, p), 8);
}

/* Node 0 empty: a bulk on CPU 0 is served from node 1 straight into the
 * caller's array, for a bulk that fits the magazine and for one that does
 * not; the magazine never takes node-1 objects. */
static void test_bulk_from_an_empty_node_never_fills_the_magazine(void **st)
{
	static void *p[300];
	(void)st;
	struct kmem_cache *s = kmem_cache_create("bulk_fb", 256, 0, 0, NULL);
	size_t n;
	struct page **held = mm_test_take_node(0, &n);

	assert_int_equal(kmem_cache_alloc_bulk(s, GFP_KERNEL, 16, p), 16);
	assert_distinct_on_node(p, 16, 256, 1);
	assert_int_equal(slab_test_field("bulk_fb", "cpu_cached"), 0);
	kmem_cache_free_bulk(s, 16, p);
	assert_int_equal(kmem_cache_alloc_bulk(s, GFP_KERNEL, 300, p), 300);
	assert_distinct_on_node(p, 300, 256, 1);
	assert_int_equal(slab_test_field("bulk_fb", "cpu_cached"), 0);
	assert_int_equal(slab_test_field("bulk_fb", "fallback_allocs"), 316);
	kmem_cache_free_bulk(s, 300, p);
	assert_int_equal(
		kmem_cache_alloc_bulk(s, __GFP_THISNODE | __GFP_NOWARN, 16, p),
		0);
	mm_test_give_back(held, n);
	assert_int_equal(kmem_cache_alloc_bulk(s, GFP_KERNEL, 16, p), 16);
	assert_distinct_on_node(p, 16, 256, 0);
	kmem_cache_free_bulk(s, 16, p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f)                                                         \
	cmocka_unit_test_setup_teardown(f, slab_test_boot_two_nodes, \
					slab_test_shutdown)
		T(test_bulk_of_zero_does_nothing),
		T(test_bulk_of_one_gives_one_object),
		T(test_bulk_of_sixteen_gives_distinct_local_objects),
		T(test_bulk_larger_than_slab_and_magazine),
		T(test_bulk_takes_one_refill_and_one_flush),
		T(test_bulk_mixes_with_single_calls),
		T(test_bulk_free_sends_remote_objects_home),
		T(test_bulk_partial_failure_returns_zero_and_keeps_nothing),
		T(test_bulk_from_an_empty_node_never_fills_the_magazine),
#undef T
	};
	return cmocka_run_group_tests_name("slab_bulk", tests, NULL, NULL);
}
