/*
 * The page allocator at boot. mm_init() takes the ranges the seam reports
 * (kernel/mm_platform.c: the memory map split by SRAT node, minus the
 * kernel, boot data and ACPI tables) and builds one zone per node.
 *
 * selftest=mm checks the allocator on real CPUs: every CPU allocates a mix
 * of orders 0-3 from its poll loop at the same time, stamps each block,
 * then frees the blocks another CPU allocated (cross-CPU frees through the
 * per-CPU lists); after drain_all_pages() every page must be back
 * (nr_free_pages() equals the baseline) and the buddy lists must verify.
 */
#include "kernel/mm_boot.h"
#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/percpu.h"
#include "kernel/poll.h"
#include "kernel/selftest.h"
#include "mm/mm.h"
#include "mm/debug.h"
#include "mm/zone.h"
#include <stdatomic.h>

static int mm_ready;

void mm_boot(void)
{
	mm_debug_set(cmdline_get_bool("mm_debug"));
	if (mm_init() < 0) {
		kprintf("mm: no memory for the page allocator\n");
		return;
	}
	mm_ready = 1;
}

/*
 * Boot-report lines of the allocators built on the page allocator. The
 * slab, page_frag and qmempool work each add their line(s) HERE, after the
 * page allocator's, in the same "NAME: key=value ..." form.
 */
static void mm_report_more(void)
{
}

void mm_boot_report(void)
{
	if (!mm_ready)
		return;
	for (int n = 0; n < mm_nr_zones; n++)
		kprintf("mm: node %d free=%ld pages managed=%lu pages\n", n,
			atomic_load(&mm_zones[n].free_pages),
			mm_zones[n].managed_pages);
	kprintf("mm: free=%lu pages debug=%s\n", nr_free_pages(),
		mm_debug_on() ? "on" : "off");
	mm_report_more();
}

/* ---- selftest=mm ---- */

#define SELFTEST_BLOCKS 256 /* per CPU: ~720 pages with the order mix */

struct block {
	struct page *page;
	unsigned int order;
};

static struct block blocks[MAX_CPUS][SELFTEST_BLOCKS];
static atomic_int st_errors;
static atomic_ulong st_pages;

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

		blocks[cpu][i].page = p;
		blocks[cpu][i].order = o;
		if (!p)
			continue; /* counted in the free check below */
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
	int cpu = this_cpu_id(), owner = (cpu + 1) % nr_cpus;

	(void)arg;
	for (int i = 0; i < SELFTEST_BLOCKS; i++) {
		struct block *b = &blocks[owner][i];
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

static void on_all_cpus(void (*fn)(void *))
{
	for (int c = 1; c < nr_cpus; c++)
		smp_call_async(c, fn, NULL);
	fn(NULL);
	for (int c = 1; c < nr_cpus; c++)
		smp_call_wait(c);
}

/* One block from each node, which must come from that node. */
static void st_nodes(void)
{
	for (int n = 0; n < mm_nr_nodes(); n++) {
		struct page *p =
			alloc_pages_node(n, GFP_KERNEL | __GFP_THISNODE, 0);

		if (!p)
			continue; /* a node without memory */
		if (page_to_nid(p) != n) {
			kprintf("selftest: mm: node %d allocation came from "
				"node %d\n",
				n, page_to_nid(p));
			atomic_fetch_add(&st_errors, 1);
		}
		__free_pages(p, 0);
	}
}

void selftest_mm(void)
{
	unsigned long base, after;
	long verified;

	if (!mm_ready) {
		kprintf("selftest: mm FAIL (allocator not initialised)\n");
		selftest_failed();
		return;
	}
	drain_all_pages();
	base = nr_free_pages();
	on_all_cpus(st_alloc);
	on_all_cpus(st_free);
	st_nodes();
	drain_all_pages();
	after = nr_free_pages();
	verified = mm_verify_free_lists();
	if (after != base || verified != (long)after ||
	    atomic_load(&st_errors) || atomic_load(&st_pages) == 0) {
		kprintf("selftest: mm FAIL cpus=%d pages=%lu free=%lu "
			"baseline=%lu verified=%ld errors=%d\n",
			nr_cpus, atomic_load(&st_pages), after, base, verified,
			atomic_load(&st_errors));
		selftest_failed();
		return;
	}
	kprintf("selftest: mm PASS cpus=%d pages=%lu free=%lu baseline=%lu\n",
		nr_cpus, atomic_load(&st_pages), after, base);
}
