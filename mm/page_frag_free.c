/*
 * Every way a page fragment goes back: page_frag_free() with its per-CPU
 * batch, the unbatched and the debug-checked free, the flushes, and
 * page_frag_release_block(), where a block's last reference hands it to
 * the page allocator's one free path (__free_pages: orders 0..3 wait on
 * this CPU's per-CPU list for the next refill, off the zone lock, Lu).
 * Walk-through and figures: docs/page_frag.md, sections 4 and 9.
 *
 * Why a batch: each fragment holds one reference on its block's head
 * page. Dropping it with one atomic decrement per fragment (Linux's
 * put_page_testzero) is a locked instruction that pulls the head page's
 * line to the freeing CPU; Lin measured ~70% of the freeing CPU's time in
 * it. Here each CPU counts its frees per block and applies a block's
 * count with one atomic subtract.
 *
 * The data structure, one per CPU (struct page_frag_free_batch): the
 * "last" entry, the block this CPU freed into last, recognised by its
 * address range, and a table of PAGE_FRAG_FREE_BATCH_SLOTS - 1 more
 * blocks. Fast path (page_frag_batch_free, inline in page_frag_free): a
 * free into the last block is a range test and one add. A miss looks the
 * page up, parks the last entry in the table and takes its place.
 *
 * A count is applied at the block's last fragment (its reference count
 * equals the count held here), when the table is full, when the owning
 * cache refills (so the block can be recycled in place), at this CPU's
 * flushes (page_frag_cache_drain; page_frag_free_flush: the kernel's poll
 * loop when idle, a host thread's end) and by drain_all_pages(), which
 * applies every CPU's batch (page_frag_free_flush_all), also when an
 * allocation finds no memory. A count only delays decrements, so a block
 * is never freed early, and it is freed exactly once, by whichever
 * subtract reaches zero. The price: a block whose last fragments wait on
 * other CPUs goes back at their next flush or the next drain.
 *
 * Context: any CPU, any context. The fast path takes no lock: a busy flag
 * with plain stores (this CPU its only writer) sends a free from an
 * interrupt that landed in the batch code to the one-atomic path. The
 * slow paths also try a per-CPU lock, which a drain from another CPU
 * holds (struct page_frag_free_batch says why that is safe beside the
 * fast path). Debug mode does not batch.
 */
#include <string.h>

#include "debug.h"
#include "page_frag_internal.h"

/* Trace points (mm_trace.h). A remote free is a batch of frees, applied
 * here, of a block of another node than the freeing CPU's. */
TRACE_EVENT(ev_frag_free, TRACE_MM, "page_frag_free", {"addr", TRACE_HEX},
	    {"caller", TRACE_SYM});
TRACE_EVENT(ev_frag_remote_free, TRACE_MM, "page_frag_remote_free",
	    {"block", TRACE_HEX}, {"frees", TRACE_DEC},
	    {"freed_on_cpu", TRACE_DEC}, {"node", TRACE_DEC});

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

/* The head page of the block holding a fragment at addr, or NULL after
 * reporting addr (outside every zone) with caller's address. */
static struct page *page_frag_free_page(void *addr, const void *caller)
{
	struct page *page = virt_to_head_page(addr);

	if (mm_unlikely(!page))
		mm_debug_report(MM_DBG_NOT_ALLOCATED, caller,
				"page_frag_free: %p is not in any zone", addr);
	return page;
}

/* Drop one fragment's reference with one atomic decrement; the last one
 * gives the block back. The unbatched free. */
static inline void page_frag_put_direct(struct page *page)
{
	page_frag_count(PF_FREES);
	if (page_to_nid(page) != numa_mem_id())
		page_frag_count(PF_REMOTE_FREES);
	page_frag_count(PF_FREE_ATOMICS);
	if (page_ref_sub_and_test(page, 1))
		page_frag_release_block(page);
}

/* The unbatched free (PAGE_FRAG_FREE_BATCH=0, and a free that finds this
 * CPU's batch busy): the page looked up, then one atomic decrement. */
static void page_frag_free_direct(void *addr, const void *caller)
{
	struct page *page = page_frag_free_page(addr, caller);

	if (page)
		page_frag_put_direct(page);
}

/*
 * Debug-mode check of a free (mm_debug_on()): the block must still be
 * allocated and referenced (a fragment freed once too often may find its
 * block's count at zero, or the block back on a free list), and, for a
 * block under tracking, addr must be in a live fragment (page_frag_debug.c).
 */
static bool page_frag_free_ok(struct page *page, const void *addr,
			      const void *caller)
{
	if (page->flags & (PG_buddy | PG_pcp) || page_ref_count(page) <= 0) {
		mm_debug_report(MM_DBG_DOUBLE_FREE, caller,
				"page_frag_free: %p: its block is already free",
				addr);
		return false;
	}
	if (page->flags & PG_slab) {
		mm_debug_report(MM_DBG_NOT_ALLOCATED, caller,
				"page_frag_free: %p is slab memory", addr);
		return false;
	}
	if (page->private)
		return page_frag_debug_free(page, addr, caller);
	return true;
}

/* page_frag_free() with debug checks on: out of line, so that the checks
 * (and the calls they make) cost the fast path nothing. */
static __attribute__((noinline)) void page_frag_free_checked(void *addr,
							     const void *caller)
{
	struct page *page = page_frag_free_page(addr, caller);

	mm_trace(&ev_frag_free, (uintptr_t)addr, (uintptr_t)caller, 0, 0);
	if (page && page_frag_free_ok(page, addr, caller))
		page_frag_put_direct(page);
}

/*
 * One CPU's batch. The "last" entry is the block this CPU freed into last;
 * a free inside it is recognised by its address (addr + last_va_neg <
 * last_size) and needs no page lookup, and last_count counts such frees
 * for last_page as a table slot counts them for its page. A page is in at
 * most one place: the last entry or one slot.
 *
 * Who touches what. This CPU's fast path (page_frag_batch_free) reads the
 * range and adds to last_count under busy alone, with plain stores. Every
 * other use holds lock as well: this CPU's slow paths (a miss, a last
 * fragment, a flush) only try it, and leave the batch alone when it is
 * held; a drain from another CPU (page_frag_free_flush_all) waits for it.
 * So a drain never stops the fast path and is safe beside it:
 *  - it closes the last entry (last_va_neg = 0) before it reads the count,
 *    so that the next free of that block takes the slow path;
 *  - it applies the count it read and records it in last_drained without
 *    touching last_count: a free already past the range test may still
 *    add to it, and the slow path applies last_count - last_drained;
 *  - such a late free is of a fragment still out, which holds the block:
 *    whatever the drain subtracts, the block outlives it. A free of that
 *    memory once it is reused sees the entry closed: the memory came back
 *    through the drain's subtract or a later one, each a release.
 * While the entry is open its pending count is at least 1, so its block
 * cannot go back to the page allocator under the cached range.
 * The statistics read the pages and counts without the lock, hence
 * relaxed atomics (plain moves on x86). Two cache lines; busy and the
 * last entry, all the fast path touches, share the first.
 */
struct page_frag_free_batch {
	/*
	 * Minus the last block's first byte: the free's offset in the block
	 * is then one load and one add. A drain writes it, so it is an
	 * atomic, and GCC folds no atomic load into a subtract: kept as the
	 * first byte itself, it cost one instruction more per free. 0 closes
	 * the entry: addr + 0 is addr, and no fragment lies in the first
	 * 32 KiB of memory (never mapped on the host; the kernel keeps the
	 * first MiB out of mm).
	 */
	atomic_uintptr_t last_va_neg;
	uintptr_t last_size; /* the last block's size in bytes; 0: none */
	_Atomic(struct page *) last_page;
	atomic_ulong last_count; /* frees of last_page counted, not applied */
	atomic_bool busy;	 /* this CPU is inside the batch code */
	unsigned char victim;	 /* slot a full table applies next */
	mm_spinlock_t lock;	 /* held by everything but the fast path */
	_Atomic(struct page *) page[PAGE_FRAG_FREE_BATCH_SLOTS - 1];
	atomic_uint count[PAGE_FRAG_FREE_BATCH_SLOTS - 1];
	atomic_uint last_drained; /* of last_count, applied by a drain */
} __mm_cacheline_aligned;

_Static_assert(sizeof(struct page_frag_free_batch) == 2 * MM_CACHE_LINE,
	       "a CPU's batch is two cache lines");

static struct page_frag_free_batch page_frag_batches[MM_MAX_CPUS];

/* Mark b busy: this CPU is inside its batch code. False if it already is
 * (an interrupt that landed in it), which must leave the batch alone. A
 * handler that lands outside the batch code may use the batch as it
 * likes (even move the last entry to the table): the interrupted code has
 * not read it yet. */
static inline bool page_frag_batch_busy_set(struct page_frag_free_batch *b)
{
	if (mm_unlikely(atomic_load_explicit(&b->busy, memory_order_relaxed)))
		return false;
	atomic_store_explicit(&b->busy, true, memory_order_relaxed);
	atomic_signal_fence(memory_order_seq_cst);
	return true;
}

static inline void page_frag_batch_busy_clear(struct page_frag_free_batch *b)
{
	atomic_signal_fence(memory_order_seq_cst);
	atomic_store_explicit(&b->busy, false, memory_order_relaxed);
}

/*
 * Enter this CPU's batch for a slow path: busy, then its lock in one
 * exchange, never waited for (as pcp_trylock): held, a drain on another
 * CPU is emptying the batch. NULL when either is taken; the caller then
 * leaves the batch alone.
 */
static inline struct page_frag_free_batch *page_frag_batch_enter(void)
{
	struct page_frag_free_batch *b = &page_frag_batches[mm_this_cpu()];

	if (!page_frag_batch_busy_set(b))
		return NULL;
	if (mm_unlikely(!mm_spin_trylock_once(&b->lock))) {
		page_frag_batch_busy_clear(b);
		return NULL;
	}
	return b;
}

static inline void page_frag_batch_leave(struct page_frag_free_batch *b)
{
	mm_spin_unlock(&b->lock);
	page_frag_batch_busy_clear(b);
}

#define TABLE_SLOTS (PAGE_FRAG_FREE_BATCH_SLOTS - 1)

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

static inline struct page *last_page(const struct page_frag_free_batch *b)
{
	return atomic_load_explicit(&b->last_page, memory_order_relaxed);
}

/* Frees of last_page counted and not applied by anyone yet. */
static inline unsigned int last_pending(const struct page_frag_free_batch *b)
{
	return (unsigned int)atomic_load_explicit(&b->last_count,
						  memory_order_relaxed) -
	       atomic_load_explicit(&b->last_drained, memory_order_relaxed);
}

/* Make page (n frees pending) the last entry; NULL empties it. Lock held. */
static inline void last_set(struct page_frag_free_batch *b, struct page *page,
			    unsigned int n)
{
	atomic_store_explicit(&b->last_va_neg,
			      page ? -(uintptr_t)page_address(page) : 0,
			      memory_order_relaxed);
	b->last_size = page ? (uintptr_t)MM_PAGE_SIZE << page->order : 0;
	atomic_store_explicit(&b->last_page, page, memory_order_relaxed);
	atomic_store_explicit(&b->last_count, n, memory_order_relaxed);
	atomic_store_explicit(&b->last_drained, 0, memory_order_relaxed);
}

/* The CPU whose batch b is: the CPU that made its frees. */
static inline int batch_cpu(const struct page_frag_free_batch *b)
{
	return (int)(b - page_frag_batches);
}

/*
 * Apply n pending frees of page with one atomic subtract; the last gives
 * the block back. The frees are counted here, n at once, not one by one
 * on the fast path (8 instructions per free saved); until then the
 * statistics add them from the batch (page_frag_free_pending_add). They
 * are counted by the CPU that applies them, b's own or a drain's (a CPU
 * writes only its own counters), and remote by the node of b's CPU.
 */
static void page_frag_batch_apply_n(struct page_frag_free_batch *b,
				    struct page *page, unsigned int n)
{
	int cpu = mm_this_cpu();

	mm_cpu_counter_add(&page_frag_cpu_stats[cpu].v[PF_FREES], n);
	if (page_to_nid(page) != mm_cpu_mem_node[batch_cpu(b)]) {
		mm_cpu_counter_add(&page_frag_cpu_stats[cpu].v[PF_REMOTE_FREES],
				   n);
		mm_trace(&ev_frag_remote_free, (uintptr_t)page_address(page), n,
			 (uint64_t)batch_cpu(b), (uint32_t)page_to_nid(page));
	}
	page_frag_count_cpu(cpu, PF_FREE_ATOMICS);
	if (page_ref_sub_and_test(page, (int)n))
		page_frag_release_block(page);
}

/* Apply slot i (if used); it is empty afterwards. Lock held. */
static void page_frag_batch_apply(struct page_frag_free_batch *b,
				  unsigned int i)
{
	struct page *page = slot_page(b, i);
	unsigned int n = slot_count(b, i);

	slot_set(b, i, NULL, 0);
	if (page)
		page_frag_batch_apply_n(b, page, n);
}

/* Apply the last entry (if any); it is empty afterwards. Lock held. */
static void page_frag_batch_apply_last(struct page_frag_free_batch *b)
{
	struct page *page = last_page(b);
	unsigned int n = last_pending(b);

	last_set(b, NULL, 0);
	if (page && n)
		page_frag_batch_apply_n(b, page, n);
}

/*
 * The last entry leaves for the table, making room for another block. If
 * every reference left on its block is one it holds (the block's other
 * fragments came back while the cache still held it, and the cache has
 * let go since), it is applied instead: the block goes back now rather
 * than at the next flush. Otherwise it takes a free slot, or the victim's
 * (applied first). An entry a drain emptied just goes. Lock held.
 */
static void page_frag_batch_park(struct page_frag_free_batch *b)
{
	struct page *page = last_page(b);
	unsigned int n, i;

	if (!page)
		return;
	n = last_pending(b);
	if (!n || (unsigned int)page_ref_count(page) == n) {
		page_frag_batch_apply_last(b);
		return;
	}
	for (i = 0; i < TABLE_SLOTS && slot_page(b, i); i++)
		;
	if (i == TABLE_SLOTS) {
		i = b->victim;
		b->victim = (unsigned char)((i + 1) % TABLE_SLOTS);
		page_frag_batch_apply(b, i);
	}
	slot_set(b, i, page, n);
	last_set(b, NULL, 0);
}

/* page's count leaves the table (0 if it has none there). Lock held. */
static unsigned int page_frag_batch_unpark(struct page_frag_free_batch *b,
					   struct page *page)
{
	for (unsigned int i = 0; i < TABLE_SLOTS; i++) {
		if (slot_page(b, i) == page) {
			unsigned int n = slot_count(b, i);

			slot_set(b, i, NULL, 0);
			return n;
		}
	}
	return 0;
}

/* A free that cannot use this CPU's batch (an interrupt that landed in
 * the batch code, or a drain from another CPU holding its lock): one
 * atomic decrement, the batch left alone. */
static __attribute__((noinline)) void page_frag_batch_busy(void *addr,
							   const void *caller)
{
	page_frag_count(PF_FREES_BUSY);
	page_frag_free_direct(addr, caller);
}

/*
 * A free outside the last block (b busy): look the block up (the only
 * place an address outside every zone is found: reported, nothing else
 * done), park the last entry, make this block the last one with its
 * table count if it had one, and count the free as the fast path does.
 */
static __attribute__((noinline)) void
page_frag_batch_miss(struct page_frag_free_batch *b, void *addr,
		     const void *caller)
{
	struct page *page;
	unsigned int n;

	if (mm_unlikely(!mm_spin_trylock_once(&b->lock))) {
		page_frag_batch_busy_clear(b);
		page_frag_batch_busy(addr, caller);
		return;
	}
	page = page_frag_free_page(addr, caller);
	if (page) {
		page_frag_batch_park(b);
		n = page_frag_batch_unpark(b, page) + 1;
		last_set(b, page, n);
		/* Every reference left is one this table holds: the last
		 * fragment. */
		if ((unsigned int)page_ref_count(page) == n)
			page_frag_batch_apply_last(b);
	}
	page_frag_batch_leave(b);
}

/*
 * The fast path saw the last entry's block hold no reference but the
 * ones counted here (b busy): apply them, which gives the block back.
 * Checked again under the lock, against what a drain left to apply; if
 * a drain holds the lock, what it did not take waits for the next flush.
 */
static __attribute__((noinline)) void
page_frag_batch_last(struct page_frag_free_batch *b)
{
	struct page *page;
	unsigned int n;

	if (mm_unlikely(!mm_spin_trylock_once(&b->lock))) {
		page_frag_batch_busy_clear(b);
		return;
	}
	page = last_page(b);
	n = last_pending(b);
	if (page && n && (unsigned int)page_ref_count(page) == n)
		page_frag_batch_apply_last(b);
	page_frag_batch_leave(b);
}

/*
 * Count one fragment at addr as freed on this CPU. The common case,
 * inline in page_frag_free(): the busy flag, one range test, one count
 * and the last-fragment test (the block's count equals what this entry
 * holds: every other reference is gone). No lock, no locked instruction.
 * caller is page_frag_free's caller, for a report.
 */
static inline void page_frag_batch_free(void *addr, const void *caller)
{
	struct page_frag_free_batch *b = &page_frag_batches[mm_this_cpu()];
	unsigned int n;

	mm_hide_ptr(b);
	if (mm_unlikely(atomic_load_explicit(&b->busy, memory_order_relaxed))) {
		page_frag_batch_busy(addr, caller);
		return;
	}
	atomic_store_explicit(&b->busy, true, memory_order_relaxed);
	atomic_signal_fence(memory_order_seq_cst);
	if (mm_unlikely((uintptr_t)addr +
				atomic_load_explicit(&b->last_va_neg,
						     memory_order_relaxed) >=
			b->last_size)) {
		page_frag_batch_miss(b, addr, caller);
		return;
	}
	/* One add instruction on memory (this CPU is its only writer). */
	mm_cpu_counter_add(&b->last_count, 1);
	n = (unsigned int)atomic_load_explicit(&b->last_count,
					       memory_order_relaxed);
	if (mm_unlikely((unsigned int)page_ref_count(atomic_load_explicit(
				&b->last_page, memory_order_relaxed)) == n)) {
		page_frag_batch_last(b);
		return;
	}
	atomic_signal_fence(memory_order_seq_cst);
	atomic_store_explicit(&b->busy, false, memory_order_relaxed);
}

/* The mm class traces: the event, then the same free. Out of line and
 * called in tail position, as the debug-checked free. */
static __attribute__((noinline)) void page_frag_free_traced(void *addr,
							    const void *caller)
{
	mm_trace(&ev_frag_free, (uintptr_t)addr, (uintptr_t)caller, 0, 0);
	if (PAGE_FRAG_FREE_BATCH)
		page_frag_batch_free(addr, caller);
	else
		page_frag_free_direct(addr, caller);
}

/*
 * The free path is the cross-CPU push/pop's pace (the freeing CPU is the
 * slower side), so its common case is inline here: a free into the block
 * this CPU freed into last is found by address, without the page lookup
 * (page_frag_batch_free). Only a miss looks the page up, and only then
 * is an address outside every zone found and reported.
 */
void page_frag_free(void *addr)
{
	if (mm_unlikely(mm_debug_on())) {
		page_frag_free_checked(addr, __builtin_return_address(0));
		return;
	}
	if (mm_unlikely(mm_tracing())) {
		page_frag_free_traced(addr, __builtin_return_address(0));
		return;
	}
	if (PAGE_FRAG_FREE_BATCH)
		page_frag_batch_free(addr, __builtin_return_address(0));
	else
		page_frag_free_direct(addr, __builtin_return_address(0));
}

void page_frag_free_flush_page(struct page *page)
{
	struct page_frag_free_batch *b;

	if (!PAGE_FRAG_FREE_BATCH)
		return; /* nothing is ever pending */
	b = page_frag_batch_enter();
	if (!b)
		return;
	if (last_page(b) == page)
		page_frag_batch_apply_last(b);
	for (unsigned int i = 0; i < TABLE_SLOTS; i++)
		if (slot_page(b, i) == page)
			page_frag_batch_apply(b, i);
	page_frag_batch_leave(b);
}

/* Apply the last entry and every slot of this CPU's batch b (entered). */
static void page_frag_batch_apply_all(struct page_frag_free_batch *b)
{
	page_frag_batch_apply_last(b);
	for (unsigned int i = 0; i < TABLE_SLOTS; i++)
		page_frag_batch_apply(b, i);
}

void page_frag_free_flush(void)
{
	struct page_frag_free_batch *b = page_frag_batch_enter();

	if (!b)
		return; /* the interrupted batch code, or a drain, goes on */
	page_frag_batch_apply_all(b);
	page_frag_batch_leave(b);
}

/*
 * A drain's share of another CPU's batch, its lock held while that CPU may
 * be in its fast path (see struct page_frag_free_batch): close the last
 * entry, apply what it counted and record that in last_drained; then
 * apply the table, which only the lock's holder uses.
 */
static void page_frag_batch_drain(struct page_frag_free_batch *b)
{
	struct page *page = last_page(b);

	atomic_store_explicit(&b->last_va_neg, 0, memory_order_relaxed);
	if (page) {
		unsigned int counted = (unsigned int)atomic_load_explicit(
			&b->last_count, memory_order_relaxed);
		unsigned int n =
			counted - atomic_load_explicit(&b->last_drained,
						       memory_order_relaxed);

		atomic_store_explicit(&b->last_drained, counted,
				      memory_order_relaxed);
		if (n)
			page_frag_batch_apply_n(b, page, n);
	}
	for (unsigned int i = 0; i < TABLE_SLOTS; i++)
		page_frag_batch_apply(b, i);
}

/*
 * Apply cpu's batch from whichever CPU runs this, with the discipline of
 * pcp_drain_cpu(). This CPU's own batch is flushed as its slow paths do
 * (left alone when busy: the holder is the code this call interrupted,
 * or a drain). Another CPU's lock is waited for, with interrupts masked
 * so that no handler here spins on a lock this CPU holds; its holder runs
 * (that CPU's slow path, or another drain) and waits for nothing.
 */
static void page_frag_free_drain_cpu(int cpu)
{
	struct page_frag_free_batch *b = &page_frag_batches[cpu];
	unsigned long flags;

	if (cpu == mm_this_cpu()) {
		page_frag_free_flush();
		return;
	}
	flags = mm_irq_save();
	mm_spin_lock(&b->lock);
	page_frag_batch_drain(b);
	mm_spin_unlock(&b->lock);
	mm_irq_restore(flags);
}

void page_frag_free_flush_all(void)
{
	/* All slots, not just mm_nr_cpus(), as drain_all_pages(). */
	for (int cpu = 0; cpu < MM_MAX_CPUS; cpu++)
		page_frag_free_drain_cpu(cpu);
}

unsigned int page_frag_free_pending(int cpu)
{
	const struct page_frag_free_batch *b;
	unsigned int n;

	if (cpu < 0 || cpu >= MM_MAX_CPUS)
		return 0;
	b = &page_frag_batches[cpu];
	n = last_page(b) ? last_pending(b) : 0;
	for (unsigned int i = 0; i < TABLE_SLOTS; i++)
		n += slot_count(b, i);
	return n;
}

/* Add n pending frees of page (NULL: none) to v. */
static void pending_add_one(int cpu, struct page *page, unsigned int n,
			    uint64_t v[PF_NR_STATS])
{
	if (!page)
		return;
	v[PF_FREES] += n;
	if (page_to_nid(page) != mm_cpu_mem_node[cpu])
		v[PF_REMOTE_FREES] += n;
}

void page_frag_free_pending_add(int cpu, uint64_t v[PF_NR_STATS])
{
	const struct page_frag_free_batch *b = &page_frag_batches[cpu];

	pending_add_one(cpu, last_page(b), last_pending(b), v);
	for (unsigned int i = 0; i < TABLE_SLOTS; i++)
		pending_add_one(cpu, slot_page(b, i), slot_count(b, i), v);
}

void page_frag_free_forget(void)
{
	memset(page_frag_batches, 0, sizeof(page_frag_batches));
}
