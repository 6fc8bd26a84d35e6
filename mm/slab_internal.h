/*
 * Inside the slab allocator: the structures shared by mm/slab.c (core and
 * fast path), mm/slab_bulk.c, mm/slab_debug.c, mm/slabinfo.c and
 * mm/kmalloc.c. Not part of the public API (mm/slab.h is).
 *
 * A cache is one block from the page allocator:
 *
 *   struct kmem_cache | cpu 0 magazine | cpu 1 magazine | ...
 *
 * Each per-CPU part starts on its own cache line, so CPUs never share a
 * line on the fast path. Per node there is a struct kmem_cache_node with a
 * lock and three slab lists; a slab is the head struct page of its block
 * (page->freelist, ->inuse, ->objects, ->slab_cache; ->lru links it).
 */
#ifndef MM_SLAB_INTERNAL_H
#define MM_SLAB_INTERNAL_H

#include "fault_inject.h"
#include "mm_trace.h"
#include "page_alloc.h"
#include "platform.h"
#include "slab.h"
#include "slab_tunables.h"

/*
 * Counters written only by their CPU and read by slabinfo on any CPU with
 * relaxed loads: mm_cpu_counter_add, so no locked instruction is paid and
 * no update can be lost to an interrupt (the slab bumps them inside its
 * interrupt guard anyway).
 */
typedef atomic_ulong slab_stat_t;

static inline void stat_add(slab_stat_t *v, unsigned long n)
{
	mm_cpu_counter_add(v, n);
}

static inline unsigned long stat_read(const slab_stat_t *v)
{
	return atomic_load_explicit((slab_stat_t *)v, memory_order_relaxed);
}

/* One CPU's magazine: a stack of free object pointers of its node. */
struct kmem_cache_cpu {
	atomic_uint avail;	  /* objects in objs[] (read by slabinfo) */
	unsigned int limit;	  /* capacity of objs[] */
	unsigned int batch;	  /* objects per refill / flush */
	int nid;		  /* this CPU's memory node */
	uintptr_t span_lo;	  /* this node's addresses: [lo, lo + len), */
	uintptr_t span_len;	  /* len 0 when node spans overlap */
	struct page *span_map;	  /* struct page of span_lo's frame */
	slab_stat_t allocs;	  /* objects handed out by this CPU, any path */
	slab_stat_t refill;	  /* misses: refills from the node lists */
	slab_stat_t frees;	  /* objects freed on this CPU, any path */
	slab_stat_t flush;	  /* drains of objs[] to the node lists */
	slab_stat_t remote_free;  /* frees sent back to another node */
	slab_stat_t alloc_remote; /* alloc_node calls for another node */
	slab_stat_t alloc_fallback; /* objects of another node handed out:
				       this node had none (never cached) */
	slab_stat_t bulk_alloc;	    /* kmem_cache_alloc_bulk calls */
	slab_stat_t bulk_free;	    /* kmem_cache_free_bulk calls */
	void *objs[];
};

/* One node's slabs of a cache, under ->lock. */
struct kmem_cache_node {
	mm_spinlock_t lock;
	struct list_head partial; /* some objects free, some in use */
	struct list_head full;	  /* every object in use */
	struct list_head empty;	  /* every object free: the reserve */
	unsigned long nr_slabs;	  /* on any of the three lists */
	unsigned long nr_partial;
	unsigned long nr_empty;
	unsigned long free_objs;   /* free objects on this node's slabs */
	unsigned long slab_allocs; /* slab blocks taken from the page alloc */
	unsigned long slab_frees;  /* slab blocks given back */
} __mm_cacheline_aligned;

struct kmem_cache {
	const char *name;
	unsigned int object_size; /* size asked for */
	unsigned int align;
	unsigned int stride;	  /* bytes between objects in a slab */
	unsigned int obj_offset;  /* object start within its slot (red zone) */
	unsigned int fp_offset;	  /* free pointer, from the object start */
	unsigned int meta_offset; /* debug metadata, from object start */
	unsigned int mark_offset; /* free marker word, from object start */
	uintptr_t mark_key;	  /* secret of the free marker */
	unsigned int order;	  /* slab = 2^order pages */
	unsigned int objects;	  /* objects per slab */
	uint64_t start_mul;	  /* floor(2^64 / stride) + 1 */
	uint64_t start_limit;	  /* objects * (start_mul * stride mod 2^64) */
	uintptr_t slab_mask;	  /* (MM_PAGE_SIZE << order) - 1 */
	uintptr_t slab_base_mask; /* ~slab_mask */
	unsigned int flags;	  /* SLAB_* as created (debug flags resolved) */
	unsigned int cpu_stride;  /* bytes per struct kmem_cache_cpu */
	unsigned int alloc_order; /* order of this struct's own block */
	int multi_node;		  /* more than one node: check on free */
	int nr_cpus;
	void (*ctor)(void *);
	atomic_ulong alloc_fail; /* allocations that returned NULL */
	struct list_head list;	 /* slab_caches */
	struct kmem_cache_node node[MM_MAX_NODES];
	char *cpu_base; /* struct kmem_cache_cpu of CPU 0 */
};

static inline struct kmem_cache_cpu *cache_cpu(const struct kmem_cache *s,
					       int cpu)
{
	return (struct kmem_cache_cpu *)(s->cpu_base +
					 (size_t)cpu * s->cpu_stride);
}

static inline unsigned int cpu_avail(struct kmem_cache_cpu *c)
{
	return atomic_load_explicit(&c->avail, memory_order_relaxed);
}

static inline void cpu_set_avail(struct kmem_cache_cpu *c, unsigned int n)
{
	atomic_store_explicit(&c->avail, n, memory_order_relaxed);
}

/* Node of the frame holding obj. */
static inline int obj_nid(const void *obj)
{
	return virt_to_page(obj)->nid;
}

/*
 * Is obj on this CPU's node? One node: always. Otherwise one compare
 * against the node's address span, kept in the CPU's own cache line (the
 * spans of different nodes are disjoint on every machine seen so far);
 * only if they overlap, the page lookup (measured: the lookup made the
 * 2-node fast path ~4 ns slower per alloc+free than the 1-node one).
 */
static inline bool obj_local(const struct kmem_cache *s,
			     const struct kmem_cache_cpu *c, const void *obj)
{
	if (mm_likely(!s->multi_node))
		return true;
	if (mm_likely(c->span_len))
		return (uintptr_t)obj - c->span_lo < c->span_len;
	return obj_nid(obj) == c->nid;
}

/* Debug caches keep this after the right red zone, at meta_offset. */
struct slab_debug_meta {
	void *fp;	     /* free pointer (must stay first: fp_offset) */
	unsigned long state; /* SLAB_STATE_FREE or SLAB_STATE_ALLOC */
	void *alloc_caller;  /* who allocated it last */
	void *free_caller;   /* who freed it last */
};

static inline void **obj_fp(const struct kmem_cache *s, void *obj)
{
	return (void **)((char *)obj + s->fp_offset);
}

/*
 * The free marker: the normal build's double-free check at any distance.
 * A free writes the cache's secret, mark_key, into one word of the object
 * that neither the magazine nor the slab free list uses (mark_offset: the
 * first word, the free pointer then in the second; after the object in a
 * cache with a constructor, whose object keeps its state while free); an
 * allocation stores 0 there; a free that finds the marker already there is
 * a double free, however many frees came between, whether the object
 * still sits in a magazine or went back to its slab. Debug caches do not
 * use it (their metadata says the state).
 *
 * A false positive needs a live object whose first word holds exactly this
 * cache's secret when it is freed. The secret's top 16 bits are a
 * non-canonical pattern (slab_cache.c), so the marker is never a pointer,
 * a small integer, 0 or -1; the low 48 bits are a hash of the cache's
 * address, so no two caches share one. A refused free only leaks the
 * object (reported and counted); it never corrupts a list. (It was the
 * secret XOR the object's address, in the second word: the same odds for
 * a live word, 3 guest instructions more per alloc+free for the xor and
 * the offset.)
 *
 * Not covered: 8-byte objects (one word: the marker shares the free
 * pointer's, so it guards them only while they sit in a magazine), two
 * CPUs freeing one object at the same instant (no atomic on the fast
 * path), and a write-after-free that overwrites the marker.
 */
static inline uintptr_t *obj_mark(const struct kmem_cache *s, void *obj)
{
	return (uintptr_t *)((char *)obj + s->mark_offset);
}

static inline bool obj_marked_free(const struct kmem_cache *s, void *obj)
{
	return *obj_mark(s, obj) == s->mark_key;
}

static inline void obj_mark_free(const struct kmem_cache *s, void *obj)
{
	*obj_mark(s, obj) = s->mark_key;
}

static inline void obj_mark_alloc(const struct kmem_cache *s, void *obj)
{
	*obj_mark(s, obj) = 0;
}

/*
 * The same on the single-object fast paths, which only caches without
 * debug and without a constructor reach (cache_slow): their marker is
 * the first word (slab_layout), so no offset is loaded.
 */
static inline bool fast_marked_free(const struct kmem_cache *s, void *obj)
{
	return *(uintptr_t *)obj == s->mark_key;
}

static inline void fast_mark_free(const struct kmem_cache *s, void *obj)
{
	*(uintptr_t *)obj = s->mark_key;
}

static inline void fast_mark_alloc(void *obj)
{
	*(uintptr_t *)obj = 0;
}

static inline bool cache_debug(const struct kmem_cache *s)
{
	return s->flags & (SLAB_RED_ZONE | SLAB_POISON);
}

/*
 * A flag of the slab's own in s->flags, above those of kmem_cache_create:
 * kmem_cache_destroy() found objects still allocated. The cache lives on
 * only so that they can be freed; it refuses allocations.
 */
#define SLAB_DEAD 0x100u

/*
 * Another of the slab's own flags: s has a constructor, so its free
 * marker is not in the object's first word (the object keeps its state
 * while free) and the single-object fast paths, which store the marker
 * there, are not for it.
 */
#define SLAB_CTOR 0x200u

/*
 * Does every call on s take the slow path? Debug checks, a dead cache and
 * a constructor all do: one test of s->flags on the fast path covers
 * them, so refusing a dead cache costs the fast path nothing.
 */
static inline bool cache_slow(const struct kmem_cache *s)
{
	return s->flags & (SLAB_RED_ZONE | SLAB_POISON | SLAB_DEAD | SLAB_CTOR);
}

static inline bool cache_dead(const struct kmem_cache *s)
{
	return s->flags & SLAB_DEAD;
}

/* Global list of caches (slabinfo, kmalloc lookup), under slab_caches_lock. */
extern struct list_head slab_caches;
extern mm_spinlock_t slab_caches_lock;

/* slab.c: the node-list side, called with interrupts guarded. */
size_t __slab_take(struct kmem_cache *s, int nid, gfp_t gfp, size_t n,
		   void **out);
size_t __slab_take_fallback(struct kmem_cache *s, int nid, gfp_t gfp, size_t n,
			    void **out);
/* Returns objs[0..n) to their slabs; a double free found on a slab's
 * free list, or an object of another cache's slab, is reported with
 * @caller (NULL: not known here) and refused. */
void __slab_put(struct kmem_cache *s, size_t n, void *const *objs,
		void *caller);
unsigned int __slab_discard_list(struct kmem_cache *s, struct list_head *list);
void __cpu_flush(struct kmem_cache *s, struct kmem_cache_cpu *c,
		 unsigned int n);
void *__kmem_cache_alloc(struct kmem_cache *s, gfp_t gfp, int nid,
			 void *caller);
void __kmem_cache_free(struct kmem_cache *s, void *obj, void *caller);
/* failslab's failure: counted in s->alloc_fail; returns NULL. */
void *__slab_alloc_injected(struct kmem_cache *s);
void *slab_alloc_slow(struct kmem_cache *s, gfp_t gfp, void *caller);
void slab_free_slow(struct kmem_cache *s, void *obj, void *caller);

/*
 * Fast path of kmem_cache_alloc (and kmalloc, which inlines it too): pop
 * the magazine. Everything else (refill, zeroing, debug checks, failslab
 * while any injection site is armed, the trace point while the mm class
 * records) is out of line in slab.c, reached by a tail call, so this
 * compiles to a few loads and stores with no register spills.
 */
static inline void *slab_alloc(struct kmem_cache *s, gfp_t gfp, void *caller)
{
	if (mm_likely(!mm_fault_armed_any() && !mm_tracing() &&
		      !(gfp & __GFP_ZERO) && !cache_slow(s))) {
		unsigned long flags = mm_irq_save();
		struct kmem_cache_cpu *c = cache_cpu(s, mm_this_cpu());
		unsigned int avail = cpu_avail(c);
		if (mm_likely(avail)) {
			void *obj = c->objs[avail - 1];
			cpu_set_avail(c, avail - 1);
			stat_add(&c->allocs, 1);
			mm_irq_restore(flags);
			fast_mark_alloc(obj);
			return obj;
		}
		mm_irq_restore(flags);
	}
	return slab_alloc_slow(s, gfp, caller);
}

/* slab_debug.c */
void slab_debug_init_object(struct kmem_cache *s, void *obj);
/* Checks an object leaving the allocator (poison) and marks it in use. */
void slab_debug_on_alloc(struct kmem_cache *s, void *obj, void *caller);
/* Checks an object coming back; false means do not free it (reported). */
bool slab_debug_on_free(struct kmem_cache *s, void *obj, void *caller);
/* Checks that obj is an object of s at all (any cache, debug or not). */
bool slab_check_owner(struct kmem_cache *s, const void *obj, void *caller);
void slab_debug_count_destroy_busy(void);
/* Reports and counts an allocation from a dead cache; returns NULL. */
void *slab_alloc_dead(struct kmem_cache *s, void *caller);
void slab_debug_count_invalid_free(void);
/* Reports and counts a double free of obj in s that the normal build's
 * checks found (the object freed last, or on its slab's free list). */
void slab_report_double_free(struct kmem_cache *s, const void *obj,
			     const char *where, void *caller);
/* Reports and counts an object of another cache's slab that reached
 * s's node lists (freed into the wrong cache). */
void slab_report_foreign_free(struct kmem_cache *s, const void *obj,
			      void *caller);
bool slab_debug_runtime(void);
void slab_debug_reset(void);

/*
 * slab_obj_start - is the byte at @off from the start of a slab block of
 * @s the start of one of its objects? The normal build asks it on every
 * free, so that kfree(p + 1) never puts a misaligned pointer in a
 * magazine (a later allocation would hand it out, overlapping two
 * objects). One multiply and one compare instead of a division (the
 * remainder test of Lemire, Kaser and Kurz, "Faster remainder by direct
 * computation", 2019): with d = stride, c = floor(2^64 / d) + 1 and
 * e = c * d - 2^64 (0 < e <= d), x * c mod 2^64 is i * e for x = i * d,
 * and at least c for any x that is not a multiple of d (r * c, 0 < r < d,
 * lies in [c, 2^64 - c + e), and i * e adds less than c - e for every
 * offset of a slab block: blocks are at most 2^15 bytes, c at least
 * 2^49). So x is an object start, i < objects, exactly when
 * x * c mod 2^64 < objects * e; a pointer before the first object (x
 * negative, debug red zone) lands at or above c - e. It replaced an
 * inverse multiply and a rotate (imul, ror by a loaded count): 2 guest
 * instructions fewer per free.
 */
static inline bool slab_index_ok(const struct kmem_cache *s, uint64_t x)
{
	return x * s->start_mul < s->start_limit;
}

static inline bool slab_obj_start(const struct kmem_cache *s, uintptr_t off)
{
	return slab_index_ok(s, (uint64_t)off - s->obj_offset);
}

/*
 * The offset of @obj in its slab block, from the address alone: a block
 * of 2^order pages starts at a pfn that is a multiple of 2^order (the
 * buddy allocator's invariant, mm/buddy.c) and its address is pfn <<
 * MM_PAGE_SHIFT, so the block is aligned to its own size.
 */
static inline uintptr_t slab_offset(const struct kmem_cache *s, const void *obj)
{
	return (uintptr_t)obj & s->slab_mask;
}

/*
 * The normal build's checks on kmem_cache_free's fast path, for a cache
 * without debug (obj_offset 0), in this order (each one makes the next
 * safe):
 *   1. @obj is an object start of a slab of s's layout (slab_index_ok: no
 *      memory touched), which catches kfree(p + 1);
 *   2. its slab block is in this CPU's node and its head page says s owns
 *      it, which catches a free into another cache of the same layout, a
 *      pointer that is no slab memory, and NULL: the slow path sorts them
 *      out. Arithmetic, no search: a node whose span no other node's
 *      memory splits has one mem_map for the whole span (mm/page.h), so
 *      the struct page is span_map + (offset in the span >> PAGE_SHIFT);
 *      and a slab block's first page is its head page (buddy blocks are
 *      aligned to their size: slab_offset), so no compound_head() step;
 *   3. it does not carry s's free marker: a double free at any distance
 *      (as glibc's fast bins and Linux's SLAB_FREELIST_HARDENED catch for
 *      the object freed last). Its word is read only once 2 said that obj
 *      is an object of s.
 * Any failure takes the slow path, which reports and refuses (or, for a
 * remote object, frees it home). Measured (make bench-kernel, guest
 * instructions per kmem_cache_alloc+free): 67 with no check and no
 * marker, 86 with all of them, and the 19 are, read off the generated
 * code: the start test 5 (mov, and, imul, cmp, jae), the span test 5
 * (the block's base by and with ~mask, minus span_lo, cmp, jae), the
 * owner test 4 (load span_map, shr, cmp with the head's slab_cache, je),
 * the marker 4 on the free (load the key, cmp, je, store), 1 on the alloc.
 * They were 29 (96) before struct page became 64 bytes (-2), the start
 * test a single multiply (-3), the marker the key itself in word 0 (-4)
 * and the base a stored mask (-1).
 * A page lookup by pfn_to_page() and compound_head() instead cost +27.
 */
static inline bool slab_free_fast_ok(const struct kmem_cache *s,
				     const struct kmem_cache_cpu *c, void *obj)
{
	uintptr_t off = slab_offset(s, obj);

	if (mm_unlikely(!slab_index_ok(s, off)))
		return false;
	/* The slab block's offset from this node's first page: outside the
	 * span, another node's block (or span_len 0: spans overlap). */
	uintptr_t rel = ((uintptr_t)obj & s->slab_base_mask) - c->span_lo;
	if (mm_unlikely(rel >= c->span_len))
		return false;
	/* rel is page aligned: one shift gives the byte offset of its
	 * struct page (64 bytes each). */
	const struct page *head =
		(const struct page *)((const char *)c->span_map +
				      (rel >>
				       (MM_PAGE_SHIFT - MM_PAGE_STRUCT_SHIFT)));
	return head->slab_cache == s && !fast_marked_free(s, obj);
}

/* Fast path of kmem_cache_free: push on the magazine if the magazine has
 * room and the object passes the checks (which include being local). */
static inline void slab_free(struct kmem_cache *s, void *obj, void *caller)
{
	if (mm_likely(!cache_slow(s) && !mm_tracing())) {
		unsigned long flags = mm_irq_save();
		struct kmem_cache_cpu *c = cache_cpu(s, mm_this_cpu());
		unsigned int avail = cpu_avail(c);
		if (mm_likely(avail < c->limit &&
			      slab_free_fast_ok(s, c, obj))) {
			fast_mark_free(s, obj);
			c->objs[avail] = obj;
			cpu_set_avail(c, avail + 1);
			stat_add(&c->frees, 1);
			mm_irq_restore(flags);
			return;
		}
		mm_irq_restore(flags);
	}
	slab_free_slow(s, obj, caller);
}

/*
 * Fast path of kfree, which has the object's slab page in hand (and took
 * s from it): the page says the node and the owner, so only the start
 * test and the marker are left.
 */
static inline void slab_free_page(struct kmem_cache *s, const struct page *page,
				  void *obj, void *caller)
{
	if (mm_likely(!cache_slow(s) && !mm_tracing())) {
		unsigned long flags = mm_irq_save();
		struct kmem_cache_cpu *c = cache_cpu(s, mm_this_cpu());
		unsigned int avail = cpu_avail(c);
		if (mm_likely(avail < c->limit && page->nid == c->nid &&
			      slab_index_ok(s, slab_offset(s, obj)) &&
			      !fast_marked_free(s, obj))) {
			fast_mark_free(s, obj);
			c->objs[avail] = obj;
			cpu_set_avail(c, avail + 1);
			stat_add(&c->frees, 1);
			mm_irq_restore(flags);
			return;
		}
		mm_irq_restore(flags);
	}
	slab_free_slow(s, obj, caller);
}

#endif /* MM_SLAB_INTERNAL_H */
