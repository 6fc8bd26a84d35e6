/*
 * lwIP's own counters (its protocol, heap and pool statistics), with our
 * pool limits and SYN-guard evictions beside them, as one JSON object:
 * the "lwip" section of /stats.json.
 */
#ifndef NET_LWIP_STATS_H
#define NET_LWIP_STATS_H

#include <stddef.h>

/* The object, and its description (libc/stat_table.h). snprintf
 * semantics. Any context (reads counters only). */
int net_lwip_stats_json(char *buf, size_t size);
struct stat_schema;
extern const struct stat_schema net_lwip_schema;

#endif /* NET_LWIP_STATS_H */
