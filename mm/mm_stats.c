/*
 * Page allocator statistics as text and JSON (formats in mm_stats.h).
 * A snapshot, not an atomic one: each zone is read under its own lock, the
 * per-CPU list lengths and the counters with relaxed loads.
 *
 * The tables below describe every value of the JSON documents: a zone's
 * buddy lists (buddyinfo), its sizes, PCP limits and each CPU's list
 * (zoneinfo), and the numastat counters; numastat's text takes its rows
 * from its table too. The other texts keep Linux's layouts byte for byte
 * (buddyinfo, zoneinfo with Linux's own numa_* names, the pcp table) and
 * print from the same snapshots.
 */
#include <string.h>

#include "mm_stats.h"
#include "pcp.h"
#include "libc/stat_table.h"

struct zone_snap {
	unsigned long free_blocks[MAX_ORDER + 1];
	unsigned long free_pages;
};

/* buddyinfo: one object per node. */
static const struct stat_desc buddy_stats[] = {
	STAT_ARRAY(struct zone_snap, free_blocks, STAT_KIND_GAUGE, "order",
		   "blocks", "free blocks of 2^order pages"),
	STAT_GAUGE_AT(struct zone_snap, free_pages, "pages",
		      "free pages in the buddy lists"),
};
static const struct stat_group buddy_groups[] = {
	STAT_GROUP("*", buddy_stats),
};
const struct stat_schema buddyinfo_schema = STAT_SCHEMA(buddy_groups);

static void snap_zone(struct zone *z, struct zone_snap *s)
{
	unsigned long flags = mm_spin_lock_irqsave(&z->lock);
	for (int o = 0; o <= MAX_ORDER; o++)
		s->free_blocks[o] = z->free_area[o].nr_free;
	s->free_pages = (unsigned long)atomic_load(&z->free_pages);
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
			strbuf_printf(&b, "%6lu ", s.free_blocks[o]);
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
		strbuf_printf(&b, "%s\"node%d\":{", n ? "," : "", n);
		stat_json_members(&b, buddy_stats, STAT_TABLE_LEN(buddy_stats),
				  &s);
		strbuf_printf(&b, "}");
	}
	strbuf_printf(&b, "}");
	return strbuf_done(&b);
}

struct pcp_snap {
	int count[NR_PCP_ORDERS];
	unsigned long pages;
	unsigned long alloc_hit, alloc_miss, free, refill, drain, busy;
};

/* zoneinfo: one object per node, with its CPUs' lists under "pcp". */
struct zone_info_snap {
	unsigned long free, managed, spanned, start_pfn, alloc_fail;
	int pcp_batch[NR_PCP_ORDERS], pcp_high[NR_PCP_ORDERS];
};
static const struct stat_desc zone_stats[] = {
	STAT_GAUGE_AT(struct zone_info_snap, free, "pages", "free pages"),
	STAT_INFO_AT(struct zone_info_snap, managed, "pages",
		     "pages given to the buddy lists"),
	STAT_INFO_AT(struct zone_info_snap, spanned, "pages",
		     "pages the node spans, holes included"),
	STAT_INFO_AT(struct zone_info_snap, start_pfn, "",
		     "first page frame number of the node"),
	STAT_COUNTER_AT(struct zone_info_snap, alloc_fail, "events",
			"failed allocations that preferred this node"),
	STAT_ARRAY(struct zone_info_snap, pcp_batch, STAT_KIND_INFO, "order",
		   "blocks", "blocks one refill or drain of a CPU list moves"),
	STAT_ARRAY(struct zone_info_snap, pcp_high, STAT_KIND_INFO, "order",
		   "blocks", "blocks a CPU list holds before it drains"),
};
static const struct stat_desc pcp_stats[] = {
	STAT_ARRAY(struct pcp_snap, count, STAT_KIND_GAUGE, "order", "blocks",
		   "blocks on the CPU's list of each order"),
	STAT_GAUGE_AT(struct pcp_snap, pages, "pages",
		      "pages on the CPU's lists, all orders"),
	STAT_COUNTER_AT(struct pcp_snap, alloc_hit, "events",
			"allocations the CPU's list served"),
	STAT_COUNTER_AT(struct pcp_snap, alloc_miss, "events",
			"allocations that found the list empty (one refill)"),
	STAT_COUNTER_AT(struct pcp_snap, free, "blocks",
			"blocks freed onto the CPU's list"),
	STAT_COUNTER_AT(struct pcp_snap, refill, "events",
			"refills of the list from the buddy lists"),
	STAT_COUNTER_AT(struct pcp_snap, drain, "events",
			"drains of the list back to the buddy lists"),
	STAT_COUNTER_AT(struct pcp_snap, busy, "events",
			"list found locked (an interrupted holder, a remote "
			"drain): the buddy lists served"),
};
static const struct stat_group zone_groups[] = {
	STAT_GROUP("*", zone_stats),
	STAT_GROUP("*.pcp.*", pcp_stats),
};
const struct stat_schema zoneinfo_schema = STAT_SCHEMA(zone_groups);

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
	s->alloc_hit = pcp_alloc_hits(pcp);
	s->alloc_miss = mm_stat_read(&pcp->stats.refill);
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
		      p.alloc_hit, p.alloc_miss, p.free, p.refill, p.drain,
		      p.busy);
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
		      s.free_pages, z->spanned_pages, z->managed_pages);
	zone_stat_line(b, "nr_free_pages", s.free_pages);
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

static void snap_zone_info(struct zone *z, struct zone_info_snap *s)
{
	struct zone_snap free;

	snap_zone(z, &free);
	*s = (struct zone_info_snap){
		.free = free.free_pages,
		.managed = z->managed_pages,
		.spanned = z->spanned_pages,
		.start_pfn = z->start_pfn,
		.alloc_fail = mm_stat_read(&z->alloc_fail),
	};
	memcpy(s->pcp_batch, z->pcp_batch, sizeof(s->pcp_batch));
	memcpy(s->pcp_high, z->pcp_high, sizeof(s->pcp_high));
}

static void zoneinfo_json_zone(struct strbuf *b, struct zone *z)
{
	struct zone_info_snap s;

	snap_zone_info(z, &s);
	strbuf_printf(b, "\"node%d\":{", z->nid);
	stat_json_members(b, zone_stats, STAT_TABLE_LEN(zone_stats), &s);
	strbuf_printf(b, ",\"pcp\":{");
	for (int cpu = 0; cpu < stat_cpus(); cpu++) {
		struct pcp_snap p;
		snap_pcp(z, cpu, &p);
		strbuf_printf(b, "%s\"cpu%d\":{", cpu ? "," : "", cpu);
		stat_json_members(b, pcp_stats, STAT_TABLE_LEN(pcp_stats), &p);
		strbuf_printf(b, "}");
	}
	strbuf_printf(b, "}}");
}

int zoneinfo_json(char *buf, size_t size)
{
	struct strbuf b;
	strbuf_init(&b, buf, size);
	strbuf_printf(&b, "{");
	for (int n = 0; n < mm_nr_zones; n++) {
		strbuf_printf(&b, "%s", n ? "," : "");
		zoneinfo_json_zone(&b, &mm_zones[n]);
	}
	strbuf_printf(&b, "}");
	return strbuf_done(&b);
}

/* numastat: one object per node, and the rows of the text. */
struct numa_snap {
	unsigned long v[NR_NUMA_STATS];
};
static const struct stat_desc numa_stats[] = {
	STAT_NAMED("numa_hit", struct numa_snap, v[NUMA_HIT], STAT_KIND_COUNTER,
		   "pages", "on this node, the preferred one"),
	STAT_NAMED("numa_miss", struct numa_snap, v[NUMA_MISS],
		   STAT_KIND_COUNTER, "pages",
		   "on this node, another was preferred"),
	STAT_NAMED("numa_foreign", struct numa_snap, v[NUMA_FOREIGN],
		   STAT_KIND_COUNTER, "pages",
		   "preferred this node, got another"),
	STAT_NAMED("local_node", struct numa_snap, v[NUMA_LOCAL],
		   STAT_KIND_COUNTER, "pages", "on this node, for a CPU of it"),
	STAT_NAMED("other_node", struct numa_snap, v[NUMA_OTHER],
		   STAT_KIND_COUNTER, "pages",
		   "on this node, for another's CPU"),
};
static const struct stat_group numa_groups[] = {
	STAT_GROUP("*", numa_stats),
};
const struct stat_schema numastat_schema = STAT_SCHEMA(numa_groups);

static void snap_numa(int nid, struct numa_snap *s)
{
	for (int i = 0; i < NR_NUMA_STATS; i++)
		s->v[i] = numa_stat_read(nid, (enum numa_stat)i);
}

int numastat_text(char *buf, size_t size)
{
	struct numa_snap s[MM_MAX_NODES];
	struct strbuf b;

	strbuf_init(&b, buf, size);
	/* numactl's numastat: a 16-character label, 16-character columns
	 * (it also has interleave_hit, which we do not count) */
	strbuf_printf(&b, "%-16s", "");
	for (int n = 0; n < mm_nr_zones; n++) {
		char name[16];
		mm_snprintf(name, sizeof(name), "node%d", n);
		strbuf_printf(&b, "%16s", name);
		snap_numa(n, &s[n]);
	}
	strbuf_printf(&b, "\n");
	for (size_t i = 0; i < STAT_TABLE_LEN(numa_stats); i++) {
		strbuf_printf(&b, "%-16s", numa_stats[i].name);
		for (int n = 0; n < mm_nr_zones; n++)
			strbuf_printf(&b, "%16llu",
				      stat_value(&numa_stats[i], &s[n], 0));
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
		struct numa_snap s;
		snap_numa(n, &s);
		strbuf_printf(&b, "%s\"node%d\":{", n ? "," : "", n);
		stat_json_members(&b, numa_stats, STAT_TABLE_LEN(numa_stats),
				  &s);
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
				      p.pages, p.alloc_hit, p.alloc_miss,
				      p.free, p.refill, p.drain);
		}
	}
	return strbuf_done(&b);
}
