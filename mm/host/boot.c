/*
 * Booting a simulated machine in a Linux process (mm_host.h): the
 * topology goes into mm_host_machine, which the seam functions of
 * mm/host/platform.c report, each node's memory is mapped here, and
 * threads join the machine as its CPUs (mm_host_set_cpu).
 *
 * Each node is one anonymous mmap, aligned to a MAX_ORDER block (4 MiB) so
 * that the buddy allocator can form its largest blocks, and reserved with
 * MAP_NORESERVE so that a big simulated node costs only the pages touched.
 * A configuration with explicit ranges (struct mm_host_range) is one such
 * mapping for the whole machine instead, cut into the ranges it lists.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "fault_inject.h"
#include "mm_host.h"
#include "mm_sample.h"
#include "page_alloc.h"
#include "page_frag.h"

/* The node mappings: what mmap returned, and where each node starts. */
static struct {
	bool booted;
	bool keep;		      /* keep the mappings at shutdown */
	void *map[MM_MAX_NODES];      /* what mmap returned */
	uintptr_t base[MM_MAX_NODES]; /* node start, aligned to NODE_ALIGN */
	size_t map_len[MM_MAX_NODES];
} host;

/*
 * Mappings kept by a shutdown of a machine booted with keep_memory, for
 * the next boot with mappings of that size or smaller: a fuzzer boots a
 * machine per input, and faulting in a fresh mapping's pages cost ~3 ms a
 * boot (4 nodes of 17 MiB) against ~0.1 ms for the rest of the boot.
 */
static struct {
	void *map;
	size_t len;
} spare[MM_MAX_NODES];

/* Mapping number slot of at least *len bytes: the spare one kept there if
 * it is large enough (*len becomes its length), else a fresh one. */
static void *host_map(int slot, size_t *len)
{
	void *p = spare[slot].map;

	spare[slot].map = NULL;
	if (p && spare[slot].len >= *len) {
		*len = spare[slot].len;
		return p;
	}
	if (p)
		munmap(p, spare[slot].len);
	p = mmap(NULL, *len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) {
		perror("mm_host_boot: mmap");
		return NULL;
	}
	return p;
}

/*
 * Threads. A thread is a simulated CPU once it says which
 * (mm_host_set_cpu). When it ends, the frees its CPU's page_frag_free
 * batch holds back are applied (page_frag_free_flush), as a kernel CPU
 * applies them when it goes idle: otherwise its blocks would wait for a
 * drain_all_pages() or for the next thread on that CPU. The thread's key
 * holds the number of the machine it joined, so that a thread of a
 * machine shut down since applies nothing.
 */
static pthread_key_t thread_key;
static pthread_once_t thread_key_once = PTHREAD_ONCE_INIT;
static unsigned long machines_booted; /* numbers machines 1, 2, ... */
static atomic_ulong machine_now;      /* the booted one's number; 0: none */

static void thread_ends(void *machine)
{
	if ((uintptr_t)machine == atomic_load(&machine_now))
		page_frag_free_flush();
}

static void thread_key_create(void)
{
	if (pthread_key_create(&thread_key, thread_ends))
		perror("mm_host_set_cpu: pthread_key_create");
}

int mm_host_set_cpu(int cpu)
{
	int n = mm_host_machine.nr_cpus;

	if (cpu < 0 || cpu >= n) {
		if (n == 0)
			fprintf(stderr,
				"mm_host_set_cpu: cpu %d refused: no machine "
				"is booted\n",
				cpu);
		else
			fprintf(stderr,
				"mm_host_set_cpu: cpu %d refused: this machine "
				"has cpus 0..%d; the thread stays cpu %d\n",
				cpu, n - 1, mm_host_cpu);
		return -1;
	}
	pthread_once(&thread_key_once, thread_key_create);
	if (pthread_setspecific(thread_key,
				(void *)(uintptr_t)atomic_load(&machine_now))) {
		fprintf(stderr,
			"mm_host_set_cpu: cpu %d refused: no thread "
			"key for the flush at its end\n",
			cpu);
		return -1;
	}
	mm_host_cpu = cpu;
	return 0;
}

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
	void *p = host_map(nid, &len);
	if (!p)
		return -1;
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
	void *p = host_map(0, &len);
	if (!p)
		return -1;
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
	host.keep = cfg->keep_memory;
	mm_host_cpu = 0;
	atomic_store(&machine_now, ++machines_booted);
	if (mm_init()) {
		fprintf(stderr, "mm_host_boot: mm_init found no memory\n");
		mm_host_shutdown();
		return -1;
	}
	mm_sample_from_env(); /* MM_SAMPLE=FILE: see mm_sample.h */
	/* MM_FAULT="failslab=random:5 ...": see fault_inject.h */
	if (getenv("MM_FAULT") && mm_fault_set_from(getenv("MM_FAULT"))) {
		mm_host_shutdown();
		return -1;
	}
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
	/* Threads that end from now on flush nothing. */
	atomic_store(&machine_now, 0);
	mm_fault_reset(); /* the next boot arms its own sites */
	for (int nid = 0; nid < MM_MAX_NODES; nid++) {
		if (!host.map[nid])
			continue;
		if (host.keep && !spare[nid].map) {
			spare[nid].map = host.map[nid];
			spare[nid].len = host.map_len[nid];
		} else {
			munmap(host.map[nid], host.map_len[nid]);
		}
	}
	memset(&host, 0, sizeof(host));
	memset(&mm_host_machine, 0, sizeof(mm_host_machine));
	mm_host_cpu = 0;
	/* mm_init() forgets every module's state of the old machine (per-CPU
	 * caches, slab caches, pools, counters) and, with no nodes, leaves no
	 * zones behind, so a stale pointer into the unmapped memory finds
	 * nothing. */
	mm_init();
}
