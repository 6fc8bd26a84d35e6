/*
 * ALF queue: an Array-based Lock-Free queue of pointers (qmempool's shared
 * level; walk-through and costs against rte_ring: docs/qmempool.md).
 *
 * A ring of 2^k slots and four free-running 32-bit indices. Producers own
 * prod.head (next slot to reserve) and prod.tail (everything before it is
 * written); consumers own cons.head and cons.tail the same way. A slot is
 * "index & mask" and every distance an unsigned difference, so indices
 * wrap past 2^32 freely and the capacity is the full 2^k:
 *
 *   cons.tail <= cons.head <= prod.tail <= prod.head <= cons.tail + size
 *
 * Multi-producer enqueue reserves n slots with ONE compare-and-swap on
 * prod.head, copies the pointers in, waits until earlier reservations are
 * published (prod.tail == its head), then publishes its own by storing
 * prod.tail: one CAS moves a whole bulk. Multi-consumer dequeue is the
 * mirror image on cons.*. The single-producer/consumer variants own their
 * head outright: plain loads and stores, no atomic read-modify-write.
 *
 * Memory ordering (C11, no x86-only assumption): a side stores its tail
 * with RELEASE after writing (reading) its slots, and the other side loads
 * it with ACQUIRE before touching them, so no slot is read before it is
 * written or overwritten while being read; a producer (consumer) waiting
 * its turn loads the tail with ACQUIRE, so its predecessors' slots are
 * part of what it hands on. Heads are reservations, relaxed
 * (__alf_mp_reserve: a stale head is harmless). On x86 the SP/SC paths
 * have no fence and no locked instruction. Producers cache the consumers'
 * tail, and each side's indices have a cache line of their own (struct
 * alf_queue): the sides' lines move only when data passes between them.
 *
 * Contract on names (as DPDK's rte_ring): alf_mp_* / alf_mc_* for any
 * number of threads at once; alf_sp_* / alf_sc_* for one producer (one
 * consumer) at a time, on a queue created with ALF_SP_ENQ (ALF_SC_DEQ);
 * debug mode reports misuse with the caller's address. Enqueue is
 * all-or-nothing, dequeue moves up to n. Any context: nothing sleeps or
 * masks interrupts; but a producer interrupted between reserving and
 * publishing makes later producers spin until it resumes, so a handler
 * must not enqueue into a queue the code it interrupted may be
 * enqueueing into (the same for dequeue).
 */
#ifndef MM_ALF_QUEUE_H
#define MM_ALF_QUEUE_H

#include "debug.h"
#include "gfp.h"
#include "platform.h"

/*
 * Largest ring: 2^16 slots (512 KiB of pointers, an order-7 block). The
 * index arithmetic would allow 2^31; the limit keeps one queue within what
 * the allocators serve in one piece and catches sizes passed in bytes.
 */
#define ALF_QUEUE_MAX_SIZE (1u << 16)

/* Creation flags. */
#define ALF_SP_ENQ    0x1u /* one producer at a time: alf_sp_enqueue allowed */
#define ALF_SC_DEQ    0x2u /* one consumer at a time: alf_sc_dequeue allowed */
#define ALF_FLAGS_ALL (ALF_SP_ENQ | ALF_SC_DEQ)

/* One side's pair of indices; the two sides live on different lines. */
struct alf_side {
	_Atomic uint32_t head; /* next index to reserve */
	_Atomic uint32_t tail; /* every index before it is done */
	/*
	 * Producer side only: the consumers' tail as last read (Lamport's
	 * ring with cached indices), so that an enqueue with room to spare
	 * reads only its own line and the consumers' line moves over once
	 * per ring's worth of room, not on every call. Consumers keep no
	 * such copy: prod.tail is the new data they come for. A stale copy
	 * only understates the room; when it says "full" the real tail is
	 * read again. Stored with RELEASE after an ACQUIRE of cons.tail and
	 * loaded with ACQUIRE, so a producer that trusts another producer's
	 * copy is ordered after the consumers' reads it covers (free on
	 * x86, where both are plain moves).
	 */
	_Atomic uint32_t cons_tail_seen;
	atomic_uint busy; /* debug: SP/SC callers inside right now */
};

struct alf_queue {
	/* Read-only after creation. */
	uint32_t size;	    /* number of slots, a power of two */
	uint32_t mask;	    /* size - 1 */
	unsigned int flags; /* ALF_SP_ENQ, ALF_SC_DEQ */
	bool owned;	    /* from alf_queue_alloc*: kfree on alf_queue_free */
	/*
	 * Each hot line is followed by an unused one: x86 prefetches cache
	 * lines in 128-byte pairs, and without the guard the consumer's
	 * line would drag the producer's (or the first ring slots) along.
	 */
	char guard0[MM_CACHE_LINE] __mm_cacheline_aligned;
	struct alf_side prod __mm_cacheline_aligned;
	char guard1[MM_CACHE_LINE] __mm_cacheline_aligned;
	struct alf_side cons __mm_cacheline_aligned;
	char guard2[MM_CACHE_LINE] __mm_cacheline_aligned;
	void *ring[] __mm_cacheline_aligned;
};

/*
 * alf_queue_bytes - memory needed by a queue of @size slots, for callers
 * that embed a queue with alf_queue_init(). 0 if @size is not acceptable.
 */
size_t alf_queue_bytes(uint32_t size);

/*
 * alf_queue_init - make a queue in caller-provided memory.
 * @q: at least alf_queue_bytes(size) bytes, MM_CACHE_LINE aligned.
 * @size: number of slots: a power of two in [1, ALF_QUEUE_MAX_SIZE].
 * @flags: ALF_SP_ENQ / ALF_SC_DEQ or 0 (multi-producer, multi-consumer).
 * Returns 0, or -1 after printing why (bad size, unknown flags, misaligned
 * memory). Not concurrent with any other use of @q.
 */
int alf_queue_init(struct alf_queue *q, uint32_t size, unsigned int flags);

/*
 * alf_queue_alloc_node - allocate and initialise a queue on NUMA node @nid
 * (< 0: the current CPU's node).
 * @size, @flags: as for alf_queue_init().
 * @gfp: allocation flags for the ring memory.
 * Any context. Returns the queue, or NULL: a bad @size or @flags is refused
 * with a message (never rounded); out of memory is reported unless
 * __GFP_NOWARN.
 */
struct alf_queue *alf_queue_alloc_node(uint32_t size, unsigned int flags,
				       gfp_t gfp, int nid);

/*
 * alf_queue_alloc - a multi-producer, multi-consumer queue of @size slots
 * on the current node. See alf_queue_alloc_node().
 */
struct alf_queue *alf_queue_alloc(uint32_t size, gfp_t gfp);

/*
 * alf_queue_free - release the queue's memory. Pointers still in it are
 * the caller's to drain first. Not concurrent with any other use. NULL ok.
 */
void alf_queue_free(struct alf_queue *q);

/*
 * alf_queue_set_index - move all four indices of an EMPTY queue to @index.
 * For tests (32-bit wraparound) and for reuse; not concurrent with anything.
 * Returns 0, or -1 if the queue is not empty.
 */
int alf_queue_set_index(struct alf_queue *q, uint32_t index);

/*
 * Debug support, out of line (see the checks in the SP/SC functions).
 * Misuse is reported through mm_debug_report(MM_DBG_OTHER, ...).
 */
void __alf_debug_enter(struct alf_queue *q, struct alf_side *side,
		       unsigned int need, const char *fn, void *caller);
void __alf_debug_leave(struct alf_side *side);
/* The SP/SC calls with the checks around them, out of line so that the
 * fast paths pay one test of the debug flag per call. */
unsigned int alf_sp_enqueue_checked(struct alf_queue *q, void *const ptrs[],
				    unsigned int n, void *caller);
unsigned int alf_sc_dequeue_checked(struct alf_queue *q, void *ptrs[],
				    unsigned int n, void *caller);

/* ---- inline fast paths ---------------------------------------------- */

/*
 * Copy n pointers between a caller's array and the ring. Four at a time
 * while they fit without wrapping: with a plain loop, SPSC bulk 16 took
 * 2.3x rte_ring's time in the same run; unrolled, 0.7-0.75x (4 runs).
 * The index is a size_t: with an unsigned int, GCC recomputed every
 * address (i + 1, i + 2 and i + 3 zero-extended into a register: 12
 * instructions per four pointers); with a size_t each is one load and
 * one store with a displacement (9 per four; a qmempool refill of 16
 * took 106 instructions in alf_mc_dequeue before, callgrind).
 * The remainder is two bit tests: not a loop (GCC would turn a copy loop
 * into a memcpy() call, which made single-element calls cost ~70 ns here)
 * and not a switch (three compares and two jumps). One pointer is tested
 * for first: a single-element call whose count is known only at run time
 * then costs 46 instructions per enqueue+dequeue instead of 67 (rte_ring's
 * burst calls: 65; callgrind), any other count 2 more. With a constant n
 * everything folds to straight stores.
 */
static inline void __alf_copy_in(struct alf_queue *q, uint32_t head,
				 void *const *ptrs, unsigned int n)
{
	uint32_t idx = head & q->mask;
	void **r = &q->ring[idx];
	size_t i = 0;

	if (n == 1) { /* one pointer, the commonest call: no loop, no wrap */
		r[0] = ptrs[0];
	} else if (mm_likely(idx + n <= q->size)) {
		for (; i < (n & ~(size_t)3); i += 4) {
			r[i] = ptrs[i];
			r[i + 1] = ptrs[i + 1];
			r[i + 2] = ptrs[i + 2];
			r[i + 3] = ptrs[i + 3];
		}
		if (n & 2) {
			r[i] = ptrs[i];
			r[i + 1] = ptrs[i + 1];
			i += 2;
		}
		if (n & 1)
			r[i] = ptrs[i];
	} else { /* the bulk wraps past the last slot */
		for (; i < n; i++)
			q->ring[(head + i) & q->mask] = ptrs[i];
	}
}

static inline void __alf_copy_out(struct alf_queue *q, uint32_t head,
				  void **ptrs, unsigned int n)
{
	uint32_t idx = head & q->mask;
	void *const *r = &q->ring[idx];
	size_t i = 0;

	if (n == 1) {
		ptrs[0] = r[0];
	} else if (mm_likely(idx + n <= q->size)) {
		for (; i < (n & ~(size_t)3); i += 4) {
			ptrs[i] = r[i];
			ptrs[i + 1] = r[i + 1];
			ptrs[i + 2] = r[i + 2];
			ptrs[i + 3] = r[i + 3];
		}
		if (n & 2) {
			ptrs[i] = r[i];
			ptrs[i + 1] = r[i + 1];
			i += 2;
		}
		if (n & 1)
			ptrs[i] = r[i];
	} else {
		for (; i < n; i++)
			ptrs[i] = q->ring[(head + i) & q->mask];
	}
}

/*
 * Publish [old, new) on one side: wait until every earlier reservation is
 * published (tail == old), then move the tail. The ACQUIRE load makes the
 * earlier callers' slot accesses happen-before our RELEASE store, so a
 * thread on the other side that acquires our tail also sees theirs.
 */
static inline void __alf_publish(_Atomic uint32_t *tail, uint32_t old,
				 uint32_t new)
{
	while (mm_unlikely(atomic_load_explicit(tail, memory_order_acquire) !=
			   old))
		mm_cpu_relax();
	atomic_store_explicit(tail, new, memory_order_release);
}

/*
 * The room the producers may use from head @h on: first by the cached
 * consumer tail (no read of the consumers' line), and only if that says
 * too little (or, for a multi-producer's stale head, more than the ring),
 * by the real one, which then refreshes the cache.
 */
static inline uint32_t __alf_room(struct alf_queue *q, uint32_t h,
				  unsigned int n)
{
	uint32_t free = q->size +
			atomic_load_explicit(&q->prod.cons_tail_seen,
					     memory_order_acquire) -
			h;

	if (mm_likely(n <= free && free <= q->size))
		return free;
	uint32_t ct = atomic_load_explicit(&q->cons.tail, memory_order_acquire);
	atomic_store_explicit(&q->prod.cons_tail_seen, ct,
			      memory_order_release);
	return q->size + ct - h;
}

/* The same for the single producer, whose head is exact: the cached tail
 * is never ahead of it, so the room never exceeds the ring. */
static inline uint32_t __alf_sp_room(struct alf_queue *q, uint32_t h,
				     unsigned int n)
{
	uint32_t free = q->size +
			atomic_load_explicit(&q->prod.cons_tail_seen,
					     memory_order_acquire) -
			h;

	if (mm_likely(n <= free))
		return free;
	uint32_t ct = atomic_load_explicit(&q->cons.tail, memory_order_acquire);
	atomic_store_explicit(&q->prod.cons_tail_seen, ct,
			      memory_order_release);
	return q->size + ct - h;
}

/*
 * Reserve @n slots on the producer side with one CAS; returns the first
 * reserved index through @head, or false if there is no room for all @n.
 *
 * Why a stale read is harmless: the free count is size + cons.tail - head.
 * A cons.tail older than the real one (the cached copy, or one read a
 * moment ago) only makes the count smaller (we refuse, or take fewer
 * chances — never overwrite an unread slot, since we ACQUIRE'd every
 * read below the value we saw). A head older than the real one makes the
 * CAS fail. The only combination that could make the count too LARGE — a
 * cons.tail seen "ahead" of a stale head — shows up as a count above size
 * (the unsigned difference wraps), and we then reload instead of trusting
 * it. So C11 relaxed heads are enough.
 */
static inline bool __alf_mp_reserve(struct alf_queue *q, unsigned int n,
				    uint32_t *head)
{
	uint32_t h = atomic_load_explicit(&q->prod.head, memory_order_relaxed);
	uint32_t free;

	for (;;) {
		free = __alf_room(q, h, n);
		if (mm_unlikely(free > q->size)) { /* inconsistent pair */
			h = atomic_load_explicit(&q->prod.head,
						 memory_order_relaxed);
			continue;
		}
		if (n > free)
			return false;
		/* On failure h is reloaded with the current head. */
		if (atomic_compare_exchange_weak_explicit(
			    &q->prod.head, &h, h + n, memory_order_relaxed,
			    memory_order_relaxed))
			break;
	}
	*head = h;
	return true;
}

/*
 * Claim up to @n slots on the consumer side with one CAS; returns how many
 * (0 when empty) and the first index through @head. The reasoning mirrors
 * __alf_mp_reserve(): an old prod.tail only shows fewer ready slots.
 */
static inline unsigned int __alf_mc_claim(struct alf_queue *q, unsigned int n,
					  uint32_t *head)
{
	uint32_t h = atomic_load_explicit(&q->cons.head, memory_order_relaxed);
	uint32_t ready, cnt;

	for (;;) {
		ready = atomic_load_explicit(&q->prod.tail,
					     memory_order_acquire) -
			h;
		if (mm_unlikely(ready > q->size)) { /* inconsistent pair */
			h = atomic_load_explicit(&q->cons.head,
						 memory_order_relaxed);
			continue;
		}
		cnt = n < ready ? n : ready;
		if (cnt == 0)
			return 0;
		if (atomic_compare_exchange_weak_explicit(
			    &q->cons.head, &h, h + cnt, memory_order_relaxed,
			    memory_order_relaxed))
			break;
	}
	*head = h;
	return cnt;
}

/*
 * alf_mp_enqueue - add all @n pointers from @ptrs, or none.
 * Any number of concurrent producers. Returns @n, or 0 if fewer than @n
 * slots are free (the queue is then unchanged by this call).
 * Always inline (as rte_ring's calls are): GCC kept the MP/MC calls out
 * of line where a file calls them more than once, and the call with its
 * five saved registers cost a qmempool refill or spill ~15 instructions.
 */
static inline __attribute__((always_inline)) unsigned int
alf_mp_enqueue(struct alf_queue *q, void *const ptrs[], unsigned int n)
{
	uint32_t head;

	if (mm_unlikely(n == 0) || !__alf_mp_reserve(q, n, &head))
		return 0;
	__alf_copy_in(q, head, ptrs, n);
	__alf_publish(&q->prod.tail, head, head + n);
	return n;
}

/*
 * alf_mc_dequeue - take up to @n pointers into @ptrs, oldest first.
 * Any number of concurrent consumers. Returns how many (0 when empty).
 */
static inline __attribute__((always_inline)) unsigned int
alf_mc_dequeue(struct alf_queue *q, void *ptrs[], unsigned int n)
{
	uint32_t head;
	unsigned int cnt = __alf_mc_claim(q, n, &head);

	if (cnt == 0)
		return 0;
	__alf_copy_out(q, head, ptrs, cnt);
	__alf_publish(&q->cons.tail, head, head + cnt);
	return cnt;
}

/*
 * __alf_sp_enqueue / __alf_sc_dequeue - the single producer / consumer
 * operations themselves, with no debug checks (alf_sp_enqueue and
 * alf_sc_dequeue below add them). No atomic read-modify-write and no
 * fence: our own index with relaxed loads (nobody else writes it), the
 * other side's tail with ACQUIRE (the producer's usually from its cached
 * copy), our tail published with RELEASE. With a constant @n the copy and
 * every test on n fold away.
 */
static inline unsigned int __alf_sp_enqueue(struct alf_queue *q,
					    void *const ptrs[], unsigned int n)
{
	uint32_t head =
		atomic_load_explicit(&q->prod.head, memory_order_relaxed);

	if (mm_unlikely(n > __alf_sp_room(q, head, n)))
		return 0;
	__alf_copy_in(q, head, ptrs, n);
	atomic_store_explicit(&q->prod.head, head + n, memory_order_relaxed);
	atomic_store_explicit(&q->prod.tail, head + n, memory_order_release);
	return n;
}

/* Take exactly n (n <= ready) from head on; the single consumer's. */
static inline unsigned int __alf_sc_take(struct alf_queue *q, uint32_t head,
					 void *ptrs[], unsigned int n)
{
	__alf_copy_out(q, head, ptrs, n);
	atomic_store_explicit(&q->cons.head, head + n, memory_order_relaxed);
	atomic_store_explicit(&q->cons.tail, head + n, memory_order_release);
	return n;
}

/* Fewer ready than asked: out of line, so that a constant n keeps its
 * folded copy on the fast path. */
unsigned int __alf_sc_take_some(struct alf_queue *q, uint32_t head,
				void *ptrs[], unsigned int ready);

static inline unsigned int __alf_sc_dequeue(struct alf_queue *q, void *ptrs[],
					    unsigned int n)
{
	uint32_t head =
		atomic_load_explicit(&q->cons.head, memory_order_relaxed);
	uint32_t ready =
		atomic_load_explicit(&q->prod.tail, memory_order_acquire) -
		head;

	if (mm_unlikely(ready < n))
		return ready ? __alf_sc_take_some(q, head, ptrs, ready) : 0;
	return __alf_sc_take(q, head, ptrs, n);
}

/*
 * alf_sp_enqueue - add all @n pointers, or none; single producer.
 * Only on a queue created with ALF_SP_ENQ, one producer at a time.
 * No atomic read-modify-write. Returns @n or 0 (not enough room, or n 0).
 */
static inline unsigned int alf_sp_enqueue(struct alf_queue *q,
					  void *const ptrs[], unsigned int n)
{
	if (mm_unlikely(mm_debug_on()))
		return alf_sp_enqueue_checked(q, ptrs, n,
					      __builtin_return_address(0));
	return __alf_sp_enqueue(q, ptrs, n);
}

/*
 * alf_sc_dequeue - take up to @n pointers, oldest first; single consumer.
 * Only on a queue created with ALF_SC_DEQ, one consumer at a time.
 * No atomic read-modify-write. Returns how many (0 when empty).
 */
static inline unsigned int alf_sc_dequeue(struct alf_queue *q, void *ptrs[],
					  unsigned int n)
{
	if (mm_unlikely(mm_debug_on()))
		return alf_sc_dequeue_checked(q, ptrs, n,
					      __builtin_return_address(0));
	return __alf_sc_dequeue(q, ptrs, n);
}

/*
 * __alf_sp_enqueue_one / __alf_sc_dequeue_one - one pointer, single
 * producer / single consumer, WITHOUT the debug checks: for callers whose
 * design makes misuse impossible (a queue only one CPU touches). The same
 * acquire/release pairs as the bulk versions, no loop, no branch on n.
 * Enqueue returns false when full; dequeue returns NULL when empty, so
 * only use it on queues that never hold NULL.
 */
static inline bool __alf_sp_enqueue_one(struct alf_queue *q, void *ptr)
{
	uint32_t head =
		atomic_load_explicit(&q->prod.head, memory_order_relaxed);

	if (mm_unlikely(__alf_sp_room(q, head, 1) == 0))
		return false;
	q->ring[head & q->mask] = ptr;
	atomic_store_explicit(&q->prod.head, head + 1, memory_order_relaxed);
	atomic_store_explicit(&q->prod.tail, head + 1, memory_order_release);
	return true;
}

static inline void *__alf_sc_dequeue_one(struct alf_queue *q)
{
	uint32_t head =
		atomic_load_explicit(&q->cons.head, memory_order_relaxed);
	void *ptr;

	if (atomic_load_explicit(&q->prod.tail, memory_order_acquire) == head)
		return NULL;
	ptr = q->ring[head & q->mask];
	atomic_store_explicit(&q->cons.head, head + 1, memory_order_relaxed);
	atomic_store_explicit(&q->cons.tail, head + 1, memory_order_release);
	return ptr;
}

/*
 * alf_queue_count - pointers in the queue. Exact when the queue is quiet;
 * under concurrent use a snapshot that is always within [0, size].
 */
static inline unsigned int alf_queue_count(const struct alf_queue *q)
{
	/* cons.tail first (ACQUIRE keeps the second load after it): the
	 * producer tail read later can only be further ahead, never behind. */
	uint32_t ct = atomic_load_explicit(&q->cons.tail, memory_order_acquire);
	uint32_t pt = atomic_load_explicit(&q->prod.tail, memory_order_acquire);
	uint32_t used = pt - ct;

	return used > q->size ? q->size : used;
}

/* alf_queue_empty - true if no pointer is ready to be dequeued. */
static inline bool alf_queue_empty(const struct alf_queue *q)
{
	return alf_queue_count(q) == 0;
}

/* alf_queue_avail_space - free slots (a snapshot under concurrent use). */
static inline unsigned int alf_queue_avail_space(const struct alf_queue *q)
{
	return q->size - alf_queue_count(q);
}

/* alf_queue_size - number of slots, fixed at creation. */
static inline unsigned int alf_queue_size(const struct alf_queue *q)
{
	return q->size;
}

#endif /* MM_ALF_QUEUE_H */
