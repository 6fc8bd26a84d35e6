/*
 * Building the zones at boot: from the memory ranges the platform seam
 * reports (mm_platform_ranges) to one zone per NUMA node with its free
 * lists filled. The buddy algorithm itself is mm/buddy.c; Linux 6.4 moved
 * its boot-time code out of page_alloc.c into mm/mm_init.c the same way.
 *
 * Every frame of a node's pfn span gets a struct page (mm/page.h) in the
 * node's mem_map, an array carved out of the node's own memory (the way
 * Linux's memblock does it), from the first of its ranges that can hold
 * it, so that pfn -> struct page is one subtraction and an index. Every
 * entry starts PG_reserved, and each range minus the carved pages is
 * handed to the buddy lists in the largest aligned blocks: the first part
 * of each node now, the rest later (page_init.c: deferred struct page
 * initialisation). Frames in holes or reserved ranges stay PG_reserved
 * and never reach a free list.
 *
 * Nodes may interleave: node 0's span [0, 12M) can hold node 1's [4M, 8M).
 * Node 0's mem_map then has PG_reserved entries for node 1's frames, which
 * its buddy merging never takes (so no block spans two nodes), and the
 * address lookups go by runs of one owner (publish_pfn_maps), never by
 * span, so node 1's frames find node 1's struct pages.
 *
 * Single-threaded: the boot CPU before the others allocate (the host:
 * mm_host_boot and mm_host_shutdown).
 */
#include <string.h>

#include "debug.h"
#include "page_frag.h"
#include "qmempool.h"
#include "slab.h"
#include "zone.h"

static bool mm_ready;

struct node_span {
	unsigned long start, end; /* pfn span of the node */
};

static void clip_range(const struct mm_range *r, unsigned long *s,
		       unsigned long *e)
{
	*s = (r->start + MM_PAGE_SIZE - 1) >> MM_PAGE_SHIFT;
	*e = r->end >> MM_PAGE_SHIFT;
	if (*e < *s)
		*e = *s;
}

static void find_spans(const struct mm_range *r, int nr, struct node_span *sp)
{
	for (int n = 0; n < MM_MAX_NODES; n++)
		sp[n] = (struct node_span){~0UL, 0};
	for (int i = 0; i < nr; i++) {
		unsigned long s, e;
		clip_range(&r[i], &s, &e);
		if (r[i].nid < 0 || r[i].nid >= mm_nr_zones || s == e)
			continue;
		struct node_span *n = &sp[r[i].nid];
		n->start = s < n->start ? s : n->start;
		n->end = e > n->end ? e : n->end;
	}
}

/* Carve the node's mem_map from the first of its ranges that can hold it.
 * Its struct pages are written by page_init.c, the first part of the
 * span now and the rest deferred. Returns false if no range fits. */
static bool zone_setup(struct zone *z, const struct mm_range *r, int nr,
		       const struct node_span *sp)
{
	unsigned long span = sp->end - sp->start;
	unsigned long need = (span * sizeof(struct page) + MM_PAGE_SIZE - 1) >>
			     MM_PAGE_SHIFT;

	for (int i = 0; i < nr; i++) {
		unsigned long s, e;
		clip_range(&r[i], &s, &e);
		if (r[i].nid != z->nid || e - s < need)
			continue;
		z->carve_start = s;
		z->carve_end = s + need;
		z->mem_map = (struct page *)(s << MM_PAGE_SHIFT);
		z->start_pfn = sp->start;
		z->spanned_pages = span;
		return true;
	}
	mm_printf("mm: node %d: no range can hold its mem_map (%lu pages)\n",
		  z->nid, need);
	return false;
}

struct pfn_run {
	unsigned long s, e; /* pfns [s, e) */
	int nid;
};

/* The ranges of nodes that got a mem_map, as pfns, sorted by start;
 * returns how many. */
static int sort_ranges(const struct mm_range *r, int nr, struct pfn_run *out)
{
	int n = 0;
	for (int i = 0; i < nr; i++) {
		unsigned long s, e;
		clip_range(&r[i], &s, &e);
		if (r[i].nid < 0 || r[i].nid >= mm_nr_zones || s == e ||
		    !mm_zones[r[i].nid].mem_map)
			continue;
		int j = n++;
		for (; j > 0 && out[j - 1].s > s; j--)
			out[j] = out[j - 1];
		out[j] = (struct pfn_run){s, e, r[i].nid};
	}
	return n;
}

/*
 * Publish the lookups of page.h: each node's span, and the runs. Sorted
 * by address, consecutive ranges of one node join into one run (the gap
 * between them is that node's hole, PG_reserved in its mem_map); a range
 * of another node in between starts a new run. Ranges never overlap: the
 * kernel cuts its memory map at SRAT boundaries, and the host refuses
 * overlapping ranges.
 */
static void publish_pfn_maps(const struct mm_range *r, int nr)
{
	struct pfn_run runs[MM_MAX_RANGES];
	int n = sort_ranges(r, nr, runs), last_nid = -1;

	for (int nid = 0; nid < mm_nr_zones; nid++)
		mm_node_pfn_maps[nid] = (struct mm_pfn_map){
			.mem_map = mm_zones[nid].mem_map,
			.start_pfn = mm_zones[nid].start_pfn,
			.spanned_pages = mm_zones[nid].spanned_pages,
		};
	mm_nr_pfn_maps = 0;
	for (int i = 0; i < n; i++) {
		struct mm_pfn_map *m;
		if (runs[i].nid == last_nid) {
			m = &mm_pfn_maps[mm_nr_pfn_maps - 1];
			if (runs[i].e - m->start_pfn > m->spanned_pages)
				m->spanned_pages = runs[i].e - m->start_pfn;
			continue;
		}
		m = &mm_pfn_maps[mm_nr_pfn_maps++];
		*m = (struct mm_pfn_map){
			.mem_map = zone_pfn_page(&mm_zones[runs[i].nid],
						 runs[i].s),
			.start_pfn = runs[i].s,
			.spanned_pages = runs[i].e - runs[i].s,
		};
		last_nid = runs[i].nid;
	}
}

/*
 * A boot is a fresh machine, for every structure of mm/. On the host,
 * mm_host_shutdown() throws the old machine's memory away and a new boot
 * follows: each module forgets here what it held of the old one (nothing
 * is freed: that memory is gone), in the one place every boot goes
 * through. In the kernel mm_init runs once and all of it is still zero.
 * The debug switches (mm_debug_set, quiet) are settings, not state: the
 * kernel sets them from the command line before mm_init.
 */
static void forget_previous_machine(void)
{
	page_frag_forget_all(); /* per-CPU fragment caches, counters */
	qmempool_forget_all();	/* the pools and their per-CPU queues */
	slab_forget_all();	/* caches, magazines, slab debug counters */
	kmalloc_forget();	/* the kmalloc classes' caches */
	mm_debug_reset_counts();
	memset(mm_cpu_stats, 0, sizeof(mm_cpu_stats)); /* numastat */
	memset(mm_zones, 0, sizeof(mm_zones)); /* buddy, PCP lists, counters */
	memset(mm_pfn_maps, 0, sizeof(mm_pfn_maps));
	memset(mm_node_pfn_maps, 0, sizeof(mm_node_pfn_maps));
	mm_nr_pfn_maps = 0;
}

/*
 * mm_init - build every zone from mm_platform_ranges(): carve each node's
 * mem_map, hand the rest to the buddy lists, set up the per-CPU lists and
 * the NUMA fallback order. Called once at boot (the host calls it again
 * after mm_host_shutdown: it starts from a clean state). Single-threaded.
 * Returns 0, or -1 when no memory could be handed out.
 */
int mm_init(void)
{
	static struct mm_range ranges[MM_MAX_RANGES];
	struct node_span spans[MM_MAX_NODES];
	int nr = mm_platform_ranges(ranges, MM_MAX_RANGES);

	forget_previous_machine();
	mm_nr_zones = mm_nr_nodes();
	if (mm_nr_zones > MM_MAX_NODES)
		mm_nr_zones = MM_MAX_NODES;
	find_spans(ranges, nr, spans);
	page_init_ranges(ranges, nr);

	unsigned long total = 0;
	for (int n = 0; n < mm_nr_zones; n++) {
		struct zone *z = &mm_zones[n];
		z->nid = n;
		mm_spin_init(&z->lock);
		for (int o = 0; o <= MAX_ORDER; o++)
			list_init(&z->free_area[o].free_list);
		if (spans[n].end > spans[n].start &&
		    zone_setup(z, ranges, nr, &spans[n]))
			page_init_boot(z);
		pcp_zone_init(z);
		total += z->managed_pages;
	}
	publish_pfn_maps(ranges, nr);
	numa_build_zonelists();
	/* page_frag_free's batches hold freed blocks per CPU: every drain,
	 * the slow path's too, gives them back first. */
	drain_all_pages_add(page_frag_free_flush_all);
	atomic_store(&mm_pcp_enabled, PCP_ENABLED_DEFAULT != 0);
	mm_ready = total != 0;
	return total ? 0 : -1;
}

bool mm_is_ready(void)
{
	return mm_ready;
}
