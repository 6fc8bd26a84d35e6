/*
 * qmempool: a pool of objects of one slab cache, in front of the slab: a
 * per-CPU stack of objects, a per-node ALF queue (alf_queue.h) behind it.
 * Jesper Brouer's RFC (2014) with its open points closed; walk-through
 * and figures: docs/qmempool.md.
 *
 *   CPU 0 localq (LIFO stack)  CPU 1 localq (LIFO stack)  ...   per CPU
 *          \   half a localq per move   /
 *        node 0 sharedq (MPMC)     node 1 sharedq (MPMC)        per node
 *                     \   the same bulk   /
 *                  kmem_cache_alloc_bulk / kmem_cache_free_bulk
 *
 * The localq is an array of localq_sz pointers with a count, as DPDK's
 * per-lcore mempool cache: allocation pops the most recently freed object
 * (the likeliest still in this CPU's cache), free pushes. No atomic RMW,
 * no lock, no interrupt masking in poll context: about 10 instructions
 * each way. An empty localq refills one bulk (half of it, at least
 * QMEMPOOL_BULK) from its node's sharedq in one CAS, else from the slab;
 * a full one moves its top bulk to the sharedq, else to the slab. Either
 * way it is left half full, as far from both edges as it can be, and no
 * path drops an object: what does not fit one level goes to the next,
 * and the slab always takes objects back. A stack rather than the RFC's
 * SPSC ring: a move is one queue operation, not two, and no per-object
 * head, tail and release store.
 *
 * NUMA: objects stay on their node. A CPU refills only from its node's
 * sharedq and its node's slab objects (__GFP_THISNODE); when the node has
 * none left, one object from another node goes to the caller, never into
 * a localq. An object freed on another node's CPU goes straight to its
 * own node's sharedq (or the slab if that is full).
 *
 * Contexts (the kernel's poll loop, kernel/poll.h): qmempool_alloc() and
 * qmempool_free() mask interrupts around the localq and may be called
 * from any context; the _softirq variants are for poll context only and
 * mask nothing, so on one CPU they must never run concurrently with
 * another call on the same pool (an interrupt handler using the pool
 * while the poll loop is inside it). On the host each thread must be a
 * simulated CPU (mm_host_set_cpu()).
 */
#ifndef MM_QMEMPOOL_H
#define MM_QMEMPOOL_H

#include "alf_queue.h"
#include "fault_inject.h"
#include "gfp.h"
#include "list.h"
#include "mm_trace.h"
#include "platform.h"
#include "qmempool_tunables.h"
#include "slab.h"

/*
 * Per-CPU part: the localq and this CPU's counters. Counters are written
 * only by their CPU (a relaxed load and store, no atomic RMW) and read by
 * the statistics functions with relaxed loads.
 */
struct qmempool_cpu {
	/* The localq: objs[0..count) hold objects, objs[count - 1] is the
	 * most recently freed. Only this CPU writes count; statistics read
	 * it with relaxed loads (plain moves on x86). */
	_Atomic uint32_t count;
	/* Fast-path frees push while count < push_limit: the pool's
	 * localq_sz, or 0 on a pool of several nodes, whose frees must look
	 * up the object's node first (__qmempool_free_slow). One compare
	 * instead of a test of nr_nodes on every free: 2 instructions. */
	uint32_t push_limit;
	void **objs;		     /* on this CPU's memory node */
	int nid;		     /* this CPU's memory node */
	atomic_ulong localq_hit;     /* allocations served by the localq */
	atomic_ulong slab_in;	     /* objects taken from the slab */
	atomic_ulong sharedq_refill; /* bulk refills from the sharedq */
	atomic_ulong slab_refill;    /* refills from the slab (bulk or one) */
	atomic_ulong sharedq_spill;  /* bulks moved localq -> sharedq */
	atomic_ulong slab_free;	     /* objects given back to the slab */
	atomic_ulong remote_free;    /* frees of another node's objects */
	atomic_ulong alloc_fail;     /* NULL returned: slab out of memory */
} __mm_cacheline_aligned;

struct qmempool {
	struct kmem_cache *cache; /* where objects come from and go back */
	gfp_t gfp;		  /* for creation, prealloc and refills */
	uint32_t localq_sz, sharedq_sz, prealloc;
	uint32_t bulk; /* objects per refill and spill (qmempool_create) */
	unsigned long prealloc_in; /* objects taken from the slab at create */
	int nr_cpus, nr_nodes;
	unsigned int id;       /* "qmempool<id>" in the statistics */
	struct list_head list; /* registry of all pools */
	struct alf_queue *sharedq[MM_MAX_NODES]; /* MPMC, one per node */
	struct qmempool_cpu cpu[];		 /* nr_cpus entries */
};

/*
 * qmempool_create - a pool of objects of @cache.
 * @localq_sz: objects each CPU keeps: a power of two, >= QMEMPOOL_BULK.
 * @sharedq_sz: per-node queue slots: a power of two,
 *	>= QMEMPOOL_BULK * QMEMPOOL_REFILL_MULTIPLIER.
 *	Both at most QMEMPOOL_MAX_QSZ. Refills and spills move
 *	max(QMEMPOOL_BULK, min(@localq_sz, @sharedq_sz) / 2) objects.
 * @prealloc: objects put into each node's sharedq now, <= @sharedq_sz.
 * @cache: the slab cache that owns the objects; it must outlive the pool.
 * @gfp: flags for the pool's own memory and for every slab refill.
 * Context: any, not concurrent with qmempool_destroy().
 * Returns the pool, or NULL with a message saying which argument was
 * refused, or that memory ran out (nothing is leaked then).
 */
struct qmempool *qmempool_create(uint32_t localq_sz, uint32_t sharedq_sz,
				 uint32_t prealloc, struct kmem_cache *cache,
				 gfp_t gfp);

/*
 * qmempool_destroy - return every object the pool holds (localqs and
 * sharedqs) to the slab and free the pool. Objects still handed out belong
 * to @pool->cache: free them with kmem_cache_free(); the number is
 * reported. No CPU may use the pool during or after the call. NULL ok.
 */
void qmempool_destroy(struct qmempool *pool);

/* Slow paths, out of line (qmempool.c). __qmempool_free_slow: the localq
 * is full, or the pool has several nodes; __qmempool_free_checked: NULL,
 * the debug checks or the trace point first. */
void *__qmempool_alloc_slow(struct qmempool *pool, struct qmempool_cpu *pc,
			    gfp_t gfp);
void __qmempool_free_slow(struct qmempool *pool, struct qmempool_cpu *pc,
			  void *obj);
void __qmempool_free_checked(struct qmempool *pool, struct qmempool_cpu *pc,
			     void *obj, void *caller);
/* fail_qmempool: counted in alloc_fail; returns NULL. */
void *__qmempool_alloc_injected(struct qmempool_cpu *pc);
/* The mm class traces: the same allocation, recorded with @caller. */
void *__qmempool_alloc_traced(struct qmempool *pool, gfp_t gfp, void *caller);

/* Count events on this CPU's counter: only this CPU writes it, with
 * mm_cpu_counter_add (no locked instruction, interrupt-safe). */
static inline void qmempool_count(atomic_ulong *c, unsigned long n)
{
	mm_cpu_counter_add(c, n);
}

/* qmempool_alloc_softirq's whole work, traced or not (below). */
static inline void *__qmempool_alloc(struct qmempool *pool, gfp_t gfp)
{
	/* The index as unsigned long: as a plain int, GCC 12 computed this
	 * CPU's slot twice (once sign-extended, once not) in both fast paths,
	 * 41 guest instructions per alloc+free instead of 35. */
	struct qmempool_cpu *pc = &pool->cpu[(unsigned long)mm_this_cpu()];
	/* Only this CPU touches its localq (see the contexts above). */
	uint32_t n = atomic_load_explicit(&pc->count, memory_order_relaxed);
	void **objs = pc->objs;

	if (mm_unlikely(mm_fault_should_fail(MM_FAULT_QMEMPOOL)))
		return __qmempool_alloc_injected(pc);
	if (mm_likely(n != 0)) {
		atomic_store_explicit(&pc->count, n - 1, memory_order_relaxed);
		qmempool_count(&pc->localq_hit, 1);
		return objs[n - 1];
	}
	return __qmempool_alloc_slow(pool, pc, gfp);
}

/*
 * qmempool_alloc_softirq - one object, for poll context (no interrupt
 * masking; see the contexts above). @gfp is used if the slab must refill.
 * Returns the object or NULL (slab out of memory; counted in alloc_fail).
 */
static inline void *qmempool_alloc_softirq(struct qmempool *pool, gfp_t gfp)
{
	if (mm_unlikely(mm_tracing()))
		return __qmempool_alloc_traced(pool, gfp,
					       __builtin_return_address(0));
	return __qmempool_alloc(pool, gfp);
}

/*
 * qmempool_free_softirq - give @obj back, from poll context (no masking).
 * @obj must come from @pool (or from @pool->cache); NULL is ignored.
 * An object of another node goes to that node's sharedq. In debug builds,
 * an object that is not from the pool's cache is reported and refused.
 */
static inline void qmempool_free_softirq(struct qmempool *pool, void *obj)
{
	struct qmempool_cpu *pc = &pool->cpu[(unsigned long)mm_this_cpu()];
	uint32_t n;

	if (mm_unlikely(mm_debug_on() || mm_tracing() || !obj)) {
		__qmempool_free_checked(pool, pc, obj,
					__builtin_return_address(0));
		return;
	}
	n = atomic_load_explicit(&pc->count, memory_order_relaxed);
	if (mm_likely(n < pc->push_limit)) {
		pc->objs[n] = obj;
		atomic_store_explicit(&pc->count, n + 1, memory_order_relaxed);
		return;
	}
	__qmempool_free_slow(pool, pc, obj);
}

/*
 * qmempool_alloc - one object, from any context (interrupts are masked
 * around the per-CPU part). Returns the object or NULL (counted).
 */
static inline void *qmempool_alloc(struct qmempool *pool, gfp_t gfp)
{
	unsigned long flags = mm_irq_save();
	void *obj = qmempool_alloc_softirq(pool, gfp);

	mm_irq_restore(flags);
	return obj;
}

/* qmempool_free - give @obj back, from any context. NULL is ignored. */
static inline void qmempool_free(struct qmempool *pool, void *obj)
{
	unsigned long flags = mm_irq_save();

	qmempool_free_softirq(pool, obj);
	mm_irq_restore(flags);
}

/*
 * qmempool_localq_count - objects in @pc's localq now. Any context (a
 * relaxed read: exact when that CPU is quiet).
 */
static inline uint32_t qmempool_localq_count(const struct qmempool_cpu *pc)
{
	return atomic_load_explicit(&pc->count, memory_order_relaxed);
}

/*
 * qmempool_stats - every pool, one line (text) or one object keyed
 * "qmempool<id>" (JSON) each: cache, object size, queue sizes, objects now
 * in the localqs (JSON: also per CPU, "in_localq_cpu") and in each node's
 * sharedq, objects handed out, and the
 * counters summed over CPUs: alloc, localq_hit, sharedq_refill,
 * slab_refill, sharedq_spill, slab_free, remote_free, alloc_fail, slab_in.
 * snprintf semantics. qmempool_schema describes every member of a
 * pool's JSON object (libc/stat_table.h).
 * Any context; counters are read without stopping other CPUs.
 */
int qmempool_stats_text(char *buf, size_t size);
int qmempool_stats_json(char *buf, size_t size);
struct stat_schema;
extern const struct stat_schema qmempool_schema;

/*
 * qmempool_get_stats - a snapshot of one pool: counters summed over CPUs
 * and the objects now held. Any context (relaxed reads: approximate while
 * other CPUs use the pool, exact when they are quiet).
 */
struct qmempool_stats {
	unsigned long alloc; /* localq_hit + allocations after a refill */
	unsigned long localq_hit, sharedq_refill, slab_refill;
	unsigned long sharedq_spill, slab_free, remote_free, alloc_fail;
	unsigned long slab_in; /* objects ever taken from the slab */
	/* Handed out now: slab_in - slab_free - objects in the queues
	 * (exact only when no CPU is using the pool). */
	long outstanding;
	unsigned long in_localq;		/* all CPUs */
	unsigned long in_sharedq[MM_MAX_NODES]; /* per node */
};
void qmempool_get_stats(const struct qmempool *pool,
			struct qmempool_stats *out);

/*
 * qmempool_shrink_all - give every pool's cached objects (this CPU's
 * localq, every node's sharedq) back to their slab caches, so that
 * kmem_cache_shrink_all() can then return whole slabs to the page
 * allocator: the memory-pressure path, when a NIC cannot refill its
 * ring. Every other CPU is asked to give its localqs back at its next
 * qmempool_shrink_poll() (only a localq's owner may touch it). Poll
 * context on any CPU. A pool refills from the slab on its next miss.
 * Returns the objects given back now (the other CPUs' follow, counted
 * in their slab_free).
 */
unsigned long qmempool_shrink_all(void);

/*
 * qmempool_shrink_poll - if qmempool_shrink_all() asked since this CPU
 * last looked, give this CPU's localqs of every pool back to the slab.
 * For the poll loop, once per round: when nothing was asked it is one
 * load and a compare. Poll context. Returns the objects given back.
 */
unsigned long qmempool_shrink_poll(void);

/*
 * qmempool_forget_all - drop the registry without freeing anything. Only
 * for a new machine: mm_init() calls it (the host's previous machine and
 * its memory are gone by then).
 */
void qmempool_forget_all(void);

#endif /* MM_QMEMPOOL_H */
