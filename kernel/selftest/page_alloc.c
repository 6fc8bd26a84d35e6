/*
 * selftest=mm checks the page allocator on real CPUs: every CPU allocates
 * a mix of orders 0-3 from its poll loop at the same time, stamps each
 * block, then frees the blocks another CPU allocated (cross-CPU frees
 * through the per-CPU lists); after drain_all_pages() every page must be
 * back (nr_free_pages() equals the baseline) and the buddy lists must
 * verify. Every allocation must succeed: one that fails is counted
 * (failed=N) and fails the test, so a machine too small for the test's
 * ~725 pages per CPU says so instead of passing on what it could get.
 */
#include "kernel/selftest/tests.h"
#include "kernel/selftest/mm_common.h"
#include "kernel/console.h"
#include "kernel/percpu.h"
#include "kernel/poll.h"
#include "mm/mm.h"
#include <stdatomic.h>
#include <stdint.h>

#define SELFTEST_BLOCKS 256 /* per CPU: ~720 pages with the order mix */

struct block {
	struct page *page;
	unsigned int order;
};

/* Each CPU's table is its st_tables entry (mm_common.h): kmalloc'd on its
 * node before the baseline and freed after the check (4 KiB each, rather
 * than 256 KiB of .bss for 64 CPUs). */
static struct block *blocks(int cpu)
{
	return st_tables[cpu];
}

static atomic_ulong st_pages;
static atomic_int st_failed; /* allocations that returned NULL */

static unsigned int order_for(int i)
{
	static const unsigned int mix[] = {0, 0, 0, 1, 2, 3};

	return mix[i % 6];
}

/* Runs on each CPU: allocate, check placement, stamp. */
static void st_alloc(void *arg)
{
	int cpu = this_cpu_id();
	unsigned long pages = 0;

	(void)arg;
	for (int i = 0; i < SELFTEST_BLOCKS; i++) {
		unsigned int o = order_for(i);
		struct page *p = alloc_pages(GFP_KERNEL, o);
		uintptr_t addr;

		blocks(cpu)[i].page = p;
		blocks(cpu)[i].order = o;
		if (!p) {
			atomic_fetch_add(&st_failed, 1);
			continue;
		}
		addr = (uintptr_t)page_address(p);
		if (addr & ((MM_PAGE_SIZE << o) - 1)) {
			kprintf("selftest: mm: cpu %d: order-%u block at %p "
				"misaligned\n",
				cpu, o, (void *)addr);
			atomic_fetch_add(&st_errors, 1);
		}
		/* stamp first and last word: proves the memory is usable RAM */
		((volatile uint64_t *)addr)[0] = 0x5e1f7e5700000000ULL | cpu;
		((volatile uint64_t *)(addr + (MM_PAGE_SIZE << o)))[-1] = i;
		pages += 1UL << o;
	}
	atomic_fetch_add(&st_pages, pages);
}

/* Runs on each CPU: check and free the blocks of the next CPU. */
static void st_free(void *arg)
{
	int cpu = this_cpu_id(), owner = st_next_cpu(cpu);

	(void)arg;
	for (int i = 0; i < SELFTEST_BLOCKS; i++) {
		struct block *b = &blocks(owner)[i];
		uintptr_t addr;

		if (!b->page)
			continue;
		addr = (uintptr_t)page_address(b->page);
		if (((volatile uint64_t *)addr)[0] !=
			    (0x5e1f7e5700000000ULL | (unsigned)owner) ||
		    ((volatile uint64_t *)(addr +
					   (MM_PAGE_SIZE << b->order)))[-1] !=
			    (uint64_t)i) {
			kprintf("selftest: mm: block %p of cpu %d "
				"overwritten\n",
				(void *)addr, owner);
			atomic_fetch_add(&st_errors, 1);
		}
		__free_pages(b->page, b->order);
		b->page = NULL;
	}
}

/* One block from each node with memory (everything is free again by
 * now), which must come from that node. */
static void st_nodes(void)
{
	for (int n = 0; n < mm_nr_nodes(); n++) {
		struct page *p;

		if (nr_managed_pages_node(n) == 0)
			continue; /* a node without memory */
		p = alloc_pages_node(n, GFP_KERNEL | __GFP_THISNODE, 0);
		if (!p) {
			kprintf("selftest: mm: node %d has no page to give\n",
				n);
			atomic_fetch_add(&st_failed, 1);
			continue;
		}
		if (page_to_nid(p) != n) {
			kprintf("selftest: mm: node %d allocation came from "
				"node %d\n",
				n, page_to_nid(p));
			atomic_fetch_add(&st_errors, 1);
		}
		__free_pages(p, 0);
	}
}

int selftest_mm(void)
{
	unsigned long base, after;
	long verified;
	int failures;

	if (!mm_is_ready()) {
		kprintf("selftest: mm FAIL (allocator not initialised)\n");
		return 1;
	}
	atomic_store(&st_errors, 0);
	atomic_store(&st_failed, 0);
	atomic_store(&st_pages, 0); /* again after boot: afresh */
	if (st_alloc_tables(sizeof(struct block) * SELFTEST_BLOCKS) < 0) {
		kprintf("selftest: mm FAIL (no memory for the tables)\n");
		st_free_tables();
		return 1;
	}
	mm_deferred_init_all(); /* or the count moves under the test */
	drain_all_pages();
	base = nr_free_pages();
	smp_call_all(st_alloc, NULL);
	smp_call_all(st_free, NULL);
	st_nodes();
	drain_all_pages();
	after = nr_free_pages();
	verified = mm_verify_free_lists();
	st_free_tables();
	failures = atomic_load(&st_errors) + atomic_load(&st_failed) +
		   (after != base) + (verified != (long)after);
	if (failures) {
		kprintf("selftest: mm FAIL cpus=%d pages=%lu failed=%d "
			"free=%lu baseline=%lu verified=%ld errors=%d\n",
			nr_cpus, atomic_load(&st_pages),
			atomic_load(&st_failed), after, base, verified,
			atomic_load(&st_errors));
		return failures;
	}
	kprintf("selftest: mm PASS cpus=%d pages=%lu free=%lu baseline=%lu\n",
		nr_cpus, atomic_load(&st_pages), after, base);
	return 0;
}
