/*
 * Page allocator statistics as text and JSON (formats in mm_stats.h).
 * A snapshot, not an atomic one: each zone is read under its own lock, the
 * per-CPU list lengths and the counters with relaxed loads.
 */
#include <string.h>

#include "mm_stats.h"
#include "pcp.h"
#include "libc/strbuf.h"

struct zone_snap {
	unsigned long blocks[MAX_ORDER + 1];
	unsigned long free;
};

static void snap_zone(struct zone *z, struct zone_snap *s)
{
	unsigned long flags = mm_spin_lock_irqsave(&z->lock);
	for (int o = 0; o <= MAX_ORDER; o++)
		s->blocks[o] = z->free_area[o].nr_free;
	s->free = (unsigned long)atomic_load(&z->free_pages);
	mm_spin_unlock_irqrestore(&z->lock, flags);
}

int buddyinfo_text(char *buf, size_t size)
{
	struct strbuf b;
	strbuf_init(&b, buf, size);
	for (int n = 0; n < mm_nr_zones; n++) {
		struct zone_snap s;
		snap_zone(&mm_zones[n], &s);
		/* Linux's /proc/buddyinfo, byte for byte */
		strbuf_printf(&b, "Node %d, zone %8s ", n, "Normal");
		for (int o = 0; o <= MAX_ORDER; o++)
			strbuf_printf(&b, "%6lu ", s.blocks[o]);
		strbuf_printf(&b, "\n");
	}
	return strbuf_done(&b);
}

int buddyinfo_json(char *buf, size_t size)
{
	struct strbuf b;
	strbuf_init(&b, buf, size);
	strbuf_printf(&b, "{");
	for (int n = 0; n < mm_nr_zones; n++) {
		struct zone_snap s;
		snap_zone(&mm_zones[n], &s);
		strbuf_printf(&b, "%s\"node%d\": {\"free_blocks\": [",
			      n ? ", " : "", n);
		for (int o = 0; o <= MAX_ORDER; o++)
			strbuf_printf(&b, "%s%lu", o ? ", " : "", s.blocks[o]);
		strbuf_printf(&b, "], \"free_pages\": %lu}", s.free);
	}
	strbuf_printf(&b, "}");
	return strbuf_done(&b);
}

struct pcp_snap {
	int count[NR_PCP_ORDERS];
	unsigned long pages;
	unsigned long hit, miss, free, refill, drain, busy;
};

/* A snapshot without the list's lock: a CPU must never wait for its own
 * list's lock (pcp.c), and statistics may be read from any context. Each
 * figure is exact on its own; they may be a few operations apart. */
static void snap_pcp(struct zone *z, int cpu, struct pcp_snap *s)
{
	struct per_cpu_pages *pcp = &z->pcp[cpu];
	s->pages = 0;
	for (int o = 0; o < NR_PCP_ORDERS; o++) {
		s->count[o] = pcp_len(pcp, (unsigned int)o);
		s->pages += (unsigned long)s->count[o] << o;
	}
	s->hit = pcp_alloc_hits(pcp);
	s->miss = mm_stat_read(&pcp->stats.refill);
	s->free = mm_stat_read(&pcp->stats.free);
	s->refill = mm_stat_read(&pcp->stats.refill);
	s->drain = mm_stat_read(&pcp->stats.drain);
	s->busy = mm_stat_read(&pcp->stats.busy);
}

static int stat_cpus(void)
{
	int n = mm_nr_cpus();
	return n < MM_MAX_CPUS ? n : MM_MAX_CPUS;
}

/* One "      name value" line of a zone's counters, as Linux prints
 * them. */
static void zone_stat_line(struct strbuf *b, const char *name, unsigned long v)
{
	strbuf_printf(b, "\n      %-12s %lu", name, v);
}

/* A CPU's pageset: Linux's count/high/batch (count in pages, over every
 * order; high and batch of the order-0 list, in pages as Linux's are),
 * then what only we have: each order's list and the list's counters. */
static void zoneinfo_text_pageset(struct strbuf *b, struct zone *z, int cpu)
{
	struct pcp_snap p;
	snap_pcp(z, cpu, &p);
	strbuf_printf(b,
		      "\n    cpu: %d"
		      "\n              count: %lu"
		      "\n              high:  %d"
		      "\n              batch: %d",
		      cpu, p.pages, z->pcp_high[0], z->pcp_batch[0]);
	for (int o = 0; o < NR_PCP_ORDERS; o++)
		strbuf_printf(
			b, "\n              order%d: count %d high %d batch %d",
			o, p.count[o], z->pcp_high[o], z->pcp_batch[o]);
	strbuf_printf(b,
		      "\n              alloc_hit:  %lu"
		      "\n              alloc_miss: %lu"
		      "\n              free:       %lu"
		      "\n              refill:     %lu"
		      "\n              drain:      %lu"
		      "\n              busy:       %lu",
		      p.hit, p.miss, p.free, p.refill, p.drain, p.busy);
}

/* Linux's /proc/zoneinfo layout, with the lines we have a value for
 * (no watermarks, no reclaim: those lines are left out, not faked). */
static void zoneinfo_text_zone(struct strbuf *b, struct zone *z)
{
	static const char *const numa_names[NR_NUMA_STATS] = {
		[NUMA_HIT] = "numa_hit",	 [NUMA_MISS] = "numa_miss",
		[NUMA_FOREIGN] = "numa_foreign", [NUMA_LOCAL] = "numa_local",
		[NUMA_OTHER] = "numa_other",
	};
	struct zone_snap s;
	snap_zone(z, &s);
	strbuf_printf(b, "Node %d, zone %8s", z->nid, "Normal");
	strbuf_printf(b,
		      "\n  pages free     %lu"
		      "\n        spanned  %lu"
		      "\n        managed  %lu",
		      s.free, z->spanned_pages, z->managed_pages);
	zone_stat_line(b, "nr_free_pages", s.free);
	zone_stat_line(b, "alloc_fail", mm_stat_read(&z->alloc_fail));
	for (int i = 0; i < NR_NUMA_STATS; i++)
		zone_stat_line(b, numa_names[i],
			       numa_stat_read(z->nid, (enum numa_stat)i));
	strbuf_printf(b, "\n  pagesets");
	for (int cpu = 0; cpu < stat_cpus(); cpu++)
		zoneinfo_text_pageset(b, z, cpu);
	strbuf_printf(b, "\n  start_pfn:           %lu\n", z->start_pfn);
}

int zoneinfo_text(char *buf, size_t size)
{
	struct strbuf b;
	strbuf_init(&b, buf, size);
	for (int n = 0; n < mm_nr_zones; n++)
		zoneinfo_text_zone(&b, &mm_zones[n]);
	return strbuf_done(&b);
}

static void int_array_json(struct strbuf *b, const char *key, const int *v)
{
	strbuf_printf(b, ", \"%s\": [", key);
	for (int o = 0; o < NR_PCP_ORDERS; o++)
		strbuf_printf(b, "%s%d", o ? ", " : "", v[o]);
	strbuf_printf(b, "]");
}

static void zoneinfo_json_zone(struct strbuf *b, struct zone *z)
{
	struct zone_snap s;
	snap_zone(z, &s);
	strbuf_printf(
		b,
		"\"node%d\": {\"free\": %lu, \"managed\": %lu, "
		"\"spanned\": %lu, \"start_pfn\": %lu, \"alloc_fail\": %lu",
		z->nid, s.free, z->managed_pages, z->spanned_pages,
		z->start_pfn, mm_stat_read(&z->alloc_fail));
	int_array_json(b, "pcp_batch", z->pcp_batch);
	int_array_json(b, "pcp_high", z->pcp_high);
	strbuf_printf(b, ", \"pcp\": {");
	for (int cpu = 0; cpu < stat_cpus(); cpu++) {
		struct pcp_snap p;
		snap_pcp(z, cpu, &p);
		strbuf_printf(b, "%s\"cpu%d\": {\"count\": [", cpu ? ", " : "",
			      cpu);
		for (int o = 0; o < NR_PCP_ORDERS; o++)
			strbuf_printf(b, "%s%d", o ? ", " : "", p.count[o]);
		strbuf_printf(b,
			      "], \"pages\": %lu, \"alloc_hit\": %lu, "
			      "\"alloc_miss\": %lu, \"free\": %lu, "
			      "\"refill\": %lu, \"drain\": %lu, \"busy\": %lu}",
			      p.pages, p.hit, p.miss, p.free, p.refill, p.drain,
			      p.busy);
	}
	strbuf_printf(b, "}}");
}

int zoneinfo_json(char *buf, size_t size)
{
	struct strbuf b;
	strbuf_init(&b, buf, size);
	strbuf_printf(&b, "{");
	for (int n = 0; n < mm_nr_zones; n++) {
		strbuf_printf(&b, n ? ", " : "");
		zoneinfo_json_zone(&b, &mm_zones[n]);
	}
	strbuf_printf(&b, "}");
	return strbuf_done(&b);
}

static const char *const numa_stat_names[NR_NUMA_STATS] = {
	[NUMA_HIT] = "numa_hit",	 [NUMA_MISS] = "numa_miss",
	[NUMA_FOREIGN] = "numa_foreign", [NUMA_LOCAL] = "local_node",
	[NUMA_OTHER] = "other_node",
};

int numastat_text(char *buf, size_t size)
{
	struct strbuf b;
	strbuf_init(&b, buf, size);
	/* numactl's numastat: a 16-character label, 16-character columns
	 * (it also has interleave_hit, which we do not count) */
	strbuf_printf(&b, "%-16s", "");
	for (int n = 0; n < mm_nr_zones; n++) {
		char name[16];
		mm_snprintf(name, sizeof(name), "node%d", n);
		strbuf_printf(&b, "%16s", name);
	}
	strbuf_printf(&b, "\n");
	for (int i = 0; i < NR_NUMA_STATS; i++) {
		strbuf_printf(&b, "%-16s", numa_stat_names[i]);
		for (int n = 0; n < mm_nr_zones; n++)
			strbuf_printf(&b, "%16lu",
				      numa_stat_read(n, (enum numa_stat)i));
		strbuf_printf(&b, "\n");
	}
	return strbuf_done(&b);
}

int numastat_json(char *buf, size_t size)
{
	struct strbuf b;
	strbuf_init(&b, buf, size);
	strbuf_printf(&b, "{");
	for (int n = 0; n < mm_nr_zones; n++) {
		strbuf_printf(&b, "%s\"node%d\": {", n ? ", " : "", n);
		for (int i = 0; i < NR_NUMA_STATS; i++)
			strbuf_printf(&b, "%s\"%s\": %lu", i ? ", " : "",
				      numa_stat_names[i],
				      numa_stat_read(n, (enum numa_stat)i));
		strbuf_printf(&b, "}");
	}
	strbuf_printf(&b, "}");
	return strbuf_done(&b);
}

int pcp_text(char *buf, size_t size)
{
	struct strbuf b;
	strbuf_init(&b, buf, size);
	strbuf_printf(&b, "%-4s %-4s", "node", "cpu");
	for (int o = 0; o < NR_PCP_ORDERS; o++) {
		char col[24];
		mm_snprintf(col, sizeof(col), "order%d:cnt/high/bat", o);
		strbuf_printf(&b, " %20s", col);
	}
	strbuf_printf(&b, " %7s %10s %10s %10s %8s %8s\n", "pages", "alloc_hit",
		      "alloc_miss", "free", "refill", "drain");
	for (int n = 0; n < mm_nr_zones; n++) {
		struct zone *z = &mm_zones[n];
		for (int cpu = 0; cpu < stat_cpus(); cpu++) {
			struct pcp_snap p;
			snap_pcp(z, cpu, &p);
			strbuf_printf(&b, "%-4d %-4d", n, cpu);
			for (int o = 0; o < NR_PCP_ORDERS; o++) {
				char col[40];
				mm_snprintf(col, sizeof(col), "%d/%d/%d",
					    p.count[o], z->pcp_high[o],
					    z->pcp_batch[o]);
				strbuf_printf(&b, " %20s", col);
			}
			strbuf_printf(&b, " %7lu %10lu %10lu %10lu %8lu %8lu\n",
				      p.pages, p.hit, p.miss, p.free, p.refill,
				      p.drain);
		}
	}
	return strbuf_done(&b);
}
