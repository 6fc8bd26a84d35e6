/*
 * Nodes whose memory ranges interleave: node 0 at [0, 4M) and [8M, 12M)
 * around node 1 at [4M, 8M), as firmware can describe them (and as the
 * kernel's memory map makes them when RAM that no SRAT entry covers goes
 * to node 0). Every address must map to its own node's struct page, every
 * allocator must free such memory, and the buddy lists must never merge
 * blocks of two nodes.
 */
#include <stdlib.h>
#include <string.h>

#include "mm_test.h"
#include "zone.h"

#define MiB ((size_t)1 << 20)

static const int cpu_to_node[2] = {0, 1};

/* The layout above: node 0 split around node 1, 4 MiB aligned. */
static const struct mm_host_range split_4m[] = {
	{.nid = 0, .offset = 0, .len = 4 * MiB},
	{.nid = 1, .offset = 4 * MiB, .len = 4 * MiB},
	{.nid = 0, .offset = 8 * MiB, .len = 4 * MiB},
};

/*
 * Both nodes split, at boundaries aligned to 1 MiB only (order 8): blocks
 * up to order 10 would cross every boundary if merging looked only at pfns.
 */
static const struct mm_host_range split_1m[] = {
	{.nid = 0, .offset = 0, .len = 5 * MiB},
	{.nid = 1, .offset = 5 * MiB, .len = 4 * MiB},
	{.nid = 0, .offset = 9 * MiB, .len = 4 * MiB},
	{.nid = 1, .offset = 13 * MiB, .len = 3 * MiB},
};

/* Node 0 around node 1 with gaps (holes) on both sides of node 1. */
static const struct mm_host_range gaps[] = {
	{.nid = 0, .offset = 0, .len = 4 * MiB},
	{.nid = 1, .offset = 5 * MiB, .len = 3 * MiB},
	{.nid = 0, .offset = 9 * MiB, .len = 4 * MiB},
};

/* This thread becomes simulated CPU cpu (one thread per CPU at a time:
 * the test's own thread switches). */
static void on_cpu(int cpu)
{
	assert_int_equal(mm_host_set_cpu(cpu), 0);
}

static void boot(const struct mm_host_range *r, int n)
{
	struct mm_host_config c = {
		.nr_nodes = 2,
		.nr_cpus = 2,
		.cpu_to_node = cpu_to_node,
		.ranges = r,
		.nr_ranges = n,
	};
	assert_int_equal(mm_host_boot_config(&c), 0);
	mm_debug_set(true);
	mm_debug_set_quiet(false);
	mm_debug_reset_counts();
}

#define BOOT(layout) boot(layout, (int)(sizeof(layout) / sizeof(layout[0])))

/* The node whose memory holds addr by the machine's own range list (not by
 * the struct page lookups under test), or -1. */
static int addr_node(const void *addr)
{
	for (int i = 0; i < mm_host_machine.nr_ranges; i++) {
		const struct mm_range *r = &mm_host_machine.ranges[i];
		if ((uintptr_t)addr - r->start < r->end - r->start)
			return r->nid;
	}
	return -1;
}

/* Every page of each node: its address maps back to it, on its node. */
static void check_every_page_maps_back(void)
{
	for (int nid = 0; nid < 2; nid++) {
		size_t got;
		struct page **pages = mm_test_take_node(nid, &got);
		assert_true(got > 0);
		for (size_t i = 0; i < got; i++) {
			void *va = page_address(pages[i]);
			assert_ptr_equal(virt_to_page(va), pages[i]);
			assert_ptr_equal(pfn_to_page(page_to_pfn(pages[i])),
					 pages[i]);
			assert_int_equal(page_to_nid(virt_to_page(va)), nid);
			assert_int_equal(addr_node(va), nid);
		}
		mm_test_give_back(pages, got);
	}
	assert_int_equal(mm_debug_total(), 0);
}

static void test_every_page_maps_to_its_own_node(void **state)
{
	(void)state;
	BOOT(split_4m);
	check_every_page_maps_back();
	mm_host_shutdown();
	BOOT(split_1m);
	check_every_page_maps_back();
	mm_host_shutdown();
	BOOT(gaps);
	check_every_page_maps_back();
}

/* An address in no range (a gap) has no usable struct page, and freeing
 * it is refused and reported. */
static void test_an_address_between_two_nodes_is_no_page(void **state)
{
	(void)state;
	BOOT(gaps);
	uintptr_t lo = (uintptr_t)-1;
	for (int i = 0; i < mm_host_machine.nr_ranges; i++)
		if (mm_host_machine.ranges[i].start < lo)
			lo = mm_host_machine.ranges[i].start;
	unsigned long before = nr_free_pages();
	for (size_t off = 4 * MiB; off < 5 * MiB; off += MM_PAGE_SIZE) {
		struct page *p = virt_to_page((void *)(lo + off));
		assert_true(!p || (p->flags & PG_reserved));
	}
	mm_debug_set_quiet(true);
	free_pages((void *)(lo + 4 * MiB), 0);
	free_pages((void *)(lo + 8 * MiB), 0);
	assert_int_equal(mm_debug_total(), 2);
	assert_int_equal(nr_free_pages(), before);
}

struct objs {
	void *p[4096];
	int n;
};

static void kmalloc_on_node1(void *arg)
{
	struct objs *o = arg;
	for (o->n = 0; o->n < 4096; o->n++) {
		o->p[o->n] = kmalloc(64, GFP_KERNEL);
		assert_non_null(o->p[o->n]);
		assert_int_equal(addr_node(o->p[o->n]), 1);
	}
}

static void kfree_all(void *arg)
{
	struct objs *o = arg;
	for (int i = 0; i < o->n; i++)
		kfree(o->p[i]);
}

/*
 * kfree of node-1 objects, from CPU 0 (remote: straight to node 1's slabs)
 * and from CPU 1 (local: its magazine), takes them back: nothing refused,
 * and the next round reuses them instead of taking more pages.
 */
static void test_kfree_takes_back_node1_objects(void **state)
{
	(void)state;
	BOOT(split_4m);
	struct objs *o = calloc(1, sizeof(*o));
	assert_non_null(o);
	on_cpu(1);
	kmalloc_on_node1(o);
	unsigned long in_use = mm_test_drain_and_verify();
	on_cpu(0);
	kfree_all(o);
	assert_int_equal(mm_debug_total(), 0);
	on_cpu(1);
	kmalloc_on_node1(o);
	assert_int_equal(mm_test_drain_and_verify(), in_use);
	kfree_all(o);
	assert_int_equal(mm_debug_total(), 0);
	kmalloc_on_node1(o);
	assert_int_equal(mm_test_drain_and_verify(), in_use);
	kfree_all(o);
	on_cpu(0);
	free(o);
}

struct cache_run {
	struct kmem_cache *s;
	void *p[2048];
};

/* Far more objects than a magazine holds: the frees flush it. */
static void cache_cycle(void *arg)
{
	struct cache_run *r = arg;
	for (int i = 0; i < 2048; i++) {
		r->p[i] = kmem_cache_alloc(r->s, GFP_KERNEL);
		assert_non_null(r->p[i]);
		assert_int_equal(addr_node(r->p[i]), 1);
	}
	for (int i = 0; i < 2048; i++)
		kmem_cache_free(r->s, r->p[i]);
	kmem_cache_shrink(r->s);
}

/* Magazine flushes on node 1 put the objects back into node 1's slabs;
 * destroying the cache then finds nothing outstanding and every page
 * comes back. */
static void test_magazine_flushes_of_node1_objects(void **state)
{
	(void)state;
	BOOT(split_4m);
	mm_debug_set(false); /* the fast path: no debug check to catch it */
	struct cache_run *r = calloc(1, sizeof(*r));
	assert_non_null(r);
	unsigned long base = mm_test_drain_and_verify();
	r->s = kmem_cache_create("interleave", 256, 0, 0, NULL);
	assert_non_null(r->s);
	on_cpu(1);
	cache_cycle(r);
	cache_cycle(r);
	kmem_cache_destroy(r->s);
	on_cpu(0);
	struct slab_debug_counts dc;
	slab_debug_counts(&dc);
	assert_int_equal(dc.destroy_busy, 0);
	assert_int_equal(mm_debug_total(), 0);
	free(r);
	assert_int_equal(mm_test_drain_and_verify(), base);
}

static void frag_cycle(void *arg)
{
	static void *f[4096];
	struct page_frag_cache nc;
	memset(&nc, 0, sizeof(nc));
	(void)arg;
	for (int i = 0; i < 4096; i++) {
		f[i] = page_frag_alloc(&nc, 200, GFP_KERNEL);
		assert_non_null(f[i]);
		assert_int_equal(addr_node(f[i]), 1);
	}
	for (int i = 0; i < 4096; i++)
		page_frag_free(f[i]);
	page_frag_cache_drain(&nc);
}

/* page_frag_free of node-1 fragments frees their blocks. */
static void test_page_frag_free_returns_node1_blocks(void **state)
{
	(void)state;
	BOOT(split_4m);
	unsigned long base = mm_test_drain_and_verify();
	on_cpu(1);
	frag_cycle(NULL);
	on_cpu(0);
	assert_int_equal(mm_debug_total(), 0);
	assert_int_equal(mm_test_drain_and_verify(), base);
}

/* Every free block lies inside its own node's memory. */
static void check_free_blocks_stay_on_their_node(void)
{
	assert_true(mm_verify_free_lists() >= 0);
	for (int nid = 0; nid < mm_nr_zones; nid++) {
		struct zone *z = &mm_zones[nid];
		for (unsigned int o = 0; o <= MAX_ORDER; o++) {
			struct list_head *pos;
			list_for_each (pos, &z->free_area[o].free_list) {
				struct page *head =
					list_entry(pos, struct page, lru);
				char *va = page_address(head);
				for (unsigned long i = 0; i < (1UL << o); i++) {
					struct page *p = virt_to_page(
						va + i * MM_PAGE_SIZE);
					assert_ptr_equal(p, head + i);
					assert_int_equal(p->nid, nid);
				}
			}
		}
	}
}

/* Boundaries at 1 MiB: a freed order-8 block at a boundary has its buddy
 * on the other node, and the two must stay apart. */
static void test_buddies_of_two_nodes_never_merge(void **state)
{
	(void)state;
	BOOT(split_1m);
	check_free_blocks_stay_on_their_node();
	/* Break everything down to pages and give it all back: the frees
	 * merge as far as they may. */
	size_t n0, n1;
	struct page **p0 = mm_test_take_node(0, &n0);
	struct page **p1 = mm_test_take_node(1, &n1);
	mm_test_give_back(p1, n1);
	mm_test_give_back(p0, n0);
	mm_test_drain_and_verify();
	check_free_blocks_stay_on_their_node();
	/* A 4 MiB block would form at [4M, 8M), [8M, 12M) and [12M, 16M)
	 * only by merging across a node boundary; [0, 4M) holds node 0's
	 * mem_map. So there is none. */
	assert_int_equal(mm_test_free_blocks(0, MAX_ORDER), 0);
	assert_int_equal(mm_test_free_blocks(1, MAX_ORDER), 0);
	assert_int_equal(mm_debug_total(), 0);
}

/* Bad layouts are refused with a message, and nothing is booted. */
static void test_overlapping_or_unaligned_ranges_are_refused(void **state)
{
	(void)state;
	static const struct mm_host_range overlap[] = {
		{.nid = 0, .offset = 0, .len = 4 * MiB},
		{.nid = 1, .offset = 2 * MiB, .len = 4 * MiB},
	};
	static const struct mm_host_range unaligned[] = {
		{.nid = 0, .offset = 100, .len = 4 * MiB},
	};
	static const struct mm_host_range bad_node[] = {
		{.nid = 2, .offset = 0, .len = 4 * MiB},
	};
	struct mm_host_config c = {.nr_nodes = 2, .nr_cpus = 2};
	c.ranges = overlap;
	c.nr_ranges = 2;
	assert_int_equal(mm_host_boot_config(&c), -1);
	c.ranges = unaligned;
	c.nr_ranges = 1;
	assert_int_equal(mm_host_boot_config(&c), -1);
	c.ranges = bad_node;
	assert_int_equal(mm_host_boot_config(&c), -1);
	assert_false(mm_is_ready());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_every_page_maps_to_its_own_node,
					  mm_test_teardown),
		cmocka_unit_test_teardown(
			test_an_address_between_two_nodes_is_no_page,
			mm_test_teardown),
		cmocka_unit_test_teardown(test_kfree_takes_back_node1_objects,
					  mm_test_teardown),
		cmocka_unit_test_teardown(
			test_magazine_flushes_of_node1_objects,
			mm_test_teardown),
		cmocka_unit_test_teardown(
			test_page_frag_free_returns_node1_blocks,
			mm_test_teardown),
		cmocka_unit_test_teardown(test_buddies_of_two_nodes_never_merge,
					  mm_test_teardown),
		cmocka_unit_test_teardown(
			test_overlapping_or_unaligned_ranges_are_refused,
			mm_test_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
