/*
 * Where lwIP's memory comes from, chosen once at boot (net_alloc=...):
 *
 *  stock   lwIP as shipped: mem_malloc() carves a static MEM_SIZE heap,
 *          memp_malloc() takes from static per-type pools, and a received
 *          frame is copied into a chain of PBUF_POOL pbufs (the NIC buffer
 *          is freed at once).
 *  native  our allocators: mem_malloc() is kmalloc(), each memp type is a
 *          qmempool over its own kmem_cache, and a received frame is
 *          wrapped zero-copy in a custom pbuf whose struct comes from a
 *          qmempool and whose payload is the page_frag buffer the NIC
 *          wrote; freeing the pbuf calls page_frag_free().
 *
 * In both modes a memp type holds at most its configured count of live
 * objects (MEMP_NUM_* in lwipopts.h), and native RX pbufs at most
 * PBUF_POOL_SIZE: lwIP relies on memp_malloc() failing at that bound to
 * recycle (tcp_alloc() kills the oldest TIME_WAIT PCB), so the bound keeps
 * memory from growing with the number of connections ever made. Every
 * refusal at the bound is counted (net_memp_limit_hits).
 *
 * Both live in one binary (see lwipopts.h for the renaming that makes that
 * possible), so one experiment can boot each and compare.
 */
#ifndef NET_NET_MEM_H
#define NET_NET_MEM_H

#include <stddef.h>
#include <stdint.h>

#include "net_percpu.h"

enum net_alloc_mode { NET_ALLOC_STOCK, NET_ALLOC_NATIVE };

#define NET_MEM_NODES 16 /* MM_MAX_NODES, checked in net_mem.c */

extern enum net_alloc_mode net_alloc_mode;

/* Counters of the packet buffers we manage, for /stats.json and the leak
 * test: rx_pbufs_in_use goes back to 0 once lwIP has freed every frame. */
struct net_mem_stats {
	uint64_t heap_alloc, heap_free, heap_fail;
	uint64_t memp_alloc, memp_free, memp_fail;
	uint64_t memp_limit_hits; /* refusals at a pool's bound, all types */
	/* of memp_alloc, lwIP's timer records (MEMP_SYS_TIMEOUT): a cyclic
	 * timer takes one each period, so they follow the clock, not the
	 * traffic; the per-packet count is memp_alloc less these */
	uint64_t memp_timer_alloc;
	uint64_t rx_wrap, rx_copy, rx_fail;
	/* native RX at PBUF_POOL_SIZE: out-of-order data is reclaimed
	 * (net/tcp_ooseq.c), the frame dropped if none came back */
	uint64_t rx_limit_hits;
	int64_t rx_pbufs_in_use; /* custom RX pbufs not yet freed */
	/* native RX pbufs freed on another CPU than the one that received
	 * them (page_frag_free then runs on the freeing CPU: page_frag's own
	 * remote_frees counts those from another node) */
	uint64_t rx_frees_other_cpu;
	/* native heap (TX pbufs) allocations by the node they came from:
	 * shows tx_alloc= at work */
	uint64_t heap_node[NET_MEM_NODES];
};
/* Each stack instance's own (net_instance.h); /stats.json sums them. */
extern NET_PERCPU struct net_mem_stats net_mem_stats;

/**
 * net_mem_init - set up the chosen mode's pools. Called by lwip_init()
 * through memp_init(); the mode must be set before.
 */
const char *net_alloc_name(void);

struct pbuf;
/**
 * net_rx_pbuf - turn a received frame into a pbuf for lwIP.
 * @frame: page_frag buffer (from napi_alloc_frag) the NIC wrote; owned by
 * the caller until this returns, and always consumed (freed or wrapped).
 * @len: frame length, already checked by the driver.
 * Context: poll context, core lock held (net/core_lock.h): like lwIP's
 * own state, everything here is serialised by it.
 * When every receive buffer is held (PBUF_POOL_SIZE, either mode), TCP's
 * out-of-order queues are dropped first (net/tcp_ooseq.h).
 * Return: the pbuf, or NULL on allocation failure (frame freed, counted).
 */
struct pbuf *net_rx_pbuf(void *frame, uint32_t len);

/* The "net_mem" object of /stats.json, and its description
 * (libc/stat_table.h). snprintf semantics. Any context. */
int net_mem_stats_json(char *buf, size_t size);
struct stat_schema;
extern const struct stat_schema net_mem_schema;

/**
 * net_memp_limit - the most objects of lwIP memp type @type (a memp_t)
 * live at once, in either mode: the pool's configured count.
 * net_memp_limit_hits - how often memp_malloc(@type) returned NULL because
 * the pool was at that count. Both return 0 for a type out of range.
 * Context: any; the counters are read without a lock (written under the
 * core lock).
 */
unsigned int net_memp_limit(int type);
uint64_t net_memp_limit_hits(int type);

/* net_memp_in_use - objects of pool @type live now, every stack instance
 * counted (lwIP's own "used" when there is one). */
unsigned int net_memp_in_use(int type);
/* net_memp_max - the most objects of pool @type live at once: with a
 * stack per CPU, each instance's own peak summed (an upper bound of the
 * whole's, which no one counter holds without sharing a line). */
unsigned int net_memp_max(int type);

/* net_mem_qmempool_remote_frees - frees of another node's objects into
 * our qmempools (native mode; 0 in stock mode, which has none), all pools
 * summed. Any context; relaxed reads. */
unsigned long net_mem_qmempool_remote_frees(void);

#endif /* NET_NET_MEM_H */
