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
	unsigned int order;	  /* slab = 2^order pages */
	unsigned int objects;	  /* objects per slab */
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
 * Does every call on s take the slow path? Debug checks and a dead cache
 * both do: one test of s->flags on the fast path covers them, so refusing
 * a dead cache costs the fast path nothing.
 */
static inline bool cache_slow(const struct kmem_cache *s)
{
	return s->flags & (SLAB_RED_ZONE | SLAB_POISON | SLAB_DEAD);
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
void __slab_put(struct kmem_cache *s, size_t n, void *const *objs);
unsigned int __slab_discard_list(struct kmem_cache *s, struct list_head *list);
void __cpu_flush(struct kmem_cache *s, struct kmem_cache_cpu *c,
		 unsigned int n);
void *__kmem_cache_alloc(struct kmem_cache *s, gfp_t gfp, int nid,
			 void *caller);
void __kmem_cache_free(struct kmem_cache *s, void *obj, void *caller);

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
bool slab_debug_runtime(void);
void slab_debug_reset(void);

#endif /* MM_SLAB_INTERNAL_H */
