/*
 * Out-of-order TCP data: how much one connection may queue, and the
 * reclaim when the receive buffers run out (net/tcp_ooseq.c says why).
 */
#ifndef NET_TCP_OOSEQ_H
#define NET_TCP_OOSEQ_H

#include <stddef.h>

struct tcp_pcb;

/**
 * net_tcp_ooseq_pbufs_limit - lwIP's TCP_OOSEQ_PBUFS_LIMIT(pcb) hook
 * (net/lwipopts.h): the most receive buffers @pcb's out-of-order queue may
 * hold, TCP_OOSEQ_MAX_PBUFS. lwIP asks right after it queued a segment and
 * then drops the queue's tail past that bound or TCP_OOSEQ_MAX_BYTES; it
 * keeps no count of that, so this counts it (trims, trimmed_pbufs).
 * Context: lwIP input, under the core lock.
 */
unsigned short net_tcp_ooseq_pbufs_limit(const struct tcp_pcb *pcb);

/**
 * net_tcp_ooseq_reclaim - drop whole out-of-order queues, the connection
 * heard from least recently first, until at least @want receive buffers
 * have come back or no queue is left. Counted (reclaims, reclaimed_queues,
 * reclaimed_pbufs). The senders retransmit what was dropped.
 * Context: under the core lock, outside lwIP's input (the receive path
 * before it hands a frame to lwIP: net/net_mem.c).
 * Return: the receive buffers freed.
 */
unsigned int net_tcp_ooseq_reclaim(unsigned int want);

/**
 * net_tcp_ooseq_stats_json - the bounds and the counters above, with the
 * most buffers one connection's queue has kept (largest_queue_pbufs), as
 * one JSON object into @buf (snprintf semantics).
 * Context: any; the counters are written under the core lock and read
 * without it.
 */
int net_tcp_ooseq_stats_json(char *buf, size_t size);
struct stat_schema;
extern const struct stat_schema net_tcp_ooseq_schema;

#endif /* NET_TCP_OOSEQ_H */
