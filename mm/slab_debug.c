/*
 * Slab debugging: red zones, poisoning, double-free and foreign-free
 * detection. Active in caches created with SLAB_RED_ZONE/SLAB_POISON or
 * while the runtime debug flag (mm/debug.h, MM_DEBUG) is on.
 *
 * Layout of a debug slot (see slab_layout in mm/slab_cache.c):
 *
 *   | red zone | object ... | red zone | fp state alloc_caller free_caller |
 *
 * The red zones hold SLAB_RZ_BYTE and are checked when the object is freed
 * (a write just before or past the object). A free object is filled with
 * SLAB_POISON_BYTE, last byte SLAB_POISON_END, checked when it is handed
 * out again (a write through a dangling pointer). The state word tells a
 * free object from an allocated one, which is how a double free is seen
 * even while the object sits in a CPU magazine. Every detection is printed
 * with the cache name and the caller's address, counted, and survived: a
 * bad free is refused, a damaged red zone is repaired.
 */
#include <string.h>

#include "debug.h"
#include "slab_internal.h"

#define SLAB_RZ_BYTE	 0xbb
#define SLAB_POISON_BYTE 0x6b /* as Linux: readers of dumps know it */
#define SLAB_POISON_END	 0xa5
#define SLAB_STATE_FREE	 0xf7eef7eef7eef7eeul
#define SLAB_STATE_ALLOC 0xa110ca7eda110ca7ul

static atomic_ulong nr_double_free, nr_invalid_free, nr_redzone, nr_poison,
	nr_destroy_busy, nr_alloc_dead;

static void count(atomic_ulong *c)
{
	atomic_fetch_add_explicit(c, 1, memory_order_relaxed);
}

bool slab_debug_runtime(void)
{
	return mm_debug_on();
}

static struct slab_debug_meta *meta_of(const struct kmem_cache *s, void *obj)
{
	return (struct slab_debug_meta *)((char *)obj + s->meta_offset);
}

static void poison(const struct kmem_cache *s, void *obj)
{
	memset(obj, SLAB_POISON_BYTE, s->object_size - 1);
	((unsigned char *)obj)[s->object_size - 1] = SLAB_POISON_END;
}

static void fill_redzones(const struct kmem_cache *s, void *obj)
{
	memset((char *)obj - s->obj_offset, SLAB_RZ_BYTE, s->obj_offset);
	memset((char *)obj + s->object_size, SLAB_RZ_BYTE,
	       s->meta_offset - s->object_size);
}

/* First byte in [p, p+n) that is not c, or -1. */
static long first_bad(const void *p, size_t n, unsigned char c)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i] != c)
			return (long)i;
	return -1;
}

void slab_debug_init_object(struct kmem_cache *s, void *obj)
{
	struct slab_debug_meta *m = meta_of(s, obj);

	fill_redzones(s, obj);
	if (s->flags & SLAB_POISON)
		poison(s, obj);
	m->state = SLAB_STATE_FREE;
	m->alloc_caller = NULL;
	m->free_caller = NULL;
}

void slab_debug_on_alloc(struct kmem_cache *s, void *obj, void *caller)
{
	struct slab_debug_meta *m = meta_of(s, obj);

	if (s->flags & SLAB_POISON) {
		long bad = first_bad(obj, s->object_size - 1, SLAB_POISON_BYTE);
		unsigned char last = ((unsigned char *)obj)[s->object_size - 1];
		if (bad < 0 && last != SLAB_POISON_END)
			bad = (long)s->object_size - 1;
		if (bad >= 0) {
			char who[64];
			count(&nr_poison);
			mm_debug_report(
				MM_DBG_WRITE_AFTER_FREE, caller,
				"slab: %s: object %p written after free "
				"(byte %ld; freed by %s)",
				s->name, obj, bad,
				mm_symbolize(m->free_caller, who, sizeof(who)));
		}
	}
	m->state = SLAB_STATE_ALLOC;
	m->alloc_caller = caller;
}

/*
 * slab_check_owner - is obj the start of an object of cache s? Used by
 * debug frees; also catches a pointer into the middle of an object.
 */
bool slab_check_owner(struct kmem_cache *s, const void *obj, void *caller)
{
	struct page *page = virt_to_head_page(obj);

	if (page && (page->flags & PG_slab) && page->slab_cache == s) {
		const char *base = page_address(page);
		uintptr_t off = (uintptr_t)obj - (uintptr_t)base;
		if (off >= s->obj_offset) {
			off -= s->obj_offset;
			if (off % s->stride == 0 &&
			    off / s->stride < s->objects)
				return true;
		}
		count(&nr_invalid_free);
		mm_debug_report(MM_DBG_INVALID_FREE, caller,
				"slab: %s: free of %p, inside the slab at %p "
				"but not an object start (stride %u); refused",
				s->name, obj, (const void *)base, s->stride);
		return false;
	}
	count(&nr_invalid_free);
	mm_debug_report(MM_DBG_NOT_ALLOCATED, caller,
			"slab: %s: free of %p, which is not an object of this "
			"cache",
			s->name, obj);
	return false;
}

static void check_redzones(struct kmem_cache *s, void *obj, void *caller)
{
	struct slab_debug_meta *m = meta_of(s, obj);
	long before = first_bad((char *)obj - s->obj_offset, s->obj_offset,
				SLAB_RZ_BYTE);
	long after = first_bad((char *)obj + s->object_size,
			       s->meta_offset - s->object_size, SLAB_RZ_BYTE);

	if (before < 0 && after < 0)
		return;
	count(&nr_redzone);
	char who[64];
	mm_symbolize(m->alloc_caller, who, sizeof(who));
	if (after >= 0)
		mm_debug_report(MM_DBG_RED_ZONE, caller,
				"slab: %s: object %p overflowed: red zone "
				"written %ld bytes past its end (allocated "
				"by %s)",
				s->name, obj, after + 1, who);
	if (before >= 0)
		mm_debug_report(MM_DBG_RED_ZONE, caller,
				"slab: %s: object %p underflowed: red zone "
				"written %ld bytes before its start "
				"(allocated by %s)",
				s->name, obj, (long)s->obj_offset - before,
				who);
	fill_redzones(s, obj);
}

bool slab_debug_on_free(struct kmem_cache *s, void *obj, void *caller)
{
	if (!slab_check_owner(s, obj, caller))
		return false;

	struct slab_debug_meta *m = meta_of(s, obj);
	if (m->state == SLAB_STATE_FREE) {
		char who[64];
		count(&nr_double_free);
		mm_debug_report(MM_DBG_DOUBLE_FREE, caller,
				"slab: %s: double free of %p (first freed by "
				"%s)",
				s->name, obj,
				mm_symbolize(m->free_caller, who, sizeof(who)));
		return false;
	}
	if (m->state != SLAB_STATE_ALLOC) {
		count(&nr_invalid_free);
		mm_debug_report(MM_DBG_OTHER, caller,
				"slab: %s: object %p has a corrupt state word "
				"%#lx; not freed",
				s->name, obj, m->state);
		return false;
	}
	check_redzones(s, obj, caller);
	m->state = SLAB_STATE_FREE;
	m->free_caller = caller;
	if (s->flags & SLAB_POISON)
		poison(s, obj);
	return true;
}

void slab_debug_count_destroy_busy(void)
{
	count(&nr_destroy_busy);
}

void *slab_alloc_dead(struct kmem_cache *s, void *caller)
{
	count(&nr_alloc_dead);
	atomic_fetch_add_explicit(&s->alloc_fail, 1, memory_order_relaxed);
	mm_debug_report(MM_DBG_OTHER, caller,
			"slab: %s: allocation from a destroyed cache refused "
			"(it lives on only until its objects are freed)",
			s->name);
	return NULL;
}

void slab_report_double_free(struct kmem_cache *s, const void *obj,
			     const char *where, void *caller)
{
	count(&nr_double_free);
	mm_debug_report(MM_DBG_DOUBLE_FREE, caller,
			"slab: %s: double free of %p (%s); refused", s->name,
			obj, where);
}

void slab_debug_count_invalid_free(void)
{
	count(&nr_invalid_free);
}

void slab_debug_counts(struct slab_debug_counts *out)
{
	out->double_free = atomic_load(&nr_double_free);
	out->invalid_free = atomic_load(&nr_invalid_free);
	out->redzone = atomic_load(&nr_redzone);
	out->poison = atomic_load(&nr_poison);
	out->destroy_busy = atomic_load(&nr_destroy_busy);
	out->alloc_dead = atomic_load(&nr_alloc_dead);
}

void slab_debug_reset(void)
{
	atomic_store(&nr_double_free, 0);
	atomic_store(&nr_invalid_free, 0);
	atomic_store(&nr_redzone, 0);
	atomic_store(&nr_poison, 0);
	atomic_store(&nr_destroy_busy, 0);
	atomic_store(&nr_alloc_dead, 0);
}
