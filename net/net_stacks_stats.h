/*
 * The "stacks" object of /stats.json: the stack mode (net_stack=), the
 * instance count, the hand-off totals (net_handoff.h), and per instance
 * its CPU, its node, its hand-offs and its lwIP's TCP/UDP counters (the
 * "lwip" object sums those over the instances).
 */
#ifndef NET_NET_STACKS_STATS_H
#define NET_NET_STACKS_STATS_H

#include <stddef.h>

/* net_stacks_stats_json - the object, snprintf semantics. Any context. */
int net_stacks_stats_json(char *buf, size_t size);

/* Its description (libc/stat_table.h). */
struct stat_schema;
extern const struct stat_schema net_stacks_schema;

#endif /* NET_NET_STACKS_STATS_H */
