/*
 * Statistics of the page allocator, as text (the Linux /proc layout) and
 * as JSON. Every function has snprintf semantics: it writes at most size
 * bytes (always NUL-terminated when size > 0) and returns the length the
 * full text would have. Any context; they take each zone lock briefly, one
 * at a time, and read the per-CPU lists without their locks.
 *
 * buddyinfo: free blocks per order per node.
 *   JSON {"node0":{"free_blocks":[o0,...,o10],"free_pages":N},...}
 * zoneinfo: free, managed and spanned pages, failures, PCP limits and the
 *   per-CPU list lengths and counters.
 *   JSON {"node0":{"free":N,"managed":N,"spanned":N,"start_pfn":N,
 *         "alloc_fail":N,"pcp_batch":[..],"pcp_high":[..],
 *         "pcp":{"cpu0":{"count":[o0..o3],"pages":N,"alloc_hit":N,
 *                "alloc_miss":N,"free":N,"refill":N,"drain":N,
 *                "busy":N}}}}
 * numastat: numa_hit, numa_miss, numa_foreign, local_node, other_node per
 *   node, in pages (Linux semantics, see numa.c).
 *   JSON {"node0":{"numa_hit":N,...},...}
 * pcp (text only): one line per node and CPU: each order's list length,
 *   high and batch (in blocks of that order), the pages on the lists and
 *   the lists' counters.
 *
 * The texts keep Linux's layouts so scripts written for Linux read them:
 * buddyinfo is /proc/buddyinfo byte for byte; zoneinfo is /proc/zoneinfo's
 * shape with the lines we have values for ("pages free", "spanned",
 * "managed", "nr_free_pages", numa_*, "pagesets" with each CPU's "count:",
 * "high:", "batch:", "start_pfn:"), plus our own per-order and counter
 * lines under each CPU; numastat is numactl's numastat table (16-character
 * label and columns).
 */
#ifndef MM_MM_STATS_H
#define MM_MM_STATS_H

#include <stddef.h>

/* Each JSON document's description (libc/stat_table.h): unit, kind and
 * label of every value, for /stats-schema.json. */
struct stat_schema;
extern const struct stat_schema buddyinfo_schema, zoneinfo_schema,
	numastat_schema;

int buddyinfo_text(char *buf, size_t size);
int buddyinfo_json(char *buf, size_t size);
int zoneinfo_text(char *buf, size_t size);
int zoneinfo_json(char *buf, size_t size);
int numastat_text(char *buf, size_t size);
int numastat_json(char *buf, size_t size);
int pcp_text(char *buf, size_t size);

#endif /* MM_MM_STATS_H */
