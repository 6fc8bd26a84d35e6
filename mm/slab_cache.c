/*
 * Slab caches: creating one (object layout, slab order, per-CPU magazines),
 * shrinking and destroying it. The allocation paths are in mm/slab.c.
 *
 * A cache and its per-CPU magazines are one block from the page allocator,
 * sized for the CPUs this machine really has (mm_nr_cpus), so no cache
 * costs 64 magazines on a 2-CPU machine and kmalloc needs no bootstrap
 * cache of caches.
 */
#include <string.h>

#include "debug.h"
#include "slab_internal.h"

static size_t round_up(size_t x, size_t a)
{
	return (x + a - 1) & ~(a - 1);
}

static unsigned int order_for(size_t bytes)
{
	unsigned int order = 0;

	while ((MM_PAGE_SIZE << order) < bytes)
		order++;
	return order;
}

/* Stride, red zones and free-pointer place for size/align/flags. */
static void slab_layout(struct kmem_cache *s, size_t size, size_t align)
{
	size_t a = align < sizeof(void *) ? sizeof(void *) : align;

	if ((s->flags & SLAB_HWCACHE_ALIGN) && a < MM_CACHE_LINE)
		a = MM_CACHE_LINE;
	s->align = (unsigned int)a;
	if (cache_debug(s)) {
		/* [red zone | object | red zone | struct slab_debug_meta] */
		s->obj_offset = (unsigned int)round_up(SLAB_REDZONE_BYTES, a);
		s->meta_offset = (unsigned int)(round_up(size, sizeof(void *)) +
						SLAB_REDZONE_BYTES);
		s->fp_offset = s->meta_offset;
		s->mark_offset = s->meta_offset; /* unused: the meta says */
		s->stride = (unsigned int)round_up(
			s->obj_offset + s->meta_offset +
				sizeof(struct slab_debug_meta),
			a);
	} else if (s->ctor) {
		/* The object keeps its constructed state while free: the free
		 * pointer and the free marker go after it. */
		s->obj_offset = 0;
		s->fp_offset = (unsigned int)round_up(size, sizeof(void *));
		s->mark_offset = s->fp_offset + (unsigned int)sizeof(void *);
		s->stride = (unsigned int)round_up(
			s->mark_offset + sizeof(uintptr_t), a);
	} else {
		s->obj_offset = 0;
		s->stride = (unsigned int)round_up(
			size < sizeof(void *) ? sizeof(void *) : size, a);
		/* The marker in the first word, where the fast paths look
		 * (slab_internal.h), the free pointer in the second; an
		 * 8-byte object has one word for both. */
		s->mark_offset = 0;
		s->fp_offset = s->stride >= 2 * sizeof(void *)
				       ? (unsigned int)sizeof(void *)
				       : 0;
	}
}

/*
 * The free marker's secret for s: a hash (splitmix64's finaliser) of the
 * cache's address, so that two caches never share a marker; its top 16
 * bits forced to a non-canonical pattern, so that the marker is never a
 * value a live object holds by chance: not a pointer, not a small
 * integer, not 0 or -1.
 */
static uintptr_t slab_mark_key(const struct kmem_cache *s)
{
	uint64_t x = (uint64_t)(uintptr_t)s ^ 0x9e3779b97f4a7c15ull;

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	x ^= x >> 31;
	return (uintptr_t)((x & 0x0000ffffffffffffull) | 0xa55a000000000000ull);
}

/*
 * The constants of slab_obj_start() for s->stride (slab_internal.h):
 * c = floor(2^64 / d) + 1 in 64-bit arithmetic (UINT64_MAX / d is one
 * less than 2^64 / d when d divides 2^64, i.e. a power of two) and the
 * limit objects * (c * d mod 2^64).
 */
_Static_assert(((uint64_t)MM_PAGE_SIZE << SLAB_MAX_ORDER) <= (1ull << 20),
	       "slab_obj_start's bound (i + 1) * e < c needs small blocks");

static void slab_start_test(struct kmem_cache *s)
{
	uint64_t d = s->stride;
	uint64_t c = UINT64_MAX / d + 1 + (UINT64_MAX % d == d - 1);

	s->start_mul = c;
	s->start_limit = (uint64_t)s->objects * (c * d);
	s->slab_mask = ((uintptr_t)MM_PAGE_SIZE << s->order) - 1;
	s->slab_base_mask = ~s->slab_mask;
}

/* Smallest order meeting SLAB_MIN_OBJECTS and the waste limit. */
static void slab_pick_order(struct kmem_cache *s)
{
	for (unsigned int o = 0; o <= SLAB_MAX_ORDER; o++) {
		size_t bytes = MM_PAGE_SIZE << o;
		size_t objs = bytes / s->stride;
		size_t waste = bytes - objs * s->stride;
		s->order = o;
		s->objects = (unsigned int)objs;
		if (objs >= SLAB_MIN_OBJECTS && waste * SLAB_WASTE_DIV <= bytes)
			return;
	}
}

static unsigned int magazine_cap(size_t size)
{
	if (size <= SLAB_CPU_SMALL_SIZE)
		return SLAB_CPU_CAP_SMALL;
	if (size <= SLAB_CPU_MEDIUM_SIZE)
		return SLAB_CPU_CAP_MEDIUM;
	return SLAB_CPU_CAP_LARGE;
}

static bool bad_args(const char *name, size_t size, size_t align,
		     unsigned int flags)
{
	if (!name || size == 0 || size > SLAB_MAX_SIZE) {
		mm_printf(
			"slab: kmem_cache_create(%s): size %zu not in 1..%u\n",
			name ? name : "(null)", size, SLAB_MAX_SIZE);
		return true;
	}
	if (align & (align - 1) || align > MM_PAGE_SIZE) {
		mm_printf("slab: kmem_cache_create(%s): bad align %zu\n", name,
			  align);
		return true;
	}
	if (flags & ~(SLAB_HWCACHE_ALIGN | SLAB_DEBUG)) {
		mm_printf("slab: kmem_cache_create(%s): unknown flags %#x\n",
			  name, flags & ~(SLAB_HWCACHE_ALIGN | SLAB_DEBUG));
		return true;
	}
	return false;
}

/*
 * Address span [lo[nid], hi[nid]) of each node's memory. Returns false if
 * two nodes' spans overlap (interleaved ranges): then a span does not tell
 * the node, and frees look at the page instead.
 */
static bool node_spans(uintptr_t *lo, uintptr_t *hi)
{
	struct mm_range r[MM_MAX_RANGES];
	int n = mm_platform_ranges(r, MM_MAX_RANGES);

	for (int nid = 0; nid < MM_MAX_NODES; nid++) {
		lo[nid] = UINTPTR_MAX;
		hi[nid] = 0;
	}
	for (int i = 0; i < n; i++) {
		if (r[i].nid < 0 || r[i].nid >= MM_MAX_NODES)
			return false;
		if (r[i].start < lo[r[i].nid])
			lo[r[i].nid] = r[i].start;
		if (r[i].end > hi[r[i].nid])
			hi[r[i].nid] = r[i].end;
	}
	for (int a = 0; a < MM_MAX_NODES; a++)
		for (int b = a + 1; b < MM_MAX_NODES; b++)
			if (lo[a] < hi[a] && lo[b] < hi[b] && lo[a] < hi[b] &&
			    lo[b] < hi[a])
				return false;
	return true;
}

/*
 * The CPU's node span [lo, hi), from the start of lo's page, and the
 * struct page of that page (slab_free_fast_ok's owner test): the node's
 * mem_map covers its whole span when no other node's memory lies inside
 * it (mm/page.h). A span the mem_map does not cover stays 0: every free
 * then asks the slow path, never a wrong struct page.
 */
static void cpu_set_span(struct kmem_cache_cpu *c, uintptr_t lo, uintptr_t hi)
{
	const struct mm_pfn_map *m = &mm_node_pfn_maps[c->nid];
	unsigned long first = lo >> MM_PAGE_SHIFT;
	unsigned long last = (hi - 1) >> MM_PAGE_SHIFT;

	if (!m->mem_map || first < m->start_pfn ||
	    last - m->start_pfn >= m->spanned_pages)
		return;
	c->span_lo = first << MM_PAGE_SHIFT;
	c->span_len = hi - c->span_lo;
	c->span_map = m->mem_map + (first - m->start_pfn);
}

static void cache_init_percpu(struct kmem_cache *s, unsigned int cap)
{
	uintptr_t lo[MM_MAX_NODES], hi[MM_MAX_NODES];
	bool disjoint = node_spans(lo, hi);

	for (int cpu = 0; cpu < s->nr_cpus; cpu++) {
		struct kmem_cache_cpu *c = cache_cpu(s, cpu);
		c->limit = cap;
		c->batch = cap / SLAB_CPU_BATCH_DIV;
		c->nid = cpu_to_mem(cpu); /* nearest memory if none */
		if (disjoint && lo[c->nid] < hi[c->nid])
			cpu_set_span(c, lo[c->nid], hi[c->nid]);
	}
	for (int nid = 0; nid < MM_MAX_NODES; nid++) {
		struct kmem_cache_node *kn = &s->node[nid];
		mm_spin_init(&kn->lock);
		list_init(&kn->partial);
		list_init(&kn->full);
		list_init(&kn->empty);
	}
}

struct kmem_cache *kmem_cache_create(const char *name, size_t size,
				     size_t align, unsigned int flags,
				     void (*ctor)(void *))
{
	if (bad_args(name, size, align, flags))
		return NULL;
	if (slab_debug_runtime())
		flags |= SLAB_DEBUG;
	if (ctor)
		flags &= ~SLAB_POISON; /* poison would undo the constructor */

	int nr_cpus = mm_nr_cpus();
	unsigned int cap = magazine_cap(size);
	size_t cpu_stride =
		round_up(sizeof(struct kmem_cache_cpu) + cap * sizeof(void *),
			 MM_CACHE_LINE);
	size_t head = round_up(sizeof(struct kmem_cache), MM_CACHE_LINE);
	size_t bytes = head + (size_t)nr_cpus * cpu_stride;
	unsigned int order = order_for(bytes);
	struct page *page =
		alloc_pages(__GFP_NOWARN | (order ? __GFP_COMP : 0), order);
	if (!page) {
		mm_printf("slab: kmem_cache_create(%s): no memory\n", name);
		return NULL;
	}

	struct kmem_cache *s = page_address(page);
	memset(s, 0, bytes);
	s->name = name;
	s->object_size = (unsigned int)size;
	s->flags = flags | (ctor ? SLAB_CTOR : 0);
	s->ctor = ctor;
	s->alloc_order = order;
	s->nr_cpus = nr_cpus;
	s->multi_node = mm_nr_nodes() > 1;
	s->cpu_stride = (unsigned int)cpu_stride;
	s->cpu_base = (char *)s + head;
	slab_layout(s, size, align);
	s->mark_key = slab_mark_key(s);
	slab_pick_order(s);
	slab_start_test(s);
	cache_init_percpu(s, cap);

	unsigned long f = mm_spin_lock_irqsave(&slab_caches_lock);
	list_add_tail(&s->list, &slab_caches);
	mm_spin_unlock_irqrestore(&slab_caches_lock, f);
	return s;
}

/* Unlink every empty slab of every node into discard; returns objects
 * still in use on the node lists. Guard held. */
static unsigned long cache_reap_nodes(struct kmem_cache *s,
				      struct list_head *discard)
{
	unsigned long inuse = 0;
	struct list_head *pos;

	for (int nid = 0; nid < MM_MAX_NODES; nid++) {
		struct kmem_cache_node *kn = &s->node[nid];
		mm_spin_lock(&kn->lock);
		kn->nr_slabs -= kn->nr_empty;
		kn->slab_frees += kn->nr_empty;
		kn->free_objs -= kn->nr_empty * s->objects;
		kn->nr_empty = 0;
		list_splice_init(&kn->empty, discard);
		list_for_each (pos, &kn->partial) {
			inuse += list_entry(pos, struct page, lru)->inuse;
		}
		list_for_each (pos, &kn->full) {
			inuse += list_entry(pos, struct page, lru)->inuse;
		}
		mm_spin_unlock(&kn->lock);
	}
	return inuse;
}

unsigned int kmem_cache_shrink(struct kmem_cache *s)
{
	struct list_head discard = LIST_HEAD_INIT(discard);
	unsigned long flags = mm_irq_save();
	struct kmem_cache_cpu *c = cache_cpu(s, mm_this_cpu());

	if (cpu_avail(c))
		__cpu_flush(s, c, cpu_avail(c));
	cache_reap_nodes(s, &discard);
	mm_irq_restore(flags);
	return __slab_discard_list(s, &discard);
}

unsigned int kmem_cache_shrink_all(void)
{
	unsigned int freed = 0;
	unsigned long flags = mm_spin_lock_irqsave(&slab_caches_lock);
	struct list_head *pos;

	list_for_each (pos, &slab_caches)
		freed += kmem_cache_shrink(
			list_entry(pos, struct kmem_cache, list));
	mm_spin_unlock_irqrestore(&slab_caches_lock, flags);
	return freed;
}

void kmem_cache_destroy(struct kmem_cache *s)
{
	struct list_head discard = LIST_HEAD_INIT(discard);

	if (!s)
		return;
	unsigned long flags = mm_irq_save();
	for (int cpu = 0; cpu < s->nr_cpus; cpu++) {
		struct kmem_cache_cpu *c = cache_cpu(s, cpu);
		if (cpu_avail(c))
			__cpu_flush(s, c, cpu_avail(c));
	}
	unsigned long inuse = cache_reap_nodes(s, &discard);
	mm_irq_restore(flags);
	__slab_discard_list(s, &discard);

	if (inuse) {
		mm_debug_report(MM_DBG_OTHER, __builtin_return_address(0),
				"slab: kmem_cache_destroy(%s): %lu objects "
				"still allocated; cache kept",
				s->name, inuse);
		slab_debug_count_destroy_busy();
		s->flags |= SLAB_DEAD;
		return;
	}
	flags = mm_spin_lock_irqsave(&slab_caches_lock);
	list_del(&s->list);
	mm_spin_unlock_irqrestore(&slab_caches_lock, flags);
	__free_pages(virt_to_page(s), s->alloc_order);
}

size_t kmem_cache_size(const struct kmem_cache *s)
{
	return s->object_size;
}

const char *kmem_cache_name(const struct kmem_cache *s)
{
	return s->name;
}

void slab_forget_all(void)
{
	unsigned long flags = mm_spin_lock_irqsave(&slab_caches_lock);
	list_init(&slab_caches);
	mm_spin_unlock_irqrestore(&slab_caches_lock, flags);
	slab_debug_reset();
}
