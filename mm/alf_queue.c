/*
 * ALF queue: creation, destruction and debug checks. The enqueue/dequeue
 * fast paths are inline in alf_queue.h, where the design is explained.
 *
 * Memory: the header and the ring are one kmalloc_node() block on the
 * node the caller asks for, so the ring of a per-node queue lives on that
 * node. kmalloc's power-of-two classes (and whole pages above 8 KiB) are
 * naturally aligned, and the smallest queue (384-byte header + 1 slot)
 * already lands in the 512-byte class, so the block is cache-line
 * aligned; alf_queue_alloc_node() checks it rather than trusting it.
 */
#include "alf_queue.h"
#include "slab.h"

static bool alf_size_ok(uint32_t size)
{
	return size != 0 && (size & (size - 1)) == 0 &&
	       size <= ALF_QUEUE_MAX_SIZE;
}

size_t alf_queue_bytes(uint32_t size)
{
	if (!alf_size_ok(size))
		return 0;
	return sizeof(struct alf_queue) + (size_t)size * sizeof(void *);
}

/* Refuse, loudly, what a caller must fix; returns false if refused. */
static bool alf_check_args(uint32_t size, unsigned int flags, const char *who)
{
	if (!alf_size_ok(size)) {
		mm_printf("%s: size %u refused: must be a power of two in "
			  "[1, %u]\n",
			  who, size, ALF_QUEUE_MAX_SIZE);
		return false;
	}
	if (flags & ~ALF_FLAGS_ALL) {
		mm_printf("%s: unknown flags 0x%x refused\n", who, flags);
		return false;
	}
	return true;
}

static void alf_setup(struct alf_queue *q, uint32_t size, unsigned int flags)
{
	q->size = size;
	q->mask = size - 1;
	q->flags = flags;
	atomic_init(&q->prod.head, 0);
	atomic_init(&q->prod.tail, 0);
	atomic_init(&q->prod.cons_tail_seen, 0);
	atomic_init(&q->prod.busy, 0);
	atomic_init(&q->cons.head, 0);
	atomic_init(&q->cons.tail, 0);
	atomic_init(&q->cons.busy, 0);
}

int alf_queue_init(struct alf_queue *q, uint32_t size, unsigned int flags)
{
	if (!alf_check_args(size, flags, "alf_queue_init"))
		return -1;
	if ((uintptr_t)q % MM_CACHE_LINE) {
		mm_printf("alf_queue_init: memory %p not %d-byte aligned\n",
			  (void *)q, MM_CACHE_LINE);
		return -1;
	}
	alf_setup(q, size, flags);
	q->owned = false;
	return 0;
}

struct alf_queue *alf_queue_alloc_node(uint32_t size, unsigned int flags,
				       gfp_t gfp, int nid)
{
	struct alf_queue *q;

	if (!alf_check_args(size, flags, "alf_queue_alloc"))
		return NULL;
	q = kmalloc_node(alf_queue_bytes(size), gfp & ~__GFP_ZERO, nid);
	if (!q)
		return NULL; /* reported and counted by kmalloc */
	if ((uintptr_t)q % MM_CACHE_LINE) {
		mm_printf("alf_queue_alloc: kmalloc returned %p, not %d-byte "
			  "aligned\n",
			  (void *)q, MM_CACHE_LINE);
		kfree(q);
		return NULL;
	}
	alf_setup(q, size, flags);
	q->owned = true;
	return q;
}

struct alf_queue *alf_queue_alloc(uint32_t size, gfp_t gfp)
{
	return alf_queue_alloc_node(size, 0, gfp, -1);
}

void alf_queue_free(struct alf_queue *q)
{
	if (q && q->owned)
		kfree(q);
}

int alf_queue_set_index(struct alf_queue *q, uint32_t index)
{
	if (alf_queue_count(q) != 0 ||
	    atomic_load(&q->prod.head) != atomic_load(&q->prod.tail) ||
	    atomic_load(&q->cons.head) != atomic_load(&q->cons.tail))
		return -1;
	atomic_store(&q->prod.head, index);
	atomic_store(&q->prod.tail, index);
	atomic_store(&q->prod.cons_tail_seen, index);
	atomic_store(&q->cons.head, index);
	atomic_store(&q->cons.tail, index);
	return 0;
}

static void alf_report(struct alf_queue *q, const char *fn, const char *what,
		       void *caller)
{
	mm_debug_report(MM_DBG_OTHER, caller, "%s(%p): %s", fn, (void *)q,
			what);
}

/*
 * An SP/SC call checks two things: the queue was created for a single
 * producer (consumer), and nobody else is inside the same side right now.
 * The second check catches real races only when they overlap, which is
 * why the first one exists: it catches the mistake on the first call.
 */
void __alf_debug_enter(struct alf_queue *q, struct alf_side *side,
		       unsigned int need, const char *fn, void *caller)
{
	if (!(q->flags & need))
		alf_report(q, fn,
			   "queue was not created for a single "
			   "producer/consumer (flag missing)",
			   caller);
	if (atomic_fetch_add_explicit(&side->busy, 1, memory_order_acquire))
		alf_report(q, fn,
			   "two callers inside a single-producer/"
			   "consumer side at once",
			   caller);
}

void __alf_debug_leave(struct alf_side *side)
{
	atomic_fetch_sub_explicit(&side->busy, 1, memory_order_release);
}

unsigned int __alf_sc_take_some(struct alf_queue *q, uint32_t head,
				void *ptrs[], unsigned int ready)
{
	return __alf_sc_take(q, head, ptrs, ready);
}

unsigned int alf_sp_enqueue_checked(struct alf_queue *q, void *const ptrs[],
				    unsigned int n, void *caller)
{
	__alf_debug_enter(q, &q->prod, ALF_SP_ENQ, "alf_sp_enqueue", caller);
	n = __alf_sp_enqueue(q, ptrs, n);
	__alf_debug_leave(&q->prod);
	return n;
}

unsigned int alf_sc_dequeue_checked(struct alf_queue *q, void *ptrs[],
				    unsigned int n, void *caller)
{
	__alf_debug_enter(q, &q->cons, ALF_SC_DEQ, "alf_sc_dequeue", caller);
	n = __alf_sc_dequeue(q, ptrs, n);
	__alf_debug_leave(&q->cons);
	return n;
}
