/*
 * Bulk allocation and free: kmem_cache_alloc_bulk / kmem_cache_free_bulk,
 * the API Christoph Lameter proposed in the qmempool discussion
 * (docs/references.md, 4).
 *
 * Why it is cheaper than n single calls: one interrupt guard for the whole
 * array, the magazine part moved with one copy instead of n separate
 * push/pop calls,
 * and what the magazine cannot cover moved between the caller's array and
 * the node lists in one refill (one node-lock acquisition, plus one per new
 * slab) or one flush (one lock acquisition per run of same-node objects).
 *
 * Partial failure: like Linux, alloc_bulk returns 0 and gives back every
 * object it had already taken. Callers never handle half a bulk.
 */
#include <string.h>

#include "fault_inject.h"
#include "slab_internal.h"

/*
 * Moving pointers between the magazine and the caller's array. Up to
 * BULK_LOOP_MAX pointers, a plain loop: the memcpy call and its size
 * dispatch cost more than the copy (bulk of 1 went from ~110 to ~60
 * instructions per alloc+free pair). Above, memcpy: its vector moves beat
 * the loop (~0.3 vs ~1.5 ns per object at n = 250 in one run). Either way
 * the bulk stays LIFO as a unit: what free_bulk pushed, alloc_bulk pops.
 */
#define BULK_LOOP_MAX 16

static inline void copy_from_top(void **p, void **objs, size_t avail, size_t n)
{
	if (n > BULK_LOOP_MAX) {
		memcpy(p, objs + avail - n, n * sizeof(void *));
		return;
	}
	for (size_t i = 0; i < n; i++)
		p[i] = objs[avail - 1 - i];
}

static inline void copy_to_top(void **objs, size_t avail, void **p, size_t n)
{
	if (n > BULK_LOOP_MAX) {
		memcpy(objs + avail, p, n * sizeof(void *));
		return;
	}
	for (size_t i = n; i-- > 0;)
		objs[avail++] = p[i];
}

/* copy_from_top() for the alloc_bulk fast path, each object's free
 * marker cleared as it passes: one loop over a small bulk instead of a
 * copy and a second pass (bulk of 16, alloc + free: 45.3 -> 41.1 guest
 * instructions per object). */
static inline void pop_and_clear_marks(const struct kmem_cache *s, void **p,
				       void **objs, size_t avail, size_t n)
{
	if (n > BULK_LOOP_MAX) {
		copy_from_top(p, objs, avail, n);
		for (size_t i = 0; i < n; i++)
			obj_mark_alloc(s, p[i]);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		p[i] = objs[avail - 1 - i];
		obj_mark_alloc(s, p[i]);
	}
}

/* Copy up to n objects off the top of the magazine into p. Guard held. */
static size_t magazine_pop(struct kmem_cache_cpu *c, size_t n, void **p)
{
	unsigned int avail = cpu_avail(c);
	size_t take = n < avail ? n : avail;

	copy_from_top(p, c->objs, avail, take);
	cpu_set_avail(c, avail - (unsigned int)take);
	return take;
}

/* Push p[0..n) on the magazine (mirror of magazine_pop). Guard held. */
static void magazine_push(struct kmem_cache_cpu *c, size_t n, void **p)
{
	unsigned int avail = cpu_avail(c);

	copy_to_top(c->objs, avail, p, n);
	cpu_set_avail(c, avail + (unsigned int)n);
}

/*
 * The remainder after the magazine ran dry: if it fits, refill the
 * magazine (to at least one batch) from this node in one go and pop from
 * it, so that the next call finds a warm magazine; otherwise take straight
 * into p. What this node cannot give comes from elsewhere straight into p,
 * never into the magazine (it holds only this node's objects).
 */
static size_t bulk_refill(struct kmem_cache *s, struct kmem_cache_cpu *c,
			  gfp_t gfp, size_t n, void **p)
{
	gfp_t local = gfp | __GFP_NORETRY; /* one cheap try for new slabs */
	size_t got;

	if (n > c->limit) {
		got = __slab_take(s, c->nid, local, n, p);
	} else {
		size_t want = n > c->batch ? n : c->batch;
		size_t in = __slab_take(s, c->nid, local, want, c->objs);
		if (in)
			stat_add(&c->refill, 1);
		cpu_set_avail(c, (unsigned int)in);
		got = magazine_pop(c, n, p);
	}
	if (mm_unlikely(got < n)) {
		size_t more =
			__slab_take_fallback(s, c->nid, gfp, n - got, p + got);
		for (size_t i = got; i < got + more; i++)
			if (obj_nid(p[i]) != c->nid)
				stat_add(&c->alloc_fallback, 1);
		got += more;
	}
	return got;
}

/* Slow path of alloc_bulk: refill, failure, zeroing or debug checks. */
static __attribute__((noinline)) size_t alloc_bulk_slow(struct kmem_cache *s,
							gfp_t gfp, size_t n,
							void **p, void *caller)
{
	if (mm_fault_should_fail(MM_FAULT_SLAB)) {
		__slab_alloc_injected(s); /* failslab: counted, none taken */
		return 0;
	}
	if (mm_unlikely(cache_dead(s))) {
		slab_alloc_dead(s, caller);
		return 0;
	}

	unsigned long flags = mm_irq_save();
	struct kmem_cache_cpu *c = cache_cpu(s, mm_this_cpu());
	size_t got = magazine_pop(c, n, p);

	if (got < n)
		got += bulk_refill(s, c, gfp, n - got, p + got);
	stat_add(&c->bulk_alloc, 1);
	if (mm_likely(got == n))
		stat_add(&c->allocs, n);
	else
		__slab_put(s, got, p, caller); /* never seen by the caller */
	mm_irq_restore(flags);

	if (mm_unlikely(got < n)) {
		atomic_fetch_add_explicit(&s->alloc_fail, 1,
					  memory_order_relaxed);
		if (!(gfp & __GFP_NOWARN))
			mm_printf("slab: %s: bulk allocation of %zu failed "
				  "after %zu\n",
				  s->name, n, got);
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		if (cache_debug(s))
			slab_debug_on_alloc(s, p[i], caller);
		else
			obj_mark_alloc(s, p[i]);
	}
	for (size_t i = 0; (gfp & __GFP_ZERO) && i < n; i++)
		memset(p[i], 0, s->object_size);
	return n;
}

size_t kmem_cache_alloc_bulk(struct kmem_cache *s, gfp_t gfp, size_t n,
			     void **p)
{
	if (mm_unlikely(!n))
		return 0;
	/* Fast path: the magazine holds the whole bulk (failslab armed:
	 * the slow path asks it). */
	if (mm_likely(!mm_fault_armed_any() && !(gfp & __GFP_ZERO) &&
		      !cache_slow(s))) {
		unsigned long flags = mm_irq_save();
		struct kmem_cache_cpu *c = cache_cpu(s, mm_this_cpu());
		unsigned int avail = cpu_avail(c);
		if (mm_likely(n <= avail)) {
			pop_and_clear_marks(s, p, c->objs, avail, n);
			cpu_set_avail(c, avail - (unsigned int)n);
			stat_add(&c->bulk_alloc, 1);
			stat_add(&c->allocs, n);
			mm_irq_restore(flags);
			return n;
		}
		mm_irq_restore(flags);
	}
	return alloc_bulk_slow(s, gfp, n, p, __builtin_return_address(0));
}

/*
 * One node: the whole array into the magazine in one copy, after a
 * flush of its oldest objects if that makes room; only an array larger than
 * the magazine sends its overflow to the slabs directly. Guard held.
 */
static void bulk_free_one_node(struct kmem_cache *s, struct kmem_cache_cpu *c,
			       size_t n, void **p)
{
	size_t room = c->limit - cpu_avail(c);

	if (n > room && n <= c->limit) {
		size_t need = n - room;
		__cpu_flush(s, c,
			    (unsigned int)(need > c->batch ? need : c->batch));
		room = c->limit - cpu_avail(c);
	}
	size_t fit = n < room ? n : room;

	magazine_push(c, fit, p);
	if (fit < n) {
		__slab_put(s, n - fit, p + fit, NULL);
		stat_add(&c->flush, 1);
	}
}

/*
 * Several nodes: local objects into the magazine while it has room; remote
 * objects, and local ones once it is full, are gathered (in chunks on the
 * stack) and returned to their slabs with one __slab_put per chunk, which
 * takes each node's lock once per run of that node's objects.
 */
static void bulk_free_numa(struct kmem_cache *s, struct kmem_cache_cpu *c,
			   size_t n, void **p)
{
	void *home[64];
	size_t nh = 0;
	bool flushed = false;

	for (size_t i = 0; i < n; i++) {
		unsigned int avail = cpu_avail(c);
		bool local = obj_local(s, c, p[i]);
		if (local && avail < c->limit) {
			c->objs[avail] = p[i];
			cpu_set_avail(c, avail + 1);
			continue;
		}
		if (!local)
			stat_add(&c->remote_free, 1);
		home[nh++] = p[i];
		if (nh == sizeof(home) / sizeof(home[0])) {
			__slab_put(s, nh, home, NULL);
			nh = 0;
			flushed = true;
		}
	}
	if (nh) {
		__slab_put(s, nh, home, NULL);
		flushed = true;
	}
	if (flushed)
		stat_add(&c->flush, 1);
}

/*
 * The normal build's checks of a single free, for a bulk: every object is
 * an object start, in a slab that s owns, and does not carry the free
 * marker, which each gets as it passes, so a pointer twice anywhere in
 * the array is caught as well as one freed before. The owner is asked
 * once per run of objects of one slab block (a bulk usually comes from a
 * few slabs): @local, the fast path's, also wants the block on this CPU's
 * node (slab_free_fast_ok's arithmetic); otherwise (free_bulk_slow, any
 * node) the head page is looked up. On a failure the markers set so far
 * are taken back (those objects are still the caller's) and false is
 * returned: the caller then frees one by one, which refuses and reports.
 * Cost per object, bulk of 16: docs/slab.md.
 */
static inline bool bulk_owner_ok(const struct kmem_cache *s,
				 const struct kmem_cache_cpu *c, bool local,
				 uintptr_t base)
{
	if (local) {
		uintptr_t rel = base - c->span_lo;
		return rel < c->span_len &&
		       c->span_map[rel >> MM_PAGE_SHIFT].slab_cache == s;
	}
	const struct page *head = virt_to_page((const void *)base);
	return head && (head->flags & PG_slab) && head->slab_cache == s;
}

/* @dst, if not NULL: the magazine's free slots, which get the objects as
 * they pass, p[0] on top (the next one handed out), as copy_to_top()'s
 * loop puts them; nothing is committed until the caller raises avail, so
 * a failure leaves the magazine as it was. One pass instead of a check
 * pass and a copy (bulk of 16, alloc + free: 41.1 -> 38.9 guest
 * instructions per object). */
static inline bool bulk_check_and_mark(const struct kmem_cache *s,
				       const struct kmem_cache_cpu *c,
				       bool local, size_t n, void *const *p,
				       void **dst)
{
	uintptr_t owned = 1; /* slab block already asked; 1: none yet */

	for (size_t i = 0; i < n; i++) {
		uintptr_t off = slab_offset(s, p[i]);
		uintptr_t base = (uintptr_t)p[i] - off;
		if (mm_unlikely(!slab_index_ok(s, off)))
			goto undo;
		if (base != owned) {
			if (mm_unlikely(!bulk_owner_ok(s, c, local, base)))
				goto undo;
			owned = base;
		}
		if (mm_unlikely(obj_marked_free(s, p[i])))
			goto undo;
		obj_mark_free(s, p[i]);
		if (dst)
			dst[n - 1 - i] = p[i];
		continue;
	undo:
		while (i-- > 0)
			obj_mark_alloc(s, p[i]);
		return false;
	}
	return true;
}

/* A bulk that failed bulk_check_and_mark(): each object through the single free,
 * which frees the good ones and refuses, reports and counts the bad. */
static __attribute__((noinline)) void
free_bulk_one_by_one(struct kmem_cache *s, size_t n, void **p, void *caller)
{
	for (size_t i = 0; i < n; i++)
		__kmem_cache_free(s, p[i], caller);
}

/* Slow path of free_bulk: debug or dead cache, several nodes, no room. */
static __attribute__((noinline)) void
free_bulk_slow(struct kmem_cache *s, size_t n, void **p, void *caller)
{
	if (mm_unlikely(cache_slow(s))) {
		/* Debug caches check every object on its own: a refused
		 * object must not reach the magazine; a dead cache sends
		 * each straight to its slab. */
		for (size_t i = 0; i < n; i++)
			__kmem_cache_free(s, p[i], caller);
		return;
	}
	unsigned long flags = mm_irq_save();
	struct kmem_cache_cpu *c = cache_cpu(s, mm_this_cpu());
	if (mm_unlikely(!bulk_check_and_mark(s, c, false, n, p, NULL))) {
		mm_irq_restore(flags);
		free_bulk_one_by_one(s, n, p, caller);
		return;
	}
	stat_add(&c->bulk_free, 1);
	stat_add(&c->frees, n);
	if (s->multi_node)
		bulk_free_numa(s, c, n, p);
	else
		bulk_free_one_node(s, c, n, p);
	mm_irq_restore(flags);
}

void kmem_cache_free_bulk(struct kmem_cache *s, size_t n, void **p)
{
	if (mm_unlikely(!n))
		return;
	/* Fast path: one node, and the magazine has room for the bulk. */
	if (mm_likely(!cache_slow(s) && !s->multi_node)) {
		unsigned long flags = mm_irq_save();
		struct kmem_cache_cpu *c = cache_cpu(s, mm_this_cpu());
		unsigned int avail = cpu_avail(c);
		if (mm_likely(n <= c->limit - avail &&
			      bulk_check_and_mark(s, c, true, n, p,
						  c->objs + avail))) {
			cpu_set_avail(c, avail + (unsigned int)n);
			stat_add(&c->bulk_free, 1);
			stat_add(&c->frees, n);
			mm_irq_restore(flags);
			return;
		}
		mm_irq_restore(flags);
	}
	free_bulk_slow(s, n, p, __builtin_return_address(0));
}
