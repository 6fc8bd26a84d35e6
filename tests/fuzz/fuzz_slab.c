/*
 * Fuzz harness of the slab allocator and kmalloc against a reference
 * model.
 *
 * The program (after the two machine bytes, fuzz_common.h): one opcode
 * byte, picked through ops[] below, then its arguments.
 *   CPU c                this thread becomes CPU c % cpus
 *   CREATE k s a f       kmem_cache_create in slot k % 4 (if free) of
 *                        size(s), align(a), flags(f)
 *   ALLOC k g            kmem_cache_alloc(slot k, gfp(g))
 *   ALLOC_NODE k n g     kmem_cache_alloc_node(slot k, gfp(g), node(n))
 *   BULK k c g           kmem_cache_alloc_bulk(slot k, gfp(g), c % 160)
 *   FREE i               kmem_cache_free / kfree of live object i
 *   FREE_BULK i c        kmem_cache_free_bulk of up to c % 64 live
 *                        objects of object i's cache
 *   DESTROY k            kmem_cache_destroy(slot k): gone if empty, else
 *                        dead (it then refuses every allocation)
 *   SHRINK k             kmem_cache_shrink(slot k)
 *   KMALLOC s1 s2 g      kmalloc(ksz(s1, s2), gfp(g))
 *   KMALLOC_NODE n s1 s2 g  kmalloc_node(..., node(n))
 *   BALLAST n o          take an order o % 4 block of node n (THISNODE)
 *   UNBALLAST i          give ballast block i back
 *   STATS                slabinfo text and JSON against the model
 *   DEBUG                mm_debug_set(!on) (applies to caches created
 *                        from then on)
 * size(s): s < 16: {0, 1..8192 picks, 8193}, else 1 + s*32 % 8192;
 * align(a): 0, or 1 << (a % 14) (8192 and above is refused); flags(f):
 * bit 0 SLAB_HWCACHE_ALIGN, 1 SLAB_RED_ZONE, 2 SLAB_POISON, 3 a
 * constructor, 4 an unknown flag (refused). gfp(g): bit 0 __GFP_ZERO,
 * 1 __GFP_NORETRY, 2 __GFP_THISNODE, 3 __GFP_ATOMIC; __GFP_NOWARN unless
 * g >= 0xf8. node(n): n % (nodes + 1): a node or NUMA_NO_NODE.
 * ksz: s1 < 200: 0..8192; < 250: 8193..64 KiB (pages); else 4 MiB + 1
 * (refused).
 *
 * The model: every live object (cache or kmalloc class, node, id) in an
 * interval set with the ballast blocks; each cache's live count,
 * failures and state. It checks each result:
 *  - an object is aligned as asked (kmalloc: the class's natural
 *    alignment), in a slab page of its cache, on the node its address
 *    says, zeroed if asked, and constructed (a ctor cache returns objects
 *    in their constructed state: the harness restores it before a free);
 *  - nothing overlaps: objects, ballast, large kmalloc blocks; contents
 *    survive until the free (two owners, or the allocator writing into a
 *    live object, show there);
 *  - ksize is the class size; kmalloc(0) is ZERO_SIZE_PTR;
 *  - placement: __GFP_THISNODE and __GFP_NORETRY keep objects on the node
 *    asked for; another node's object only when that node's lists had no
 *    free object and its page allocator could not serve a slab;
 *  - a NULL only when every node the request may use had no free object
 *    in its lists and no slab's worth of pages (after a drain);
 *  - bulk is all or nothing;
 *  - active objects and failures per cache equal the model's; a dead
 *    cache refuses allocations and is reported, as its contract says.
 * At the end every object is freed, every cache destroyed, the kmalloc
 * caches shrunk on every CPU, and every page but the kmalloc caches' own
 * structs must be back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "slab_internal.h"
#include "zone.h"

enum {
	OP_CPU,
	OP_CREATE,
	OP_ALLOC,
	OP_ALLOC_NODE,
	OP_BULK,
	OP_FREE,
	OP_FREE_BULK,
	OP_DESTROY,
	OP_SHRINK,
	OP_KMALLOC,
	OP_KMALLOC_NODE,
	OP_BALLAST,
	OP_UNBALLAST,
	OP_STATS,
	OP_DEBUG,
};

static const uint8_t ops[] = {
	OP_CPU,	      OP_CPU,	       OP_CREATE,     OP_CREATE,     OP_ALLOC,
	OP_ALLOC,     OP_ALLOC,	       OP_ALLOC_NODE, OP_ALLOC_NODE, OP_BULK,
	OP_BULK,      OP_FREE,	       OP_FREE,	      OP_FREE,	     OP_FREE,
	OP_FREE_BULK, OP_FREE_BULK,    OP_DESTROY,    OP_SHRINK,     OP_KMALLOC,
	OP_KMALLOC,   OP_KMALLOC_NODE, OP_BALLAST,    OP_UNBALLAST,  OP_STATS,
	OP_DEBUG,
};

#define NR_SLOTS	  4
#define MAX_LIVE	  4096
#define KMALLOC_LARGE_MAX (4u << 20)
#define KMALLOC_MAX_CLASS 8192u

struct cache {
	struct kmem_cache *s; /* NULL: slot free */
	size_t size, align;   /* as the model expects them */
	bool ctor, dead;
	unsigned long live, fails;
	char name[8];
};

struct obj {
	void *p;
	size_t len; /* bytes the owner may use */
	int slot;   /* cache slot, or -1 kmalloc */
	int cls;    /* kmalloc: class index, or -1 for a large block */
	uint64_t id;
};

static struct cache caches[NR_SLOTS];
static struct obj live[MAX_LIVE];
static int nlive;
static struct fz_set set;
/* Live kmalloc objects per class and failures of kmalloc allocations. */
static const unsigned int kmalloc_sizes[] = {
	8, 16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096, 8192};
#define NR_CLASSES (sizeof(kmalloc_sizes) / sizeof(kmalloc_sizes[0]))
static unsigned long kmalloc_live[NR_CLASSES];

/* ---- constructors: one per slot, so each knows its object size ---------- */

static uint64_t ctor_id(int slot)
{
	return 0x5eed0000u + (uint64_t)slot;
}

#define DEFINE_CTOR(k)                                    \
	static void ctor_##k(void *obj)                   \
	{                                                 \
		fz_fill(obj, caches[k].size, ctor_id(k)); \
	}
DEFINE_CTOR(0)
DEFINE_CTOR(1)
DEFINE_CTOR(2)
DEFINE_CTOR(3)
static void (*const ctors[NR_SLOTS])(void *) = {ctor_0, ctor_1, ctor_2, ctor_3};

/* ---- decoding ------------------------------------------------------------ */

static gfp_t decode_gfp(uint8_t g)
{
	gfp_t gfp = 0;

	if (g & 1)
		gfp |= __GFP_ZERO;
	if (g & 2)
		gfp |= __GFP_NORETRY;
	if (g & 4)
		gfp |= __GFP_THISNODE;
	if (g & 8)
		gfp |= __GFP_ATOMIC;
	if (g < 0xf8)
		gfp |= __GFP_NOWARN;
	return gfp;
}

static size_t decode_size(uint8_t s)
{
	static const size_t picks[16] = {0,    1,    7,	   8,	 24,   64,
					 100,  192,  256,  1000, 1024, 2000,
					 4096, 5000, 8192, 8193};
	return s < 16 ? picks[s] : 1 + (size_t)s * 32 % 8192;
}

static int decode_node(uint8_t n)
{
	int v = n % (fz_m.nodes + 1);
	return v == fz_m.nodes ? NUMA_NO_NODE : v;
}

static size_t decode_ksize(uint8_t a, uint8_t b)
{
	if (a < 200)
		return ((size_t)a << 8 | b) % 8193;
	if (a < 250)
		return 8193 + ((size_t)a << 8 | b) % (56u << 10);
	return KMALLOC_LARGE_MAX + 1;
}

/* ---- checks -------------------------------------------------------------- */

static unsigned int kmalloc_class(size_t size)
{
	unsigned int i = 0;

	while (kmalloc_sizes[i] < size)
		i++;
	return i;
}

/* Objects of node nid's lists that are free (not in any magazine). */
static unsigned long node_free_objs(struct kmem_cache *s, int nid)
{
	return s->node[nid].free_objs;
}

/* Active objects as slabinfo computes them: all objects of all slabs
 * minus the free ones in the lists and in the magazines. */
static unsigned long active_objs(struct kmem_cache *s)
{
	unsigned long total = 0, idle = 0;

	for (int n = 0; n < MM_MAX_NODES; n++) {
		total += s->node[n].nr_slabs * s->objects;
		idle += s->node[n].free_objs;
	}
	for (int c = 0; c < s->nr_cpus; c++)
		idle += cpu_avail(cache_cpu(s, c));
	return total - idle;
}

/* Another node's object (got) for a request preferring pref. */
static void check_obj_placement(struct kmem_cache *s, int pref, int got,
				gfp_t gfp, bool injected)
{
	if (got == pref)
		return;
	FZ_CHECK(!(gfp & (__GFP_THISNODE | __GFP_NORETRY)),
		 "%s: gfp %#x for node %d gave an object of node %d", s->name,
		 gfp, pref, got);
	if (injected)
		return;
	FZ_CHECK(node_free_objs(s, pref) == 0 &&
			 !fz_node_can_serve(pref, s->order, fz_m.cpu),
		 "%s: an object of node %d though node %d has %lu free "
		 "objects or can serve an order-%u slab",
		 s->name, got, pref, node_free_objs(s, pref), s->order);
}

/* A NULL from cache s for a request preferring pref. */
static void check_obj_null(struct kmem_cache *s, int pref, gfp_t gfp)
{
	bool one_node = gfp & (__GFP_THISNODE | __GFP_NORETRY);

	for (int n = 0; n < fz_m.nodes; n++) {
		if (one_node && n != pref)
			continue;
		FZ_CHECK(node_free_objs(s, n) == 0,
			 "%s: allocation (gfp %#x, node %d) failed though "
			 "node %d's lists have %lu free objects",
			 s->name, gfp, pref, n, node_free_objs(s, n));
	}
	fz_check_page_null(pref, gfp, s->order);
}

static void check_new_obj(struct kmem_cache *s, void *p, size_t align,
			  gfp_t gfp, bool ctor, int slot)
{
	struct page *page = virt_to_head_page(p);

	FZ_CHECK(page && (page->flags & PG_slab) && page->slab_cache == s,
		 "%s: object %p is not in a slab of its cache", s->name, p);
	FZ_CHECK((uintptr_t)p % align == 0, "%s: object %p not %zu-aligned",
		 s->name, p, align);
	FZ_CHECK(fz_addr_node(p) == page_to_nid(page),
		 "%s: object %p: page says node %d, address node %d", s->name,
		 p, page_to_nid(page), fz_addr_node(p));
	if (gfp & __GFP_ZERO)
		FZ_CHECK(fz_is_zero(p, s->object_size),
			 "%s: __GFP_ZERO object %p not zeroed", s->name, p);
	else if (ctor)
		fz_check_fill(p, s->object_size, ctor_id(slot),
			      "constructed object");
}

static void add_live(void *p, size_t len, int slot, int cls)
{
	struct obj *o;

	FZ_CHECK(nlive < MAX_LIVE, "model full");
	o = &live[nlive++];
	*o = (struct obj){p, len, slot, cls, fz_new_id()};
	fz_set_add(&set, p, len, o->id, "object");
	fz_fill(p, len, o->id);
}

/* ---- cache operations ---------------------------------------------------- */

static size_t expected_align(size_t align, unsigned int flags)
{
	size_t a = align < sizeof(void *) ? sizeof(void *) : align;

	if ((flags & SLAB_HWCACHE_ALIGN) && a < MM_CACHE_LINE)
		a = MM_CACHE_LINE;
	return a;
}

static void op_create(int k, size_t size, uint8_t a, uint8_t f)
{
	struct cache *c = &caches[k];
	size_t align = a & 0x80 ? 0 : (size_t)1 << (a % 14);
	unsigned int flags = (f & 1 ? SLAB_HWCACHE_ALIGN : 0) |
			     (f & 2 ? SLAB_RED_ZONE : 0) |
			     (f & 4 ? SLAB_POISON : 0) | (f & 16 ? 0x80 : 0);
	bool ok = size >= 1 && size <= SLAB_MAX_SIZE && align <= MM_PAGE_SIZE &&
		  !(flags & 0x80);

	if (c->s)
		return;
	snprintf(c->name, sizeof(c->name), "fz%d", k);
	c->size = size;
	c->ctor = f & 8;
	c->s = kmem_cache_create(c->name, size, align, flags,
				 c->ctor ? ctors[k] : NULL);
	fz_ops++;
	fz_trace("kmem_cache_create(%s, %zu, %zu, %#x, %s) = %p", c->name, size,
		 align, flags, c->ctor ? "ctor" : "-", (void *)c->s);
	if (!ok) {
		FZ_CHECK(!c->s,
			 "bad arguments accepted (size %zu align %zu "
			 "flags %#x)",
			 size, align, flags);
		return;
	}
	if (!c->s)
		return; /* no memory for the cache itself */
	c->align = expected_align(align, flags);
	c->dead = false;
	c->live = c->fails = 0;
	FZ_CHECK(kmem_cache_size(c->s) == size, "size %zu, cache says %zu",
		 size, kmem_cache_size(c->s));
}

static int pick_slot(uint8_t k)
{
	return caches[k % NR_SLOTS].s ? k % NR_SLOTS : -1;
}

static void op_alloc(int k, int nid, gfp_t gfp, bool by_node)
{
	struct cache *c = &caches[k];
	int pref = nid == NUMA_NO_NODE ? fz_m.cpu_node[fz_m.cpu] : nid;
	unsigned long inj = fz_injected(), reports = mm_debug_total();
	void *p;

	if (c->dead)
		mm_debug_set_quiet(true);
	p = by_node ? kmem_cache_alloc_node(c->s, gfp, nid)
		    : kmem_cache_alloc(c->s, gfp);
	mm_debug_set_quiet(false);
	fz_ops++;
	fz_trace("kmem_cache_alloc%s(%s, gfp %#x, node %d) = %p",
		 by_node ? "_node" : "", c->name, gfp, nid, p);
	if (c->dead) {
		/* Reported, unless an injected failure came first. */
		unsigned long want = fz_injected() == inj ? 1 : 0;

		FZ_CHECK(!p, "%s: a destroyed (dead) cache gave %p", c->name,
			 p);
		FZ_CHECK(mm_debug_total() == reports + want,
			 "%s: an allocation from a dead cache: %lu reports",
			 c->name, mm_debug_total() - reports);
		fz_expected_reports += want;
		c->fails++;
		return;
	}
	if (!p) {
		c->fails++;
		if (fz_injected() == inj)
			check_obj_null(c->s, pref, gfp);
		return;
	}
	check_new_obj(c->s, p, c->align, gfp, c->ctor, k);
	check_obj_placement(c->s, pref, page_to_nid(virt_to_page(p)), gfp,
			    fz_injected() != inj);
	c->live++;
	add_live(p, c->size, k, -1);
}

static void op_bulk(int k, size_t n, gfp_t gfp)
{
	struct cache *c = &caches[k];
	unsigned long inj = fz_injected(), reports = mm_debug_total();
	int local = fz_m.cpu_node[fz_m.cpu];
	void *p[160];
	size_t got;

	if (nlive + (int)n > MAX_LIVE)
		return;
	if (c->dead)
		mm_debug_set_quiet(true);
	got = kmem_cache_alloc_bulk(c->s, gfp, n, p);
	mm_debug_set_quiet(false);
	fz_ops++;
	fz_trace("kmem_cache_alloc_bulk(%s, gfp %#x, %zu) = %zu", c->name, gfp,
		 n, got);
	FZ_CHECK(got == n || got == 0,
		 "%s: bulk of %zu gave %zu: not all or "
		 "nothing",
		 c->name, n, got);
	if (n && c->dead) {
		unsigned long want = fz_injected() == inj ? 1 : 0;

		FZ_CHECK(got == 0, "%s: dead cache served a bulk", c->name);
		FZ_CHECK(mm_debug_total() == reports + want,
			 "%s: a bulk from a dead cache: %lu reports", c->name,
			 mm_debug_total() - reports);
		fz_expected_reports += want;
		c->fails++; /* the refusal, or the injected failure */
		return;
	}
	/* A failed bulk gave back what it had taken (the node lists may hold
	 * free objects again, and empty slabs went back to the page
	 * allocator), so there is no NULL rule to check; the counts are. */
	if (n && !got) {
		c->fails++;
		return;
	}
	for (size_t i = 0; i < got; i++) {
		int nid = page_to_nid(virt_to_page(p[i]));

		check_new_obj(c->s, p[i], c->align, gfp, c->ctor, k);
		FZ_CHECK(nid == local ||
				 !(gfp & (__GFP_THISNODE | __GFP_NORETRY)),
			 "%s: bulk gfp %#x gave an object of node %d on node "
			 "%d's CPU",
			 c->name, gfp, nid, local);
		c->live++;
		add_live(p[i], c->size, k, -1);
	}
}

/* Take live object i out of the model, checking its contents; ctor
 * objects get their constructed state back. Returns the object. */
static struct obj take_live(int i)
{
	struct obj o = live[i];

	fz_check_fill(o.p, o.len, o.id, "object");
	FZ_CHECK(fz_set_remove(&set, (uintptr_t)o.p),
		 "object %p not in the "
		 "set",
		 o.p);
	if (o.slot >= 0 && caches[o.slot].ctor)
		fz_fill(o.p, o.len, ctor_id(o.slot));
	if (o.slot >= 0)
		caches[o.slot].live--;
	else if (o.cls >= 0)
		kmalloc_live[o.cls]--;
	live[i] = live[--nlive];
	return o;
}

static void op_free(int i)
{
	struct obj o = take_live(i);

	fz_ops++;
	fz_trace("%s(%p)", o.slot >= 0 ? "kmem_cache_free" : "kfree", o.p);
	if (o.slot >= 0)
		kmem_cache_free(caches[o.slot].s, o.p);
	else
		kfree(o.p);
}

static void op_free_bulk(int i, unsigned int count)
{
	int slot = live[i].slot;
	void *p[64];
	size_t n = 0;

	if (slot < 0)
		return;
	for (int j = 0; j < nlive && n < count;) {
		if (live[j].slot == slot)
			p[n++] = take_live(j).p; /* j now holds another */
		else
			j++;
	}
	fz_ops++;
	fz_trace("kmem_cache_free_bulk(%s, %zu)", caches[slot].name, n);
	kmem_cache_free_bulk(caches[slot].s, n, p);
}

static void op_destroy(int k)
{
	struct cache *c = &caches[k];
	unsigned long reports = mm_debug_total();

	if (c->live)
		mm_debug_set_quiet(true);
	kmem_cache_destroy(c->s);
	mm_debug_set_quiet(false);
	fz_ops++;
	fz_trace("kmem_cache_destroy(%s) with %lu live", c->name, c->live);
	if (c->live) {
		FZ_CHECK(mm_debug_total() == reports + 1,
			 "%s: destroyed with %lu objects out, not reported",
			 c->name, c->live);
		fz_expected_reports++;
		c->dead = true;
		return;
	}
	c->s = NULL;
}

static void op_shrink(int k)
{
	struct kmem_cache *s = caches[k].s;

	kmem_cache_shrink(s);
	fz_ops++;
	fz_trace("kmem_cache_shrink(%s)", caches[k].name);
	FZ_CHECK(cpu_avail(cache_cpu(s, fz_m.cpu)) == 0,
		 "%s: magazine not empty after shrink", caches[k].name);
	for (int n = 0; n < MM_MAX_NODES; n++)
		FZ_CHECK(s->node[n].nr_empty == 0,
			 "%s: node %d keeps %lu empty slabs after shrink",
			 caches[k].name, n, s->node[n].nr_empty);
}

/* ---- kmalloc ------------------------------------------------------------- */

static void op_kmalloc(bool by_node, int nid, size_t size, gfp_t gfp)
{
	int pref = nid == NUMA_NO_NODE ? fz_m.cpu_node[fz_m.cpu] : nid;
	unsigned long inj = fz_injected();
	void *p = by_node ? kmalloc_node(size, gfp, nid) : kmalloc(size, gfp);
	bool injected = fz_injected() != inj;

	fz_ops++;
	fz_trace("kmalloc%s(%zu, gfp %#x, %d) = %p", by_node ? "_node" : "",
		 size, gfp, nid, p);
	if (size == 0) {
		FZ_CHECK(p == ZERO_SIZE_PTR, "kmalloc(0) = %p", p);
		kfree(p);
		return;
	}
	if (size > KMALLOC_LARGE_MAX) {
		FZ_CHECK(!p, "kmalloc(%zu) above the largest block gave %p",
			 size, p);
		return;
	}
	if (size > KMALLOC_MAX_CLASS) {
		/* With the debug checks on, a large block carries a one-page
		 * front guard and at least a cache line of back guard, and
		 * ksize() is the size asked for (writing up to the block's
		 * end would be an overflow into the guard). */
		bool guard = mm_debug_on();
		size_t need =
			guard ? MM_PAGE_SIZE + size + MM_CACHE_LINE : size;
		unsigned int order = 0;

		while ((MM_PAGE_SIZE << order) < need)
			order++;
		if (order > MAX_ORDER) {
			FZ_CHECK(!p,
				 "kmalloc(%zu) with guards past the largest "
				 "block gave %p",
				 size, p);
			return;
		}
		if (!p) {
			if (!injected)
				fz_check_page_null(pref, gfp, order);
			return;
		}
		FZ_CHECK(ksize(p) == (guard ? size : MM_PAGE_SIZE << order) &&
				 (uintptr_t)p % MM_PAGE_SIZE == 0,
			 "kmalloc(%zu) = %p, ksize %zu", size, p, ksize(p));
		fz_check_page_placement(pref, page_to_nid(virt_to_page(p)), gfp,
					order, injected);
		if (gfp & __GFP_ZERO)
			FZ_CHECK(fz_is_zero(p, size), "kmalloc zero");
		add_live(p, ksize(p), -1, -1);
		return;
	}
	unsigned int cls = kmalloc_class(size);
	struct kmem_cache *s = NULL;

	if (!p) {
		/* The class cache, found by name (it may not exist yet). */
		struct list_head *pos;
		char name[16];

		snprintf(name, sizeof(name), "kmalloc-%u", kmalloc_sizes[cls]);
		if (kmalloc_sizes[cls] >= 1024)
			snprintf(name, sizeof(name), "kmalloc-%uk",
				 kmalloc_sizes[cls] >> 10);
		list_for_each (pos, &slab_caches) {
			struct kmem_cache *c =
				list_entry(pos, struct kmem_cache, list);
			if (!strcmp(c->name, name))
				s = c;
		}
		if (s && !injected)
			check_obj_null(s, pref, gfp);
		return;
	}
	s = virt_to_head_page(p)->slab_cache;
	/* The class size's largest power-of-two divisor, at most a page. */
	size_t align = kmalloc_sizes[cls] & -kmalloc_sizes[cls];

	if (align > MM_PAGE_SIZE)
		align = MM_PAGE_SIZE;
	check_new_obj(s, p, align, gfp, false, -1);
	FZ_CHECK(ksize(p) == kmalloc_sizes[cls],
		 "kmalloc(%zu): ksize %zu, class %u", size, ksize(p),
		 kmalloc_sizes[cls]);
	check_obj_placement(s, pref, page_to_nid(virt_to_page(p)), gfp,
			    injected);
	kmalloc_live[cls]++;
	add_live(p, ksize(p), -1, (int)cls);
}

/* ---- statistics ------------------------------------------------------------ */

/* "active_objs" of cache name in the slabinfo JSON, or -1. */
static long json_active(const char *json, const char *name)
{
	char key[32];
	const char *at, *a;

	snprintf(key, sizeof(key), "\"%s\":{", name);
	at = strstr(json, key);
	if (!at)
		return -1;
	a = strstr(at, "\"active_objs\":");
	return a ? strtol(a + 14, NULL, 10) : -1;
}

static void check_cache_counts(void)
{
	struct list_head *pos;

	for (int k = 0; k < NR_SLOTS; k++) {
		struct cache *c = &caches[k];
		if (!c->s)
			continue;
		FZ_CHECK(active_objs(c->s) == c->live,
			 "%s: %lu active objects, the model holds %lu", c->name,
			 active_objs(c->s), c->live);
		FZ_CHECK(atomic_load(&c->s->alloc_fail) == c->fails,
			 "%s: %lu failures, the model counted %lu", c->name,
			 atomic_load(&c->s->alloc_fail), c->fails);
	}
	list_for_each (pos, &slab_caches) {
		struct kmem_cache *s = list_entry(pos, struct kmem_cache, list);
		if (strncmp(s->name, "kmalloc-", 8))
			continue;
		unsigned int cls = kmalloc_class(s->object_size);
		FZ_CHECK(active_objs(s) == kmalloc_live[cls],
			 "%s: %lu active objects, the model holds %lu", s->name,
			 active_objs(s), kmalloc_live[cls]);
	}
}

static void op_stats(void)
{
	static char buf[1 << 16];

	fz_ops++;
	fz_trace("stats");
	check_cache_counts();
	FZ_CHECK_FORMAT(slabinfo_json, buf);
	for (int k = 0; k < NR_SLOTS; k++)
		if (caches[k].s)
			FZ_CHECK(json_active(buf, caches[k].name) ==
					 (long)caches[k].live,
				 "slabinfo_json: %s active_objs %ld, model %lu",
				 caches[k].name,
				 json_active(buf, caches[k].name),
				 caches[k].live);
	FZ_CHECK_FORMAT(slabinfo_text, buf);
}

/* ---- the program ----------------------------------------------------------- */

static void run_op(struct fz_in *in)
{
	int op = fz_pick(in, ops, sizeof(ops)), k, n;
	uint8_t a, b, c;

	switch (op) {
	case OP_CPU:
		fz_set_cpu(fz_u8(in));
		fz_trace("cpu %d", fz_m.cpu);
		break;
	case OP_CREATE:
		k = fz_u8(in) % NR_SLOTS;
		a = fz_u8(in);
		b = fz_u8(in);
		op_create(k, decode_size(a), b, fz_u8(in));
		break;
	case OP_ALLOC:
		k = pick_slot(fz_u8(in));
		a = fz_u8(in);
		if (k >= 0)
			op_alloc(k, NUMA_NO_NODE, decode_gfp(a), false);
		break;
	case OP_ALLOC_NODE:
		k = pick_slot(fz_u8(in));
		n = decode_node(fz_u8(in));
		a = fz_u8(in);
		if (k >= 0)
			op_alloc(k, n, decode_gfp(a), true);
		break;
	case OP_BULK:
		k = pick_slot(fz_u8(in));
		a = fz_u8(in);
		b = fz_u8(in);
		if (k >= 0)
			op_bulk(k, a % 160, decode_gfp(b));
		break;
	case OP_FREE:
		k = (int)fz_u16(in);
		if (nlive)
			op_free(k % nlive);
		break;
	case OP_FREE_BULK:
		k = (int)fz_u16(in);
		a = fz_u8(in);
		if (nlive)
			op_free_bulk(k % nlive, a % 64);
		break;
	case OP_DESTROY:
		k = pick_slot(fz_u8(in));
		if (k >= 0)
			op_destroy(k);
		break;
	case OP_SHRINK:
		k = pick_slot(fz_u8(in));
		if (k >= 0)
			op_shrink(k);
		break;
	case OP_KMALLOC:
	case OP_KMALLOC_NODE:
		n = op == OP_KMALLOC ? NUMA_NO_NODE : decode_node(fz_u8(in));
		a = fz_u8(in);
		b = fz_u8(in);
		c = fz_u8(in);
		if (nlive < MAX_LIVE)
			op_kmalloc(op == OP_KMALLOC_NODE, n, decode_ksize(a, b),
				   decode_gfp(c));
		break;
	case OP_BALLAST:
		a = fz_u8(in);
		fz_ballast_take(&set, a % fz_m.nodes, fz_u8(in) % 4);
		break;
	case OP_UNBALLAST:
		fz_ballast_release(&set, fz_u8(in));
		break;
	case OP_STATS:
		op_stats();
		break;
	case OP_DEBUG:
		mm_debug_set(!mm_debug_on());
		fz_trace("debug %s", mm_debug_on() ? "on" : "off");
		break;
	}
}

/* Free everything, destroy every cache, empty the kmalloc caches on every
 * CPU; returns the pages the kmalloc caches' structs still hold. */
static unsigned long teardown(void)
{
	while (nlive)
		op_free(nlive - 1);
	fz_ballast_release_all(&set);
	check_cache_counts();
	for (int k = 0; k < NR_SLOTS; k++)
		if (caches[k].s)
			op_destroy(k); /* empty now: gone, dead or not */
	return fz_shrink_kmalloc();
}

static void begin(struct fz_in *in)
{
	(void)in;
	memset(caches, 0, sizeof(caches));
	memset(kmalloc_live, 0, sizeof(kmalloc_live));
	nlive = 0;
	fz_set_clear(&set);
}

static const struct fz_harness harness = {"fuzz_slab", 2, begin, run_op,
					  teardown};
FZ_HARNESS(harness)
