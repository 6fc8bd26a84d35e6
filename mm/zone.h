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

/* Counters of one per-CPU list, written by its owner under pcp->lock. */
struct pcp_stats {
	atomic_ulong alloc_hit;	 /* allocation served from the list */
	atomic_ulong alloc_miss; /* list was empty: refilled first */
	atomic_ulong free;	 /* blocks freed onto the list */
	atomic_ulong refill;	 /* batch refills from the buddy lists */
	atomic_ulong drain;	 /* batch drains to the buddy lists */
};

/*
 * A per-CPU page list of one zone. The lock is taken only by its CPU on the
 * fast path (uncontended: the cache line stays in that CPU's cache) and by
 * drain_all_pages() running elsewhere, which is rare. That is what lets any
 * CPU drain every list safely, with no inter-processor interrupt.
 */
struct per_cpu_pages {
	mm_spinlock_t lock;
	int count[NR_PCP_ORDERS]; /* blocks on lists[order] */
	struct list_head lists[NR_PCP_ORDERS];
	struct pcp_stats stats;
} __mm_cacheline_aligned;

struct zone {
	mm_spinlock_t lock; /* guards free_area and the pfn state below */
	int nid;
	unsigned long start_pfn;     /* first pfn of the node's span */
	unsigned long spanned_pages; /* span, holes included */
	unsigned long managed_pages; /* pages given to the buddy lists */
	struct page *mem_map;	     /* spanned_pages entries */
	atomic_long free_pages;	     /* pages on the buddy lists */
	atomic_ulong alloc_fail;     /* failed allocations preferring here */
	struct free_area free_area[MAX_ORDER + 1];
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
 * mm_cpu_counter_add (interrupt-safe, no locked instruction). */
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
 * memory node is mm_cpu_mem_node (page_alloc.h, numa_mem_id). */
extern uint8_t mm_cpu_node[MM_MAX_CPUS];

/* mm_this_cpu() clamped into the per-CPU arrays. */
static inline int mm_cpu_slot(void)
{
	int cpu = mm_this_cpu();
	return (unsigned)cpu < MM_MAX_CPUS ? cpu : 0;
}

/* buddy.c: the buddy lists; callers hold zone->lock. */
struct page *__rmqueue(struct zone *z, unsigned int order);
void __free_one_page(struct zone *z, struct page *page, unsigned int order);
struct page *buddy_alloc(struct zone *z, unsigned int order);
void buddy_free(struct zone *z, struct page *page, unsigned int order);
unsigned int buddy_alloc_bulk(struct zone *z, unsigned int nr,
			      struct page **pages);

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
