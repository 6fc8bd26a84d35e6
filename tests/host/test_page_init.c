/*
 * Deferred struct page initialisation (mm/page_init.c): a node bigger
 * than the boot part has only that part on its free lists after boot;
 * the rest arrives through mm_deferred_init_work() or, a chunk at a time,
 * when an allocation finds the zone empty. Whatever the order, every
 * usable page reaches the free lists exactly once, holes and the mem_map
 * never do, and no page is handed out with a struct page left as the
 * memory held before.
 */
#include <stdlib.h>
#include <string.h>

#include "mm_test.h"
#include "zone.h"

#define MiB	      ((size_t)1 << 20)
#define PAGES_PER_MIB (MiB / MM_PAGE_SIZE)
#define BOOT_PAGES    (4 * PAGES_PER_MIB) /* a 4 MiB boot part per node */

static const int cpu_to_node[2] = {0, 1};

static void boot(size_t mib_per_node, unsigned long boot_pages)
{
	mm_set_boot_init_pages(boot_pages);
	mm_test_boot(2, mib_per_node, 2);
}

/* Every test sets its own boot part; the next test file gets the
 * default back. */
static int teardown(void **state)
{
	mm_set_boot_init_pages(MM_BOOT_INIT_PAGES);
	return mm_test_teardown(state);
}

static void run_all_work(void)
{
	for (int n = 0; n < mm_nr_nodes(); n++)
		while (mm_deferred_init_work(n, MM_DEFERRED_CHUNK_PAGES))
			;
}

static void
test_a_node_bigger_than_the_boot_part_has_only_that_part_free(void **state)
{
	(void)state;
	boot(64, BOOT_PAGES);
	for (int n = 0; n < 2; n++) {
		unsigned long managed = nr_managed_pages_node(n);
		unsigned long free = mm_test_node_free(n);

		/* the boot part ends on a MAX_ORDER block: at most one block
		 * more than asked */
		assert_true(free >= BOOT_PAGES);
		assert_true(free <= BOOT_PAGES + (1UL << MAX_ORDER));
		assert_int_equal(mm_deferred_pages(n), managed - free);
		/* 64 MiB less the mem_map's pages are managed, deferred or not */
		assert_true(managed >= 62 * PAGES_PER_MIB);
	}
	mm_test_drain_and_verify();
}

static void
test_background_work_puts_every_usable_page_on_the_free_lists(void **state)
{
	(void)state;
	boot(64, BOOT_PAGES);
	run_all_work();
	for (int n = 0; n < 2; n++) {
		assert_int_equal(mm_deferred_pages(n), 0);
		assert_int_equal(mm_test_node_free(n),
				 nr_managed_pages_node(n));
	}
	mm_test_drain_and_verify();
	/* nothing is left to do, and asking again changes nothing */
	assert_int_equal(mm_deferred_init_work(0, ~0UL), 0);
	assert_int_equal(mm_test_node_free(0), nr_managed_pages_node(0));
}

static void test_with_everything_at_boot_nothing_is_deferred(void **state)
{
	(void)state;
	boot(64, MM_INIT_ALL);
	assert_int_equal(mm_deferred_pages(-1), 0);
	for (int n = 0; n < 2; n++)
		assert_int_equal(mm_test_node_free(n),
				 nr_managed_pages_node(n));
	assert_int_equal(mm_deferred_init_work(0, ~0UL), 0);
}

/* Before any background work, an allocation grows its zone itself: the
 * whole node can be taken from its own memory, page by page. */
static void test_allocations_alone_reach_every_page_of_the_node(void **state)
{
	size_t n;
	struct page **pages;

	(void)state;
	boot(64, BOOT_PAGES);
	pages = mm_test_take_node(1, &n);
	assert_int_equal(n, nr_managed_pages_node(1));
	assert_int_equal(mm_deferred_pages(1), 0);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(page_to_nid(pages[i]), 1);
		assert_int_equal(pages[i]->flags, 0);
		assert_int_equal(page_ref_count(pages[i]), 1);
	}
	/* node 0 was not touched to serve node 1 */
	assert_true(mm_deferred_pages(0) > 0);
	mm_test_give_back(pages, n);
	mm_test_drain_and_verify();
}

/* The largest block comes from deferred memory too once the boot part
 * has none left. */
static void test_a_max_order_block_comes_from_deferred_memory(void **state)
{
	struct page *p[12];
	int got = 0;

	(void)state;
	boot(64, BOOT_PAGES);
	/* the boot part holds at most 2 blocks of 4 MiB, the node 15 (the
	 * mem_map takes part of the first): take 12 */
	for (; got < 12; got++) {
		p[got] = alloc_pages_node(0, GFP_KERNEL | __GFP_THISNODE,
					  MAX_ORDER);
		if (!p[got])
			break;
		assert_int_equal(page_to_nid(p[got]), 0);
	}
	assert_int_equal(got, 12);
	for (int i = 0; i < got; i++)
		__free_pages(p[i], MAX_ORDER);
	mm_test_drain_and_verify();
}

/* A bulk allocation grows the zone as a single one does. */
static void test_a_bulk_allocation_grows_its_zone(void **state)
{
	enum { NR = 3000 }; /* more than the 1024-page boot part */
	struct page **pages = calloc(NR, sizeof(*pages));
	unsigned int n;

	(void)state;
	assert_non_null(pages);
	boot(64, 1024);
	assert_int_equal(mm_host_set_cpu(0), 0);
	n = alloc_pages_bulk(GFP_KERNEL | __GFP_THISNODE, NR, pages);
	assert_int_equal(n, NR);
	for (unsigned int i = 0; i < n; i++)
		assert_int_equal(page_to_nid(pages[i]), 0);
	for (unsigned int i = 0; i < n; i++)
		__free_pages(pages[i], 0);
	free(pages);
	mm_test_drain_and_verify();
}

/*
 * Struct pages not yet initialised hold whatever the memory held: a boot
 * on memory full of junk (the previous machine's, kept) must still give
 * out only sound pages and rebuild exact free lists.
 */
static void test_memory_full_of_junk_before_the_boot_is_harmless(void **state)
{
	struct mm_host_config c = {.nr_nodes = 2,
				   .bytes_per_node = 32 * MiB,
				   .nr_cpus = 2,
				   .cpu_to_node = cpu_to_node,
				   .keep_memory = true};
	size_t n;
	struct page **pages;

	(void)state;
	mm_set_boot_init_pages(MM_INIT_ALL);
	assert_int_equal(mm_host_boot_config(&c), 0);
	for (int nid = 0; nid < 2; nid++) {
		struct zone *z = &mm_zones[nid];

		memset((void *)(z->start_pfn << MM_PAGE_SHIFT), 0xa5,
		       z->spanned_pages << MM_PAGE_SHIFT);
	}
	mm_host_shutdown();
	mm_set_boot_init_pages(1024);
	assert_int_equal(mm_host_boot_config(&c), 0);
	pages = mm_test_take_node(0, &n);
	assert_int_equal(n, nr_managed_pages_node(0));
	for (size_t i = 0; i < n; i++)
		assert_int_equal(pages[i]->flags, 0);
	mm_test_give_back(pages, n);
	run_all_work();
	assert_int_equal(mm_test_drain_and_verify(),
			 nr_managed_pages_node(0) + nr_managed_pages_node(1));
}

/* Holes inside the deferred part stay out of the free lists. */
static void test_holes_in_deferred_memory_never_reach_a_free_list(void **state)
{
	static const struct mm_host_range r[] = {
		{.nid = 0, .offset = 0, .len = 8 * MiB},
		/* hole [8M, 20M) */
		{.nid = 0, .offset = 20 * MiB, .len = 6 * MiB},
		{.nid = 1, .offset = 26 * MiB, .len = 10 * MiB},
		/* hole [36M, 37M) */
		{.nid = 0, .offset = 37 * MiB, .len = 27 * MiB},
	};
	struct mm_host_config c = {.nr_nodes = 2,
				   .nr_cpus = 2,
				   .cpu_to_node = cpu_to_node,
				   .ranges = r,
				   .nr_ranges = 4};
	size_t n;
	struct page **pages;
	uintptr_t base;

	(void)state;
	mm_set_boot_init_pages(1024);
	assert_int_equal(mm_host_boot_config(&c), 0);
	base = mm_host_machine.ranges[0].start;
	for (int i = 1; i < mm_host_machine.nr_ranges; i++)
		if (mm_host_machine.ranges[i].start < base)
			base = mm_host_machine.ranges[i].start;
	run_all_work();
	assert_int_equal(mm_deferred_pages(-1), 0);
	pages = mm_test_take_node(0, &n);
	assert_int_equal(n, nr_managed_pages_node(0));
	for (size_t i = 0; i < n; i++) {
		size_t off = (uintptr_t)page_address(pages[i]) - base;

		assert_false(off >= 8 * MiB && off < 20 * MiB);
		assert_false(off >= 26 * MiB && off < 37 * MiB);
	}
	mm_test_give_back(pages, n);
	mm_test_drain_and_verify();
}

/* With the debug checks on, a free of deferred memory that was never
 * handed out is reported as such, and refused. */
static void test_a_free_into_deferred_memory_is_reported(void **state)
{
	struct zone *z;
	void *addr;

	(void)state;
	boot(64, BOOT_PAGES);
	mm_debug_set(true);
	mm_debug_set_quiet(true);
	z = &mm_zones[0];
	addr = (void *)((z->start_pfn + z->spanned_pages - 1) << MM_PAGE_SHIFT);
	assert_false(zone_pfn_initialised(z, (uintptr_t)addr >> MM_PAGE_SHIFT));
	free_pages(addr, 0);
	assert_int_equal(mm_debug_count(MM_DBG_NOT_ALLOCATED), 1);
	mm_test_assert_report_says("not yet initialised");
	mm_debug_set(false);
	mm_test_drain_and_verify();
}

/* Two CPUs working on one node at once share it out chunk by chunk. */
static void work_node0(void *arg)
{
	unsigned long *done = arg;
	unsigned long n;

	while ((n = mm_deferred_init_work(0, MM_DEFERRED_CHUNK_PAGES)))
		*done += n;
}

static void test_two_cpus_on_one_node_each_take_their_own_chunks(void **state)
{
	struct mm_test_cpu *a, *b;
	unsigned long done_a = 0, done_b = 0, boot_end;
	const struct zone *z = &mm_zones[0];

	(void)state;
	boot(128, BOOT_PAGES);
	boot_end = atomic_load(&mm_zones[0].deferred_next);
	a = mm_test_cpu_start(0);
	b = mm_test_cpu_start(1);
	mm_test_cpu_post(a, work_node0, &done_a);
	mm_test_cpu_post(b, work_node0, &done_b);
	mm_test_cpu_wait(a);
	mm_test_cpu_wait(b);
	mm_test_cpu_stop(a);
	mm_test_cpu_stop(b);
	/* every pfn past the boot part, each once */
	assert_int_equal(done_a + done_b,
			 z->start_pfn + z->spanned_pages - boot_end);
	assert_int_equal(mm_deferred_pages(0), 0);
	assert_int_equal(mm_test_node_free(0), nr_managed_pages_node(0));
	mm_test_drain_and_verify();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_teardown(f, teardown)
		T(test_a_node_bigger_than_the_boot_part_has_only_that_part_free),
		T(test_background_work_puts_every_usable_page_on_the_free_lists),
		T(test_with_everything_at_boot_nothing_is_deferred),
		T(test_allocations_alone_reach_every_page_of_the_node),
		T(test_a_max_order_block_comes_from_deferred_memory),
		T(test_a_bulk_allocation_grows_its_zone),
		T(test_memory_full_of_junk_before_the_boot_is_harmless),
		T(test_holes_in_deferred_memory_never_reach_a_free_list),
		T(test_a_free_into_deferred_memory_is_reported),
		T(test_two_cpus_on_one_node_each_take_their_own_chunks),
#undef T
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
