/*
 * Slab caches: layout, constructor, NUMA placement, empty-slab reserve,
 * destroy. Each test boots a fresh two-node, two-CPU machine (CPU n on
 * node n) and runs as CPU 0 unless it says otherwise.
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
#include "slab_tunables.h"

#define NODE_BYTES (16u << 20)

static void test_objects_are_aligned_and_do_not_overlap(void **state)
{
	static const size_t sizes[] = {1, 24, 100, 256, 1000, 4096};
	static const size_t aligns[] = {0, 16, 64, 256};
	void *objs[40];
	(void)state;

	for (size_t si = 0; si < 6; si++) {
		for (size_t ai = 0; ai < 4; ai++) {
			size_t want = aligns[ai] < 8 ? 8 : aligns[ai];
			struct kmem_cache *s = kmem_cache_create(
				"align", sizes[si], aligns[ai], 0, NULL);
			assert_non_null(s);
			for (int i = 0; i < 40; i++) {
				objs[i] = kmem_cache_alloc(s, GFP_KERNEL);
				assert_non_null(objs[i]);
				assert_int_equal((uintptr_t)objs[i] % want, 0);
				memset(objs[i], i, sizes[si]);
			}
			for (int i = 0; i < 40; i++) {
				const unsigned char *b = objs[i];
				for (size_t k = 0; k < sizes[si]; k++)
					assert_int_equal(b[k], i);
				kmem_cache_free(s, objs[i]);
			}
			kmem_cache_destroy(s);
		}
	}
}

static void test_hwcache_align_gives_cache_line_alignment(void **state)
{
	(void)state;
	struct kmem_cache *s =
		kmem_cache_create("hw", 24, 0, SLAB_HWCACHE_ALIGN, NULL);
	assert_non_null(s);
	for (int i = 0; i < 20; i++) {
		void *p = kmem_cache_alloc(s, GFP_KERNEL);
		assert_int_equal((uintptr_t)p % MM_CACHE_LINE, 0);
	}
	assert_int_equal(slab_test_field("hw", "stride"), MM_CACHE_LINE);
}

static void test_create_rejects_bad_arguments(void **state)
{
	(void)state;
	assert_null(kmem_cache_create("zero", 0, 0, 0, NULL));
	assert_null(kmem_cache_create("huge", SLAB_MAX_SIZE + 1, 0, 0, NULL));
	assert_null(kmem_cache_create("odd-align", 64, 24, 0, NULL));
	assert_null(kmem_cache_create(NULL, 64, 0, 0, NULL));
	/* Only the documented flags: the others are the slab's own. */
	assert_null(kmem_cache_create("flags", 64, 0, 0x100, NULL));
}

static int ctor_calls;
static void ctor_mark(void *obj)
{
	ctor_calls++;
	memcpy(obj, "CONSTRUCTED", 12);
}

static void test_ctor_runs_once_per_object_not_on_reuse(void **state)
{
	void *objs[20];
	(void)state;
	ctor_calls = 0;
	struct kmem_cache *s = kmem_cache_create("ctor", 64, 0, 0, ctor_mark);

	for (int i = 0; i < 20; i++) {
		objs[i] = kmem_cache_alloc(s, GFP_KERNEL);
		assert_memory_equal(objs[i], "CONSTRUCTED", 12);
	}
	int after_first = ctor_calls;
	long per_slab = slab_test_field("ctor", "objs_per_slab");
	assert_int_equal(after_first % per_slab, 0); /* whole slabs only */
	assert_true(after_first >= 20);
	for (int round = 0; round < 5; round++) {
		for (int i = 0; i < 20; i++)
			kmem_cache_free(s, objs[i]);
		for (int i = 0; i < 20; i++) {
			objs[i] = kmem_cache_alloc(s, GFP_KERNEL);
			/* free objects keep their constructed state */
			assert_memory_equal(objs[i], "CONSTRUCTED", 12);
		}
	}
	assert_int_equal(ctor_calls, after_first);
}

static void test_alloc_node_places_objects_on_that_node(void **state)
{
	(void)state;
	struct kmem_cache *s = kmem_cache_create("node", 256, 0, 0, NULL);

	for (int nid = 0; nid < 2; nid++) {
		for (int i = 0; i < 50; i++) {
			void *p = kmem_cache_alloc_node(s, GFP_KERNEL, nid);
			assert_non_null(p);
			assert_int_equal(page_to_nid(virt_to_page(p)), nid);
		}
	}
	/* plain alloc is local: CPU 1 sits on node 1 */
	assert_int_equal(mm_host_set_cpu(1), 0);
	assert_int_equal(page_to_nid(virt_to_page(kmem_cache_alloc(s, 0))), 1);
	assert_int_equal(mm_host_set_cpu(0), 0);
	assert_int_equal(page_to_nid(virt_to_page(kmem_cache_alloc(s, 0))), 0);
}

static void test_alloc_node_thisnode_fails_when_node_full(void **state)
{
	static const int cpu_node[2] = {0, 1};
	(void)state;
	slab_test_shutdown(NULL);
	assert_int_equal(mm_host_boot(2, 1u << 20, 2, cpu_node), 0);
	struct kmem_cache *s = kmem_cache_create("thisnode", 4096, 0, 0, NULL);
	int n = 0;

	while (kmem_cache_alloc_node(s, __GFP_THISNODE | __GFP_NOWARN, 1)) {
		n++;
		assert_true(n < 1000);
	}
	assert_true(n > 16);
	/* without __GFP_THISNODE the page allocator falls back to node 0 */
	void *p = kmem_cache_alloc_node(s, __GFP_NOWARN, 1);
	assert_non_null(p);
	assert_int_equal(page_to_nid(virt_to_page(p)), 0);
}

static void test_alloc_node_rejects_invalid_node(void **state)
{
	(void)state;
	struct kmem_cache *s = kmem_cache_create("badnode", 64, 0, 0, NULL);
	assert_null(kmem_cache_alloc_node(s, __GFP_NOWARN, 7));
	assert_null(kmem_cache_alloc_node(s, __GFP_NOWARN, -5));
	assert_int_equal(slab_test_field("badnode", "alloc_fails"), 2);
}

static void test_remote_free_goes_home_not_to_local_magazine(void **state)
{
	(void)state;
	struct kmem_cache *s = kmem_cache_create("remote", 256, 0, 0, NULL);

	/* CPU 1 (node 1) allocates; CPU 0 (node 0) frees. */
	assert_int_equal(mm_host_set_cpu(1), 0);
	void *p = kmem_cache_alloc(s, GFP_KERNEL);
	assert_int_equal(mm_host_set_cpu(0), 0);
	struct page *slab = virt_to_head_page(p);
	unsigned int inuse = slab->inuse;
	long cached = slab_test_field("remote", "cpu_cached");
	kmem_cache_free(s, p);
	/* back in its node-1 slab at once, not in CPU 0's magazine */
	assert_int_equal(slab->inuse, inuse - 1);
	assert_int_equal(slab_test_field("remote", "cpu_cached"), cached);
	assert_int_equal(slab_test_field("remote", "remote_frees"), 1);
	/* and CPU 0 never hands it out */
	for (int i = 0; i < 64; i++) {
		void *q = kmem_cache_alloc(s, GFP_KERNEL);
		assert_int_equal(page_to_nid(virt_to_page(q)), 0);
	}
}

static void test_local_free_from_other_cpu_stays_on_fast_path(void **state)
{
	static const int cpu_node[2] = {0, 0};
	(void)state;
	slab_test_shutdown(NULL);
	assert_int_equal(mm_host_boot(1, NODE_BYTES, 2, cpu_node), 0);
	struct kmem_cache *s = kmem_cache_create("samenode", 256, 0, 0, NULL);

	void *p = kmem_cache_alloc(s, GFP_KERNEL);
	assert_int_equal(mm_host_set_cpu(1), 0);
	kmem_cache_free(s, p);
	/* same node: CPU 1's magazine takes it, and hands it out next */
	assert_ptr_equal(kmem_cache_alloc(s, GFP_KERNEL), p);
	assert_int_equal(mm_host_set_cpu(0), 0);
}

static void test_empty_slabs_beyond_reserve_go_back(void **state)
{
	static void *objs[1024];
	(void)state;
	struct kmem_cache *s = kmem_cache_create("reserve", 2048, 0, 0, NULL);
	long per_slab = 0;

	for (int i = 0; i < 1024; i++)
		objs[i] = kmem_cache_alloc(s, GFP_KERNEL);
	per_slab = slab_test_field("reserve", "objs_per_slab");
	long slabs_full = slab_test_field("reserve", "slabs");
	assert_true(slabs_full >= 1024 / per_slab);
	for (int i = 0; i < 1024; i++)
		kmem_cache_free(s, objs[i]);
	/* left: the magazine's objects' slabs plus the empty reserve */
	long cap = SLAB_CPU_CAP_LARGE;
	long slabs = slab_test_field("reserve", "slabs");
	assert_true(slabs <= SLAB_NODE_EMPTY_RESERVE + cap / per_slab + 1);
	assert_int_equal(slab_test_field("reserve", "empty_slabs"),
			 SLAB_NODE_EMPTY_RESERVE);
	assert_true(slab_test_field("reserve", "slab_page_frees") > 0);
}

static void test_shrink_returns_every_empty_slab(void **state)
{
	void *objs[300];
	(void)state;
	unsigned long before = slab_test_settled_free_pages();
	struct kmem_cache *s = kmem_cache_create("shrink", 256, 0, 0, NULL);
	unsigned long with_cache = slab_test_settled_free_pages();

	for (int i = 0; i < 300; i++)
		objs[i] = kmem_cache_alloc(s, GFP_KERNEL);
	for (int i = 0; i < 300; i++)
		kmem_cache_free(s, objs[i]);
	assert_true(kmem_cache_shrink(s) > 0);
	assert_int_equal(slab_test_field("shrink", "slabs"), 0);
	assert_int_equal(slab_test_settled_free_pages(), with_cache);
	kmem_cache_destroy(s);
	assert_int_equal(slab_test_settled_free_pages(), before);
}

/*
 * A page the slab gives back carries none of its slab fields: the page
 * allocator's fast path hands pages out without clearing freelist, inuse
 * and objects, trusting the slab to have set them back to 0.
 */
static void test_pages_leave_the_slab_with_its_fields_cleared(void **state)
{
	enum { NOBJ = 300, NPAGES = 64 };
	void *objs[NOBJ];
	struct page *slabs[NOBJ], *pages[PCP_MAX_ORDER + 1][NPAGES];
	int nslabs = 0, reused = 0;
	(void)state;
	struct kmem_cache *s = kmem_cache_create("discard", 256, 0, 0, NULL);

	for (int i = 0; i < NOBJ; i++) {
		assert_non_null(objs[i] = kmem_cache_alloc(s, GFP_KERNEL));
		struct page *head = virt_to_head_page(objs[i]);
		if (nslabs == 0 || slabs[nslabs - 1] != head)
			slabs[nslabs++] = head;
	}
	for (int i = 0; i < NOBJ; i++)
		kmem_cache_free(s, objs[i]);
	assert_true(kmem_cache_shrink(s) > 0);
	for (unsigned int o = 0; o <= PCP_MAX_ORDER; o++) {
		for (int i = 0; i < NPAGES; i++) {
			struct page *p = alloc_pages(GFP_KERNEL, o);
			assert_non_null(p);
			assert_int_equal(p->flags, 0);
			assert_null(p->slab_cache);
			assert_null(p->freelist);
			assert_int_equal(p->inuse, 0);
			assert_int_equal(p->objects, 0);
			for (int k = 0; k < nslabs; k++)
				reused += slabs[k] == p;
			pages[o][i] = p;
		}
	}
	/* The per-CPU lists hand out the pages freed last: the slabs'. */
	assert_true(reused > 0);
	for (unsigned int o = 0; o <= PCP_MAX_ORDER; o++)
		for (int i = 0; i < NPAGES; i++)
			__free_pages(pages[o][i], o);
	kmem_cache_destroy(s);
}

/* What a caller does when the page allocator has nothing left: objects
 * parked in this CPU's magazines of two caches pin their slabs until
 * kmem_cache_shrink_all() hands every cache's back. */
static void test_shrink_all_returns_the_slabs_magazines_pin(void **state)
{
	void *a[200], *b[100];
	(void)state;
	struct kmem_cache *sa =
		kmem_cache_create("shrink_all_a", 2048, 0, 0, NULL);
	struct kmem_cache *sb =
		kmem_cache_create("shrink_all_b", 192, 0, 0, NULL);
	unsigned long with_caches = slab_test_settled_free_pages();

	for (int i = 0; i < 200; i++)
		a[i] = kmem_cache_alloc(sa, GFP_KERNEL);
	for (int i = 0; i < 100; i++)
		b[i] = kmem_cache_alloc(sb, GFP_KERNEL);
	for (int i = 0; i < 200; i++)
		kmem_cache_free(sa, a[i]);
	for (int i = 0; i < 100; i++)
		kmem_cache_free(sb, b[i]);
	assert_true(slab_test_field("shrink_all_a", "slabs") > 0);
	assert_true(slab_test_field("shrink_all_b", "slabs") > 0);
	assert_true(kmem_cache_shrink_all() >= 2);
	assert_int_equal(slab_test_field("shrink_all_a", "slabs"), 0);
	assert_int_equal(slab_test_field("shrink_all_b", "slabs"), 0);
	assert_int_equal(slab_test_settled_free_pages(), with_caches);
	kmem_cache_destroy(sa);
	kmem_cache_destroy(sb);
}

static void test_destroy_returns_every_page(void **state)
{
	void *objs[500];
	(void)state;
	unsigned long before = slab_test_settled_free_pages();
	struct kmem_cache *s = kmem_cache_create("destroy", 512, 0, 0, NULL);

	for (int i = 0; i < 500; i++)
		objs[i] = kmem_cache_alloc_node(s, GFP_KERNEL, i % 2);
	for (int i = 0; i < 500; i++)
		kmem_cache_free(s, objs[i]);
	kmem_cache_destroy(s);
	assert_int_equal(slab_test_settled_free_pages(), before);
	assert_int_equal(slab_test_field("destroy", "slabs"), -1); /* gone */
}

static void test_destroy_with_objects_outstanding_is_reported(void **state)
{
	struct slab_debug_counts before, after;
	(void)state;
	struct kmem_cache *s = kmem_cache_create("leaky", 128, 0, 0, NULL);
	void *p = kmem_cache_alloc(s, GFP_KERNEL);

	slab_debug_counts(&before);
	kmem_cache_destroy(s);
	slab_debug_counts(&after);
	assert_int_equal(after.destroy_busy, before.destroy_busy + 1);
	/* the cache survives so the object can still come home */
	assert_int_equal(slab_test_field("leaky", "active_objs"), 1);
	kmem_cache_free(s, p);
	kmem_cache_destroy(s);
	assert_int_equal(slab_test_field("leaky", "active_objs"), -1);
}

/*
 * A cache destroyed with objects out lives on only so they can be freed:
 * every allocation from it is refused and reported with the caller, on
 * every path (fast, other node, bulk), with debug checks off.
 */
static void test_destroyed_busy_cache_refuses_allocations(void **state)
{
	struct slab_debug_counts before, after;
	void *p[4];
	(void)state;
	struct kmem_cache *s = kmem_cache_create("dead", 128, 0, 0, NULL);
	void *kept = kmem_cache_alloc(s, GFP_KERNEL);
	kmem_cache_free(s, kmem_cache_alloc(s, GFP_KERNEL));

	mm_debug_set_quiet(true);
	kmem_cache_destroy(s); /* busy: reported, cache kept */
	slab_debug_counts(&before);
	unsigned long other = mm_debug_count(MM_DBG_OTHER);
	assert_null(kmem_cache_alloc(s, GFP_KERNEL | __GFP_NOWARN));
	mm_test_assert_caller_in(test_destroyed_busy_cache_refuses_allocations);
	assert_null(kmem_cache_alloc_node(s, __GFP_NOWARN, 1));
	assert_int_equal(kmem_cache_alloc_bulk(s, __GFP_NOWARN, 4, p), 0);
	slab_debug_counts(&after);
	assert_int_equal(after.alloc_dead, before.alloc_dead + 3);
	assert_int_equal(mm_debug_count(MM_DBG_OTHER), other + 3);
	assert_int_equal(slab_test_field("dead", "alloc_fails"), 3);
	/* Frees still work and go straight to the slabs, not a magazine. */
	kmem_cache_free(s, kept);
	assert_int_equal(slab_test_field("dead", "cpu_cached"), 0);
	assert_int_equal(slab_test_field("dead", "active_objs"), 0);
	mm_debug_set_quiet(false);
	kmem_cache_destroy(s);
	assert_int_equal(slab_test_field("dead", "slabs"), -1); /* gone */
}

static void test_gfp_zero_zeroes_the_object(void **state)
{
	(void)state;
	struct kmem_cache *s = kmem_cache_create("zero", 200, 0, 0, NULL);
	unsigned char *p = kmem_cache_alloc(s, GFP_KERNEL);
	memset(p, 0xee, 200);
	kmem_cache_free(s, p);
	unsigned char *q = kmem_cache_alloc(s, __GFP_ZERO);
	assert_ptr_equal(p, q); /* LIFO magazine: the same, dirty object */
	for (int i = 0; i < 200; i++)
		assert_int_equal(q[i], 0);
}

static void test_exhaustion_returns_null_and_is_counted(void **state)
{
	(void)state;
	slab_test_shutdown(NULL);
	assert_int_equal(mm_host_boot(1, 1u << 20, 1, NULL), 0);
	struct kmem_cache *s = kmem_cache_create("exhaust", 4096, 0, 0, NULL);
	int n = 0;

	while (kmem_cache_alloc(s, __GFP_NOWARN))
		n++;
	assert_true(n > 100 && n < 256); /* most of 1 MiB, then NULL */
	assert_int_equal(slab_test_field("exhaust", "alloc_fails"), 1);
	assert_int_equal(slab_test_field("exhaust", "active_objs"), n);
}

static int nid_of(void *obj)
{
	return page_to_nid(virt_to_page(obj));
}

/*
 * Node 0 has no page left (CPU 0 is on node 0): objects come from node 1,
 * straight to the caller, and CPU 0's magazine stays empty, so
 * __GFP_THISNODE still means node 0 and node 0 serves again as soon as it
 * has memory.
 */
static void test_remote_fallback_objects_never_enter_the_magazine(void **st)
{
	(void)st;
	struct kmem_cache *s = kmem_cache_create("fallback", 256, 0, 0, NULL);
	size_t n;
	struct page **held = mm_test_take_node(0, &n);

	for (int i = 0; i < 10; i++) {
		void *p = kmem_cache_alloc(s, GFP_KERNEL);
		assert_non_null(p);
		assert_int_equal(nid_of(p), 1);
		assert_int_equal(slab_test_field("fallback", "cpu_cached"), 0);
	}
	assert_int_equal(slab_test_field("fallback", "fallback_allocs"), 10);
	/* The node-1 slab stays on node 1's lists: one slab for all ten. */
	assert_int_equal(slab_test_field("fallback", "slabs"), 1);
	assert_null(kmem_cache_alloc_node(s, __GFP_THISNODE | __GFP_NOWARN, 0));
	mm_test_give_back(held, n);
	void *local = kmem_cache_alloc(s, GFP_KERNEL);
	assert_int_equal(nid_of(local), 0);
	assert_true(slab_test_field("fallback", "cpu_cached") > 0);
	assert_int_equal(slab_test_field("fallback", "fallback_allocs"), 10);
	void *p = kmem_cache_alloc_node(s, __GFP_THISNODE, 0);
	assert_int_equal(nid_of(p), 0);
}

/* The same for another node's request: kmem_cache_alloc_node(1) with node
 * 1 empty falls back to node 0, but not with __GFP_THISNODE. */
static void test_alloc_node_falls_back_only_without_thisnode(void **st)
{
	(void)st;
	struct kmem_cache *s = kmem_cache_create("fb_node", 256, 0, 0, NULL);
	size_t n;
	struct page **held = mm_test_take_node(1, &n);

	assert_null(kmem_cache_alloc_node(s, __GFP_THISNODE | __GFP_NOWARN, 1));
	void *p = kmem_cache_alloc_node(s, GFP_KERNEL, 1);
	assert_non_null(p);
	assert_int_equal(nid_of(p), 0);
	kmem_cache_free(s, p);
	mm_test_give_back(held, n);
	assert_int_equal(nid_of(kmem_cache_alloc_node(s, GFP_KERNEL, 1)), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f)                                                         \
	cmocka_unit_test_setup_teardown(f, slab_test_boot_two_nodes, \
					slab_test_shutdown)
		T(test_objects_are_aligned_and_do_not_overlap),
		T(test_hwcache_align_gives_cache_line_alignment),
		T(test_create_rejects_bad_arguments),
		T(test_ctor_runs_once_per_object_not_on_reuse),
		T(test_alloc_node_places_objects_on_that_node),
		T(test_alloc_node_thisnode_fails_when_node_full),
		T(test_alloc_node_rejects_invalid_node),
		T(test_remote_free_goes_home_not_to_local_magazine),
		T(test_local_free_from_other_cpu_stays_on_fast_path),
		T(test_empty_slabs_beyond_reserve_go_back),
		T(test_shrink_returns_every_empty_slab),
		T(test_shrink_all_returns_the_slabs_magazines_pin),
		T(test_pages_leave_the_slab_with_its_fields_cleared),
		T(test_destroy_returns_every_page),
		T(test_destroy_with_objects_outstanding_is_reported),
		T(test_destroyed_busy_cache_refuses_allocations),
		T(test_gfp_zero_zeroes_the_object),
		T(test_exhaustion_returns_null_and_is_counted),
		T(test_remote_fallback_objects_never_enter_the_magazine),
		T(test_alloc_node_falls_back_only_without_thisnode),
#undef T
	};
	return cmocka_run_group_tests_name("slab", tests, NULL, NULL);
}
