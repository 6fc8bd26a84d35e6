/*
 * kmalloc: general-purpose allocation on top of the slab caches.
 *
 * Sizes up to 8 KiB come from one of 13 caches: powers of two from 8 to
 * 8192 plus 96 and 192, the two classes that halve the worst-case waste
 * between 64..128 and 128..256, where most small kernel objects fall.
 * Larger sizes are a compound block straight from the page allocator. kfree
 * needs no size: the head page says which it is (PG_slab with its cache,
 * or PG_head with its order).
 *
 * The caches are created on first use, so kmalloc needs no boot hook; the
 * host's mm_host_shutdown() forgets them (kmalloc_forget) with the rest of
 * the machine, so the next boot creates them afresh.
 */
#include <string.h>

#include "debug.h"
#include "slab_internal.h"

#define KMALLOC_NR_CLASSES 13
#define KMALLOC_MAX_CACHE  8192u

static const unsigned short kmalloc_sizes[KMALLOC_NR_CLASSES] = {
	8, 16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096, 8192,
};
static const char *const kmalloc_names[KMALLOC_NR_CLASSES] = {
	"kmalloc-8",   "kmalloc-16",  "kmalloc-32",  "kmalloc-64",
	"kmalloc-96",  "kmalloc-128", "kmalloc-192", "kmalloc-256",
	"kmalloc-512", "kmalloc-1k",  "kmalloc-2k",  "kmalloc-4k",
	"kmalloc-8k",
};

static struct kmem_cache *kmalloc_caches[KMALLOC_NR_CLASSES];
static atomic_bool kmalloc_ready;
static mm_spinlock_t kmalloc_init_lock = MM_SPINLOCK_INIT;

/* Class index for 1..8192 bytes. */
static unsigned int kmalloc_index(size_t size)
{
	if (size <= 64) {
		if (size <= 8)
			return 0;
		return size <= 16 ? 1 : size <= 32 ? 2 : 3;
	}
	if (size <= 96)
		return 4;
	if (size <= 128)
		return 5;
	if (size <= 192)
		return 6;
	/* 256 -> 7, 512 -> 8, ... 8192 -> 12: bits of (size - 1), minus 1 */
	return (unsigned int)(64 - __builtin_clzl(size - 1)) - 1;
}

static bool kmalloc_create_caches(void)
{
	for (unsigned int i = 0; i < KMALLOC_NR_CLASSES; i++) {
		if (kmalloc_caches[i])
			continue;
		/* Natural alignment (the size's largest power-of-two
		 * divisor), kept even when debug red zones move objects. */
		size_t size = kmalloc_sizes[i], align = size & -size;
		if (align > MM_PAGE_SIZE)
			align = MM_PAGE_SIZE;
		kmalloc_caches[i] = kmem_cache_create(kmalloc_names[i], size,
						      align, 0, NULL);
		if (!kmalloc_caches[i])
			return false;
	}
	return true;
}

/* Create the caches once; callers race on the first kmalloc. */
static bool kmalloc_init(void)
{
	if (mm_likely(
		    atomic_load_explicit(&kmalloc_ready, memory_order_acquire)))
		return true;
	unsigned long flags = mm_spin_lock_irqsave(&kmalloc_init_lock);
	bool ok = atomic_load_explicit(&kmalloc_ready, memory_order_relaxed) ||
		  kmalloc_create_caches();
	if (ok)
		atomic_store_explicit(&kmalloc_ready, true,
				      memory_order_release);
	mm_spin_unlock_irqrestore(&kmalloc_init_lock, flags);
	return ok;
}

void kmalloc_forget(void)
{
	unsigned long flags = mm_spin_lock_irqsave(&kmalloc_init_lock);
	memset(kmalloc_caches, 0, sizeof(kmalloc_caches));
	atomic_store_explicit(&kmalloc_ready, false, memory_order_release);
	mm_spin_unlock_irqrestore(&kmalloc_init_lock, flags);
}

static void *kmalloc_large(size_t size, gfp_t gfp, int nid, void *caller)
{
	unsigned int order = 0;

	while ((MM_PAGE_SIZE << order) < size && order <= MAX_ORDER)
		order++;
	if (order > MAX_ORDER) {
		mm_printf("kmalloc: %zu bytes is more than the largest block "
			  "(%lu), caller %p\n",
			  size, MM_PAGE_SIZE << MAX_ORDER, caller);
		return NULL;
	}
	struct page *page = alloc_pages_node(nid, gfp | __GFP_COMP, order);
	return page ? page_address(page) : NULL;
}

static void *__kmalloc(size_t size, gfp_t gfp, int nid, void *caller)
{
	if (mm_unlikely(size == 0))
		return ZERO_SIZE_PTR;
	if (mm_unlikely(size > KMALLOC_MAX_CACHE))
		return kmalloc_large(size, gfp, nid, caller);
	if (mm_unlikely(!kmalloc_init()))
		return NULL;
	return __kmem_cache_alloc(kmalloc_caches[kmalloc_index(size)], gfp, nid,
				  caller);
}

void *kmalloc(size_t size, gfp_t gfp)
{
	return __kmalloc(size, gfp, NUMA_NO_NODE, __builtin_return_address(0));
}

void *kmalloc_node(size_t size, gfp_t gfp, int nid)
{
	return __kmalloc(size, gfp, nid, __builtin_return_address(0));
}

/* The head page of a kmalloc'd pointer, or NULL (reported) if it is not. */
static struct page *kmalloc_page(const void *obj, void *caller)
{
	struct page *page = virt_to_head_page(obj);

	if (page && (page->flags & PG_slab))
		return page;
	if (page && (page->flags & PG_head) && obj == page_address(page))
		return page;
	slab_debug_count_invalid_free();
	mm_debug_report(MM_DBG_NOT_ALLOCATED, caller,
			"kfree: %p was not returned by kmalloc", obj);
	return NULL;
}

void kfree(const void *obj)
{
	void *caller = __builtin_return_address(0);

	if (mm_unlikely(ZERO_OR_NULL_PTR(obj)))
		return;
	struct page *page = kmalloc_page(obj, caller);
	if (!page)
		return;
	if (page->flags & PG_slab)
		__kmem_cache_free(page->slab_cache, (void *)obj, caller);
	else
		__free_pages(page, page->order);
}

size_t ksize(const void *obj)
{
	if (ZERO_OR_NULL_PTR(obj))
		return 0;
	struct page *page = kmalloc_page(obj, __builtin_return_address(0));
	if (!page)
		return 0;
	if (page->flags & PG_slab)
		return ((struct kmem_cache *)page->slab_cache)->object_size;
	return MM_PAGE_SIZE << page->order;
}
