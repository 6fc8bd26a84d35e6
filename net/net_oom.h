/*
 * Out-of-memory recovery for the receive path (net/net_oom.c): when a
 * NIC's RX ring has run dry because memory is gone, abort the TCP
 * connection that holds the most buffers, so the ring can be refilled.
 */
#ifndef NET_NET_OOM_H
#define NET_NET_OOM_H

#include <stddef.h>

/*
 * net_oom_start - arm the periodic check (an lwIP timeout, every
 * NET_OOM_CHECK_MS). Context: boot, after lwip_init() and the NICs are
 * up. Failure: none (a timeout that cannot be armed is reported).
 */
void net_oom_start(void);

/*
 * net_oom_stats_json - {"checks":N,"dry_rings":N,"aborts":N,...} into buf
 * (snprintf semantics); net_oom_schema describes every member
 * (libc/stat_table.h). Context: any, single writer.
 */
int net_oom_stats_json(char *buf, size_t size);
struct stat_schema;
extern const struct stat_schema net_oom_schema;

#endif /* NET_NET_OOM_H */
