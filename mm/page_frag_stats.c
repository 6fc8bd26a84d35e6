/*
 * Counters of the page fragment allocator, summed over CPUs (and, in JSON,
 * per CPU with its refill policy), as text and JSON (the one statistics
 * shape of mm/: NAME_text / NAME_json with snprintf semantics). The
 * counters themselves are bumped per CPU by page_frag*.c
 * (page_frag_internal.h).
 *
 * pf_stats describes every counter, in enum page_frag_stat order, and the
 * new blocks per node: the members of the totals' JSON object and of each
 * CPU's, and the lines of the text; pf_policy_stats the refill policy a
 * CPU's object adds.
 */
#include "page_frag_internal.h"
#include "libc/stat_table.h"

struct pf_snap {
	uint64_t v[PF_NR_STATS];
	uint64_t refills_node[MM_MAX_NODES];
	int nr_nodes;
	const char *refill_policy;
	int refill_node;
};

#define PF_STAT(n, i, u, l) \
	[i] = STAT_NAMED(n, struct pf_snap, v[i], STAT_KIND_COUNTER, u, l)
static const struct stat_desc pf_stats[PF_NR_STATS + 1] = {
	PF_STAT("fragments", PF_FRAGMENTS, "fragments",
		"fragments handed out (alloc, commit)"),
	PF_STAT("refills_order3", PF_REFILLS_ORDER3, "blocks",
		"refills served by a 32 KiB block"),
	PF_STAT("refills_order0", PF_REFILLS_ORDER0, "blocks",
		"refills served by one page"),
	PF_STAT("order3_fallbacks", PF_ORDER3_FALLBACKS, "events",
		"order 3 refused, order 0 tried"),
	PF_STAT("refills_remote", PF_REFILLS_REMOTE, "blocks",
		"order-0 refills from another node than the policy's"),
	PF_STAT("recycles", PF_RECYCLES, "blocks",
		"blocks reused in place, no allocator"),
	PF_STAT("frees", PF_FREES, "fragments", "page_frag_free() calls"),
	PF_STAT("remote_frees", PF_REMOTE_FREES, "fragments",
		"frees on a CPU of another node than the block's"),
	PF_STAT("blocks_returned", PF_BLOCKS_RETURNED, "blocks",
		"blocks given back to the page allocator"),
	PF_STAT("pages_returned", PF_PAGES_RETURNED, "pages",
		"the same, in 4 KiB pages"),
	PF_STAT("drains", PF_DRAINS, "events",
		"page_frag_cache_drain() calls that held a block"),
	PF_STAT("err_oversize", PF_ERR_OVERSIZE, "events",
		"requests of 0 bytes or more than a page"),
	PF_STAT("err_bad_align", PF_ERR_BAD_ALIGN, "events",
		"alignments not a power of two or above a page"),
	PF_STAT("alloc_failed", PF_ALLOC_FAILED, "events",
		"no block of any order available"),
	PF_STAT("tx_misuse", PF_TX_MISUSE, "events", "refused commit or abort"),
	PF_STAT("free_atomics", PF_FREE_ATOMICS, "events",
		"locked operations of the free side on blocks' counts"),
	PF_STAT("frees_busy", PF_FREES_BUSY, "fragments",
		"frees that found their batch busy (an interrupt inside it, or "
		"a drain): unbatched"),
	[PF_NR_STATS] = STAT_ARRAY_N(struct pf_snap, refills_node, nr_nodes,
				     STAT_KIND_COUNTER, "node", "blocks",
				     "new blocks by the node they came from"),
};
static const struct stat_desc pf_policy_stats[] = {
	STAT_INFO_AT(struct pf_snap, refill_policy, "",
		     "where the CPU's refills take blocks from"),
	STAT_INFO_AT(struct pf_snap, refill_node, "",
		     "the node of a node policy (-1: none)"),
};
static const struct stat_group pf_groups[] = {
	STAT_GROUP("", pf_stats),
	STAT_GROUP("cpu.*", pf_stats),
	STAT_GROUP("cpu.*", pf_policy_stats),
};
const struct stat_schema page_frag_schema = STAT_SCHEMA(pf_groups);

uint64_t page_frag_cpu_refills_node(int cpu, int nid)
{
	if (cpu < 0 || cpu >= MM_MAX_CPUS || nid < 0 || nid >= MM_MAX_NODES)
		return 0;
	return atomic_load_explicit(&page_frag_cpu_stats[cpu].refills_node[nid],
				    memory_order_relaxed);
}

/* New blocks from node nid, all CPUs summed. */
static uint64_t page_frag_refills_node_sum(int nid)
{
	uint64_t sum = 0;

	for (int cpu = 0; cpu < MM_MAX_CPUS; cpu++)
		sum += page_frag_cpu_refills_node(cpu, nid);
	return sum;
}

/* Nodes to show: the machine's, at most MM_MAX_NODES. */
static int page_frag_nodes_shown(void)
{
	int n = mm_nr_nodes();

	return n < 1 ? 1 : (n > MM_MAX_NODES ? MM_MAX_NODES : n);
}

static void page_frag_stats_sum(uint64_t sum[PF_NR_STATS])
{
	for (int i = 0; i < PF_NR_STATS; i++)
		sum[i] = 0;
	for (int cpu = 0; cpu < MM_MAX_CPUS; cpu++) {
		for (int i = 0; i < PF_NR_STATS; i++)
			sum[i] += atomic_load_explicit(
				&page_frag_cpu_stats[cpu].v[i],
				memory_order_relaxed);
		page_frag_free_pending_add(cpu, sum);
	}
}

void page_frag_stats_read(struct page_frag_stats *out)
{
	uint64_t s[PF_NR_STATS];

	page_frag_stats_sum(s);
	out->fragments = s[PF_FRAGMENTS];
	out->refills_order3 = s[PF_REFILLS_ORDER3];
	out->refills_order0 = s[PF_REFILLS_ORDER0];
	out->order3_fallbacks = s[PF_ORDER3_FALLBACKS];
	out->refills_remote = s[PF_REFILLS_REMOTE];
	out->recycles = s[PF_RECYCLES];
	out->frees = s[PF_FREES];
	out->remote_frees = s[PF_REMOTE_FREES];
	out->blocks_returned = s[PF_BLOCKS_RETURNED];
	out->pages_returned = s[PF_PAGES_RETURNED];
	out->drains = s[PF_DRAINS];
	out->err_oversize = s[PF_ERR_OVERSIZE];
	out->err_bad_align = s[PF_ERR_BAD_ALIGN];
	out->alloc_failed = s[PF_ALLOC_FAILED];
	out->tx_misuse = s[PF_TX_MISUSE];
	out->free_atomics = s[PF_FREE_ATOMICS];
	out->frees_busy = s[PF_FREES_BUSY];
	for (int nid = 0; nid < MM_MAX_NODES; nid++)
		out->refills_node[nid] = page_frag_refills_node_sum(nid);
}

/* Every CPU's counters summed (cpu < 0), or cpu's own with its policy. */
static void pf_snapshot(int cpu, struct pf_snap *o)
{
	*o = (struct pf_snap){.nr_nodes = page_frag_nodes_shown()};
	if (cpu < 0) {
		page_frag_stats_sum(o->v);
		for (int nid = 0; nid < o->nr_nodes; nid++)
			o->refills_node[nid] = page_frag_refills_node_sum(nid);
		return;
	}
	for (int i = 0; i < PF_NR_STATS; i++)
		o->v[i] = atomic_load_explicit(&page_frag_cpu_stats[cpu].v[i],
					       memory_order_relaxed);
	page_frag_free_pending_add(cpu, o->v);
	for (int nid = 0; nid < o->nr_nodes; nid++)
		o->refills_node[nid] = page_frag_cpu_refills_node(cpu, nid);
	o->refill_policy = page_frag_policy_name(
		page_frag_percpu_get_policy(cpu, &o->refill_node));
}

int page_frag_stats_text(char *buf, size_t size)
{
	struct pf_snap o;
	struct strbuf sb;

	strbuf_init(&sb, buf, size);
	pf_snapshot(-1, &o);
	stat_text_lines(&sb, pf_stats, STAT_TABLE_LEN(pf_stats), &o, 17);
	return strbuf_done(&sb);
}

int page_frag_stats_json(char *buf, size_t size)
{
	struct pf_snap o;
	struct strbuf sb;
	int cpus = mm_nr_cpus() < MM_MAX_CPUS ? mm_nr_cpus() : MM_MAX_CPUS;

	strbuf_init(&sb, buf, size);
	pf_snapshot(-1, &o);
	strbuf_printf(&sb, "{");
	stat_json_members(&sb, pf_stats, STAT_TABLE_LEN(pf_stats), &o);
	strbuf_printf(&sb, ",\"cpu\":{");
	for (int cpu = 0; cpu < cpus; cpu++) {
		pf_snapshot(cpu, &o);
		strbuf_printf(&sb, "%s\"cpu%d\":{", cpu ? "," : "", cpu);
		stat_json_members(&sb, pf_stats, STAT_TABLE_LEN(pf_stats), &o);
		strbuf_printf(&sb, ",");
		stat_json_members(&sb, pf_policy_stats,
				  STAT_TABLE_LEN(pf_policy_stats), &o);
		strbuf_printf(&sb, "}");
	}
	strbuf_printf(&sb, "}}");
	return strbuf_done(&sb);
}
