/*
 * Debug tracking of page fragments: which fragments of a block are live, so
 * that a double free is caught and refused instead of silently dropping a
 * reference that a live fragment still needs.
 *
 * Why the reference count cannot do it: a block holds one reference per
 * fragment out, and fragments have no header (that is what makes them
 * cheap). Freeing fragment A twice and never freeing B drops the same two
 * references as freeing A and B, so the block looks unused and is recycled
 * in place, or freed, under the live B. Telling them apart needs to know
 * which fragment a free belongs to.
 *
 * The record: while debug checks are on (mm/debug.h), each block the cache
 * arms gets a shadow from the page allocator, one bit per byte of the block
 * in two bitmaps, a quarter of the block's size (8 KiB for 32 KiB):
 *
 *   start[]  a fragment of this cycle of the block begins at this byte
 *   live[]   ... and has been neither freed nor aborted
 *
 * Allocation sets both bits of the fragment's first byte, abort clears its
 * live bit (the start stays, so the aborted bytes do not fall to the
 * fragment before them until a new fragment takes them), page_frag_free()
 * finds the fragment holding the address (the last start at or before it)
 * and clears its live bit, or reports the free and refuses it when the bit
 * is already clear. The shadow hangs off the
 * block's head page (page->private) until the block goes back to the page
 * allocator; an in-place recycle clears it.
 *
 * Keeping the fast paths free of it: a tracked block is encoded in the
 * cache with size 0 (page_frag_internal.h), so the allocation fast path's
 * one "does it fit" test sends every allocation from it to the slow path,
 * which records the fragment. page_frag_free() already tests the debug
 * flag; the lookup is behind that test. With checks off, no instruction of
 * either fast path changed.
 *
 * Bits are set and cleared with atomic RMWs: fragments are freed on any
 * CPU while the owner allocates from the same block.
 */
#include "debug.h"
#include "page_frag_internal.h"

#define BITS_PER_WORD (8 * sizeof(unsigned long))

/* Shadow of a block of `size` bytes: start[] then live[], size bits each. */
static unsigned int shadow_order(unsigned int size)
{
	unsigned int bytes = size / 4, order = 0;

	while ((MM_PAGE_SIZE << order) < bytes)
		order++;
	return order;
}

static atomic_ulong *shadow_of(const struct page *head)
{
	return (atomic_ulong *)head->private;
}

static unsigned int block_bytes(const struct page *head)
{
	return (unsigned int)MM_PAGE_SIZE << head->order;
}

static atomic_ulong *live_map(const struct page *head)
{
	return shadow_of(head) + block_bytes(head) / BITS_PER_WORD;
}

static void bit_set(atomic_ulong *map, unsigned int bit)
{
	atomic_fetch_or_explicit(&map[bit / BITS_PER_WORD],
				 1ul << (bit % BITS_PER_WORD),
				 memory_order_relaxed);
}

/* Clear a bit; returns whether it was set (one CPU wins a race). */
static bool bit_test_and_clear(atomic_ulong *map, unsigned int bit)
{
	unsigned long mask = 1ul << (bit % BITS_PER_WORD);

	return atomic_fetch_and_explicit(&map[bit / BITS_PER_WORD], ~mask,
					 memory_order_relaxed) &
	       mask;
}

/* The highest set bit at or below `bit`, or -1. */
static long bit_last_at_or_before(atomic_ulong *map, unsigned int bit)
{
	unsigned int w = bit / BITS_PER_WORD;
	unsigned long word =
		atomic_load_explicit(&map[w], memory_order_relaxed) &
		(~0ul >> (BITS_PER_WORD - 1 - bit % BITS_PER_WORD));

	for (;;) {
		if (word)
			return (long)(w * BITS_PER_WORD + BITS_PER_WORD - 1 -
				      (unsigned int)__builtin_clzl(word));
		if (w == 0)
			return -1;
		word = atomic_load_explicit(&map[--w], memory_order_relaxed);
	}
}

void page_frag_debug_release(struct page *head)
{
	atomic_ulong *shadow = shadow_of(head);

	if (!shadow)
		return;
	head->private = 0;
	free_pages(shadow, shadow_order(block_bytes(head)));
}

bool page_frag_debug_arm(struct page *head)
{
	unsigned int size = block_bytes(head);
	atomic_ulong *shadow;

	/* Downward carving (a benchmark build) never takes the slow path
	 * for a tracked block: it does not read the size. */
	if (PAGE_FRAG_CARVE_DOWN || !mm_debug_on()) {
		page_frag_debug_release(head);
		return false;
	}
	shadow = shadow_of(head);
	if (!shadow) {
		struct page *p = alloc_pages_node(page_to_nid(head),
						  GFP_ATOMIC | __GFP_NOWARN,
						  shadow_order(size));
		if (!p)
			return false; /* untracked: no shadow, no checks */
		shadow = page_address(p);
		head->private = (unsigned long)shadow;
	}
	for (unsigned int w = 0; w < 2 * size / BITS_PER_WORD; w++)
		atomic_store_explicit(&shadow[w], 0, memory_order_relaxed);
	return true;
}

void page_frag_debug_take(struct page *head, unsigned int offset)
{
	bit_set(shadow_of(head), offset);
	bit_set(live_map(head), offset);
}

void page_frag_debug_untake(struct page *head, unsigned int offset)
{
	bit_test_and_clear(live_map(head), offset);
}

bool page_frag_debug_free(struct page *head, const void *addr,
			  const void *caller)
{
	char *base = page_address(head);
	long start = bit_last_at_or_before(
		shadow_of(head), (unsigned int)((const char *)addr - base));

	if (start < 0) {
		mm_debug_report(MM_DBG_NOT_ALLOCATED, caller,
				"page_frag_free: %p is in no fragment of block "
				"%p (before its first one)",
				addr, (void *)base);
		return false;
	}
	if (!bit_test_and_clear(live_map(head), (unsigned int)start)) {
		mm_debug_report(MM_DBG_DOUBLE_FREE, caller,
				"page_frag_free: %p: the fragment at %p "
				"(block %p + %ld) was already freed (or "
				"aborted)",
				addr, (void *)(base + start), (void *)base,
				start);
		return false;
	}
	return true;
}
