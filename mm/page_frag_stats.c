/*
 * Counters of the page fragment allocator, summed over CPUs (and, in JSON,
 * per CPU with its refill policy), as text and JSON (the one statistics shape of mm/: NAME_text / NAME_json with
 * snprintf semantics). The counters themselves are bumped per CPU by
 * page_frag*.c (page_frag_internal.h).
 */
#include "page_frag_internal.h"
#include "libc/strbuf.h"

/* Name of each counter, in enum page_frag_stat order, as JSON keys. */
static const char *const page_frag_stat_names[PF_NR_STATS] = {
	[PF_FRAGMENTS] = "fragments",
	[PF_REFILLS_ORDER3] = "refills_order3",
	[PF_REFILLS_ORDER0] = "refills_order0",
	[PF_ORDER3_FALLBACKS] = "order3_fallbacks",
	[PF_REFILLS_REMOTE] = "refills_remote",
	[PF_RECYCLES] = "recycles",
	[PF_FREES] = "frees",
	[PF_REMOTE_FREES] = "remote_frees",
	[PF_BLOCKS_RETURNED] = "blocks_returned",
	[PF_PAGES_RETURNED] = "pages_returned",
	[PF_DRAINS] = "drains",
	[PF_ERR_OVERSIZE] = "err_oversize",
	[PF_ERR_BAD_ALIGN] = "err_bad_align",
	[PF_ALLOC_FAILED] = "alloc_failed",
	[PF_TX_MISUSE] = "tx_misuse",
	[PF_FREE_ATOMICS] = "free_atomics",
	[PF_FREES_NESTED] = "frees_nested",
};

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
		page_frag_batch_pending_add(cpu, sum);
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
	out->frees_nested = s[PF_FREES_NESTED];
	for (int nid = 0; nid < MM_MAX_NODES; nid++)
		out->refills_node[nid] = page_frag_refills_node_sum(nid);
}

int page_frag_stats_text(char *buf, size_t size)
{
	uint64_t s[PF_NR_STATS];
	struct strbuf sb;

	strbuf_init(&sb, buf, size);
	page_frag_stats_sum(s);
	for (int i = 0; i < PF_NR_STATS; i++)
		strbuf_printf(&sb, "%-17s %llu\n", page_frag_stat_names[i],
			      (unsigned long long)s[i]);
	strbuf_printf(&sb, "%-17s", "refills_node");
	for (int nid = 0; nid < page_frag_nodes_shown(); nid++)
		strbuf_printf(
			&sb, " %llu",
			(unsigned long long)page_frag_refills_node_sum(nid));
	strbuf_printf(&sb, "\n");
	return strbuf_done(&sb);
}

/* ", \"refills_node\": [n0, n1, ...]" of one CPU, or summed (cpu < 0). */
static void page_frag_json_nodes(struct strbuf *sb, int cpu)
{
	strbuf_printf(sb, ", \"refills_node\": [");
	for (int nid = 0; nid < page_frag_nodes_shown(); nid++)
		strbuf_printf(
			sb, "%s%llu", nid ? ", " : "",
			(unsigned long long)(cpu < 0 ? page_frag_refills_node_sum(
							       nid)
						     : page_frag_cpu_refills_node(
							       cpu, nid)));
	strbuf_printf(sb, "]");
}

/* ", \"refill_policy\": \"device\", \"refill_node\": 1" of cpu's caches. */
static void page_frag_json_policy(struct strbuf *sb, int cpu)
{
	int node;
	enum page_frag_node_policy policy =
		page_frag_percpu_get_policy(cpu, &node);

	strbuf_printf(sb, ", \"refill_policy\": \"%s\", \"refill_node\": %d",
		      page_frag_policy_name(policy), node);
}

/* The counters v as a JSON object, left open for the caller to close. */
static void page_frag_json_counters(struct strbuf *sb, const uint64_t *v)
{
	strbuf_printf(sb, "{");
	for (int i = 0; i < PF_NR_STATS; i++)
		strbuf_printf(sb, "%s\"%s\": %llu", i ? ", " : "",
			      page_frag_stat_names[i],
			      (unsigned long long)v[i]);
}

int page_frag_stats_json(char *buf, size_t size)
{
	uint64_t s[PF_NR_STATS];
	struct strbuf sb;
	int cpus = mm_nr_cpus() < MM_MAX_CPUS ? mm_nr_cpus() : MM_MAX_CPUS;

	strbuf_init(&sb, buf, size);
	page_frag_stats_sum(s);
	page_frag_json_counters(&sb, s);
	page_frag_json_nodes(&sb, -1);
	strbuf_printf(&sb, ", \"cpu\": {");
	for (int cpu = 0; cpu < cpus; cpu++) {
		for (int i = 0; i < PF_NR_STATS; i++)
			s[i] = atomic_load_explicit(
				&page_frag_cpu_stats[cpu].v[i],
				memory_order_relaxed);
		page_frag_batch_pending_add(cpu, s);
		strbuf_printf(&sb, "%s\"cpu%d\": ", cpu ? ", " : "", cpu);
		page_frag_json_counters(&sb, s);
		page_frag_json_nodes(&sb, cpu);
		page_frag_json_policy(&sb, cpu);
		strbuf_printf(&sb, "}");
	}
	strbuf_printf(&sb, "}}");
	return strbuf_done(&sb);
}
