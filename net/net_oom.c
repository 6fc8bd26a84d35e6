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
 *
 * A ring that is not empty can still starve for good: measured at -m 8M
 * after the load, 55 of 256 RX buffers posted, no free page, and 3-12
 * connections whose peers had gone holding 195 buffers between them,
 * their retransmissions backing off to a minute apart; frames still came
 * in, so nothing was aborted, and HTTP did not answer for over 120 s
 * (each new connection needs memory the ring's refills took first). So a
 * squeeze that has lasted NET_OOM_STALL_MS also aborts, one per check, the
 * heaviest connection that is not getting its data acknowledged (in
 * retransmission or zero-window probing): Linux likewise resets orphaned
 * sockets under memory pressure when their retransmission timer fires
 * (tcp_out_of_resources). A connection whose peer acknowledges is left
 * to free its buffers the normal way.
 *
 * A squeeze that lasts is reported on the console, every
 * NET_OOM_REPORT_MS while it lasts and once when it is over: free pages,
 * RX buffers posted, and the buffers TCP holds. A guest that stays slow
 * after a load then says what holds its memory without anyone having to
 * reach it over the network, which is exactly what may not answer.
 */
#include "net_oom.h"

#include "drivers/netdev.h"
#include "kernel/console.h"
#include "libc/stat_table.h"
#include "lwip/priv/tcp_priv.h"
#include "lwip/tcp.h"
#include "lwip/sys.h"
#include "lwip/timeouts.h"
#include "mm/mm.h"
#include "net_instance.h"

#define NET_OOM_CHECK_MS  250
/* The interval while nothing failed: an idle guest's 250 ms check, on a
 * phase of its own, was 4 of its 14-17 wake-ups a second. A refill that
 * fails is seen at most a second later; from then on the checks run
 * every NET_OOM_CHECK_MS until one finds nothing again. */
#define NET_OOM_IDLE_MS	  1000
/* A squeeze is reported after this long, and again every so often while
 * it lasts; shorter ones (a load's many 250 ms dips) are only counted. */
#define NET_OOM_REPORT_MS 5000
/* A squeeze this long is no dip: stalled connections are aborted. Ten
 * checks at 250 ms; a connection counts as stalled once its
 * retransmission timer has fired, which on this link takes at least one
 * of lwIP's 500 ms ticks. */
#define NET_OOM_STALL_MS  2500

/* Each stack instance runs its own checks over its own connections
 * (net_instance.h); /stats.json sums the counters. */
static NET_PERCPU struct oom_state {
	uint64_t checks, dry_rings, aborts, none_to_abort, stalled_aborts;
	uint64_t reclaims, slabs_reclaimed, qmempool_objs_reclaimed;
	uint64_t last_refill_fail[NETDEV_MAX];
	uint64_t reclaim_refill_fail[NETDEV_MAX];
	/* the squeeze in progress: since when, when last reported, and the
	 * refill failures counted when it began */
	bool squeezed;
	uint32_t squeeze_start_ms, squeeze_report_ms;
	uint64_t squeeze_fails_start, squeezes_reported;
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

/* Is nothing @pcb sent being acknowledged? Its retransmission timer
 * has fired at least once, or the peer's window is shut. */
static bool pcb_stalled(const struct tcp_pcb *pcb)
{
	return pcb->nrtx > 0 || pcb->persist_backoff > 0;
}

/* The connection holding the most buffers (only stalled ones if
 * @stalled_only), or NULL if none holds any. */
static struct tcp_pcb *heaviest(bool stalled_only, unsigned int *weight)
{
	struct tcp_pcb *worst = NULL;
	unsigned int worst_w = 0;

	for (struct tcp_pcb *p = tcp_active_pcbs; p; p = p->next) {
		unsigned int w = pcb_weight(p);

		if (stalled_only && !pcb_stalled(p))
			continue;
		if (w > worst_w) {
			worst = p;
			worst_w = w;
		}
	}
	*weight = worst_w;
	return worst;
}

static void abort_heaviest(const char *nic)
{
	unsigned int worst_w;
	struct tcp_pcb *worst = heaviest(false, &worst_w);

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

static uint64_t refill_fails_now(void)
{
	struct netdev_stats all;

	netdev_stats_sum_all(&all);
	return all.rx_refill_fail;
}

/* One console line on the squeeze: how long, what failed, who holds. */
static void squeeze_report(const char *what, uint32_t now)
{
	unsigned int pcbs = 0, held = 0;
	struct netdev_stats all;

	for (struct tcp_pcb *p = tcp_active_pcbs; p; p = p->next) {
		pcbs++;
		held += pcb_weight(p);
	}
	netdev_stats_sum_all(&all);
	oom.squeezes_reported++;
	kprintf("net: memory squeeze %s after %u ms: %llu RX refills failed, "
		"free pages %lu, RX buffers posted %llu, tcp %u pcbs hold %u "
		"buffers, %llu aborted so far\n",
		what, (unsigned int)(now - oom.squeeze_start_ms),
		(unsigned long long)(all.rx_refill_fail -
				     oom.squeeze_fails_start),
		nr_free_pages(), (unsigned long long)all.rx_bufs_posted, pcbs,
		held, (unsigned long long)(oom.aborts + oom.stalled_aborts));
}

/* The squeeze has lasted: abort the heaviest connection whose peer does
 * not acknowledge. Return: whether one was. */
static bool abort_heaviest_stalled(void)
{
	unsigned int w;
	struct tcp_pcb *pcb = heaviest(true, &w);

	if (!pcb)
		return false;
	oom.stalled_aborts++;
	kprintf("net: memory squeeze for %u ms: aborting stalled tcp port "
		"%u<->%u holding %u buffers, %u retransmissions "
		"(stalled abort %llu)\n",
		(unsigned int)(sys_now() - oom.squeeze_start_ms),
		pcb->local_port, pcb->remote_port, w, (unsigned int)pcb->nrtx,
		(unsigned long long)oom.stalled_aborts);
	tcp_abort(pcb);
	return true;
}

/* Follow the squeeze: begins at a check that saw refills fail, ends at
 * the first that saw none. */
static void squeeze_track(bool failed)
{
	uint32_t now = sys_now();

	if (failed && !oom.squeezed) {
		oom.squeezed = true;
		oom.squeeze_start_ms = now;
		oom.squeeze_report_ms = now;
		oom.squeeze_fails_start = refill_fails_now();
	} else if (failed && now - oom.squeeze_report_ms >= NET_OOM_REPORT_MS) {
		oom.squeeze_report_ms = now;
		squeeze_report("lasting", now);
	} else if (!failed && oom.squeezed) {
		oom.squeezed = false;
		if (now - oom.squeeze_start_ms >= NET_OOM_REPORT_MS)
			squeeze_report("over", now);
	}
}

static void oom_check(void *arg)
{
	int n = netdev_count();

	(void)arg;
	oom.checks++;
	bool failed = false;
	for (int i = 0; i < n && i < NETDEV_MAX; i++)
		failed |= refills_failed(i);
	squeeze_track(failed);
	if (failed)
		reclaim_caches();
	bool aborted = false;
	for (int i = 0; i < n && i < NETDEV_MAX; i++) {
		if (ring_ran_dry(i)) {
			oom.dry_rings++;
			abort_heaviest(netdev_get(i)->name);
			aborted = true;
			break; /* one connection per check */
		}
	}
	if (!aborted && failed && oom.squeezed &&
	    sys_now() - oom.squeeze_start_ms >= NET_OOM_STALL_MS)
		abort_heaviest_stalled();
	sys_timeout(failed ? NET_OOM_CHECK_MS : NET_OOM_IDLE_MS, oom_check,
		    NULL);
}

void net_oom_start(void)
{
	sys_timeout(NET_OOM_CHECK_MS, oom_check, NULL);
}

/* The "net_oom" object of /stats.json, read from the state itself. */
#define OOM_COUNTER(f, u, l) STAT_COUNTER_AT(struct oom_state, f, u, l)
static const struct stat_desc oom_stats[] = {
	OOM_COUNTER(checks, "events", "checks of every ring"),
	OOM_COUNTER(dry_rings, "events",
		    "rings found short of buffers with refills failing"),
	OOM_COUNTER(aborts, "events",
		    "connections aborted: the heaviest, for a dry ring"),
	OOM_COUNTER(stalled_aborts, "events",
		    "connections aborted: stalled through a long squeeze"),
	OOM_COUNTER(none_to_abort, "events",
		    "dry rings with no connection to abort"),
	OOM_COUNTER(reclaims, "events",
		    "caches given back to the page allocator"),
	OOM_COUNTER(slabs_reclaimed, "slabs", "slabs those gave back"),
	OOM_COUNTER(qmempool_objs_reclaimed, "objects",
		    "qmempool objects those gave back"),
	OOM_COUNTER(squeezes_reported, "events",
		    "reports of a lasting squeeze on the console"),
};
static const struct stat_group oom_groups[] = {
	STAT_GROUP("", oom_stats),
};
const struct stat_schema net_oom_schema = STAT_SCHEMA(oom_groups);

int net_oom_stats_json(char *buf, size_t size)
{
	struct oom_state sum = {0};
	struct strbuf sb;

	for (int i = 0; i < net_instance_count; i++) {
		const struct oom_state *o = NET_INSTANCE_VAR(i, oom);

		sum.checks += o->checks;
		sum.dry_rings += o->dry_rings;
		sum.aborts += o->aborts;
		sum.stalled_aborts += o->stalled_aborts;
		sum.none_to_abort += o->none_to_abort;
		sum.reclaims += o->reclaims;
		sum.slabs_reclaimed += o->slabs_reclaimed;
		sum.qmempool_objs_reclaimed += o->qmempool_objs_reclaimed;
		sum.squeezes_reported += o->squeezes_reported;
	}
	strbuf_init(&sb, buf, size);
	strbuf_printf(&sb, "{");
	stat_json_members(&sb, oom_stats, STAT_TABLE_LEN(oom_stats), &sum);
	strbuf_printf(&sb, "}");
	return strbuf_done(&sb);
}
