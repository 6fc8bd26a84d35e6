/*
 * lwIP's memory, stock or native, chosen at boot. See net_mem.h.
 *
 * lwIP fixes its allocators at compile time; to compare them in one binary
 * we compile lwIP's own heap (mem.c) and pools (memp.c) under renamed
 * symbols (lwip_stock_mem_*, lwip_stock_memp_*) and define lwIP's entry
 * points here, each a one-branch switch on net_alloc_mode. The branch is
 * perfectly predicted (the mode never changes after boot), so the stock
 * mode pays one compare per call, which the benchmark figures include.
 *
 * Locking: every function here is called by lwIP, or for lwIP, under the
 * lwIP core lock (net/core_lock.c), on whichever CPU holds it. So lwIP's
 * stock heap and pools, the per-type bounds and the counters are guarded
 * by that lock and need none of their own. The native allocators are
 * per-CPU underneath: qmempool_alloc_softirq()/qmempool_free_softirq()
 * use the calling CPU's local queue (poll context, which the lock
 * holder is in), kmalloc its per-CPU magazines, and a frame freed on
 * another CPU than the one that received it goes back through that CPU's
 * page_frag_free() (counted: rx_frees_other_cpu).
 */
#include "net_mem.h"

#include <string.h>

#include "drivers/netdev.h"
#include "kernel/console.h"
#include "lwip/memp.h"
#include "lwip/pbuf.h"
#include "lwip/priv/memp_priv.h"
#include "lwip/stats.h"
#include "lwip/timeouts.h"
#include "netif/ppp/ppp_opts.h" /* PPP_NUM_TIMEOUTS, in MEMP_NUM_SYS_TIMEOUT */
#include "mm/mm.h"
#include "net_percpu.h"
#include "net_numa.h"
#include "libc/stat_table.h"
#include "tcp_ooseq.h"

_Static_assert(NET_MEM_NODES == MM_MAX_NODES, "net_mem.h: NET_MEM_NODES");

enum net_alloc_mode net_alloc_mode = NET_ALLOC_NATIVE;
NET_PERCPU struct net_mem_stats net_mem_stats;

/* lwIP's own heap and pools, renamed (see lwipopts.h). */
void lwip_stock_mem_init(void);
void *lwip_stock_mem_malloc(uint32_t size);
void lwip_stock_mem_free(void *mem);
void lwip_stock_memp_init(void);
void *lwip_stock_memp_malloc(memp_t type);
void lwip_stock_memp_free(memp_t type, void *mem);

/* Native mode: one qmempool per memp type. */
static struct kmem_cache *memp_cache[MEMP_MAX];
static struct qmempool *memp_pool[MEMP_MAX];

/*
 * The bound on each pool, in both modes: a memp type has at most its
 * configured count (MEMP_NUM_* in lwipopts.h, via lwIP's memp_std.h:
 * memp_pools[t]->num) objects live at once. Stock pools are static arrays
 * of that size; native pools are qmempools, which would grow without end,
 * so memp_malloc() refuses past the count. The bound is not a detail:
 * lwIP recycles on failure. tcp_alloc() kills the oldest TIME_WAIT PCB
 * when memp_malloc(MEMP_TCP_PCB) returns NULL; without a bound every
 * closed connection stayed in TIME_WAIT for 2*MSL (measured: 1,877 PCBs
 * in use after 1,878 HTTP connections), and a client port that came back
 * met a TIME_WAIT PCB of the same 4-tuple and was never accepted.
 * A refusal at the bound is counted per type (memp_limit_hits, also in
 * stock mode, where the static pool is empty) and shown in /stats.json.
 *
 * Native RX pbufs stand in for stock's PBUF_POOL chains, so they get the
 * same bound: PBUF_POOL_SIZE frames held by lwIP at once.
 */
static NET_PERCPU uint32_t memp_in_use[MEMP_MAX];
static NET_PERCPU uint32_t memp_peak[MEMP_MAX]; /* most memp_in_use ever */
static NET_PERCPU uint64_t memp_limit_hits[MEMP_MAX];

/*
 * A received frame wrapped zero-copy (native mode). The struct lives in
 * the frame's own buffer, in the NETDEV_RX_HEADROOM bytes the driver left
 * in front of it (drivers/netdev.h), so wrapping a frame allocates
 * nothing, and pbuf_free() gives the whole buffer back with one
 * page_frag_free() (of the struct's address: it is in the same block).
 *
 * The pbuf is a PBUF_RAM custom pbuf: lwIP takes its struct and data as
 * one block (pbuf_add_header only asks that the payload stay after the
 * struct pbuf), so a reply built on the received pbuf (UDP echo, ICMP
 * echo) grows its headers back in place. It was a PBUF_REF pbuf, whose
 * headers lwIP cannot grow: every UDP echo reply allocated a header pbuf
 * (one kmalloc per echo, where stock's PBUF_POOL copy needed none), and
 * every frame took this struct from a qmempool.
 *
 * lwIP's bound lets a header grow down to the end of struct pbuf, over
 * custom_free_function and cpu. A reply never needs more header room
 * than its request's frame had, but RX_PBUF_SLACK spare bytes sit between
 * the struct and the frame so that a few bytes more cannot reach them.
 */
struct net_rx_pbuf {
	struct pbuf_custom pc;
	int cpu; /* that received it */
};

#define RX_PBUF_SLACK 16
_Static_assert(sizeof(struct net_rx_pbuf) + RX_PBUF_SLACK + MEM_ALIGNMENT - 1 <=
		       NETDEV_RX_HEADROOM,
	       "the RX pbuf fits in the headroom drivers leave");

/* Local per-CPU queue and shared queue sizes of every qmempool we make:
 * the local queue absorbs a burst of one NAPI-style poll (64 frames), the
 * shared one a full RX ring. */
#define NET_QMEMPOOL_LOCAL  64
#define NET_QMEMPOOL_SHARED 256

const char *net_alloc_name(void)
{
	return net_alloc_mode == NET_ALLOC_NATIVE ? "native" : "stock";
}

/* interleave's cursor for TX heap allocations, per CPU (each CPU that
 * runs lwIP steps its own; no shared line). */
static unsigned int tx_next_node[MM_MAX_CPUS];

/*
 * The node for one TX-side heap allocation, by tx_alloc= (net_numa.c):
 * lwIP's heap serves the PBUF_RAM pbufs that TCP segments and UDP
 * datagrams are built in, so this is where sent bytes live. Local is
 * NUMA_NO_NODE: kmalloc's own choice, this CPU's node.
 */
static int net_tx_node(void)
{
	unsigned int *next;

	switch (net_tx_policy.policy) {
	case PAGE_FRAG_NODE_FIXED:
	case PAGE_FRAG_NODE_DEVICE:
		return net_tx_policy.node;
	case PAGE_FRAG_NODE_INTERLEAVE:
		next = &tx_next_node[mm_this_cpu()];
		*next = (*next + 1) % (unsigned int)mm_nr_nodes();
		return (int)*next;
	default:
		return NUMA_NO_NODE;
	}
}

/* Native heap: kmalloc on the TX policy's node, counted by the node the
 * memory came from (heap_node in /stats.json). */
static void *net_heap_malloc_native(size_t size)
{
	void *p = kmalloc_node(size, GFP_ATOMIC, net_tx_node());
	int nid;

	if (p) {
		nid = page_to_nid(virt_to_head_page(p));
		if (nid >= 0 && nid < NET_MEM_NODES)
			net_mem_stats.heap_node[nid]++;
	}
	return p;
}

void *net_heap_malloc(size_t size)
{
	void *p;

	if (net_alloc_mode == NET_ALLOC_NATIVE)
		p = net_heap_malloc_native(size);
	else
		p = lwip_stock_mem_malloc((uint32_t)size);
	if (!p)
		net_mem_stats.heap_fail++;
	else
		net_mem_stats.heap_alloc++;
	return p;
}

void *net_heap_calloc(size_t count, size_t size)
{
	void *p;

	if (size && count > SIZE_MAX / size)
		return NULL;
	p = net_heap_malloc(count * size);
	if (p)
		memset(p, 0, count * size);
	return p;
}

void net_heap_free(void *ptr)
{
	if (!ptr)
		return;
	net_mem_stats.heap_free++;
	if (net_alloc_mode == NET_ALLOC_NATIVE)
		kfree(ptr);
	else
		lwip_stock_mem_free(ptr);
}

static int native_pools_create(void)
{
	static const char *const names[] = {
#define LWIP_MEMPOOL(name, num, size, desc) "lwip_" #name,
#include "lwip/priv/memp_std.h"
	};

	for (int t = 0; t < MEMP_MAX; t++) {
		memp_cache[t] = kmem_cache_create(names[t], memp_pools[t]->size,
						  MEM_ALIGNMENT, 0, NULL);
		if (!memp_cache[t])
			return -1;
		memp_pool[t] =
			qmempool_create(NET_QMEMPOOL_LOCAL, NET_QMEMPOOL_SHARED,
					0, memp_cache[t], GFP_KERNEL);
		if (!memp_pool[t])
			return -1;
	}
	return 0;
}

/* Called by lwip_init(). Stock pools always exist (they are static). */
void memp_init(void)
{
	lwip_stock_memp_init();
	lwip_stock_mem_init();
	/* per-CPU stacks: the pools are made once and shared (qmempool's
	 * per-CPU caches keep each CPU on its own objects); the bounds
	 * (memp_in_use) are each instance's */
	if (net_alloc_mode != NET_ALLOC_NATIVE || memp_pool[0])
		return;
	if (native_pools_create() != 0) {
		kprintf("net: qmempool set-up failed, using net_alloc=stock\n");
		net_alloc_mode = NET_ALLOC_STOCK;
	}
}

/* Keep lwIP's per-pool counters (shown in /stats.json) right in native
 * mode too, so both modes report the same fields. They are one for all
 * instances: with a stack per CPU they are left alone (a shared line
 * written per packet), and /stats.json takes "used" and "max" from the
 * instances' own counts (net_memp_in_use, net_memp_max). */
static void memp_count_used(memp_t type, int delta)
{
	struct stats_mem *st = memp_pools[type]->stats;

	if (net_instance_count > 1) {
		if (memp_in_use[type] > memp_peak[type])
			memp_peak[type] = memp_in_use[type];
		return;
	}
	st->used = (mem_size_t)(st->used + delta);
	if (st->used > st->max)
		st->max = st->used;
}

/* The pool of this type is at its configured count: lwIP's caller sees
 * NULL, as from a full static pool, and recycles (tcp_alloc) or drops. */
static void *memp_at_limit(memp_t type)
{
	memp_limit_hits[type]++;
	net_mem_stats.memp_limit_hits++;
	return NULL;
}

/* stock: lwIP's static pool; its emptiness is the bound. Counted like
 * native allocations, so /stats.json compares the modes op for op. */
static void *memp_malloc_stock(memp_t type)
{
	void *p = lwip_stock_memp_malloc(type);

	if (!p)
		return memp_at_limit(type);
	net_mem_stats.memp_alloc++;
	if (type == MEMP_SYS_TIMEOUT)
		net_mem_stats.memp_timer_alloc++;
	return p;
}

/* native: at most memp_pools[type]->num objects live (see memp_in_use). */
static void *memp_malloc_native(memp_t type)
{
	void *p;

	if (memp_in_use[type] >= memp_pools[type]->num) {
		memp_pools[type]->stats->err++;
		return memp_at_limit(type);
	}
	p = qmempool_alloc_softirq(memp_pool[type], GFP_ATOMIC);
	if (!p) {
		net_mem_stats.memp_fail++;
		memp_pools[type]->stats->err++;
		return NULL;
	}
	memp_in_use[type]++;
	net_mem_stats.memp_alloc++;
	memp_count_used(type, 1);
	return p;
}

/*
 * lwIP's timeouts never come from a qmempool: lwIP sizes
 * MEMP_NUM_SYS_TIMEOUT to exactly the timers it can run and
 * sys_timeout() treats an empty pool as a bug (an assertion, then the
 * timer is dropped: a cyclic one, TCP's or ARP's, never runs again and
 * every connection stalls). One failed qmempool_alloc must not do that;
 * fail_qmempool=every:7 under traffic did, within seconds. So stock mode
 * takes them from lwIP's static pool and native mode from the records
 * below (timeo_alloc).
 */
static bool memp_from_stock(void)
{
	return net_alloc_mode != NET_ALLOC_NATIVE;
}

/*
 * Native mode's timer records: each instance's own fixed set, as many as
 * lwIP's static pool has (the same guarantee: it never runs dry while
 * lwIP keeps to its count), but one per instance: lwIP's static pool is
 * one for all CPUs and has no lock (SYS_LIGHTWEIGHT_PROT 0), so with a
 * stack per CPU two CPUs' timers would take the same record.
 */
union timeo_rec {
	union timeo_rec *next;
	struct sys_timeo timeo;
};
static NET_PERCPU union timeo_rec timeo_recs[MEMP_NUM_SYS_TIMEOUT];
static NET_PERCPU union timeo_rec *timeo_free;
static NET_PERCPU bool timeo_ready;

static void *timeo_alloc(void)
{
	union timeo_rec *r;

	if (!timeo_ready) {
		for (int i = MEMP_NUM_SYS_TIMEOUT - 1; i >= 0; i--) {
			timeo_recs[i].next = timeo_free;
			timeo_free = &timeo_recs[i];
		}
		timeo_ready = true;
	}
	r = timeo_free;
	if (!r)
		return memp_at_limit(MEMP_SYS_TIMEOUT);
	timeo_free = r->next;
	memp_in_use[MEMP_SYS_TIMEOUT]++;
	net_mem_stats.memp_alloc++;
	net_mem_stats.memp_timer_alloc++;
	memp_count_used(MEMP_SYS_TIMEOUT, 1);
	return r;
}

static void timeo_free_rec(void *mem)
{
	union timeo_rec *r = mem;

	r->next = timeo_free;
	timeo_free = r;
	memp_in_use[MEMP_SYS_TIMEOUT]--;
	memp_count_used(MEMP_SYS_TIMEOUT, -1);
}

void *memp_malloc(memp_t type)
{
	if (memp_from_stock())
		return memp_malloc_stock(type);
	if (type == MEMP_SYS_TIMEOUT)
		return timeo_alloc();
	return memp_malloc_native(type);
}

void memp_free(memp_t type, void *mem)
{
	if (!mem)
		return;
	net_mem_stats.memp_free++;
	if (memp_from_stock()) {
		lwip_stock_memp_free(type, mem);
		return;
	}
	if (type == MEMP_SYS_TIMEOUT) {
		timeo_free_rec(mem);
		return;
	}
	memp_in_use[type]--;
	memp_count_used(type, -1);
	qmempool_free_softirq(memp_pool[type], mem);
}

unsigned int net_memp_limit(int type)
{
	return type >= 0 && type < MEMP_MAX ? memp_pools[type]->num : 0;
}

/* lwIP's own per-pool counters are right (memp_count_used keeps them)
 * unless several stack instances share them. */
static bool lwip_counts_pools(void)
{
	return net_alloc_mode != NET_ALLOC_NATIVE || net_instance_count == 1;
}

/* Element @type of __thread array @own (its address as this CPU sees
 * it), summed over the instances. */
static unsigned int instances_sum(uint32_t (*own)[MEMP_MAX], int type)
{
	unsigned int sum = 0;

	for (int i = 0; i < net_instance_count; i++)
		sum += (*(uint32_t(*)[MEMP_MAX])net_instance_var(i, own))[type];
	return sum;
}

unsigned int net_memp_in_use(int type)
{
	if (type < 0 || type >= MEMP_MAX)
		return 0;
	return lwip_counts_pools() ? memp_pools[type]->stats->used
				   : instances_sum(&memp_in_use, type);
}

unsigned int net_memp_max(int type)
{
	if (type < 0 || type >= MEMP_MAX)
		return 0;
	return lwip_counts_pools() ? memp_pools[type]->stats->max
				   : instances_sum(&memp_peak, type);
}

uint64_t net_memp_limit_hits(int type)
{
	uint64_t all[MEMP_MAX];

	if (type < 0 || type >= MEMP_MAX)
		return 0;
	net_instance_sum_u64(all, memp_limit_hits, sizeof(all));
	return all[type];
}

unsigned long net_mem_qmempool_remote_frees(void)
{
	struct qmempool_stats st;
	unsigned long sum = 0;

	for (int t = 0; t < MEMP_MAX; t++) {
		if (!memp_pool[t])
			continue;
		qmempool_get_stats(memp_pool[t], &st);
		sum += st.remote_free;
	}
	return sum;
}

/* pbuf_free() of a wrapped frame lands here: the NIC buffer, struct and
 * all, goes back to its page. */
static void rx_pbuf_free(struct pbuf *p)
{
	struct net_rx_pbuf *rp = (struct net_rx_pbuf *)p;

	if (rp->cpu != mm_this_cpu())
		net_mem_stats.rx_frees_other_cpu++;
	net_mem_stats.rx_pbufs_in_use--;
	page_frag_free(rp);
}

/* Receive buffers lwIP holds: wrapped frames (native), PBUF_POOL pbufs
 * (stock). At most PBUF_POOL_SIZE in either mode. */
static unsigned int rx_buffers_held(void)
{
	if (net_alloc_mode == NET_ALLOC_NATIVE)
		return (unsigned int)net_mem_stats.rx_pbufs_in_use;
	return memp_pools[MEMP_PBUF_POOL]->stats->used;
}

/*
 * A received frame found every receive buffer held. What lwIP can give
 * back at once is out-of-order TCP data (its senders retransmit it):
 * drop such queues (net/tcp_ooseq.c) until half the buffers are free, so
 * that one reclaim serves many poll rounds instead of running again at
 * the next frame. Without it, one connection's one-byte segments past a
 * hole held all 512 and every frame after was dropped. Called before the
 * frame goes into lwIP, so no queue is being walked. Return: whether any
 * buffer came back.
 */
#define RX_RECLAIM_TO (PBUF_POOL_SIZE / 2)

static bool rx_reclaim(void)
{
	unsigned int held = rx_buffers_held();

	return held > RX_RECLAIM_TO &&
	       net_tcp_ooseq_reclaim(held - RX_RECLAIM_TO) > 0;
}

static struct pbuf *rx_wrap(void *frame, uint32_t len)
{
	uintptr_t at =
		(uintptr_t)frame - RX_PBUF_SLACK - sizeof(struct net_rx_pbuf);
	struct net_rx_pbuf *rp =
		(struct net_rx_pbuf *)(at & ~(uintptr_t)(MEM_ALIGNMENT - 1));

	if (net_mem_stats.rx_pbufs_in_use >= PBUF_POOL_SIZE) {
		net_mem_stats.rx_limit_hits++;
		if (!rx_reclaim())
			return NULL;
	}
	rp->cpu = mm_this_cpu();
	rp->pc.custom_free_function = rx_pbuf_free;
	net_mem_stats.rx_wrap++;
	net_mem_stats.rx_pbufs_in_use++;
	return pbuf_alloced_custom(PBUF_RAW, (u16_t)len, PBUF_RAM, &rp->pc,
				   frame, (u16_t)len);
}

/* Stock lwIP drivers copy into a PBUF_POOL chain; so do we in stock mode. */
static struct pbuf *rx_copy(void *frame, uint32_t len)
{
	struct pbuf *p = pbuf_alloc(PBUF_RAW, (u16_t)len, PBUF_POOL);

	if (!p && rx_reclaim())
		p = pbuf_alloc(PBUF_RAW, (u16_t)len, PBUF_POOL);
	if (!p)
		return NULL;
	pbuf_take(p, frame, (u16_t)len);
	page_frag_free(frame);
	net_mem_stats.rx_copy++;
	return p;
}

struct pbuf *net_rx_pbuf(void *frame, uint32_t len)
{
	struct pbuf *p = net_alloc_mode == NET_ALLOC_NATIVE
				 ? rx_wrap(frame, len)
				 : rx_copy(frame, len);

	if (!p) {
		page_frag_free(frame);
		net_mem_stats.rx_fail++;
	}
	return p;
}

/*
 * The "net_mem" object of /stats.json: the mode and every counter of
 * struct net_mem_stats, from a copy (the counters are written under the
 * core lock; a statistic reads them without it).
 */
struct net_mem_snap {
	const char *mode;
	struct net_mem_stats s;
	int nr_nodes;
};
#define NET_MEM(f, k, u, l)	 STAT_NAMED(#f, struct net_mem_snap, s.f, k, u, l)
#define NET_MEM_COUNTER(f, u, l) NET_MEM(f, STAT_KIND_COUNTER, u, l)
static const struct stat_desc net_mem_stat_desc[] = {
	STAT_INFO_AT(struct net_mem_snap, mode, "",
		     "net_alloc=: native (our allocators) or stock (lwIP's)"),
	NET_MEM_COUNTER(heap_alloc, "events", "lwIP heap allocations"),
	NET_MEM_COUNTER(heap_free, "events", "lwIP heap frees"),
	NET_MEM_COUNTER(heap_fail, "events", "lwIP heap allocations failed"),
	NET_MEM_COUNTER(memp_alloc, "objects", "lwIP pool allocations"),
	NET_MEM_COUNTER(memp_free, "objects", "lwIP pool frees"),
	NET_MEM_COUNTER(memp_fail, "events", "lwIP pool allocations failed"),
	NET_MEM_COUNTER(memp_limit_hits, "events",
			"pool allocations refused at the pool's bound"),
	NET_MEM_COUNTER(memp_timer_alloc, "objects",
			"of memp_alloc, lwIP's timer records (one per cyclic "
			"timer period, whatever the traffic)"),
	NET_MEM_COUNTER(rx_wrap, "packets",
			"received frames wrapped into a pbuf (no copy)"),
	NET_MEM_COUNTER(rx_copy, "packets",
			"received frames copied into lwIP's pbufs"),
	NET_MEM_COUNTER(rx_fail, "packets", "received frames dropped: no pbuf"),
	NET_MEM_COUNTER(rx_limit_hits, "packets",
			"wraps refused at PBUF_POOL_SIZE"),
	NET_MEM(rx_pbufs_in_use, STAT_KIND_GAUGE, "packets",
		"wrapped RX pbufs not yet freed"),
	NET_MEM_COUNTER(rx_frees_other_cpu, "packets",
			"wrapped RX pbufs freed on another CPU"),
	STAT_NAMED_ARRAY_N("heap_node", struct net_mem_snap, s.heap_node,
			   nr_nodes, STAT_KIND_COUNTER, "node", "events",
			   "heap (TX pbuf) allocations by their node"),
};
static const struct stat_group net_mem_groups[] = {
	STAT_GROUP("", net_mem_stat_desc),
};
const struct stat_schema net_mem_schema = STAT_SCHEMA(net_mem_groups);

int net_mem_stats_json(char *buf, size_t size)
{
	struct net_mem_snap o = {
		.mode = net_alloc_name(),
		.nr_nodes = mm_nr_nodes() < MM_MAX_NODES ? mm_nr_nodes()
							 : MM_MAX_NODES,
	};
	struct strbuf sb;

	/* every instance's counters, summed */
	net_instance_sum_u64(&o.s, &net_mem_stats, sizeof(o.s));
	strbuf_init(&sb, buf, size);
	strbuf_printf(&sb, "{");
	stat_json_members(&sb, net_mem_stat_desc,
			  STAT_TABLE_LEN(net_mem_stat_desc), &o);
	strbuf_printf(&sb, "}");
	return strbuf_done(&sb);
}
