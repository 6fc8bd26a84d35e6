/*
 * Slab allocator and kmalloc: fixed-size objects carved from page blocks.
 *
 * A cache (struct kmem_cache) hands out objects of one size. Objects live in
 * slabs: blocks of 2^order pages from the page allocator, each on one NUMA
 * node. Every CPU has a magazine of free object pointers in front of the
 * node lists, so the common alloc and free touch only that CPU's cache
 * line (no lock, no atomic read-modify-write). Design and figures:
 * docs/slab.md.
 *
 * Contexts: every function here may be called from any context (poll loop
 * or interrupt handler) unless its comment says otherwise; per-CPU state is
 * guarded with mm_irq_save/mm_irq_restore. On the host every pthread must
 * first call mm_host_set_cpu().
 */
#ifndef MM_SLAB_H
#define MM_SLAB_H

#include <stddef.h>

#include "gfp.h"

struct kmem_cache;

/* Flags for kmem_cache_create(). */
#define SLAB_HWCACHE_ALIGN 0x1u /* align objects to MM_CACHE_LINE */
#define SLAB_RED_ZONE	   0x2u /* red zones both sides, checked on free */
#define SLAB_POISON	   0x4u /* fill freed objects, check on alloc */
#define SLAB_DEBUG	   (SLAB_RED_ZONE | SLAB_POISON)

#define NUMA_NO_NODE (-1)

/*
 * kmem_cache_create - make a cache of objects of @size bytes.
 * @name:  shown in slabinfo and in debug reports; the string must outlive
 *         the cache (a literal is fine).
 * @size:  object size, 1..SLAB_MAX_SIZE (8 KiB).
 * @align: minimum alignment, 0 or a power of two up to MM_PAGE_SIZE; objects
 *         are at least pointer-aligned.
 * @flags: SLAB_HWCACHE_ALIGN, SLAB_RED_ZONE, SLAB_POISON (any other bit is
 *         refused). When the runtime debug flag is on (MM_DEBUG) both debug
 *         flags are implied.
 * @ctor:  called once for each object when its slab is created, never on
 *         reuse: a freed object must be returned in its constructed state.
 *         Caches with a ctor are not poisoned (that would undo the ctor).
 * Context: any, but not concurrently with kmem_cache_destroy of that cache.
 * Returns the cache, or NULL on bad arguments (reported) or no memory.
 */
struct kmem_cache *kmem_cache_create(const char *name, size_t size,
				     size_t align, unsigned int flags,
				     void (*ctor)(void *));

/*
 * kmem_cache_destroy - drain every CPU's magazine, free every slab and the
 * cache itself. No other CPU may use the cache during the call (nothing can
 * interrupt another CPU here, so its magazine is read directly).
 * If objects are still allocated, that is reported (cache name, count,
 * caller) and counted in slab_debug_counts().destroy_busy, and the cache is
 * kept alive, dead, so the outstanding objects can still be freed into it;
 * only its empty slabs are returned. A dead cache refuses every allocation
 * (NULL, reported with the caller, counted in alloc_dead and the cache's
 * fail counter); frees go straight back to their slabs. Destroy it again
 * once the objects are back.
 */
void kmem_cache_destroy(struct kmem_cache *s);

/*
 * kmem_cache_alloc - one object from this CPU's magazine, refilled from the
 * local node's slabs when empty. __GFP_ZERO zeroes it. When the local node
 * has no object and no page left, the object comes from the nearest node
 * that has one, straight to the caller: a magazine only ever holds its
 * node's objects (fallback_allocs in slabinfo counts these).
 * Returns the object or NULL (counted in the cache's fail counter).
 */
void *kmem_cache_alloc(struct kmem_cache *s, gfp_t gfp);

/*
 * kmem_cache_alloc_node - one object from node @nid's slabs (NUMA_NO_NODE or
 * this CPU's memory node, numa_mem_id(): same as kmem_cache_alloc). For
 * another node, the object comes from that node's lists under its lock,
 * bypassing the magazine.
 * Falls back to other nodes when @nid has no memory, unless
 * __GFP_THISNODE, which never returns another node's object (the local
 * magazine holds only local objects). __GFP_NORETRY: one cheap try of
 * @nid for a new slab, no other node (as in the page allocator).
 * Returns NULL for an invalid @nid (reported) or no memory.
 */
void *kmem_cache_alloc_node(struct kmem_cache *s, gfp_t gfp, int nid);

/*
 * kmem_cache_free - give @obj back to cache @s. Objects of this CPU's node
 * go to this CPU's magazine (even if another CPU allocated them); objects
 * of another node go back to their own node's slab lists, never into this
 * CPU's magazine. NULL is ignored. In every build a double free, a
 * pointer that is not an object start and an object of another cache
 * (even one of the same layout) are refused, reported with the caller
 * and counted (slab_debug_counts); debug caches also check red zones.
 */
void kmem_cache_free(struct kmem_cache *s, void *obj);

/*
 * kmem_cache_alloc_bulk - fill p[0..n) with @n objects in one operation:
 * one interrupt guard, a copy out of the magazine, and for the remainder one
 * refill straight from the node lists (one lock acquisition per node and
 * slab allocation) into p[]. As for kmem_cache_alloc, objects of another
 * node (the local one had none; not with __GFP_THISNODE) go only to p[].
 * Returns n on success. On failure it returns 0 and has freed every object
 * it had taken, as Linux does: the caller never sees a partial bulk.
 * n == 0 returns 0 (nothing asked, nothing done).
 */
size_t kmem_cache_alloc_bulk(struct kmem_cache *s, gfp_t gfp, size_t n,
			     void **p);

/*
 * kmem_cache_free_bulk - give back p[0..n) in one operation: one guard, the
 * local objects copied into the magazine, the overflow and remote objects
 * returned to their slabs with one lock acquisition per node run. Each
 * object gets kmem_cache_free's checks (a pointer twice in the array
 * too); a bulk with a bad one is freed one by one, the bad ones refused.
 */
void kmem_cache_free_bulk(struct kmem_cache *s, size_t n, void **p);

/*
 * kmem_cache_shrink - return this CPU's magazine to the node lists and every
 * empty slab of the cache (also the reserve) to the page allocator. Other
 * CPUs' magazines are theirs: each CPU shrinks its own (there are no
 * cross-CPU calls). Returns the number of slabs freed.
 */
unsigned int kmem_cache_shrink(struct kmem_cache *s);

/*
 * kmem_cache_shrink_all - kmem_cache_shrink() of every cache, for this CPU:
 * what a caller does when the page allocator has nothing left (a NIC ring
 * it cannot refill). A magazine's objects pin the slabs they come from: at
 * -m 8M after a flood, 48 objects of kmalloc-2k (47 in CPU 0's magazine)
 * kept 17 slabs, 136 of the machine's 384 pages, out of the page
 * allocator. Context: process or poll context, no slab lock held (it takes
 * the cache list's lock and each cache's node locks). Returns the number
 * of slabs freed.
 */
unsigned int kmem_cache_shrink_all(void);

/* Object size (as asked at create) and name of a cache. */
size_t kmem_cache_size(const struct kmem_cache *s);
const char *kmem_cache_name(const struct kmem_cache *s);

/*
 * kmalloc - @size bytes from the smallest size class that fits (8, 16, 32,
 * 64, 96, 128, 192, 256, 512, 1 Ki, 2 Ki, 4 Ki, 8 Ki); larger sizes are a
 * compound block straight from the page allocator. Alignment: the class
 * size's largest power-of-two divisor (at least 8), page for large sizes.
 * kmalloc(0) returns ZERO_SIZE_PTR, which kfree accepts.
 * Returns NULL on failure (counted) or for sizes above 4 MiB (reported).
 */
void *kmalloc_node(size_t size, gfp_t gfp, int nid);

/* Out-of-line halves of kmalloc: any size, and a class known already. */
void *__kmalloc(size_t size, gfp_t gfp);
void *__kmalloc_class(unsigned int cls, gfp_t gfp);

/* KMALLOC_NR_CLASSES classes; kmalloc_size_class - the class of 1..8192
 * bytes (index into the sizes listed at kmalloc). Written as compares so
 * that a constant size folds to a constant; kmalloc.c has a table for
 * sizes known only at run time, and the tests check the two agree. */
#define KMALLOC_NR_CLASSES 13
#define KMALLOC_MAX_CACHE  8192u
static inline unsigned int kmalloc_size_class(size_t size)
{
	return size <= 8      ? 0
	       : size <= 16   ? 1
	       : size <= 32   ? 2
	       : size <= 64   ? 3
	       : size <= 96   ? 4
	       : size <= 128  ? 5
	       : size <= 192  ? 6
	       : size <= 256  ? 7
	       : size <= 512  ? 8
	       : size <= 1024 ? 9
	       : size <= 2048 ? 10
	       : size <= 4096 ? 11
			      : 12;
}

/*
 * kmalloc is inline so that a size known at compile time (the usual
 * kmalloc(sizeof(struct x))) picks its class at compile time, as Linux's
 * does: measured in the guest (make bench-kernel), kmalloc(256)+kfree
 * takes 1.37x kmem_cache_alloc+free with the class found at run time and
 * 1.28x with it folded. Any other size goes to __kmalloc().
 */
static inline __attribute__((always_inline)) void *kmalloc(size_t size,
							   gfp_t gfp)
{
	if (__builtin_constant_p(size) && size >= 1 &&
	    size <= KMALLOC_MAX_CACHE)
		return __kmalloc_class(kmalloc_size_class(size), gfp);
	return __kmalloc(size, gfp);
}
/* kfree - free memory from kmalloc; the cache is found from the page. */
void kfree(const void *obj);
/* ksize - usable size of a kmalloc'd object (its class or block size). */
size_t ksize(const void *obj);

#define ZERO_SIZE_PTR	    ((void *)16)
#define ZERO_OR_NULL_PTR(x) ((unsigned long)(x) <= (unsigned long)ZERO_SIZE_PTR)

/*
 * slabinfo - one line (text) or one object (JSON, keyed by cache name) per
 * cache: object size, stride, objects in use / total, objects per slab,
 * pages per slab, slabs (total, partial, empty), objects in per-CPU
 * magazines, and counters (allocs, frees, refills, flushes, remote frees,
 * slab pages allocated/freed, failures, fallback allocs). The text is
 * Linux's /proc/slabinfo version 2.1 (header lines, then name, active and
 * total objects, slot size, objects and pages per slab, " : tunables"
 * with the magazine's limit and batch, " : slabdata"), with the rest in
 * a " : stats" section after it, as the header names. The JSON adds
 * the magazine view: magazine_hits / magazine_misses (a miss is an
 * allocation that found the magazine empty, one refill, or wanted another
 * node), magazine_limit and "magazines": objects now in each CPU's
 * magazine. snprintf semantics. slabinfo_schema describes every member
 * of a cache's JSON object (libc/stat_table.h).
 */
int slabinfo_text(char *buf, size_t size);
int slabinfo_json(char *buf, size_t size);
struct stat_schema;
extern const struct stat_schema slabinfo_schema;

/* slab_remote_frees - frees of another node's objects (sent back to their
 * home node), all caches and CPUs summed. Any context but an interrupt
 * handler (takes the cache list's lock); relaxed reads. */
unsigned long slab_remote_frees(void);

/* Debug detections, counted so tests can assert them without crashing. */
struct slab_debug_counts {
	unsigned long double_free;  /* free of an already free object */
	unsigned long invalid_free; /* pointer not an object of the cache */
	unsigned long redzone;	    /* write before or past the object */
	unsigned long poison;	    /* write to a free object */
	unsigned long destroy_busy; /* destroy with objects outstanding */
	unsigned long alloc_dead;   /* allocation from such a destroyed cache */
};
void slab_debug_counts(struct slab_debug_counts *out);

/*
 * slab_forget_all - drop every cache without freeing anything, so that a
 * new machine starts with no caches. Debug counters are reset too. Only
 * for a new machine: mm_init() calls it (the host's previous machine and
 * its memory are gone by then).
 */
void slab_forget_all(void);

/*
 * kmalloc_forget - forget the kmalloc classes' caches, so that kmalloc
 * re-creates them on first use. Only with slab_forget_all(), in mm_init().
 */
void kmalloc_forget(void);

#endif /* MM_SLAB_H */
