/*
 * Counters of the page fragment allocator, summed over CPUs, as text and
 * JSON (the one statistics shape of mm/: NAME_text / NAME_json with
 * snprintf semantics). The counters themselves are bumped per CPU by
 * page_frag*.c (page_frag_internal.h).
 */
#include "page_frag_internal.h"

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
};

static void page_frag_stats_sum(uint64_t sum[PF_NR_STATS])
{
	for (int i = 0; i < PF_NR_STATS; i++)
		sum[i] = 0;
	for (int cpu = 0; cpu < MM_MAX_CPUS; cpu++)
		for (int i = 0; i < PF_NR_STATS; i++)
			sum[i] += atomic_load_explicit(
				&page_frag_cpu_stats[cpu].v[i],
				memory_order_relaxed);
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
}

/* Append to buf like snprintf, tracking the length the whole text needs. */
__attribute__((format(printf, 4, 5))) static void
page_frag_emit(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
	size_t pos = *len < size ? *len : size;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = mm_vsnprintf(buf + pos, size - pos, fmt, ap);
	va_end(ap);
	if (n > 0)
		*len += (size_t)n;
}

int page_frag_stats_text(char *buf, size_t size)
{
	uint64_t s[PF_NR_STATS];
	size_t len = 0;

	if (size)
		buf[0] = '\0';
	page_frag_stats_sum(s);
	for (int i = 0; i < PF_NR_STATS; i++)
		page_frag_emit(buf, size, &len, "%-17s %llu\n",
			       page_frag_stat_names[i],
			       (unsigned long long)s[i]);
	return (int)len;
}

/* The counters v as a JSON object, left open for the caller to close. */
static void page_frag_json_counters(char *buf, size_t size, size_t *len,
				    const uint64_t *v)
{
	page_frag_emit(buf, size, len, "{");
	for (int i = 0; i < PF_NR_STATS; i++)
		page_frag_emit(buf, size, len, "%s\"%s\": %llu", i ? ", " : "",
			       page_frag_stat_names[i],
			       (unsigned long long)v[i]);
}

int page_frag_stats_json(char *buf, size_t size)
{
	uint64_t s[PF_NR_STATS];
	size_t len = 0;
	int cpus = mm_nr_cpus() < MM_MAX_CPUS ? mm_nr_cpus() : MM_MAX_CPUS;

	if (size)
		buf[0] = '\0';
	page_frag_stats_sum(s);
	page_frag_json_counters(buf, size, &len, s);
	page_frag_emit(buf, size, &len, ", \"cpu\": {");
	for (int cpu = 0; cpu < cpus; cpu++) {
		for (int i = 0; i < PF_NR_STATS; i++)
			s[i] = atomic_load_explicit(
				&page_frag_cpu_stats[cpu].v[i],
				memory_order_relaxed);
		page_frag_emit(buf, size, &len,
			       "%s\"cpu%d\": ", cpu ? ", " : "", cpu);
		page_frag_json_counters(buf, size, &len, s);
		page_frag_emit(buf, size, &len, "}");
	}
	page_frag_emit(buf, size, &len, "}}");
	return (int)len;
}
