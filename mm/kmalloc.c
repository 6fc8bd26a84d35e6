/*
 * kmalloc: general-purpose allocation on top of the slab caches.
 *
 * Sizes up to 8 KiB come from one of 13 caches: powers of two from 8 to
 * 8192 plus 96 and 192, the two classes that halve the worst-case waste
 * between 64..128 and 128..256, where most small kernel objects fall.
 * Larger sizes are a compound block straight from the page allocator
 * (with red zones around it while debug is on: kmalloc_guard.c). kfree
 * needs no size: the head page says which it is (PG_slab with its cache,
 * or PG_head with its order).
 *
 * The caches are created on first use, so kmalloc needs no boot hook; the
 * host's mm_host_shutdown() forgets them (kmalloc_forget) with the rest of
 * the machine, so the next boot creates them afresh.
 *
 * Cost: kmalloc's own work on top of the slab's inline fast path is the
 * class (folded at compile time for a constant size, by the inline kmalloc
 * in slab.h; else one table load or bit scan) and one load of its cache;
 * kfree's is the page lookup (pfn_to_page) and the PG_slab test. Guest
 * instructions per kmalloc(256)+kfree (make bench-kernel): 185 with a
 * branchy class lookup, a ready flag and the slab fast path behind two
 * calls; 91 now, against 71 for kmem_cache_alloc+kmem_cache_free.
 */
#include <string.h>

#include "debug.h"
#include "kmalloc_guard.h"
#include "slab_internal.h"

/* Trace points (mm_trace.h) of the sizes above the caches; the smaller
 * ones are their caches' slab events (kmalloc-64, ...). */
TRACE_EVENT(ev_kmalloc_large, TRACE_MM, "kmalloc_large", {"ptr", TRACE_HEX},
	    {"caller", TRACE_SYM}, {"size", TRACE_DEC}, {"order", TRACE_DEC});
TRACE_EVENT(ev_kfree_large, TRACE_MM, "kfree_large", {"ptr", TRACE_HEX},
	    {"caller", TRACE_SYM}, {"size", TRACE_DEC}, {"order", TRACE_DEC});

static const unsigned short kmalloc_sizes[KMALLOC_NR_CLASSES] = {
	8, 16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096, 8192,
};
static const char *const kmalloc_names[KMALLOC_NR_CLASSES] = {
	"kmalloc-8",   "kmalloc-16",  "kmalloc-32",  "kmalloc-64",
	"kmalloc-96",  "kmalloc-128", "kmalloc-192", "kmalloc-256",
	"kmalloc-512", "kmalloc-1k",  "kmalloc-2k",  "kmalloc-4k",
	"kmalloc-8k",
};

/*
 * The classes' caches, NULL until created (the first kmalloc does it).
 * Read on every kmalloc with an acquire load (a plain load on x86), so a
 * CPU that sees a cache also sees it initialised; NULL sends the caller
 * to the slow path, which creates them: no separate "ready" flag to test.
 */
static _Atomic(struct kmem_cache *) kmalloc_caches[KMALLOC_NR_CLASSES];
static mm_spinlock_t kmalloc_init_lock = MM_SPINLOCK_INIT;

/* Class of 1..192 bytes by (size - 1) / 8: one table load, no branches. */
static const uint8_t kmalloc_small_index[24] = {
	0, 1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, /*   8 ..  96 */
	5, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 6, /* 104 .. 192 */
};

/* Class index for 1..8192 bytes. */
static inline unsigned int kmalloc_index(size_t size)
{
	if (size <= 192)
		return kmalloc_small_index[(size - 1) >> 3];
	/* 256 -> 7, 512 -> 8, ... 8192 -> 12: bits of (size - 1), minus 1 */
	return (unsigned int)(64 - __builtin_clzl(size - 1)) - 1;
}

static bool kmalloc_create_caches(void)
{
	for (unsigned int i = 0; i < KMALLOC_NR_CLASSES; i++) {
		if (atomic_load_explicit(&kmalloc_caches[i],
					 memory_order_relaxed))
			continue;
		/* Natural alignment (the size's largest power-of-two
		 * divisor), kept even when debug red zones move objects. */
		size_t size = kmalloc_sizes[i], align = size & -size;
		if (align > MM_PAGE_SIZE)
			align = MM_PAGE_SIZE;
		struct kmem_cache *c = kmem_cache_create(kmalloc_names[i], size,
							 align, 0, NULL);
		if (!c)
			return false;
		atomic_store_explicit(&kmalloc_caches[i], c,
				      memory_order_release);
	}
	return true;
}

/* Create the caches once; callers race on the first kmalloc. */
static bool kmalloc_init(void)
{
	unsigned long flags = mm_spin_lock_irqsave(&kmalloc_init_lock);
	bool ok = kmalloc_create_caches();
	mm_spin_unlock_irqrestore(&kmalloc_init_lock, flags);
	return ok;
}

void kmalloc_forget(void)
{
	unsigned long flags = mm_spin_lock_irqsave(&kmalloc_init_lock);
	for (unsigned int i = 0; i < KMALLOC_NR_CLASSES; i++)
		atomic_store_explicit(&kmalloc_caches[i], NULL,
				      memory_order_relaxed);
	mm_spin_unlock_irqrestore(&kmalloc_init_lock, flags);
}

/* A block of pages; with the debug checks on, with red zones around it
 * (kmalloc_guard.c). */
static void *kmalloc_large(size_t size, gfp_t gfp, int nid, void *caller)
{
	bool guard = mm_debug_on();
	size_t need = guard ? kmalloc_guarded_bytes(size) : size;
	unsigned int order = 0;

	while ((MM_PAGE_SIZE << order) < need && order <= MAX_ORDER)
		order++;
	if (order > MAX_ORDER) {
		mm_printf("kmalloc: %zu bytes is more than the largest block "
			  "(%lu), caller %p\n",
			  size, MM_PAGE_SIZE << MAX_ORDER, caller);
		return NULL;
	}
	struct page *page =
		__alloc_pages_caller(nid, gfp | __GFP_COMP, order, caller);
	void *ptr = NULL;

	if (page)
		ptr = guard ? kmalloc_guard_block(page, size, order)
			    : page_address(page);
	mm_trace(&ev_kmalloc_large, (uintptr_t)ptr, (uintptr_t)caller, size,
		 order);
	return ptr;
}

/* Where kmalloc_large() put the pointer it handed out from @page. */
static const void *kmalloc_large_ptr(const struct page *page)
{
	const char *base = page_address(page);
	return kmalloc_is_guarded(page) ? base + KMALLOC_GUARD_FRONT : base;
}

/* Everything but the fast path: size 0, large sizes, the caches not yet
 * created, another node. */
static __attribute__((noinline)) void *kmalloc_slow(size_t size, gfp_t gfp,
						    int nid, void *caller)
{
	if (mm_unlikely(size == 0))
		return ZERO_SIZE_PTR;
	if (mm_unlikely(size > KMALLOC_MAX_CACHE))
		return kmalloc_large(size, gfp, nid, caller);
	struct kmem_cache *s = atomic_load_explicit(
		&kmalloc_caches[kmalloc_index(size)], memory_order_acquire);
	if (mm_unlikely(!s)) {
		if (!kmalloc_init())
			return NULL;
		s = atomic_load_explicit(&kmalloc_caches[kmalloc_index(size)],
					 memory_order_relaxed);
	}
	return __kmem_cache_alloc(s, gfp, nid, caller);
}

/*
 * __kmalloc - kmalloc of a size known only at run time: the class by
 * table or bit scan, its cache by one load, then the slab's own inline
 * fast path (slab_internal.h). Measured in the guest (make bench-kernel,
 * kmalloc(256) + kfree against kmem_cache_alloc + kmem_cache_free):
 * 2.53x with the class found by branches, a ready flag and two calls;
 * 1.37x with this (1.28x when the size is a constant: slab.h).
 */
/* The created cache of a size in 1..8192, else NULL (the slow path's). */
static inline struct kmem_cache *kmalloc_cache_of(size_t size)
{
	if (mm_likely(size - 1 < KMALLOC_MAX_CACHE)) /* 1..8192 */
		return atomic_load_explicit(
			&kmalloc_caches[kmalloc_index(size)],
			memory_order_acquire);
	return NULL;
}

void *__kmalloc(size_t size, gfp_t gfp)
{
	void *caller = __builtin_return_address(0);
	struct kmem_cache *s = kmalloc_cache_of(size);

	if (mm_likely(s))
		return slab_alloc(s, gfp, caller);
	return kmalloc_slow(size, gfp, NUMA_NO_NODE, caller);
}

/* __kmalloc_class - kmalloc of a constant size, its class folded by the
 * inline kmalloc (slab.h): one load and the slab's fast path. */
void *__kmalloc_class(unsigned int cls, gfp_t gfp)
{
	void *caller = __builtin_return_address(0);
	struct kmem_cache *s = atomic_load_explicit(&kmalloc_caches[cls],
						    memory_order_acquire);

	if (mm_likely(s))
		return slab_alloc(s, gfp, caller);
	return kmalloc_slow(kmalloc_sizes[cls], gfp, NUMA_NO_NODE, caller);
}

/* The caller's own node (the network stack asks for it by number) takes
 * __kmalloc's fast path: through kmalloc_slow and __kmem_cache_alloc a
 * call cost 85 guest instructions, now 46 (tools/insn-profile iperf-rx:
 * one call per ACK, every second received segment). */
void *kmalloc_node(size_t size, gfp_t gfp, int nid)
{
	void *caller = __builtin_return_address(0);
	struct kmem_cache *s;

	if (mm_likely(nid == NUMA_NO_NODE || nid == numa_mem_id())) {
		s = kmalloc_cache_of(size);
		if (mm_likely(s))
			return slab_alloc(s, gfp, caller);
	}
	return kmalloc_slow(size, gfp, nid, caller);
}

/* @page, the head page of @obj (virt_to_head_page, looked up once by the
 * caller), if obj is a kmalloc'd pointer; NULL (reported) if it is not. */
static struct page *kmalloc_page(const void *obj, struct page *page,
				 void *caller)
{
	if (page && (page->flags & PG_slab))
		return page;
	if (page && (page->flags & PG_head) && obj == kmalloc_large_ptr(page))
		return page;
	slab_debug_count_invalid_free();
	if (page && page_block_is_free(virt_to_page(obj))) {
		mm_debug_report(MM_DBG_DOUBLE_FREE, caller,
				"kfree: %p is in a free block (freed twice?); "
				"refused",
				obj);
		return NULL;
	}
	mm_debug_report(MM_DBG_NOT_ALLOCATED, caller,
			"kfree: %p was not returned by kmalloc", obj);
	return NULL;
}

/* kfree of NULL, ZERO_SIZE_PTR, a large block or a bad pointer, with the
 * head page kfree looked up already (NULL outside every node's memory).
 * Only NULL and ZERO_SIZE_PTR itself are silent: (void *)1 .. 15 were
 * never returned by anything, and are reported as any other such
 * pointer. */
static __attribute__((noinline)) void
kfree_slow(const void *obj, struct page *page, void *caller)
{
	if (!obj || obj == ZERO_SIZE_PTR)
		return;
	page = kmalloc_page(obj, page, caller);
	if (!page)
		return;
	if (page->flags & PG_slab) {
		__kmem_cache_free(page->slab_cache, (void *)obj, caller);
		return;
	}
	if (kmalloc_is_guarded(page))
		kmalloc_guard_check(page, obj, caller);
	mm_trace(&ev_kfree_large, (uintptr_t)obj, (uintptr_t)caller,
		 MM_PAGE_SIZE << page->order, page->order);
	__free_pages_caller(page, page->order, caller);
}

/*
 * kfree's fast path: the head page, PG_slab, and the slab's inline free
 * (slab_free_page: the page already says the node). NULL and
 * ZERO_SIZE_PTR need no test of their own: their page is outside every
 * node's memory (or reserved) and takes the slow path, which gets the
 * page too: a large block's is looked up once (it was twice, here and in
 * kmalloc_page: host callgrind, kmalloc(64 KiB)+kfree 954 -> 940
 * instructions).
 */
void kfree(const void *obj)
{
	void *caller = __builtin_return_address(0);
	struct page *page = virt_to_head_page(obj);

	if (mm_likely(page && (page->flags & PG_slab)))
		slab_free_page(page->slab_cache, page, (void *)obj, caller);
	else
		kfree_slow(obj, page, caller);
}

size_t ksize(const void *obj)
{
	if (ZERO_OR_NULL_PTR(obj))
		return 0;
	struct page *page = kmalloc_page(obj, virt_to_head_page(obj),
					 __builtin_return_address(0));
	if (!page)
		return 0;
	if (page->flags & PG_slab)
		return ((struct kmem_cache *)page->slab_cache)->object_size;
	if (kmalloc_is_guarded(page))
		return kmalloc_guarded_size(page);
	return MM_PAGE_SIZE << page->order;
}
