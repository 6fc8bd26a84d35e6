/*
 * slabinfo: what every cache holds and how its paths were used, as text
 * (one line per cache) and as JSON (one object per cache, keyed by name).
 *
 * Node figures are read under each node's lock; per-CPU figures are read
 * without stopping their CPUs (relaxed loads), so a snapshot taken while
 * other CPUs allocate is consistent per node but only approximate overall.
 */
#include "slab_internal.h"
#include "libc/strbuf.h"

struct slab_snapshot {
	unsigned long slabs, partial, empty, total, free_in_slabs, active;
	unsigned long cpu_cached, allocs, frees, refills, flushes, remote;
	unsigned long slab_allocs, slab_frees, fails, bulk_allocs, bulk_frees;
	unsigned long fallback, alloc_remote;
};

static void snapshot_nodes(struct kmem_cache *s, struct slab_snapshot *o)
{
	for (int nid = 0; nid < MM_MAX_NODES; nid++) {
		struct kmem_cache_node *kn = &s->node[nid];
		unsigned long f = mm_spin_lock_irqsave(&kn->lock);
		o->slabs += kn->nr_slabs;
		o->partial += kn->nr_partial;
		o->empty += kn->nr_empty;
		o->free_in_slabs += kn->free_objs;
		o->slab_allocs += kn->slab_allocs;
		o->slab_frees += kn->slab_frees;
		mm_spin_unlock_irqrestore(&kn->lock, f);
	}
	o->total = o->slabs * s->objects;
}

static void snapshot(struct kmem_cache *s, struct slab_snapshot *o)
{
	*o = (struct slab_snapshot){0};
	snapshot_nodes(s, o);
	for (int cpu = 0; cpu < s->nr_cpus; cpu++) {
		struct kmem_cache_cpu *c = cache_cpu(s, cpu);
		o->cpu_cached += cpu_avail(c);
		o->allocs += stat_read(&c->allocs);
		o->frees += stat_read(&c->frees);
		o->refills += stat_read(&c->refill);
		o->flushes += stat_read(&c->flush);
		o->remote += stat_read(&c->remote_free);
		o->alloc_remote += stat_read(&c->alloc_remote);
		o->bulk_allocs += stat_read(&c->bulk_alloc);
		o->bulk_frees += stat_read(&c->bulk_free);
		o->fallback += stat_read(&c->alloc_fallback);
	}
	o->fails = atomic_load_explicit(&s->alloc_fail, memory_order_relaxed);
	unsigned long idle = o->free_in_slabs + o->cpu_cached;
	o->active = o->total > idle ? o->total - idle : 0;
}

/* One cache in /proc/slabinfo 2.1's columns (objsize is the slot, as
 * Linux prints s->size; tunables are the per-CPU magazine's limit and
 * batch), then our own " : stats" section. */
static void text_line(struct strbuf *b, struct kmem_cache *s)
{
	struct slab_snapshot o;
	const struct kmem_cache_cpu *c0 = s->nr_cpus ? cache_cpu(s, 0) : NULL;

	snapshot(s, &o);
	strbuf_printf(b, "%-17s %6lu %6lu %6u %4u %4u", s->name, o.active,
		      o.total, s->stride, s->objects, 1u << s->order);
	strbuf_printf(b, " : tunables %4u %4u %4u", c0 ? c0->limit : 0,
		      c0 ? c0->batch : 0, 0u);
	strbuf_printf(b, " : slabdata %6lu %6lu %6lu", o.slabs - o.empty,
		      o.slabs, 0ul);
	strbuf_printf(b,
		      " : stats %6u %6lu %5lu %5lu %10lu %10lu %7lu %7lu %7lu "
		      "%6lu %6lu %4lu %7lu\n",
		      s->object_size, o.cpu_cached, o.partial, o.empty,
		      o.allocs, o.frees, o.refills, o.flushes, o.remote,
		      o.slab_allocs, o.slab_frees, o.fails, o.fallback);
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

/*
 * Magazine hit rate: an allocation that found its CPU's magazine empty
 * (one refill) or wanted another node (which bypasses the magazine) is a
 * miss; every other allocation was a pop from the magazine.
 */
static unsigned long magazine_misses(const struct slab_snapshot *o)
{
	unsigned long m = o->refills + o->alloc_remote;

	return m < o->allocs ? m : o->allocs;
}

/* Objects now in each CPU's magazine, and its capacity. */
static void json_magazines(struct strbuf *b, struct kmem_cache *s)
{
	strbuf_printf(b, ", \"magazine_limit\": %u, \"magazines\": [",
		      s->nr_cpus ? cache_cpu(s, 0)->limit : 0);
	for (int cpu = 0; cpu < s->nr_cpus; cpu++)
		strbuf_printf(b, "%s%u", cpu ? ", " : "",
			      cpu_avail(cache_cpu(s, cpu)));
	strbuf_printf(b, "]");
}

static void json_entry(struct strbuf *b, struct kmem_cache *s, bool first)
{
	struct slab_snapshot o;

	snapshot(s, &o);
	strbuf_printf(b,
		      "%s\"%s\": {\"object_size\": %u, \"stride\": %u, "
		      "\"align\": %u, \"active_objs\": %lu, \"num_objs\": %lu, "
		      "\"objs_per_slab\": %u, \"pages_per_slab\": %u, "
		      "\"slabs\": %lu, \"partial_slabs\": %lu, "
		      "\"empty_slabs\": %lu, \"cpu_cached\": %lu, ",
		      first ? "" : ", ", s->name, s->object_size, s->stride,
		      s->align, o.active, o.total, s->objects, 1u << s->order,
		      o.slabs, o.partial, o.empty, o.cpu_cached);
	strbuf_printf(b,
		      "\"allocs\": %lu, \"frees\": %lu, \"refills\": %lu, "
		      "\"flushes\": %lu, \"remote_frees\": %lu, "
		      "\"alloc_remote\": %lu, \"magazine_hits\": %lu, "
		      "\"magazine_misses\": %lu, "
		      "\"bulk_allocs\": %lu, \"bulk_frees\": %lu, "
		      "\"slab_page_allocs\": %lu, \"slab_page_frees\": %lu, "
		      "\"alloc_fails\": %lu, \"fallback_allocs\": %lu, "
		      "\"debug\": %s",
		      o.allocs, o.frees, o.refills, o.flushes, o.remote,
		      o.alloc_remote, o.allocs - magazine_misses(&o),
		      magazine_misses(&o), o.bulk_allocs, o.bulk_frees,
		      o.slab_allocs, o.slab_frees, o.fails, o.fallback,
		      cache_debug(s) ? "true" : "false");
	json_magazines(b, s);
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
