/*
 * Page poisoning and its check on reuse: see page_debug.h. The check is a
 * word-at-a-time compare of each stamped page (4 KiB, about 500 loads),
 * paid only with the checks on; a normal allocation pays the test of the
 * debug flag (page_debug_on_alloc).
 */
#include <string.h>

#include "page_alloc_tunables.h"
#include "page_debug.h"

#define POISON_WORD (0x0101010101010101ull * PAGE_POISON_BYTE)

void page_debug_poison(struct page *page, unsigned int order,
		       const void *caller)
{
	uint8_t epoch = mm_debug_epoch();

	memset(page_address(page), PAGE_POISON_BYTE, MM_PAGE_SIZE << order);
	page->flags &= (uint16_t)~PG_head;
	for (unsigned long i = 0; i < (1UL << order); i++) {
		if (i)
			page[i].flags = 0; /* was PG_tail */
		page[i].poison_epoch = epoch;
		page[i].private = (unsigned long)(uintptr_t)caller;
	}
}

/* First byte of the page at @p that is not the poison, or -1. */
static long first_changed(const void *p)
{
	const uint64_t *w = p;
	size_t n = MM_PAGE_SIZE / sizeof(uint64_t);

	for (size_t i = 0; i < n; i++) {
		if (w[i] == POISON_WORD)
			continue;
		const unsigned char *b = (const unsigned char *)&w[i];
		for (size_t j = 0; j < sizeof(uint64_t); j++)
			if (b[j] != PAGE_POISON_BYTE)
				return (long)(i * sizeof(uint64_t) + j);
	}
	return -1;
}

static void report(struct page *page, unsigned int order, unsigned long i,
		   long off, const void *caller)
{
	char who[64];
	const void *freer = (const void *)(uintptr_t)page[i].private;
	unsigned char *addr = (unsigned char *)page_address(page + i);

	mm_debug_report(
		MM_DBG_WRITE_AFTER_FREE, caller,
		"pfn %#lx (address %p) written after free at offset "
		"%ld of the page (now %#x, poison %#x; block order %u); "
		"freed by %s",
		page_to_pfn(page + i), (void *)addr, off, addr[off],
		PAGE_POISON_BYTE, order, mm_symbolize(freer, who, sizeof(who)));
}

void page_debug_check(struct page *page, unsigned int order, const void *caller)
{
	uint8_t epoch = mm_debug_epoch();
	bool reported = false;

	for (unsigned long i = 0; i < (1UL << order); i++) {
		if (page[i].poison_epoch != epoch) {
			page[i].poison_epoch = 0;
			continue;
		}
		page[i].poison_epoch = 0;
		long off = first_changed(page_address(page + i));
		if (off >= 0 && !reported) {
			report(page, order, i, off, caller);
			reported = true; /* one report per block */
		}
	}
}
