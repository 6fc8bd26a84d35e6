/*
 * The free side's batch: page_frag_free() without one atomic operation per
 * fragment.
 *
 * Every fragment holds one reference on its block's head page. Dropping it
 * with an atomic decrement (Linux's put_page_testzero) costs a locked
 * instruction per fragment and pulls the head page's cache line to the
 * freeing CPU; Lin measured ~70% of the freeing CPU's time in it. Here each
 * CPU keeps a small table of the blocks it is freeing fragments of, with a
 * count per block: a free adds one to the count (a plain increment on this
 * CPU's own cache line), and one atomic subtract applies the whole count
 * later. That happens when
 *  - the block's reference count equals the count held here: every other
 *    reference is gone (the allocating cache has moved on and no other
 *    fragment is out), so this free was the block's last and the block is
 *    freed at once, as page_frag_free always did. A plain load of the
 *    count, which changes only at refills and flushes, tells;
 *  - a free finds the table full (the oldest-installed slot is applied);
 *  - the cache that owns the block refills (its own CPU's pending count for
 *    that block is applied first, so the block can be recycled in place);
 *  - page_frag_cache_drain, page_frag_percpu_drain, page_frag_free_flush
 *    (the kernel calls it when a poll round found no work, before halting)
 *    and page_frag_free_flush_all (host shutdown, quiescent tests).
 * A count only delays a decrement, never adds one, so a block is never
 * freed early, and it is freed exactly once: by whichever subtract brings
 * its count to zero. Blocks whose last fragments are split over several
 * CPUs' tables wait for those CPUs' next flush: at most
 * PAGE_FRAG_FREE_BATCH_SLOTS blocks per CPU.
 *
 * Interrupts: page_frag_free may run in a handler that lands while this
 * CPU is inside its own batch. The table has a busy flag, set and cleared
 * with plain stores (this CPU is its only writer) and compiler fences; a
 * free or flush that finds it set is nested inside the batch code and
 * takes the old path, one atomic decrement, leaving the table alone.
 * No locked instruction and no interrupt masking on the fast path.
 *
 * Cost, measured (bench/frag-crosscpu.md): the free side's locked
 * operations drop from 1.0 per fragment to one per block in the push/pop
 * test (12-byte fragments: 0.00037, one per 2730; 2048-byte: 0.0625), in
 * the host benchmark and in the guest. The table code costs instructions:
 * 99 instead of 91 per alloc + free of 12 bytes on one CPU (callgrind,
 * the benchmark's whole loop); it was 116 against 92 while every free
 * also bumped the frees and remote_frees counters, which the batch now
 * adds n at a time when it applies a slot (statistics add what the
 * tables still hold). In the guest (-icount, two vCPUs) a cross-CPU free
 * takes 63 instructions, 75 before that change. In wall time, the push/pop with
 * the batch took 1.36x-3.19x less per fragment than one atomic per free in
 * the same run at a load average of 7-9 (12 B: 98.7 against 177.9 ns), and
 * was within the noise at 13-20: what it removes, a locked instruction per
 * fragment and, when several CPUs free fragments of one block, the head
 * page's line bouncing between them, is invisible to instruction counts.
 */
#include <string.h>

#include "page_frag_internal.h"

/*
 * page[] and count[] are written only by their CPU; the statistics read
 * them from any CPU (pending frees), so they are relaxed atomics: plain
 * moves on x86, no locked instruction.
 */
struct page_frag_free_batch {
	_Atomic(struct page *) page[PAGE_FRAG_FREE_BATCH_SLOTS];
	atomic_uint count[PAGE_FRAG_FREE_BATCH_SLOTS];
	unsigned int hint;   /* slot of the last free: the usual next one */
	unsigned int victim; /* slot a full table applies next */
	atomic_bool busy;    /* this CPU is inside the table's code */
} __mm_cacheline_aligned;

static struct page_frag_free_batch page_frag_batches[MM_MAX_CPUS];

/*
 * A block whose count reached zero belongs to us alone: give it back
 * (and its debug record, if any) through the page allocator's shared free
 * path. __free_pages() drops a reference itself, so hand it the one it
 * expects. Out of line, reached by a tail call: the free paths then
 * save no registers for it.
 */
__attribute__((noinline)) void page_frag_release_block(struct page *page)
{
	unsigned int order = page->order;

	page_frag_count(PF_BLOCKS_RETURNED);
	page_frag_count_add(PF_PAGES_RETURNED, 1u << order);
	if (mm_unlikely(page->private))
		page_frag_debug_release(page);
	page_ref_inc(page);
	__free_pages(page, order);
}

/* Enter this CPU's table, or return NULL if this is a nested call (an
 * interrupt that landed inside it), which must not touch it. */
static inline struct page_frag_free_batch *page_frag_batch_enter(void)
{
	struct page_frag_free_batch *b = &page_frag_batches[mm_this_cpu()];

	if (mm_unlikely(atomic_load_explicit(&b->busy, memory_order_relaxed)))
		return NULL;
	atomic_store_explicit(&b->busy, true, memory_order_relaxed);
	atomic_signal_fence(memory_order_seq_cst);
	return b;
}

static inline void page_frag_batch_leave(struct page_frag_free_batch *b)
{
	atomic_signal_fence(memory_order_seq_cst);
	atomic_store_explicit(&b->busy, false, memory_order_relaxed);
}

static inline struct page *slot_page(const struct page_frag_free_batch *b,
				     unsigned int i)
{
	return atomic_load_explicit(&b->page[i], memory_order_relaxed);
}

static inline unsigned int slot_count(const struct page_frag_free_batch *b,
				      unsigned int i)
{
	return atomic_load_explicit(&b->count[i], memory_order_relaxed);
}

static inline void slot_set(struct page_frag_free_batch *b, unsigned int i,
			    struct page *page, unsigned int n)
{
	atomic_store_explicit(&b->page[i], page, memory_order_relaxed);
	atomic_store_explicit(&b->count[i], n, memory_order_relaxed);
}

/* The CPU whose table b is (its counters are the ones to bump). */
static inline int batch_cpu(const struct page_frag_free_batch *b)
{
	return (int)(b - page_frag_batches);
}

/*
 * Apply slot i's count with one atomic subtract; the last gives the block
 * back. The slot is empty afterwards. The frees it held are counted here,
 * n at once, not one by one on the fast path (8 instructions per free
 * saved); until then the statistics add them from the table
 * (page_frag_batch_pending_add).
 */
static void page_frag_batch_apply(struct page_frag_free_batch *b,
				  unsigned int i)
{
	struct page *page = slot_page(b, i);
	unsigned int n = slot_count(b, i);
	int cpu = batch_cpu(b);

	slot_set(b, i, NULL, 0);
	if (!page)
		return;
	mm_cpu_counter_add(&page_frag_cpu_stats[cpu].v[PF_FREES], n);
	if (page_to_nid(page) != mm_cpu_mem_node[cpu])
		mm_cpu_counter_add(&page_frag_cpu_stats[cpu].v[PF_REMOTE_FREES],
				   n);
	page_frag_count_cpu(cpu, PF_FREE_ATOMICS);
	if (page_ref_sub_and_test(page, (int)n))
		page_frag_release_block(page);
}

/*
 * The slot that counts page's frees: its own, a free one, or the victim,
 * applied first. Out of line: the fast path finds the hinted slot.
 */
static __attribute__((noinline)) unsigned int
page_frag_batch_slot(struct page_frag_free_batch *b, struct page *page)
{
	unsigned int i, empty = PAGE_FRAG_FREE_BATCH_SLOTS;

	for (i = 0; i < PAGE_FRAG_FREE_BATCH_SLOTS; i++) {
		if (slot_page(b, i) == page)
			return i;
		if (!slot_page(b, i) && empty == PAGE_FRAG_FREE_BATCH_SLOTS)
			empty = i;
	}
	if (empty == PAGE_FRAG_FREE_BATCH_SLOTS) {
		empty = b->victim;
		b->victim = (empty + 1) % PAGE_FRAG_FREE_BATCH_SLOTS;
		page_frag_batch_apply(b, empty);
	}
	slot_set(b, empty, page, 0);
	return empty;
}

/*
 * The free that is not the common case: the hinted slot counts another
 * block, or this free made the count equal the block's (its last
 * fragment). Out of line and reached by a tail call, so the fast path
 * saves no registers for the calls in here. Leaves the table.
 */
static __attribute__((noinline)) void
page_frag_batch_put_slow(struct page_frag_free_batch *b, struct page *page,
			 bool counted)
{
	unsigned int i = b->hint;

	if (!counted) {
		i = page_frag_batch_slot(b, page);
		b->hint = i;
		atomic_store_explicit(&b->count[i], slot_count(b, i) + 1,
				      memory_order_relaxed);
	}
	/* Every reference left is one this table holds: the last fragment. */
	if ((unsigned int)page_ref_count(page) == slot_count(b, i))
		page_frag_batch_apply(b, i);
	page_frag_batch_leave(b);
}

void page_frag_batch_put(struct page *page)
{
	int cpu = mm_this_cpu();
	struct page_frag_free_batch *b = &page_frag_batches[cpu];
	unsigned int i, n;

	if (mm_unlikely(atomic_load_explicit(&b->busy, memory_order_relaxed))) {
		/* Nested in this CPU's own batch code: leave it alone. */
		page_frag_count(PF_FREES_NESTED);
		page_frag_put_direct(page);
		return;
	}
	atomic_store_explicit(&b->busy, true, memory_order_relaxed);
	atomic_signal_fence(memory_order_seq_cst);
	/* frees and remote_frees are counted when the slot is applied. */
	i = b->hint;
	if (mm_unlikely(slot_page(b, i) != page)) {
		page_frag_batch_put_slow(b, page, false);
		return;
	}
	n = slot_count(b, i) + 1;
	atomic_store_explicit(&b->count[i], n, memory_order_relaxed);
	if (mm_unlikely((unsigned int)page_ref_count(page) == n)) {
		page_frag_batch_put_slow(b, page, true);
		return;
	}
	page_frag_batch_leave(b);
}

void page_frag_batch_flush_page(struct page *page)
{
	struct page_frag_free_batch *b = page_frag_batch_enter();

	if (!b)
		return;
	for (unsigned int i = 0; i < PAGE_FRAG_FREE_BATCH_SLOTS; i++)
		if (slot_page(b, i) == page)
			page_frag_batch_apply(b, i);
	page_frag_batch_leave(b);
}

/* Apply every slot of b (entered by the caller, or quiescent). */
static void page_frag_batch_apply_all(struct page_frag_free_batch *b)
{
	for (unsigned int i = 0; i < PAGE_FRAG_FREE_BATCH_SLOTS; i++)
		page_frag_batch_apply(b, i);
}

void page_frag_free_flush(void)
{
	struct page_frag_free_batch *b = page_frag_batch_enter();

	if (!b)
		return; /* nested: the interrupted batch code goes on */
	page_frag_batch_apply_all(b);
	page_frag_batch_leave(b);
}

void page_frag_free_flush_all(void)
{
	for (int cpu = 0; cpu < MM_MAX_CPUS; cpu++)
		page_frag_batch_apply_all(&page_frag_batches[cpu]);
}

unsigned int page_frag_free_pending(int cpu)
{
	unsigned int n = 0;

	if (cpu < 0 || cpu >= MM_MAX_CPUS)
		return 0;
	for (unsigned int i = 0; i < PAGE_FRAG_FREE_BATCH_SLOTS; i++)
		n += slot_count(&page_frag_batches[cpu], i);
	return n;
}

void page_frag_batch_pending_add(int cpu, uint64_t v[PF_NR_STATS])
{
	const struct page_frag_free_batch *b = &page_frag_batches[cpu];

	for (unsigned int i = 0; i < PAGE_FRAG_FREE_BATCH_SLOTS; i++) {
		struct page *page = slot_page(b, i);
		unsigned int n = slot_count(b, i);

		if (!page)
			continue;
		v[PF_FREES] += n;
		if (page_to_nid(page) != mm_cpu_mem_node[cpu])
			v[PF_REMOTE_FREES] += n;
	}
}

void page_frag_batch_forget(void)
{
	memset(page_frag_batches, 0, sizeof(page_frag_batches));
}
