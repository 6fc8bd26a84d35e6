/*
 * Lab slab: a slab allocator with a per-CPU magazine (docs/labs/slab.md).
 * This file replaces mm/slab.c in the host library when you run
 * make lab-slab; your copy is in labs/work/.
 *
 *   kmem_cache_alloc/free
 *        |  fast path: this CPU's magazine, a stack of free object
 *        |  pointers (slab_internal.h: slab_alloc, slab_free), no lock
 *        v
 *   node lists (per cache, per node, one spinlock): partial, full, empty
 *        |  slow path: refill / flush a batch of the magazine at a time
 *        v
 *   page allocator: slabs of 2^order pages, one node each
 *
 * A slab is a page block carved into s->objects objects; its struct page
 * keeps the free ones on page->freelist, linked through a pointer in each
 * free object (obj_fp), and counts those handed out in page->inuse. A slab
 * sits on one of its node's lists: empty (inuse 0), partial, or full.
 *
 * You write the four functions marked LAB_TODO (the rest is given):
 *  - take_from_slab, put_to_slab: one slab's freelist and which list the
 *    slab is on, with the node's counters;
 *  - cpu_refill: an empty magazine takes c->batch objects from its node;
 *  - __cpu_flush: a full magazine gives its n oldest objects back.
 */
#include <string.h>

#include "fault_inject.h"
#include "lab_todo.h"
#include "slab_internal.h"

struct list_head slab_caches = LIST_HEAD_INIT(slab_caches);
mm_spinlock_t slab_caches_lock = MM_SPINLOCK_INIT;

/* Given: trace points (mm_trace.h) of what the given code does. kmalloc's
 * small sizes are these events of its caches (kmalloc-64, ...). */
TRACE_EVENT(ev_slab_alloc, TRACE_MM, "slab_alloc", {"obj", TRACE_HEX},
	    {"caller", TRACE_SYM}, {"cache", TRACE_STR}, {"size", TRACE_DEC});
TRACE_EVENT(ev_slab_free, TRACE_MM, "slab_free", {"obj", TRACE_HEX},
	    {"caller", TRACE_SYM}, {"cache", TRACE_STR}, {"size", TRACE_DEC});
TRACE_EVENT(ev_slab_remote_free, TRACE_MM, "slab_remote_free",
	    {"obj", TRACE_HEX}, {"caller", TRACE_SYM}, {"cache", TRACE_STR},
	    {"node", TRACE_DEC});

static void trace_obj(const struct trace_desc *ev, const struct kmem_cache *s,
		      const void *obj, const void *caller)
{
	mm_trace(ev, (uintptr_t)obj, (uintptr_t)caller, (uintptr_t)s->name,
		 s->object_size);
}

/* ---------------------------------------------------------------------
 * Slabs: carving a page block into objects, and giving it back.
 */

static struct page *slab_new(struct kmem_cache *s, int nid, gfp_t gfp)
{
	gfp_t pgfp = (gfp & (__GFP_THISNODE | __GFP_NORETRY | __GFP_ATOMIC)) |
		     __GFP_NOWARN | (s->order ? __GFP_COMP : 0);
	struct page *page = alloc_pages_node(nid, pgfp, s->order);
	if (!page)
		return NULL;

	char *base = page_address(page);
	void *prev = NULL;
	/* Link back to front so the freelist hands out objects in address
	 * order (friendlier to the prefetcher on a fresh slab). */
	for (unsigned int i = s->objects; i-- > 0;) {
		void *obj = base + (size_t)i * s->stride + s->obj_offset;
		if (cache_debug(s))
			slab_debug_init_object(s, obj);
		if (s->ctor)
			s->ctor(obj);
		*obj_fp(s, obj) = prev;
		prev = obj;
	}
	page->flags |= PG_slab;
	page->slab_cache = s;
	page->freelist = prev;
	page->inuse = 0;
	page->objects = (uint16_t)s->objects;
	return page;
}

/* The slab fields go back to 0 here, the only place a slab page leaves
 * the slab: the page allocator's fast path hands pages out without
 * clearing freelist, inuse and objects (mm/page_alloc.c, prep_pcp_page). */
static void slab_discard(struct page *page, unsigned int order)
{
	page->flags &= (uint16_t)~PG_slab;
	page->slab_cache = NULL;
	page->freelist = NULL;
	page->inuse = 0;
	page->objects = 0;
	__free_pages(page, order);
}

/* Free every slab on list (already unlinked from its node), no lock held;
 * returns how many. */
unsigned int __slab_discard_list(struct kmem_cache *s, struct list_head *list)
{
	struct list_head *pos, *tmp;
	unsigned int n = 0;

	list_for_each_safe (pos, tmp, list) {
		struct page *page = list_entry(pos, struct page, lru);
		list_del(&page->lru);
		slab_discard(page, s->order);
		n++;
	}
	return n;
}

/* ---------------------------------------------------------------------
 * Node lists. Callers hold the interrupt guard; these take node locks.
 */

/*
 * take_from_slab - take up to n objects off page's freelist into out[],
 * node lock held. An empty slab leaves the empty list (kn->nr_empty), a
 * partial one is counted off kn->nr_partial; a full slab gives nothing.
 * Afterwards the slab is on kn->partial (objects left, counted) or on
 * kn->full; page->inuse and kn->free_objs follow. Returns how many.
 */
static size_t take_from_slab(struct kmem_cache *s, struct kmem_cache_node *kn,
			     struct page *page, size_t n, void **out)
{
	LAB_TODO("slab");
	(void)s;
	(void)kn;
	(void)page;
	(void)n;
	(void)out;
	return 0;
}

/* Take up to n objects from kn's partial slabs, then its empty reserve. */
static size_t take_from_node(struct kmem_cache *s, struct kmem_cache_node *kn,
			     size_t n, void **out)
{
	size_t got = 0;

	while (got < n) {
		struct list_head *l = !list_empty(&kn->partial) ? &kn->partial
				      : !list_empty(&kn->empty) ? &kn->empty
								: NULL;
		if (!l)
			break;
		struct page *page = list_first_entry(l, struct page, lru);
		size_t taken = take_from_slab(s, kn, page, n - got, out + got);
		/* Not in mm/slab.c: a slab first on partial or empty that gives
		 * nothing would be taken again forever (a drained slab belongs
		 * on the full list). */
		if (!taken)
			break;
		got += taken;
	}
	return got;
}

/* Put a new slab on its node's lists and take up to n objects from it. */
static size_t take_from_new_slab(struct kmem_cache *s, struct page *page,
				 size_t n, void **out)
{
	struct kmem_cache_node *kn = &s->node[page->nid];
	size_t got;

	mm_spin_lock(&kn->lock);
	list_add(&page->lru, &kn->empty);
	kn->nr_empty++;
	kn->nr_slabs++;
	kn->slab_allocs++;
	kn->free_objs += page->objects;
	got = take_from_slab(s, kn, page, n, out);
	mm_spin_unlock(&kn->lock);
	return got;
}

/*
 * __slab_take - move up to n free objects of node nid's slabs into out[],
 * allocating new slabs on node nid (__GFP_THISNODE) when its lists run dry:
 * every object taken is node nid's, so a magazine may hold them. One lock
 * acquisition for what the lists hold, one more per new slab. Add
 * __GFP_NORETRY for one cheap try of the node (no drain).
 * Caller holds the interrupt guard. Returns how many were taken.
 */
size_t __slab_take(struct kmem_cache *s, int nid, gfp_t gfp, size_t n,
		   void **out)
{
	struct kmem_cache_node *kn = &s->node[nid];
	size_t got;

	mm_spin_lock(&kn->lock);
	got = take_from_node(s, kn, n, out);
	mm_spin_unlock(&kn->lock);

	while (got < n) {
		struct page *page = slab_new(s, nid, gfp | __GFP_THISNODE);
		if (!page)
			break;
		got += take_from_new_slab(s, page, n - got, out + got);
	}
	return got;
}

/*
 * __slab_take_fallback - up to n objects for a caller whose node nid had
 * none (after __slab_take): from the other nodes' lists, nearest first,
 * then from new slabs wherever the page allocator's own rules for gfp put
 * them (other nodes, then a drain). __GFP_THISNODE and __GFP_NORETRY keep
 * it on node nid, as they keep the page allocator. The objects are the
 * caller's: they must never go into a magazine, which holds only its
 * node's objects. Guard held. Returns how many were taken.
 */
size_t __slab_take_fallback(struct kmem_cache *s, int nid, gfp_t gfp, size_t n,
			    void **out)
{
	bool other_nodes = !(gfp & (__GFP_THISNODE | __GFP_NORETRY));
	int order[MM_MAX_NODES];
	int nr = other_nodes ? numa_node_order(nid, order) : 0;
	size_t got = 0;

	for (int i = 1; i < nr && got < n; i++) {
		struct kmem_cache_node *kn = &s->node[order[i]];
		mm_spin_lock(&kn->lock);
		got += take_from_node(s, kn, n - got, out + got);
		mm_spin_unlock(&kn->lock);
	}
	while (got < n) {
		struct page *page = slab_new(s, nid, gfp);
		if (!page)
			break;
		got += take_from_new_slab(s, page, n - got, out + got);
	}
	return got;
}

/*
 * put_to_slab - obj back on its slab's freelist, node lock held; the
 * slab moves from full to the tail of partial, or, now unused, to the
 * empty list while it holds fewer than SLAB_NODE_EMPTY_RESERVE slabs and
 * else to discard (freed by the caller once the lock is dropped; it
 * leaves the node's counts: nr_slabs, slab_frees, free_objs). Returns
 * false and changes nothing for a double free: obj is already the slab's
 * first free object, or the slab has none in use.
 */
static bool put_to_slab(struct kmem_cache *s, struct kmem_cache_node *kn,
			struct page *page, void *obj, struct list_head *discard)
{
	LAB_TODO("slab");
	(void)s;
	(void)kn;
	(void)page;
	(void)obj;
	(void)discard;
	return true;
}

/*
 * __slab_put - return objs[0..n) to their slabs. Consecutive objects of
 * one node share one lock acquisition. Caller holds the interrupt guard.
 */
void __slab_put(struct kmem_cache *s, size_t n, void *const *objs, void *caller)
{
	struct list_head discard = LIST_HEAD_INIT(discard);
	struct kmem_cache_node *kn = NULL;
	void *refused = NULL, *foreign = NULL;
	size_t nr_refused = 0, nr_foreign = 0;

	for (size_t i = 0; i < n; i++) {
		struct page *page = virt_to_head_page(objs[i]);
		if (mm_unlikely(!page || page->slab_cache != s)) {
			/* Not of s's slabs. Every free path refuses that
			 * already (slab_free_fast_ok, slab_check_owner, the
			 * bulk's owner test); the page is in hand here, so
			 * a slab's free list is guarded once more for one
			 * compare. */
			foreign = objs[i];
			nr_foreign++;
			continue;
		}
		struct kmem_cache_node *want = &s->node[page->nid];
		if (want != kn) {
			if (kn)
				mm_spin_unlock(&kn->lock);
			kn = want;
			mm_spin_lock(&kn->lock);
		}
		if (mm_unlikely(!put_to_slab(s, kn, page, objs[i], &discard))) {
			refused = objs[i];
			nr_refused++;
		}
	}
	if (kn)
		mm_spin_unlock(&kn->lock);
	__slab_discard_list(s, &discard);
	for (size_t i = 0; i < nr_refused; i++)
		slab_report_double_free(s, refused, "on its slab's free list",
					caller);
	for (size_t i = 0; i < nr_foreign; i++)
		slab_report_foreign_free(s, foreign, caller);
}

/*
 * __cpu_flush - give the n oldest objects of c's magazine (the bottom of
 * the stack: c->objs[0..n)) back to their slabs (__slab_put); the most
 * recently freed, cache-hot ones stay, moved down. Fewer if it holds
 * fewer. Counts one flush (stat_add(&c->flush, 1)). Interrupts guarded.
 */
void __cpu_flush(struct kmem_cache *s, struct kmem_cache_cpu *c, unsigned int n)
{
	LAB_TODO("slab");
	(void)s;
	(void)c;
	(void)n;
}

/* ---------------------------------------------------------------------
 * The fast path.
 */

/*
 * cpu_refill - slow path of alloc, c's magazine empty: fill it with up to
 * c->batch objects of its node (__slab_take, with __GFP_NORETRY: one cheap
 * try for a new slab), count one refill and hand out the top one. If the
 * node has nothing, one object from elsewhere (__slab_take_fallback) goes
 * to the caller alone, never into the magazine, which holds only its
 * node's objects (count c->alloc_fallback when it is another node's).
 * Returns the object or NULL. Interrupts guarded.
 */
static void *cpu_refill(struct kmem_cache *s, struct kmem_cache_cpu *c,
			gfp_t gfp)
{
	LAB_TODO("slab");
	(void)s;
	(void)c;
	(void)gfp;
	return NULL;
}

static void *alloc_failed(struct kmem_cache *s, gfp_t gfp, int nid)
{
	atomic_fetch_add_explicit(&s->alloc_fail, 1, memory_order_relaxed);
	if (!(gfp & __GFP_NOWARN))
		mm_printf("slab: %s: allocation failed (node %d)\n", s->name,
			  nid);
	return NULL;
}

static inline void *slab_alloc_finish(struct kmem_cache *s, gfp_t gfp,
				      void *obj, void *caller)
{
	if (mm_unlikely(cache_debug(s)))
		slab_debug_on_alloc(s, obj, caller);
	else
		obj_mark_alloc(s, obj);
	if (mm_unlikely(gfp & __GFP_ZERO))
		memset(obj, 0, s->object_size);
	return obj;
}

/* Slow path of alloc (slab_alloc in slab_internal.h): empty magazine,
 * __GFP_ZERO, a debug or dead cache. */
__attribute__((noinline)) void *slab_alloc_slow(struct kmem_cache *s, gfp_t gfp,
						void *caller)
{
	if (mm_fault_should_fail(MM_FAULT_SLAB))
		return __slab_alloc_injected(s);
	if (mm_unlikely(cache_dead(s)))
		return slab_alloc_dead(s, caller);

	unsigned long flags = mm_irq_save();
	struct kmem_cache_cpu *c = cache_cpu(s, mm_this_cpu());
	unsigned int avail = cpu_avail(c);
	void *obj;

	if (avail) {
		obj = c->objs[avail - 1];
		cpu_set_avail(c, avail - 1);
	} else {
		obj = cpu_refill(s, c, gfp);
	}
	stat_add(&c->allocs, obj != NULL);
	mm_irq_restore(flags);
	if (mm_unlikely(!obj))
		obj = alloc_failed(s, gfp, numa_mem_id());
	else
		obj = slab_alloc_finish(s, gfp, obj, caller);
	trace_obj(&ev_slab_alloc, s, obj, caller);
	return obj;
}

/* failslab: fail as an exhausted cache does (counted in alloc_fail),
 * quietly. Out of line: the fast path keeps only the test. */
__attribute__((noinline)) void *__slab_alloc_injected(struct kmem_cache *s)
{
	atomic_fetch_add_explicit(&s->alloc_fail, 1, memory_order_relaxed);
	return NULL;
}

/* An object for a node other than this CPU's: from that node's lists. */
static void *slab_alloc_other_node(struct kmem_cache *s, gfp_t gfp, int nid,
				   void *caller)
{
	if (mm_fault_should_fail(MM_FAULT_SLAB))
		return __slab_alloc_injected(s);
	if (mm_unlikely(cache_dead(s)))
		return slab_alloc_dead(s, caller);

	unsigned long flags = mm_irq_save();
	struct kmem_cache_cpu *c = cache_cpu(s, mm_this_cpu());
	void *obj = NULL;

	stat_add(&c->alloc_remote, 1);
	if (__slab_take(s, nid, gfp | __GFP_NORETRY, 1, &obj) ||
	    __slab_take_fallback(s, nid, gfp, 1, &obj))
		stat_add(&c->allocs, 1);
	mm_irq_restore(flags);
	if (!obj)
		obj = alloc_failed(s, gfp, nid);
	else
		obj = slab_alloc_finish(s, gfp, obj, caller);
	trace_obj(&ev_slab_alloc, s, obj, caller);
	return obj;
}

void *__kmem_cache_alloc(struct kmem_cache *s, gfp_t gfp, int nid, void *caller)
{
	if (mm_likely(nid == NUMA_NO_NODE || nid == numa_mem_id()))
		return slab_alloc(s, gfp, caller);
	if (nid < 0 || nid >= mm_nr_nodes()) {
		mm_printf("slab: %s: alloc on invalid node %d, caller %p\n",
			  s->name, nid, caller);
		return alloc_failed(s, gfp | __GFP_NOWARN, nid);
	}
	return slab_alloc_other_node(s, gfp, nid, caller);
}

void *kmem_cache_alloc(struct kmem_cache *s, gfp_t gfp)
{
	return slab_alloc(s, gfp, __builtin_return_address(0));
}

void *kmem_cache_alloc_node(struct kmem_cache *s, gfp_t gfp, int nid)
{
	return __kmem_cache_alloc(s, gfp, nid, __builtin_return_address(0));
}

static void trace_free(const struct kmem_cache *s, const void *obj,
		       const void *caller)
{
	int nid = obj_nid(obj);

	if (nid == numa_mem_id())
		trace_obj(&ev_slab_free, s, obj, caller);
	else
		mm_trace(&ev_slab_remote_free, (uintptr_t)obj,
			 (uintptr_t)caller, (uintptr_t)s->name, (uint32_t)nid);
}

/* Slow path of free (slab_free in slab_internal.h): debug or dead cache,
 * remote object, full magazine. */
__attribute__((noinline)) void slab_free_slow(struct kmem_cache *s, void *obj,
					      void *caller)
{
	if (mm_unlikely(!obj)) /* the fast path's owner test sends it here */
		return;
	/* Debug caches check everything; the others, in every build, that
	 * obj is an object start of s (kfree(p + 1) and a free into another
	 * cache refused) and does not carry the free marker (a double free
	 * at any distance: slab_internal.h). */
	if (mm_unlikely(cache_debug(s))) {
		if (!slab_debug_on_free(s, obj, caller))
			return;
	} else if (!slab_check_owner(s, obj, caller)) {
		return;
	} else if (mm_unlikely(obj_marked_free(s, obj))) {
		slab_report_double_free(s, obj, "already marked free", caller);
		return;
	} else {
		obj_mark_free(s, obj);
	}
	if (mm_unlikely(mm_tracing()))
		trace_free(s, obj, caller);

	unsigned long flags = mm_irq_save();
	struct kmem_cache_cpu *c = cache_cpu(s, mm_this_cpu());
	unsigned int avail = cpu_avail(c);

	stat_add(&c->frees, 1);
	if (mm_unlikely(cache_dead(s))) {
		/* Straight home: a dead cache's magazines stay empty. */
		__slab_put(s, 1, &obj, caller);
	} else if (!obj_local(s, c, obj)) {
		/* Remote object: home to its own node, not our magazine. */
		stat_add(&c->remote_free, 1);
		__slab_put(s, 1, &obj, caller);
	} else {
		if (avail == c->limit)
			__cpu_flush(s, c, c->batch);
		avail = cpu_avail(c);
		c->objs[avail] = obj;
		cpu_set_avail(c, avail + 1);
	}
	mm_irq_restore(flags);
}

void __kmem_cache_free(struct kmem_cache *s, void *obj, void *caller)
{
	slab_free(s, obj, caller);
}

/* NULL needs no test of its own: its page is no slab of s, so the fast
 * path sends it to slab_free_slow, which ignores it. */
void kmem_cache_free(struct kmem_cache *s, void *obj)
{
	slab_free(s, obj, __builtin_return_address(0));
}
