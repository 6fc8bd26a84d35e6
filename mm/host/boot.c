/*
 * Booting a simulated machine in a Linux process (mm_host.h): the
 * topology goes into mm_host_machine, which the seam functions of
 * mm/host/platform.c report, and each node's memory is mapped here.
 *
 * Each node is one anonymous mmap, aligned to a MAX_ORDER block (4 MiB) so
 * that the buddy allocator can form its largest blocks, and reserved with
 * MAP_NORESERVE so that a big simulated node costs only the pages touched.
 * A configuration with explicit ranges (struct mm_host_range) is one such
 * mapping for the whole machine instead, cut into the ranges it lists.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "mm_host.h"
#include "mm_sample.h"
#include "page_alloc.h"
#include "page_frag.h"

/* The node mappings: what mmap returned, and where each node starts. */
static struct {
	bool booted;
	void *map[MM_MAX_NODES];      /* what mmap returned */
	uintptr_t base[MM_MAX_NODES]; /* node start, aligned to NODE_ALIGN */
	size_t map_len[MM_MAX_NODES];
} host;

#define NODE_ALIGN (MM_PAGE_SIZE << MAX_ORDER)

/* An explicit layout: page aligned, each on a node, no two overlapping. */
static int check_ranges(const struct mm_host_config *c)
{
	if (c->nr_ranges < 1 || c->nr_ranges > MM_MAX_RANGES || c->nr_holes) {
		fprintf(stderr, "mm_host_boot: %d ranges (1..%d)%s\n",
			c->nr_ranges, MM_MAX_RANGES,
			c->nr_holes ? " with holes: leave gaps instead" : "");
		return -1;
	}
	for (int i = 0; i < c->nr_ranges; i++) {
		const struct mm_host_range *r = &c->ranges[i];
		if (r->nid < 0 || r->nid >= c->nr_nodes || r->len == 0 ||
		    ((r->offset | r->len) & (MM_PAGE_SIZE - 1)) ||
		    r->offset + r->len < r->offset) {
			fprintf(stderr,
				"mm_host_boot: range %d (node %d, offset %#zx, "
				"len %#zx) is not a page-aligned range of a "
				"node\n",
				i, r->nid, r->offset, r->len);
			return -1;
		}
		for (int j = 0; j < i; j++) {
			const struct mm_host_range *o = &c->ranges[j];
			if (r->offset < o->offset + o->len &&
			    o->offset < r->offset + r->len) {
				fprintf(stderr,
					"mm_host_boot: ranges %d and %d "
					"overlap\n",
					j, i);
				return -1;
			}
		}
	}
	return 0;
}

static int check_config(const struct mm_host_config *c)
{
	if (host.booted) {
		fprintf(stderr, "mm_host_boot: already booted\n");
		return -1;
	}
	if (c->nr_nodes < 1 || c->nr_nodes > MM_MAX_NODES || c->nr_cpus < 1 ||
	    c->nr_cpus > MM_MAX_CPUS ||
	    (!c->ranges && c->bytes_per_node < 4 * MM_PAGE_SIZE)) {
		fprintf(stderr,
			"mm_host_boot: bad topology (%d nodes of %zu "
			"bytes, %d cpus)\n",
			c->nr_nodes, c->bytes_per_node, c->nr_cpus);
		return -1;
	}
	for (int i = 0; c->cpu_to_node && i < c->nr_cpus; i++)
		if (c->cpu_to_node[i] < 0 || c->cpu_to_node[i] >= c->nr_nodes) {
			fprintf(stderr, "mm_host_boot: cpu %d on bad node %d\n",
				i, c->cpu_to_node[i]);
			return -1;
		}
	return c->ranges ? check_ranges(c) : 0;
}

static void set_topology(const struct mm_host_config *c)
{
	struct mm_host_machine *m = &mm_host_machine;

	m->nr_nodes = c->nr_nodes;
	m->nr_cpus = c->nr_cpus;
	for (int i = 0; i < MM_MAX_CPUS; i++)
		m->cpu_to_node[i] = i >= c->nr_cpus ? 0
				    : c->cpu_to_node
					    ? c->cpu_to_node[i]
					    : i * c->nr_nodes / c->nr_cpus;
	for (int a = 0; a < c->nr_nodes; a++)
		for (int b = 0; b < c->nr_nodes; b++)
			m->distance[a][b] =
				c->distance ? c->distance[a * c->nr_nodes + b]
				: a == b    ? 10
					    : 20;
}

/* Add [s, e) of node nid minus the holes configured for it. */
static void add_ranges(const struct mm_host_config *c, int nid, uintptr_t s,
		       uintptr_t e)
{
	for (int i = 0; i < c->nr_holes; i++) {
		const struct mm_host_hole *h = &c->holes[i];
		uintptr_t hs = host.base[nid] + h->offset;
		uintptr_t he = hs + h->len;
		if (h->nid != nid || he <= s || hs >= e)
			continue;
		if (hs > s)
			add_ranges(c, nid, s, hs);
		if (he < e)
			add_ranges(c, nid, he, e);
		return;
	}
	if (mm_host_machine.nr_ranges < MM_MAX_RANGES)
		mm_host_machine.ranges[mm_host_machine.nr_ranges++] =
			(struct mm_range){.start = s, .end = e, .nid = nid};
}

static int map_node(const struct mm_host_config *c, int nid)
{
	size_t bytes =
		(c->bytes_per_node + MM_PAGE_SIZE - 1) & ~(MM_PAGE_SIZE - 1);
	size_t len = bytes + NODE_ALIGN;
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) {
		perror("mm_host_boot: mmap");
		return -1;
	}
	host.map[nid] = p;
	host.map_len[nid] = len;
	host.base[nid] = ((uintptr_t)p + NODE_ALIGN - 1) & ~(NODE_ALIGN - 1);
	add_ranges(c, nid, host.base[nid], host.base[nid] + bytes);
	return 0;
}

/* An explicit layout: one mapping for the whole machine, the ranges in
 * it as given. */
static int map_ranges(const struct mm_host_config *c)
{
	size_t top = 0;
	for (int i = 0; i < c->nr_ranges; i++)
		if (c->ranges[i].offset + c->ranges[i].len > top)
			top = c->ranges[i].offset + c->ranges[i].len;
	size_t len = top + NODE_ALIGN;
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) {
		perror("mm_host_boot: mmap");
		return -1;
	}
	host.map[0] = p;
	host.map_len[0] = len;
	uintptr_t base = ((uintptr_t)p + NODE_ALIGN - 1) & ~(NODE_ALIGN - 1);
	for (int i = 0; i < c->nr_ranges; i++) {
		const struct mm_host_range *r = &c->ranges[i];
		mm_host_machine.ranges[mm_host_machine.nr_ranges++] =
			(struct mm_range){.start = base + r->offset,
					  .end = base + r->offset + r->len,
					  .nid = r->nid};
	}
	return 0;
}

static int map_memory(const struct mm_host_config *c)
{
	if (c->ranges)
		return map_ranges(c);
	for (int nid = 0; nid < c->nr_nodes; nid++)
		if (map_node(c, nid))
			return -1;
	return 0;
}

int mm_host_boot_config(const struct mm_host_config *cfg)
{
	if (check_config(cfg))
		return -1;
	memset(&host, 0, sizeof(host));
	memset(&mm_host_machine, 0, sizeof(mm_host_machine));
	set_topology(cfg);
	if (map_memory(cfg)) {
		mm_host_shutdown();
		return -1;
	}
	host.booted = true;
	mm_host_cpu = 0;
	if (mm_init()) {
		fprintf(stderr, "mm_host_boot: mm_init found no memory\n");
		mm_host_shutdown();
		return -1;
	}
	mm_sample_from_env(); /* MM_SAMPLE=FILE: see mm_sample.h */
	return 0;
}

int mm_host_boot(int nr_nodes, size_t bytes_per_node, int nr_cpus,
		 const int *cpu_to_node)
{
	struct mm_host_config c = {
		.nr_nodes = nr_nodes,
		.bytes_per_node = bytes_per_node,
		.nr_cpus = nr_cpus,
		.cpu_to_node = cpu_to_node,
	};
	return mm_host_boot_config(&c);
}

void mm_host_shutdown(void)
{
	mm_sample_stop(); /* reads the allocators: before they go */
	/* Frees the fragment batches held back reach their blocks, as on a
	 * live machine's next flush (the caller's threads are done). */
	if (host.booted)
		page_frag_free_flush_all();
	for (int nid = 0; nid < MM_MAX_NODES; nid++)
		if (host.map[nid])
			munmap(host.map[nid], host.map_len[nid]);
	memset(&host, 0, sizeof(host));
	memset(&mm_host_machine, 0, sizeof(mm_host_machine));
	mm_host_cpu = 0;
	/* mm_init() forgets every module's state of the old machine (per-CPU
	 * caches, slab caches, pools, counters) and, with no nodes, leaves no
	 * zones behind, so a stale pointer into the unmapped memory finds
	 * nothing. */
	mm_init();
}
