/*
 * selftest=misuse (with mm_debug=1): each classic allocator misuse is
 * committed on purpose, once, on the boot CPU, and the test checks that
 * the allocators reported exactly one detection of the expected kind
 * (mm_debug_count) and kept running with every page accounted for: the
 * bad free refused, the damaged block freed or handed out as usual. The
 * reports themselves are the "mm: BUG: ..." lines on the console, which
 * tests/qemu/test_misuse.py reads.
 *
 * The cases that find a write after free need the freed block back: with
 * interrupts masked on one CPU, the next allocation of the same size is
 * the block freed last (the slab magazine and the per-CPU page lists are
 * stacks), and the case checks that it was.
 */
#include "kernel/selftest/tests.h"
#include "kernel/selftest/mm_common.h"
#include "kernel/console.h"
#include "mm/mm.h"
#include <stdint.h>

#define SMALL 64    /* a slab class */
#define LARGE 10000 /* above the largest class: pages, own red zones */

static int case_double_free(void)
{
	void *p = kmalloc(SMALL, GFP_KERNEL);
	kfree(p);
	kfree(p);
	return p != NULL;
}

static int case_invalid_free(void)
{
	char *p = kmalloc(SMALL, GFP_KERNEL);
	if (!p)
		return 0;
	kfree(p + 1);
	kfree(p);
	return 1;
}

static int case_not_allocated(void)
{
	kfree((void *)1);
	return 1;
}

static int case_overflow(void)
{
	unsigned char *p = kmalloc(SMALL, GFP_KERNEL);
	if (!p)
		return 0;
	p[SMALL + 63] = 0; /* the last byte of a cache line past the end */
	kfree(p);
	return 1;
}

static int case_underflow(void)
{
	uint64_t *p = kmalloc(SMALL, GFP_KERNEL);
	if (!p)
		return 0;
	p[-1] = 0;
	kfree(p);
	return 1;
}

static int case_write_after_free_small(void)
{
	volatile unsigned char *p = kmalloc(SMALL, GFP_KERNEL);
	if (!p)
		return 0;
	kfree((void *)p);
	p[10] = 1;
	void *q = kmalloc(SMALL, GFP_KERNEL);
	kfree(q);
	return q == p;
}

static int case_write_after_free_page(void)
{
	struct page *pg = alloc_pages(GFP_KERNEL, 0);
	if (!pg)
		return 0;
	volatile unsigned char *a = page_address(pg);
	__free_pages(pg, 0);
	a[100] = 1;
	struct page *again = alloc_pages(GFP_KERNEL, 0);
	if (again)
		__free_pages(again, 0);
	return again == pg;
}

static int case_write_after_free_large(void)
{
	volatile unsigned char *b = kmalloc(LARGE, GFP_KERNEL);
	if (!b)
		return 0;
	kfree((void *)b);
	b[9000] = 1;
	void *c = kmalloc(LARGE, GFP_KERNEL);
	kfree(c);
	return c == b;
}

static int case_overflow_large(void)
{
	unsigned char *b = kmalloc(LARGE, GFP_KERNEL);
	if (!b)
		return 0;
	b[LARGE + 63] = 0;
	kfree(b);
	return 1;
}

static int case_page_double_free(void)
{
	struct page *pg = alloc_pages(GFP_KERNEL, 0);
	if (!pg)
		return 0;
	__free_pages(pg, 0);
	__free_pages(pg, 0);
	return 1;
}

static const struct misuse_case {
	const char *name;
	int (*fn)(void); /* 0: the misuse could not be set up */
	enum mm_debug_kind kind;
} cases[] = {
	{"double_free", case_double_free, MM_DBG_DOUBLE_FREE},
	{"invalid_free", case_invalid_free, MM_DBG_INVALID_FREE},
	{"not_allocated", case_not_allocated, MM_DBG_NOT_ALLOCATED},
	{"overflow", case_overflow, MM_DBG_RED_ZONE},
	{"underflow", case_underflow, MM_DBG_RED_ZONE},
	{"write_after_free", case_write_after_free_small,
	 MM_DBG_WRITE_AFTER_FREE},
	{"page_write_after_free", case_write_after_free_page,
	 MM_DBG_WRITE_AFTER_FREE},
	{"large_write_after_free", case_write_after_free_large,
	 MM_DBG_WRITE_AFTER_FREE},
	{"large_overflow", case_overflow_large, MM_DBG_RED_ZONE},
	{"page_double_free", case_page_double_free, MM_DBG_DOUBLE_FREE},
};
#define NR_CASES (sizeof(cases) / sizeof(cases[0]))

/* One case: exactly one new report, of its kind. */
static void run_case(const struct misuse_case *c)
{
	unsigned long kind0 = mm_debug_count(c->kind);
	unsigned long all0 = mm_debug_total();

	kprintf("selftest: misuse %s\n", c->name);
	if (!c->fn()) {
		st_err("misuse: %s: could not be set up", c->name);
		return;
	}
	unsigned long kind = mm_debug_count(c->kind) - kind0;
	unsigned long all = mm_debug_total() - all0;
	if (kind != 1 || all != 1)
		st_err("misuse: %s: %lu reports of its kind, %lu in all "
		       "(want 1 and 1)",
		       c->name, kind, all);
}

int selftest_misuse(void)
{
	if (!mm_debug_on()) {
		kprintf("selftest: misuse FAIL (needs mm_debug=1)\n");
		return 1;
	}
	if (st_begin("misuse", 64) < 0)
		return 1;
	unsigned long all0 = mm_debug_total();
	unsigned long base = st_quiesce(NULL);
	for (unsigned int i = 0; i < NR_CASES; i++)
		run_case(&cases[i]);
	unsigned long after = st_quiesce(NULL);
	unsigned long reports = mm_debug_total() - all0;
	st_free_tables();
	int failed = st_end("misuse", "cases", NR_CASES, base, after);
	if (failed)
		return failed;
	kprintf("selftest: misuse PASS cases=%u reports=%lu free=%lu "
		"baseline=%lu\n",
		(unsigned)NR_CASES, reports, after, base);
	return 0;
}
