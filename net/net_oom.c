/*
 * Out-of-memory recovery for the receive path.
 *
 * A NIC's RX ring is refilled from the page allocator on every poll. When
 * memory is gone and the stack holds the buffers the ring had (TCP data
 * received but not yet consumed by the application, data sent but not yet
 * acknowledged), the ring runs dry and no frame comes in any more: not
 * even the ACKs and RSTs that would let TCP free that memory. Measured at
 * -m 8M with eight 512 KiB TCP echo streams and floods at once: 0 free
 * pages, 0 RX buffers posted, 227 RX pbufs and 269 TCP segments held, and
 * the guest mute for more than 400 s (only retransmission timeouts, minutes
 * later, would have freed anything).
 *
 * The way out, as Linux kills sockets in tcp_out_of_resources() under
 * memory pressure: every NET_OOM_CHECK_MS (every NET_OOM_IDLE_MS while no
 * refill fails), a NIC whose ring is empty and whose refills failed since
 * the last check makes us abort the TCP
 * connection holding the most buffers (tcp_abort: its queues are freed at
 * once, the peer gets a RST if memory allows). One connection per check,
 * so a short squeeze costs one connection, not all; each abort is counted
 * and printed. A ring with enough buffers posted for the largest frame
 * the device may deliver (one buffer, or NETDEV_RX_CHAIN_MAX with
 * coalesced receive over mergeable buffers) is left alone: frames still
 * come in and TCP can free memory the normal way. (With mergeable
 * buffers, counting only an empty ring as dry left the guest mute for
 * good at -m 8M: 20-odd buffers posted, fewer than a 64 KiB segment
 * needs, so the device waited, and nothing was aborted.)
 *
 * Before that, any failed refill since the last check makes us give the
 * allocators' caches back to the page allocator (kmem_cache_shrink_all,
 * drain_all_pages): objects parked in a CPU's magazine pin whole slabs,
 * and after a flood at -m 8M they held a third of the machine (136 of 384
 * pages) while the RX ring stayed 67 buffers short of full for good.
 */
#include "net_oom.h"

#include <stdio.h>

#include "drivers/netdev.h"
#include "kernel/console.h"
#include "lwip/priv/tcp_priv.h"
#include "lwip/tcp.h"
#include "lwip/timeouts.h"
#include "mm/mm.h"

#define NET_OOM_CHECK_MS 250
/* The interval while nothing failed: an idle guest's 250 ms check, on a
 * phase of its own, was 4 of its 14-17 wake-ups a second. A refill that
 * fails is seen at most a second later; from then on the checks run
 * every NET_OOM_CHECK_MS until one finds nothing again. */
#define NET_OOM_IDLE_MS	 1000

static struct {
	uint64_t checks, dry_rings, aborts, none_to_abort;
	uint64_t reclaims, slabs_reclaimed, qmempool_objs_reclaimed;
	uint64_t last_refill_fail[NETDEV_MAX];
	uint64_t reclaim_refill_fail[NETDEV_MAX];
} oom;

/* Buffers a connection holds: segments queued for sending or awaiting an
 * ACK, received data the application has not taken (the window it has
 * not reopened), and out-of-order segments. */
static unsigned int pcb_weight(const struct tcp_pcb *pcb)
{
	unsigned int w = pcb->snd_queuelen;

	if (pcb->rcv_wnd < TCP_WND)
		w += (unsigned int)(TCP_WND - pcb->rcv_wnd) / TCP_MSS + 1;
#if TCP_QUEUE_OOSEQ
	for (const struct tcp_seg *s = pcb->ooseq; s; s = s->next)
		w++;
#endif
	return w;
}

/* Has one of NIC i's RX rings run dry, with refills failing since the
 * last check? (Each queue's counters are its CPU's; read as hints.) */
static bool ring_ran_dry(int i)
{
	const struct netdev *dev = netdev_get(i);
	struct netdev_stats sum;
	uint64_t fails;
	/* A device that may spread one frame over several buffers (a
	 * coalesced TCP segment in mergeable buffers: up to
	 * NETDEV_RX_CHAIN_MAX) cannot deliver it until that many are posted:
	 * QEMU's virtio-net then waits, and no frame behind it comes in. */
	uint64_t need =
		dev->offloads & NETDEV_OFF_RX_BIG ? NETDEV_RX_CHAIN_MAX : 1;
	bool empty = false, dry;

	netdev_stats_sum(dev, &sum);
	fails = sum.rx_refill_fail;
	for (int q = 0; q < dev->nqueues; q++)
		empty |= dev->queues[q].stats.rx_bufs_posted < need;
	dry = empty && fails != oom.last_refill_fail[i];

	oom.last_refill_fail[i] = fails;
	return dry;
}

/* Did NIC i fail a refill since the last reclaim? */
static bool refills_failed(int i)
{
	struct netdev_stats sum;
	bool failed;

	netdev_stats_sum(netdev_get(i), &sum);
	failed = sum.rx_refill_fail != oom.reclaim_refill_fail[i];
	oom.reclaim_refill_fail[i] = sum.rx_refill_fail;
	return failed;
}

static void reclaim_caches(void)
{
	oom.reclaims++;
	/* Objects cached in the pools pin their slabs: back to the slab
	 * first, so that the shrink can hand those slabs back. */
	oom.qmempool_objs_reclaimed += qmempool_shrink_all();
	oom.slabs_reclaimed += kmem_cache_shrink_all();
	drain_all_pages();
}

static void abort_heaviest(const char *nic)
{
	struct tcp_pcb *worst = NULL;
	unsigned int worst_w = 0;

	for (struct tcp_pcb *p = tcp_active_pcbs; p; p = p->next) {
		unsigned int w = pcb_weight(p);

		if (w > worst_w) {
			worst = p;
			worst_w = w;
		}
	}
	if (!worst) {
		oom.none_to_abort++;
		return;
	}
	oom.aborts++;
	kprintf("net: out of memory, %s RX ring starved: aborting tcp "
		"port %u<->%u holding %u buffers (abort %llu)\n",
		nic, worst->local_port, worst->remote_port, worst_w,
		(unsigned long long)oom.aborts);
	tcp_abort(worst);
}

static void oom_check(void *arg)
{
	int n = netdev_count();

	(void)arg;
	oom.checks++;
	bool failed = false;
	for (int i = 0; i < n && i < NETDEV_MAX; i++)
		failed |= refills_failed(i);
	if (failed)
		reclaim_caches();
	for (int i = 0; i < n && i < NETDEV_MAX; i++) {
		if (ring_ran_dry(i)) {
			oom.dry_rings++;
			abort_heaviest(netdev_get(i)->name);
			break; /* one connection per check */
		}
	}
	sys_timeout(failed ? NET_OOM_CHECK_MS : NET_OOM_IDLE_MS, oom_check,
		    NULL);
}

void net_oom_start(void)
{
	sys_timeout(NET_OOM_CHECK_MS, oom_check, NULL);
}

int net_oom_stats_json(char *buf, size_t size)
{
	return snprintf(buf, size,
			"{\"checks\":%llu,\"dry_rings\":%llu,\"aborts\":%llu,"
			"\"none_to_abort\":%llu,\"reclaims\":%llu,"
			"\"slabs_reclaimed\":%llu,"
			"\"qmempool_objs_reclaimed\":%llu}",
			(unsigned long long)oom.checks,
			(unsigned long long)oom.dry_rings,
			(unsigned long long)oom.aborts,
			(unsigned long long)oom.none_to_abort,
			(unsigned long long)oom.reclaims,
			(unsigned long long)oom.slabs_reclaimed,
			(unsigned long long)oom.qmempool_objs_reclaimed);
}
