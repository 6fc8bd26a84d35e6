/*
 * slabinfo: what every cache holds and how its paths were used, as text
 * (one line per cache) and as JSON (one object per cache, keyed by name).
 * slab_stats below describes every member of a cache's JSON object; the
 * text keeps /proc/slabinfo 2.1's columns and prints from the same
 * snapshot.
 *
 * Node figures are read under each node's lock; per-CPU figures are read
 * without stopping their CPUs (relaxed loads), so a snapshot taken while
 * other CPUs allocate is consistent per node but only approximate overall.
 */
#include "slab_internal.h"
#include "libc/stat_table.h"

struct slab_snapshot {
	/* what the cache is */
	unsigned int object_size, stride, align, objs_per_slab;
	unsigned int pages_per_slab, magazine_limit;
	bool debug;
	/* what it holds */
	unsigned long active_objs, num_objs, slabs, partial_slabs;
	unsigned long empty_slabs, cpu_cached, free_in_slabs;
	unsigned int magazines[MM_MAX_CPUS];
	int nr_cpus;
	/* what it did, summed over CPUs and nodes */
	unsigned long allocs, frees, refills, flushes, remote_frees;
	unsigned long alloc_remote, magazine_hits, magazine_misses;
	unsigned long bulk_allocs, bulk_frees, slab_page_allocs;
	unsigned long slab_page_frees, alloc_fails, fallback_allocs;
};

#define SLAB_INFO(f, u, l)    STAT_INFO_AT(struct slab_snapshot, f, u, l)
#define SLAB_GAUGE(f, u, l)   STAT_GAUGE_AT(struct slab_snapshot, f, u, l)
#define SLAB_COUNTER(f, u, l) STAT_COUNTER_AT(struct slab_snapshot, f, u, l)
static const struct stat_desc slab_stats[] = {
	SLAB_INFO(object_size, "bytes", "object size asked for"),
	SLAB_INFO(stride, "bytes", "bytes between objects in a slab"),
	SLAB_INFO(align, "bytes", "object alignment"),
	SLAB_GAUGE(active_objs, "objects", "objects in use"),
	SLAB_GAUGE(num_objs, "objects", "objects in all slabs"),
	SLAB_INFO(objs_per_slab, "objects", "objects in one slab"),
	SLAB_INFO(pages_per_slab, "pages", "pages of one slab"),
	SLAB_GAUGE(slabs, "slabs", "slabs of the cache"),
	SLAB_GAUGE(partial_slabs, "slabs", "slabs partly in use"),
	SLAB_GAUGE(empty_slabs, "slabs", "slabs with no object in use"),
	SLAB_GAUGE(cpu_cached, "objects", "objects in the CPUs' magazines"),
	SLAB_COUNTER(allocs, "objects", "allocations"),
	SLAB_COUNTER(frees, "objects", "frees"),
	SLAB_COUNTER(refills, "events",
		     "magazine found empty: a batch from the node"),
	SLAB_COUNTER(flushes, "events",
		     "magazine found full: a batch back to the node"),
	SLAB_COUNTER(remote_frees, "objects",
		     "frees of another node's objects"),
	SLAB_COUNTER(alloc_remote, "objects",
		     "allocations for another node (past the magazine)"),
	SLAB_COUNTER(magazine_hits, "objects",
		     "allocations popped from the CPU's magazine"),
	SLAB_COUNTER(magazine_misses, "objects",
		     "allocations that refilled or went to another node"),
	SLAB_COUNTER(bulk_allocs, "calls", "kmem_cache_alloc_bulk calls"),
	SLAB_COUNTER(bulk_frees, "calls", "kmem_cache_free_bulk calls"),
	SLAB_COUNTER(slab_page_allocs, "slabs", "slabs taken from pages"),
	SLAB_COUNTER(slab_page_frees, "slabs", "slabs given back as pages"),
	SLAB_COUNTER(alloc_fails, "events", "allocations that failed"),
	SLAB_COUNTER(fallback_allocs, "objects",
		     "allocations served by another node: theirs had none"),
	SLAB_INFO(debug, "", "debug checks on (poison, red zones)"),
	SLAB_INFO(magazine_limit, "objects", "objects a magazine holds"),
	STAT_ARRAY_N(struct slab_snapshot, magazines, nr_cpus, STAT_KIND_GAUGE,
		     "cpu", "objects", "objects in each CPU's magazine"),
};
static const struct stat_group slab_groups[] = {
	STAT_GROUP("*", slab_stats),
};
const struct stat_schema slabinfo_schema = STAT_SCHEMA(slab_groups);

static void snapshot_nodes(struct kmem_cache *s, struct slab_snapshot *o)
{
	for (int nid = 0; nid < MM_MAX_NODES; nid++) {
		struct kmem_cache_node *kn = &s->node[nid];
		unsigned long f = mm_spin_lock_irqsave(&kn->lock);
		o->slabs += kn->nr_slabs;
		o->partial_slabs += kn->nr_partial;
		o->empty_slabs += kn->nr_empty;
		o->free_in_slabs += kn->free_objs;
		o->slab_page_allocs += kn->slab_allocs;
		o->slab_page_frees += kn->slab_frees;
		mm_spin_unlock_irqrestore(&kn->lock, f);
	}
	o->num_objs = o->slabs * s->objects;
}

/*
 * Magazine hit rate: an allocation that found its CPU's magazine empty
 * (one refill) or wanted another node (which bypasses the magazine) is a
 * miss; every other allocation was a pop from the magazine.
 */
static void magazine_hits(struct slab_snapshot *o)
{
	unsigned long m = o->refills + o->alloc_remote;

	o->magazine_misses = m < o->allocs ? m : o->allocs;
	o->magazine_hits = o->allocs - o->magazine_misses;
}

static void snapshot(struct kmem_cache *s, struct slab_snapshot *o)
{
	*o = (struct slab_snapshot){
		.object_size = s->object_size,
		.stride = s->stride,
		.align = s->align,
		.objs_per_slab = s->objects,
		.pages_per_slab = 1u << s->order,
		.magazine_limit = s->nr_cpus ? cache_cpu(s, 0)->limit : 0,
		.debug = cache_debug(s),
		.nr_cpus = s->nr_cpus,
	};
	snapshot_nodes(s, o);
	for (int cpu = 0; cpu < s->nr_cpus; cpu++) {
		struct kmem_cache_cpu *c = cache_cpu(s, cpu);
		o->magazines[cpu] = cpu_avail(c);
		o->cpu_cached += cpu_avail(c);
		o->allocs += stat_read(&c->allocs);
		o->frees += stat_read(&c->frees);
		o->refills += stat_read(&c->refill);
		o->flushes += stat_read(&c->flush);
		o->remote_frees += stat_read(&c->remote_free);
		o->alloc_remote += stat_read(&c->alloc_remote);
		o->bulk_allocs += stat_read(&c->bulk_alloc);
		o->bulk_frees += stat_read(&c->bulk_free);
		o->fallback_allocs += stat_read(&c->alloc_fallback);
	}
	o->alloc_fails =
		atomic_load_explicit(&s->alloc_fail, memory_order_relaxed);
	unsigned long idle = o->free_in_slabs + o->cpu_cached;
	o->active_objs = o->num_objs > idle ? o->num_objs - idle : 0;
	magazine_hits(o);
}

/* One cache in /proc/slabinfo 2.1's columns (objsize is the slot, as
 * Linux prints s->size; tunables are the per-CPU magazine's limit and
 * batch), then our own " : stats" section. */
static void text_line(struct strbuf *b, struct kmem_cache *s)
{
	struct slab_snapshot o;
	const struct kmem_cache_cpu *c0 = s->nr_cpus ? cache_cpu(s, 0) : NULL;

	snapshot(s, &o);
	strbuf_printf(b, "%-17s %6lu %6lu %6u %4u %4u", s->name, o.active_objs,
		      o.num_objs, o.stride, o.objs_per_slab, o.pages_per_slab);
	strbuf_printf(b, " : tunables %4u %4u %4u", c0 ? c0->limit : 0,
		      c0 ? c0->batch : 0, 0u);
	strbuf_printf(b, " : slabdata %6lu %6lu %6lu", o.slabs - o.empty_slabs,
		      o.slabs, 0ul);
	strbuf_printf(b,
		      " : stats %6u %6lu %5lu %5lu %10lu %10lu %7lu %7lu %7lu "
		      "%6lu %6lu %4lu %7lu\n",
		      o.object_size, o.cpu_cached, o.partial_slabs,
		      o.empty_slabs, o.allocs, o.frees, o.refills, o.flushes,
		      o.remote_frees, o.slab_page_allocs, o.slab_page_frees,
		      o.alloc_fails, o.fallback_allocs);
}

int slabinfo_text(char *buf, size_t size)
{
	struct strbuf b;
	struct list_head *pos;

	strbuf_init(&b, buf, size);
	strbuf_printf(&b,
		      "slabinfo - version: 2.1\n"
		      "# name            <active_objs> <num_objs> <objsize> "
		      "<objperslab> <pagesperslab> : tunables <limit> "
		      "<batchcount> <sharedfactor> : slabdata <active_slabs> "
		      "<num_slabs> <sharedavail> : stats <object_size> "
		      "<cpu_cached> <partial_slabs> <empty_slabs> <allocs> "
		      "<frees> <refills> <flushes> <remote_frees> "
		      "<slab_page_allocs> <slab_page_frees> <alloc_fails> "
		      "<fallback_allocs>\n");
	unsigned long f = mm_spin_lock_irqsave(&slab_caches_lock);
	list_for_each (pos, &slab_caches) {
		text_line(&b, list_entry(pos, struct kmem_cache, list));
	}
	mm_spin_unlock_irqrestore(&slab_caches_lock, f);
	return strbuf_done(&b);
}

static void json_entry(struct strbuf *b, struct kmem_cache *s, bool first)
{
	struct slab_snapshot o;

	snapshot(s, &o);
	strbuf_printf(b, "%s", first ? "" : ",");
	stat_json_string(b, s->name);
	strbuf_printf(b, ":{");
	stat_json_members(b, slab_stats, STAT_TABLE_LEN(slab_stats), &o);
	strbuf_printf(b, "}");
}

int slabinfo_json(char *buf, size_t size)
{
	struct strbuf b;
	struct list_head *pos;
	bool first = true;

	strbuf_init(&b, buf, size);
	strbuf_printf(&b, "{");
	unsigned long f = mm_spin_lock_irqsave(&slab_caches_lock);
	list_for_each (pos, &slab_caches) {
		json_entry(&b, list_entry(pos, struct kmem_cache, list), first);
		first = false;
	}
	mm_spin_unlock_irqrestore(&slab_caches_lock, f);
	strbuf_printf(&b, "}");
	return strbuf_done(&b);
}

unsigned long slab_remote_frees(void)
{
	struct list_head *pos;
	unsigned long sum = 0;
	unsigned long f = mm_spin_lock_irqsave(&slab_caches_lock);

	list_for_each (pos, &slab_caches) {
		struct kmem_cache *s = list_entry(pos, struct kmem_cache, list);

		for (int cpu = 0; cpu < s->nr_cpus; cpu++)
			sum += stat_read(&cache_cpu(s, cpu)->remote_free);
	}
	mm_spin_unlock_irqrestore(&slab_caches_lock, f);
	return sum;
}
