/*
 * qmempool: creation and destruction, the slow paths (refill from the
 * node's sharedq or the slab, spill to the sharedq or the slab, frees of
 * another node's objects, debug checks) and the statistics. The fast paths
 * and the picture of the design are in qmempool.h.
 *
 * The one rule every slow path keeps: an object that does not fit where it
 * should go moves one level down (localq -> sharedq -> slab). The slab
 * always takes an object back, so no path can lose one; that is what
 * replaces the RFC's BUG_ON()s.
 */
#include "qmempool.h"
#include "debug.h"
#include "page_alloc.h"
#include "libc/stat_table.h"

/* Registry of live pools, for the statistics. */
static struct list_head qmp_pools = LIST_HEAD_INIT(qmp_pools);
static mm_spinlock_t qmp_lock = MM_SPINLOCK_INIT;
static unsigned int qmp_next_id;

/*
 * Shrink requests to the other CPUs: only a localq's owner may touch it,
 * so qmempool_shrink_all() bumps a generation and every CPU, when its
 * poll loop next calls qmempool_shrink_poll(), empties its own localqs
 * if it has not seen that generation yet. The check is one load and a
 * compare per poll round on a line that changes only per request.
 */
static atomic_uint qmp_shrink_gen;
static atomic_uint qmp_shrink_seen[MM_MAX_CPUS];

/* Trace points (mm_trace.h): pool is the pool's id ("qmempool<id>"). */
TRACE_EVENT(ev_qmp_alloc, TRACE_MM, "qmempool_alloc", {"obj", TRACE_HEX},
	    {"caller", TRACE_SYM}, {"cache", TRACE_STR}, {"pool", TRACE_DEC});
TRACE_EVENT(ev_qmp_free, TRACE_MM, "qmempool_free", {"obj", TRACE_HEX},
	    {"caller", TRACE_SYM}, {"cache", TRACE_STR}, {"pool", TRACE_DEC});
TRACE_EVENT(ev_qmp_refill, TRACE_MM, "qmempool_refill", {"objects", TRACE_DEC},
	    {"from", TRACE_STR}, {"cache", TRACE_STR}, {"pool", TRACE_DEC});
TRACE_EVENT(ev_qmp_spill, TRACE_MM, "qmempool_spill", {"objects", TRACE_DEC},
	    {"to", TRACE_STR}, {"cache", TRACE_STR}, {"pool", TRACE_DEC});
TRACE_EVENT(ev_qmp_remote_free, TRACE_MM, "qmempool_remote_free",
	    {"obj", TRACE_HEX}, {"node", TRACE_DEC}, {"cache", TRACE_STR},
	    {"pool", TRACE_DEC});

static uintptr_t qmp_name(const struct qmempool *pool)
{
	return (uintptr_t)kmem_cache_name(pool->cache);
}

/* ---- slow paths ------------------------------------------------------ */

/*
 * Give @n objects to node @nid's sharedq in one CAS, or, if it is full
 * (another CPU spilled first), straight back to the slab.
 */
static void qmp_spill(struct qmempool *pool, struct qmempool_cpu *pc, int nid,
		      void **objs, unsigned int n)
{
	if (alf_mp_enqueue(pool->sharedq[nid], objs, n) == n) {
		qmempool_count(&pc->sharedq_spill, 1);
		mm_trace(&ev_qmp_spill, n, (uintptr_t) "sharedq",
			 qmp_name(pool), pool->id);
		return;
	}
	mm_trace(&ev_qmp_spill, n, (uintptr_t) "slab", qmp_name(pool),
		 pool->id);
	kmem_cache_free_bulk(pool->cache, n, objs);
	qmempool_count(&pc->slab_free, n);
}

/*
 * A bulk from the slab straight into the empty localq, of this node's
 * objects only (__GFP_THISNODE, one cheap try for new slabs): the localq
 * must hold only this CPU's node's objects. kmem_cache_alloc_bulk() is
 * all-or-nothing, so a 0 means this node is short, not that memory is
 * gone: one object may still be there, here or on another node, and
 * handing it out beats failing (the RFC's "slab returned fewer" case).
 * That single object goes to the caller alone (*single), so a remote one
 * is never cached. Returns the objects now in the localq.
 */
static unsigned int qmp_slab_refill(struct qmempool *pool,
				    struct qmempool_cpu *pc, gfp_t gfp,
				    void **single)
{
	size_t got = kmem_cache_alloc_bulk(pool->cache,
					   gfp | __GFP_THISNODE |
						   __GFP_NORETRY | __GFP_NOWARN,
					   pool->bulk, pc->objs);

	*single = got ? NULL : kmem_cache_alloc(pool->cache, gfp);
	if (got || *single) {
		qmempool_count(&pc->slab_refill, 1);
		qmempool_count(&pc->slab_in, got ? got : 1);
	}
	return (unsigned int)got;
}

/*
 * The localq was empty: refill a bulk from this node's sharedq, else from
 * the slab, copied straight into the localq's array; return the top one.
 * Only this CPU fills its localq and it was empty, so the bulk fits.
 * Each call that returns an object counts one sharedq_refill or one
 * slab_refill, so the statistics derive these allocations from them
 * (a counter of its own cost 4 instructions per refill on the host).
 */
void *__qmempool_alloc_slow(struct qmempool *pool, struct qmempool_cpu *pc,
			    gfp_t gfp)
{
	void *single = NULL;
	unsigned int n;

	n = alf_mc_dequeue(pool->sharedq[pc->nid], pc->objs, pool->bulk);
	if (n) {
		qmempool_count(&pc->sharedq_refill, 1);
		mm_trace(&ev_qmp_refill, n, (uintptr_t) "sharedq",
			 qmp_name(pool), pool->id);
	} else {
		n = qmp_slab_refill(pool, pc, gfp, &single);
		mm_trace(&ev_qmp_refill, n, (uintptr_t) "slab", qmp_name(pool),
			 pool->id);
	}
	if (mm_unlikely(!n)) {
		if (!single) {
			qmempool_count(&pc->alloc_fail, 1);
			return NULL;
		}
		return single;
	}
	atomic_store_explicit(&pc->count, n - 1, memory_order_relaxed);
	return pc->objs[n - 1];
}

/* The mm class traces (qmempool_alloc_softirq): the same allocation. */
__attribute__((noinline)) void *__qmempool_alloc_traced(struct qmempool *pool,
							gfp_t gfp, void *caller)
{
	void *obj = __qmempool_alloc(pool, gfp);

	mm_trace(&ev_qmp_alloc, (uintptr_t)obj, (uintptr_t)caller,
		 qmp_name(pool), pool->id);
	return obj;
}

/* fail_qmempool: the caller sees what an exhausted slab would give it. */
__attribute__((noinline)) void *
__qmempool_alloc_injected(struct qmempool_cpu *pc)
{
	qmempool_count(&pc->alloc_fail, 1);
	return NULL;
}

/*
 * The localq was full: move its top bulk (the most recently freed half)
 * to the node's sharedq (or the slab), straight out of the array, and
 * push @obj. The bottom half stays: moving the bottom instead would keep
 * the cache-hot top but cost a slide of the rest, one memmove per bulk
 * (the kernel's libc moves 8 bytes per loop turn: 6 guest instructions
 * per object of N(256)); a spill follows a burst of frees larger than
 * half the localq, whose objects are rarely all still cached. DPDK's
 * mempool cache flushes its top the same way.
 */
static inline __attribute__((always_inline)) void
qmp_spill_push(struct qmempool *pool, struct qmempool_cpu *pc, void *obj)
{
	uint32_t n = atomic_load_explicit(&pc->count, memory_order_relaxed);
	uint32_t b = pool->bulk;

	qmp_spill(pool, pc, pc->nid, pc->objs + n - b, b);
	pc->objs[n - b] = obj;
	atomic_store_explicit(&pc->count, n - b + 1, memory_order_relaxed);
}

/*
 * A free of @obj on a pool of several nodes: an object of another node
 * goes to its own node's sharedq (one CAS) or, if that is full, back to
 * the slab, which returns it to its node too; one of this CPU's node is
 * pushed (spilling first if the localq is full).
 */
static void qmp_free_numa(struct qmempool *pool, struct qmempool_cpu *pc,
			  void *obj)
{
	int nid = page_to_nid(virt_to_page(obj));
	uint32_t n;

	if (mm_unlikely(nid != pc->nid)) {
		qmempool_count(&pc->remote_free, 1);
		mm_trace(&ev_qmp_remote_free, (uintptr_t)obj, (uint32_t)nid,
			 qmp_name(pool), pool->id);
		if (alf_mp_enqueue(pool->sharedq[nid], &obj, 1) != 1) {
			kmem_cache_free(pool->cache, obj);
			qmempool_count(&pc->slab_free, 1);
		}
		return;
	}
	n = atomic_load_explicit(&pc->count, memory_order_relaxed);
	if (mm_likely(n < pool->localq_sz)) {
		pc->objs[n] = obj;
		atomic_store_explicit(&pc->count, n + 1, memory_order_relaxed);
		return;
	}
	qmp_spill_push(pool, pc, obj);
}

void __qmempool_free_slow(struct qmempool *pool, struct qmempool_cpu *pc,
			  void *obj)
{
	if (pool->nr_nodes > 1)
		qmp_free_numa(pool, pc, obj);
	else
		qmp_spill_push(pool, pc, obj);
}

/* Debug: is @obj an object of the pool's cache? Reports if not. */
static bool qmp_obj_ok(struct qmempool *pool, void *obj, void *caller)
{
	struct page *page = virt_to_head_page(obj);

	if (page && (page->flags & PG_slab) && page->slab_cache == pool->cache)
		return true;
	mm_debug_report(MM_DBG_OTHER, caller,
			"qmempool_free: %p is not an object of cache %s "
			"(pool qmempool%u); not taken",
			obj, kmem_cache_name(pool->cache), pool->id);
	return false;
}

/*
 * The free path for NULL, for the debug checks and for the trace point: a
 * refused object goes nowhere; the rest takes the ordinary path.
 */
void __qmempool_free_checked(struct qmempool *pool, struct qmempool_cpu *pc,
			     void *obj, void *caller)
{
	uint32_t n;

	if (!obj)
		return;
	if (mm_debug_on() && !qmp_obj_ok(pool, obj, caller))
		return;
	mm_trace(&ev_qmp_free, (uintptr_t)obj, (uintptr_t)caller,
		 qmp_name(pool), pool->id);
	n = atomic_load_explicit(&pc->count, memory_order_relaxed);
	if (n < pc->push_limit) {
		pc->objs[n] = obj;
		atomic_store_explicit(&pc->count, n + 1, memory_order_relaxed);
		return;
	}
	__qmempool_free_slow(pool, pc, obj);
}

/* ---- creation and destruction -------------------------------------- */

/* A queue size the pool accepts, or a message saying why not. */
static bool qmp_qsz_ok(uint32_t sz, uint32_t min, const char *what)
{
	if (sz >= min && sz <= QMEMPOOL_MAX_QSZ && (sz & (sz - 1)) == 0)
		return true;
	mm_printf("qmempool_create: %s %u refused: must be a power of two "
		  "in [%u, %u]\n",
		  what, sz, min, (unsigned int)QMEMPOOL_MAX_QSZ);
	return false;
}

static bool qmp_args_ok(uint32_t localq_sz, uint32_t sharedq_sz,
			uint32_t prealloc, struct kmem_cache *cache)
{
	if (!cache) {
		mm_printf("qmempool_create: no kmem_cache given\n");
		return false;
	}
	if (!qmp_qsz_ok(localq_sz, QMEMPOOL_BULK, "localq_sz") ||
	    !qmp_qsz_ok(sharedq_sz, QMEMPOOL_BULK * QMEMPOOL_REFILL_MULTIPLIER,
			"sharedq_sz"))
		return false;
	if (prealloc > sharedq_sz) {
		mm_printf("qmempool_create: prealloc %u refused: more than "
			  "sharedq_sz %u can hold\n",
			  prealloc, sharedq_sz);
		return false;
	}
	return true;
}

/*
 * Objects per refill and spill: half the localq, so that either leaves it
 * half full, but at most half the sharedq, so that two CPUs' bulks fit it
 * (QMEMPOOL_REFILL_MULTIPLIER), and at least QMEMPOOL_BULK, the whole of
 * the smallest localq. The bigger the bulk, the fewer CAS per object.
 */
static uint32_t qmp_bulk(uint32_t localq_sz, uint32_t sharedq_sz)
{
	uint32_t b = localq_sz / 2;

	if (b > sharedq_sz / QMEMPOOL_REFILL_MULTIPLIER)
		b = sharedq_sz / QMEMPOOL_REFILL_MULTIPLIER;
	return b < QMEMPOOL_BULK ? QMEMPOOL_BULK : b;
}

/* Give every object in @pc's localq back to the slab; returns how many. */
static unsigned long qmp_drain_localq(struct qmempool *pool,
				      struct qmempool_cpu *pc)
{
	uint32_t n = atomic_load_explicit(&pc->count, memory_order_relaxed);

	if (!pc->objs || !n)
		return 0;
	kmem_cache_free_bulk(pool->cache, n, pc->objs);
	atomic_store_explicit(&pc->count, 0, memory_order_relaxed);
	return n;
}

/* Give every object in @q back to the slab; returns how many. */
static unsigned long qmp_drain(struct qmempool *pool, struct alf_queue *q)
{
	void *objs[QMEMPOOL_BULK];
	unsigned long total = 0;
	unsigned int n;

	if (!q)
		return 0;
	while ((n = alf_mc_dequeue(q, objs, QMEMPOOL_BULK)) != 0) {
		kmem_cache_free_bulk(pool->cache, n, objs);
		total += n;
	}
	return total;
}

/* Drain and free every queue (also of a half-built pool) and the pool. */
static unsigned long qmp_teardown(struct qmempool *pool)
{
	unsigned long n = 0;

	for (int cpu = 0; cpu < pool->nr_cpus; cpu++) {
		n += qmp_drain_localq(pool, &pool->cpu[cpu]);
		kfree(pool->cpu[cpu].objs);
	}
	for (int nid = 0; nid < pool->nr_nodes; nid++) {
		n += qmp_drain(pool, pool->sharedq[nid]);
		alf_queue_free(pool->sharedq[nid]);
	}
	kfree(pool);
	return n;
}

static bool qmp_make_queues(struct qmempool *pool)
{
	for (int nid = 0; nid < pool->nr_nodes; nid++) {
		pool->sharedq[nid] = alf_queue_alloc_node(pool->sharedq_sz, 0,
							  pool->gfp, nid);
		if (!pool->sharedq[nid])
			return false;
	}
	for (int cpu = 0; cpu < pool->nr_cpus; cpu++) {
		struct qmempool_cpu *pc = &pool->cpu[cpu];

		pc->nid = cpu_to_mem(cpu); /* nearest memory if none */
		pc->push_limit = pool->nr_nodes > 1 ? 0 : pool->localq_sz;
		pc->objs = kmalloc_node(pool->localq_sz * sizeof(void *),
					pool->gfp & ~__GFP_ZERO, pc->nid);
		if (!pc->objs)
			return false;
	}
	return true;
}

/*
 * Put @prealloc objects of each node into that node's sharedq. An object
 * the slab had to take from another node goes to that node's sharedq (or
 * back to the slab if it is full), so every sharedq holds only its own.
 */
static bool qmp_prealloc(struct qmempool *pool)
{
	for (int nid = 0; nid < pool->nr_nodes; nid++) {
		for (uint32_t i = 0; i < pool->prealloc; i++) {
			void *obj = kmem_cache_alloc_node(pool->cache,
							  pool->gfp, nid);
			int on;

			if (!obj)
				return false;
			on = page_to_nid(virt_to_page(obj));
			if (alf_mp_enqueue(pool->sharedq[on], &obj, 1) == 1)
				pool->prealloc_in++;
			else
				kmem_cache_free(pool->cache, obj);
		}
	}
	return true;
}

struct qmempool *qmempool_create(uint32_t localq_sz, uint32_t sharedq_sz,
				 uint32_t prealloc, struct kmem_cache *cache,
				 gfp_t gfp)
{
	int nr_cpus = mm_nr_cpus();
	struct qmempool *pool;
	unsigned long flags;

	if (!qmp_args_ok(localq_sz, sharedq_sz, prealloc, cache))
		return NULL;
	pool = kmalloc(sizeof(*pool) + (size_t)nr_cpus * sizeof(pool->cpu[0]),
		       gfp | __GFP_ZERO);
	if (!pool || (uintptr_t)pool % MM_CACHE_LINE) {
		mm_printf("qmempool_create: no memory for the pool\n");
		kfree(pool);
		return NULL;
	}
	*pool = (struct qmempool){.cache = cache,
				  .gfp = gfp,
				  .localq_sz = localq_sz,
				  .sharedq_sz = sharedq_sz,
				  .prealloc = prealloc,
				  .bulk = qmp_bulk(localq_sz, sharedq_sz),
				  .nr_cpus = nr_cpus,
				  .nr_nodes = mm_nr_nodes()};
	if (!qmp_make_queues(pool) || !qmp_prealloc(pool)) {
		mm_printf("qmempool_create: out of memory for the queues or "
			  "the %u preallocated objects per node\n",
			  prealloc);
		qmp_teardown(pool);
		return NULL;
	}
	flags = mm_spin_lock_irqsave(&qmp_lock);
	pool->id = qmp_next_id++;
	list_add_tail(&pool->list, &qmp_pools);
	mm_spin_unlock_irqrestore(&qmp_lock, flags);
	return pool;
}

void qmempool_destroy(struct qmempool *pool)
{
	struct qmempool_stats st;
	unsigned long flags;

	if (!pool)
		return;
	flags = mm_spin_lock_irqsave(&qmp_lock);
	list_del(&pool->list);
	mm_spin_unlock_irqrestore(&qmp_lock, flags);
	qmempool_get_stats(pool, &st);
	if (st.outstanding)
		mm_printf("qmempool_destroy: qmempool%u: %ld objects still "
			  "handed out; free them with kmem_cache_free(%s)\n",
			  pool->id, st.outstanding,
			  kmem_cache_name(pool->cache));
	qmp_teardown(pool);
}

void qmempool_forget_all(void)
{
	unsigned long flags = mm_spin_lock_irqsave(&qmp_lock);

	list_init(&qmp_pools);
	qmp_next_id = 0;
	atomic_store_explicit(&qmp_shrink_gen, 0, memory_order_relaxed);
	for (int cpu = 0; cpu < MM_MAX_CPUS; cpu++)
		atomic_store_explicit(&qmp_shrink_seen[cpu], 0,
				      memory_order_relaxed);
	mm_spin_unlock_irqrestore(&qmp_lock, flags);
}

/* Give @pc's localq (this CPU's) back to the slab, interrupts masked: the
 * any-context calls use it too. Returns the objects freed. */
static unsigned long qmp_shrink_localq(struct qmempool *pool,
				       struct qmempool_cpu *pc)
{
	unsigned long flags = mm_irq_save();
	uint32_t n = atomic_load_explicit(&pc->count, memory_order_relaxed);

	if (n) {
		atomic_store_explicit(&pc->count, 0, memory_order_relaxed);
		kmem_cache_free_bulk(pool->cache, n, pc->objs);
		qmempool_count(&pc->slab_free, n);
	}
	mm_irq_restore(flags);
	return n;
}

/*
 * Give one pool's cached objects back to its slab cache: this CPU's
 * localq and every node's sharedq (MC dequeues, safe against other
 * CPUs). Other CPUs' localqs follow at their next qmempool_shrink_poll().
 */
static unsigned long qmp_shrink(struct qmempool *pool)
{
	struct qmempool_cpu *pc = &pool->cpu[mm_this_cpu()];
	unsigned long freed = qmp_shrink_localq(pool, pc), q = 0;
	void *objs[QMEMPOOL_BULK];
	unsigned int n;

	for (int nid = 0; nid < pool->nr_nodes; nid++) {
		while ((n = alf_mc_dequeue(pool->sharedq[nid], objs,
					   QMEMPOOL_BULK)) != 0) {
			kmem_cache_free_bulk(pool->cache, n, objs);
			q += n;
		}
	}
	qmempool_count(&pc->slab_free, q);
	return freed + q;
}

unsigned long qmempool_shrink_all(void)
{
	unsigned long flags = mm_spin_lock_irqsave(&qmp_lock);
	unsigned long freed = 0;
	struct list_head *pos;
	unsigned int gen;

	/* Ask the others first, so that a CPU polling meanwhile already
	 * empties its localqs; this CPU does its own share right here. */
	gen = atomic_fetch_add_explicit(&qmp_shrink_gen, 1,
					memory_order_relaxed) +
	      1;
	atomic_store_explicit(&qmp_shrink_seen[mm_this_cpu()], gen,
			      memory_order_relaxed);
	list_for_each (pos, &qmp_pools)
		freed += qmp_shrink(list_entry(pos, struct qmempool, list));
	mm_spin_unlock_irqrestore(&qmp_lock, flags);
	return freed;
}

unsigned long qmempool_shrink_poll(void)
{
	int cpu = mm_this_cpu();
	unsigned int gen =
		atomic_load_explicit(&qmp_shrink_gen, memory_order_relaxed);
	unsigned long flags, freed = 0;
	struct list_head *pos;

	if (mm_likely(atomic_load_explicit(&qmp_shrink_seen[cpu],
					   memory_order_relaxed) == gen))
		return 0;
	/* Seen before the work: a request arriving during it is honoured
	 * at the next call. */
	atomic_store_explicit(&qmp_shrink_seen[cpu], gen, memory_order_relaxed);
	flags = mm_spin_lock_irqsave(&qmp_lock);
	list_for_each (pos, &qmp_pools) {
		struct qmempool *pool = list_entry(pos, struct qmempool, list);

		freed += qmp_shrink_localq(pool, &pool->cpu[cpu]);
	}
	mm_spin_unlock_irqrestore(&qmp_lock, flags);
	return freed;
}

/* ---- statistics ---------------------------------------------------- */

static unsigned long qmp_read(const atomic_ulong *c)
{
	return atomic_load_explicit(c, memory_order_relaxed);
}

void qmempool_get_stats(const struct qmempool *pool, struct qmempool_stats *o)
{
	unsigned long held;

	*o = (struct qmempool_stats){0};
	o->slab_in = pool->prealloc_in;
	for (int cpu = 0; cpu < pool->nr_cpus; cpu++) {
		const struct qmempool_cpu *pc = &pool->cpu[cpu];

		/* Every allocation the localq did not serve made exactly one
		 * sharedq or slab refill (the slab's lone object included). */
		o->alloc += qmp_read(&pc->localq_hit) +
			    qmp_read(&pc->sharedq_refill) +
			    qmp_read(&pc->slab_refill);
		o->slab_in += qmp_read(&pc->slab_in);
		o->localq_hit += qmp_read(&pc->localq_hit);
		o->sharedq_refill += qmp_read(&pc->sharedq_refill);
		o->slab_refill += qmp_read(&pc->slab_refill);
		o->sharedq_spill += qmp_read(&pc->sharedq_spill);
		o->slab_free += qmp_read(&pc->slab_free);
		o->remote_free += qmp_read(&pc->remote_free);
		o->alloc_fail += qmp_read(&pc->alloc_fail);
		o->in_localq += qmempool_localq_count(pc);
	}
	held = o->in_localq + o->slab_free;
	for (int nid = 0; nid < pool->nr_nodes; nid++) {
		o->in_sharedq[nid] = alf_queue_count(pool->sharedq[nid]);
		held += o->in_sharedq[nid];
	}
	o->outstanding = (long)(o->slab_in - held);
}

/*
 * What a pool is and holds (qmp_pool_stats, over a snapshot) and what it
 * did (qmp_counter_stats, over struct qmempool_stats): together every
 * member of a pool's JSON object; the text line prints the counters from
 * the second table after its own columns.
 */
struct qmp_snap {
	const char *cache;
	unsigned long object_size;
	uint32_t localq_size, sharedq_size, prealloc;
	unsigned long in_localq, in_sharedq[MM_MAX_NODES];
	uint32_t in_localq_cpu[MM_MAX_CPUS];
	int nr_nodes, nr_cpus;
};
static const struct stat_desc qmp_pool_stats[] = {
	STAT_INFO_AT(struct qmp_snap, cache, "",
		     "the slab cache behind the pool"),
	STAT_INFO_AT(struct qmp_snap, object_size, "bytes", "object size"),
	STAT_INFO_AT(struct qmp_snap, localq_size, "objects",
		     "objects each CPU's localq holds"),
	STAT_INFO_AT(struct qmp_snap, sharedq_size, "objects",
		     "objects each node's sharedq holds"),
	STAT_INFO_AT(struct qmp_snap, prealloc, "objects",
		     "objects put in each sharedq at creation"),
	STAT_GAUGE_AT(struct qmp_snap, in_localq, "objects",
		      "objects in the localqs, all CPUs"),
	STAT_ARRAY_N(struct qmp_snap, in_sharedq, nr_nodes, STAT_KIND_GAUGE,
		     "node", "objects", "objects in each node's sharedq"),
	STAT_ARRAY_N(struct qmp_snap, in_localq_cpu, nr_cpus, STAT_KIND_GAUGE,
		     "cpu", "objects", "objects in each CPU's localq"),
};
#define QMP_COUNTER(f, l) \
	STAT_COUNTER_AT(struct qmempool_stats, f, "objects", l)
static const struct stat_desc qmp_counter_stats[] = {
	QMP_COUNTER(alloc, "objects handed out"),
	QMP_COUNTER(localq_hit, "allocations the CPU's localq served"),
	QMP_COUNTER(sharedq_refill, "allocations after a refill from the "
				    "node's sharedq"),
	QMP_COUNTER(slab_refill, "allocations after a refill from the slab"),
	QMP_COUNTER(sharedq_spill, "frees that spilled to the sharedq"),
	QMP_COUNTER(slab_free, "objects given back to the slab"),
	QMP_COUNTER(remote_free, "frees of another node's objects"),
	QMP_COUNTER(alloc_fail, "allocations that failed"),
	QMP_COUNTER(slab_in, "objects ever taken from the slab"),
	STAT_GAUGE_AT(struct qmempool_stats, outstanding, "objects",
		      "objects handed out now"),
};
static const struct stat_group qmp_groups[] = {
	STAT_GROUP("*", qmp_pool_stats),
	STAT_GROUP("*", qmp_counter_stats),
};
const struct stat_schema qmempool_schema = STAT_SCHEMA(qmp_groups);

static void qmp_snapshot(const struct qmempool *pool,
			 const struct qmempool_stats *st, struct qmp_snap *o)
{
	*o = (struct qmp_snap){
		.cache = kmem_cache_name(pool->cache),
		.object_size = (unsigned long)kmem_cache_size(pool->cache),
		.localq_size = pool->localq_sz,
		.sharedq_size = pool->sharedq_sz,
		.prealloc = pool->prealloc,
		.in_localq = st->in_localq,
		.nr_nodes = pool->nr_nodes,
		.nr_cpus = pool->nr_cpus,
	};
	for (int nid = 0; nid < pool->nr_nodes; nid++)
		o->in_sharedq[nid] = st->in_sharedq[nid];
	for (int cpu = 0; cpu < pool->nr_cpus; cpu++)
		o->in_localq_cpu[cpu] = qmempool_localq_count(&pool->cpu[cpu]);
}

static void qmp_text_pool(struct strbuf *b, const struct qmempool *pool)
{
	struct qmempool_stats st;

	qmempool_get_stats(pool, &st);
	strbuf_printf(b, "qmempool%-4u %-16s %7lu %6u %7u %9lu ", pool->id,
		      kmem_cache_name(pool->cache),
		      (unsigned long)kmem_cache_size(pool->cache),
		      pool->localq_sz, pool->sharedq_sz, st.in_localq);
	for (int nid = 0; nid < pool->nr_nodes; nid++)
		strbuf_printf(b, "%s%lu", nid ? "/" : "", st.in_sharedq[nid]);
	stat_text_pairs(b, qmp_counter_stats, STAT_TABLE_LEN(qmp_counter_stats),
			&st);
	strbuf_printf(b, "\n");
}

int qmempool_stats_text(char *buf, size_t size)
{
	struct strbuf b;
	struct list_head *pos;
	unsigned long flags;

	strbuf_init(&b, buf, size);
	strbuf_printf(&b, "# pool        cache            objsize localq "
			  "sharedq in_localq in_sharedq(per node) counters\n");
	flags = mm_spin_lock_irqsave(&qmp_lock);
	list_for_each (pos, &qmp_pools)
		qmp_text_pool(&b, list_entry(pos, struct qmempool, list));
	mm_spin_unlock_irqrestore(&qmp_lock, flags);
	return strbuf_done(&b);
}

static void qmp_json_pool(struct strbuf *b, const struct qmempool *pool)
{
	struct qmempool_stats st;
	struct qmp_snap o;

	qmempool_get_stats(pool, &st);
	qmp_snapshot(pool, &st, &o);
	strbuf_printf(b, "\"qmempool%u\":{", pool->id);
	stat_json_members(b, qmp_pool_stats, STAT_TABLE_LEN(qmp_pool_stats),
			  &o);
	strbuf_printf(b, ",");
	stat_json_members(b, qmp_counter_stats,
			  STAT_TABLE_LEN(qmp_counter_stats), &st);
	strbuf_printf(b, "}");
}

int qmempool_stats_json(char *buf, size_t size)
{
	struct strbuf b;
	struct list_head *pos;
	unsigned long flags;
	bool first = true;

	strbuf_init(&b, buf, size);
	strbuf_printf(&b, "{");
	flags = mm_spin_lock_irqsave(&qmp_lock);
	list_for_each (pos, &qmp_pools) {
		strbuf_printf(&b, "%s", first ? "" : ",");
		qmp_json_pool(&b, list_entry(pos, struct qmempool, list));
		first = false;
	}
	mm_spin_unlock_irqrestore(&qmp_lock, flags);
	strbuf_printf(&b, "}");
	return strbuf_done(&b);
}
