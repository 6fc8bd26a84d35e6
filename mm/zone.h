/*
 * Inside the page allocator: zones, per-CPU page lists and their counters.
 *
 * One zone per NUMA node. A zone owns the node's mem_map (one struct page
 * per frame of the node's pfn span, holes marked PG_reserved), the buddy
 * free lists of orders 0..MAX_ORDER under one zone lock, and, for every CPU,
 * a per-CPU page list (PCP) of orders 0..PCP_MAX_ORDER with its own lock.
 *
 * Lock order: a CPU's pcp lock, then the zone lock. Nothing else nests.
 *
 * This header is shared by buddy.c, pcp.c, numa.c, page_alloc.c and
 * mm_stats.c, and by tests that inspect the allocator; other allocators use
 * only page_alloc.h.
 */
#ifndef MM_ZONE_H
#define MM_ZONE_H

#include "page_alloc.h"
#include "page_alloc_tunables.h"

#define NR_PCP_ORDERS (PCP_MAX_ORDER + 1)

struct free_area {
	struct list_head free_list; /* heads of free blocks of this order */
	unsigned long nr_free;	    /* blocks on the list */
};

/* Counters of one per-CPU list, each bumped with mm_stat_add: alloc_hit
 * and free by the list's CPU under pcp->lock, busy by its CPU without it,
 * refill and drain by whoever holds pcp->lock. alloc_hit counts the
 * general paths' allocations from the list; the fast paths count theirs
 * in per_cpu_pages.local_hit only (one add, not two), and
 * pcp_alloc_hits() adds both. */
struct pcp_stats {
	atomic_ulong alloc_hit; /* served from the list by a general path */
	atomic_ulong refill;	/* list found empty: one batch refill (each miss
				refills, so zoneinfo shows it as alloc_miss
				and as refill) */
	atomic_ulong free;	/* blocks freed onto the list */
	atomic_ulong drain;	/* batch drains to the buddy lists */
	atomic_ulong busy;	/* list locked (interrupted holder or a remote
			      drain): the block went to/from the buddy lists */
};

/*
 * A per-CPU page list of one zone. Its CPU takes the lock with one
 * exchange and never waits for it (pcp_trylock); drain_all_pages() on
 * another CPU takes it to empty the list. pcp.c explains why that is safe
 * without masking interrupts on the fast path. What the fast paths touch
 * comes first: the zone's high is copied in, so a free needs no zone.
 */
struct per_cpu_pages {
	mm_spinlock_t lock;
	atomic_int count[NR_PCP_ORDERS]; /* blocks on lists[order] */
	int high[NR_PCP_ORDERS];	 /* the zone's pcp_high */
	struct list_head lists[NR_PCP_ORDERS];
	/*
	 * Blocks of each order the allocation fast path took from this
	 * CPU's list in its memory node for an allocation that wanted that
	 * node: numa_hit and local_node (other_node for a memoryless node's
	 * CPU) at once, so the common case counts with one add and no shift;
	 * numa_stat_read() adds them in, in pages.
	 */
	atomic_ulong local_hit[NR_PCP_ORDERS];
	struct pcp_stats stats;
} __mm_cacheline_aligned;

struct zone {
	mm_spinlock_t lock; /* guards free_area and the pfn state below */
	int nid;
	unsigned long start_pfn;     /* first pfn of the node's span */
	unsigned long spanned_pages; /* span, holes included */
	unsigned long managed_pages; /* usable pages, deferred ones too */
	struct page *mem_map;	     /* spanned_pages entries */
	unsigned long carve_start, carve_end; /* pfns holding the mem_map */
	atomic_long free_pages;		      /* pages on the buddy lists */
	atomic_ulong alloc_fail; /* failed allocations preferring here */
	struct free_area free_area[MAX_ORDER + 1];
	/*
	 * Deferred struct page initialisation (page_init.c): the struct
	 * pages of [start_pfn, deferred_next) are initialised or claimed by
	 * a CPU initialising them; the rest of the span waits. deferred_next
	 * moves (a chunk at a time) under deferred_lock. deferred_pages: the
	 * managed pages not yet on the free lists.
	 */
	mm_spinlock_t deferred_lock;
	atomic_ulong deferred_next;
	atomic_ulong deferred_pages;
	/* Nodes to try, nearest first, for allocations preferring this one. */
	int zonelist[MM_MAX_NODES];
	int nr_zonelist;
	/* Effective PCP limits (tunables fitted to the zone size). */
	int pcp_batch[NR_PCP_ORDERS];
	int pcp_high[NR_PCP_ORDERS];
	struct per_cpu_pages pcp[MM_MAX_CPUS];
};

/* numastat counters, Linux semantics, counted in pages. */
enum numa_stat {
	NUMA_HIT,     /* on this node, which was the preferred one */
	NUMA_MISS,    /* on this node, though another was preferred */
	NUMA_FOREIGN, /* preferred this node, got another */
	NUMA_LOCAL,   /* on this node, for a CPU of this node */
	NUMA_OTHER,   /* on this node, for a CPU of another node */
	NR_NUMA_STATS
};

/* Per-CPU counters: only the owning CPU writes them, with
 * mm_cpu_counter_add (interrupt-safe, no locked instruction). The fast
 * path's local hits are counted in the per-CPU lists instead
 * (per_cpu_pages.local_hit). */
struct mm_cpu_stats {
	atomic_ulong numa[MM_MAX_NODES][NR_NUMA_STATS];
} __mm_cacheline_aligned;

extern struct zone mm_zones[MM_MAX_NODES];
extern int mm_nr_zones;
extern struct mm_cpu_stats mm_cpu_stats[MM_MAX_CPUS];
extern atomic_bool mm_pcp_enabled;

/*
 * Bump a counter that one CPU writes (its own per-CPU counters, or a list's
 * under that list's lock): mm_cpu_counter_add, one step that an interrupt
 * on this CPU cannot split, with no locked instruction. numa_count_alloc
 * runs outside any interrupt guard, from any context, and relies on it.
 */
static inline void mm_stat_add(atomic_ulong *c, unsigned long n)
{
	mm_cpu_counter_add(c, n);
}

static inline unsigned long mm_stat_read(atomic_ulong *c)
{
	return atomic_load_explicit(c, memory_order_relaxed);
}

/* Allocations a per-CPU list served: the general paths' alloc_hit and
 * the fast paths' local_hit of every order. Any context. */
static inline unsigned long pcp_alloc_hits(struct per_cpu_pages *pcp)
{
	unsigned long n = mm_stat_read(&pcp->stats.alloc_hit);

	for (unsigned int o = 0; o < NR_PCP_ORDERS; o++)
		n += mm_stat_read(&pcp->local_hit[o]);
	return n;
}

static inline struct zone *page_zone(const struct page *page)
{
	return &mm_zones[page->nid];
}

static inline struct page *zone_pfn_page(struct zone *z, unsigned long pfn)
{
	return &z->mem_map[pfn - z->start_pfn];
}

static inline bool zone_spans_pfn(const struct zone *z, unsigned long pfn)
{
	return pfn - z->start_pfn < z->spanned_pages;
}

/* Node of each CPU, copied from the seam at mm_init (topology is fixed by
 * then): the allocation fast path reads it instead of calling out. Its
 * memory node is mm_cpu_mem_node (page_alloc.h, numa_mem_id). And each
 * CPU's own list in its memory node's zone, so that the fast path finds
 * it with one load. */
extern uint8_t mm_cpu_node[MM_MAX_CPUS];
extern struct per_cpu_pages *mm_cpu_pcp[MM_MAX_CPUS];
/* &mm_zones[nid].pcp[0], so a free finds its list as base + cpu without
 * the zone's address arithmetic. */
extern struct per_cpu_pages *mm_zone_pcp[MM_MAX_NODES];

/* buddy.c: the buddy lists; callers hold zone->lock. */
struct page *__rmqueue(struct zone *z, unsigned int order);
void __free_one_page(struct zone *z, struct page *page, unsigned int order);
struct page *buddy_alloc(struct zone *z, unsigned int order);
void buddy_free(struct zone *z, struct page *page, unsigned int order);
unsigned int buddy_alloc_bulk(struct zone *z, unsigned int nr,
			      struct page **pages);

/*
 * page_init.c: struct pages initialised and their frames handed to the
 * buddy lists. At mm_init: page_init_ranges with the machine's ranges,
 * then page_init_boot per zone whose span, mem_map and carve_* are set
 * (the zone's first part now, the rest deferred). zone_grow: one deferred
 * chunk of z onto the lists, for an allocation that found z empty; false
 * when z has none left to claim. Any context. zone_pfn_initialised: may
 * pfn's struct page be read (initialised, or in a chunk another CPU is
 * initialising right now: the debug checks' guard)? Any context.
 */
void page_init_ranges(const struct mm_range *r, int nr);
void page_init_boot(struct zone *z);
bool zone_grow(struct zone *z);
bool zone_pfn_initialised(struct zone *z, unsigned long pfn);

static inline bool zone_has_deferred(struct zone *z)
{
	return atomic_load_explicit(&z->deferred_pages, memory_order_relaxed);
}

/* pcp.c: the per-CPU lists (fast paths inline in pcp.h). */
void pcp_zone_init(struct zone *z);
unsigned int pcp_alloc_bulk(struct zone *z, int cpu, unsigned int nr,
			    struct page **pages);
void pcp_drain_cpu(struct zone *z, int cpu);
/* Effective limits and current length of one list (tests, zoneinfo). */
int pcp_batch(int nid, unsigned int order);
int pcp_high(int nid, unsigned int order);
int pcp_count(int nid, int cpu, unsigned int order);

/* numa.c */
void numa_build_zonelists(void);
unsigned long numa_stat_read(int nid, enum numa_stat item);

/*
 * numa_count_alloc - count `pages` pages that came from node nid, for an
 * allocation on CPU cpu (the caller's own) that preferred node `preferred`
 * (see numa.c). Any context: each bump is interrupt-safe on its own.
 */
static inline void numa_count_alloc(int cpu, int preferred, int nid,
				    unsigned long pages)
{
	atomic_ulong *c = mm_cpu_stats[cpu].numa[nid];

	if (mm_likely(nid == preferred)) {
		mm_stat_add(&c[NUMA_HIT], pages);
	} else {
		mm_stat_add(&c[NUMA_MISS], pages);
		mm_stat_add(&mm_cpu_stats[cpu].numa[preferred][NUMA_FOREIGN],
			    pages);
	}
	mm_stat_add(&c[nid == mm_cpu_node[cpu] ? NUMA_LOCAL : NUMA_OTHER],
		    pages);
}

#endif /* MM_ZONE_H */
