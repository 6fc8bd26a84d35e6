/*
 * The glue between one netdev (a NIC driver) and one lwIP netif, queue by
 * queue.
 *
 * RX, in two halves. Outside any lock, on the queue's CPU, the driver's
 * rx_poll hands frames (page_frag buffers from that CPU's napi cache) to
 * glue_rx, which only parks them in the queue's batch. Then, under the
 * lwIP core lock, netif_glue_input() turns each parked frame into a pbuf
 * (net_rx_pbuf: zero-copy or copied, by mode; a frame the driver handed
 * up in several buffers, NETDEV_RX_MORE, becomes a pbuf chain) and gives
 * it to lwIP's ethernet_input(), with lwIP's TCP/UDP checksum checks off
 * for a frame the device vouched for (NETDEV_RX_CSUM_OK), and its IP,
 * TCP and UDP checks off for one whose sums net/rx_csum.c checked first
 * in one pass. Consecutive parked frames that are consecutive segments
 * of one TCP connection go in as one packet (net/rx_gro.c, net_gro=on):
 * one pass through lwIP and one ACK for all of them. The batch is
 * bounded: rx_poll is asked for no more than fits, and while the lock is
 * busy the rest waits in the ring.
 * TX: lwIP calls linkoutput with a pbuf chain, always under the core
 * lock; each pbuf with data becomes one scatter-gather segment on the
 * calling CPU's own TX queue (netdev_tx_queue), the chain gets an extra
 * reference for as long as the device reads it, and tx_done (from
 * tx_reap, also under the lock) drops that reference.
 *
 * Trace points (class net, docs/observe.md): each frame parked ("rx"),
 * each chain sent ("tx"), each coalesced packet ("gro_join"), lwIP's
 * input of a packet as a span ("lwip_input": the answers it sends and
 * the pbufs it frees fall inside), and every drop with its reason.
 * While a packet capture runs (net/capture.h), each frame is copied to
 * it whole: a received one before lwIP sees it, a sent one once the
 * device took it.
 */
#include <string.h>

#include "capture.h"
#include "core_lock.h"
#include "drivers/netdev.h"
#include "flow_owner.h"
#include "kernel/percpu.h"
#include "kernel/trace.h"
#include "lwip/etharp.h"
#include "lwip/ethip6.h"
#include "lwip/netif.h"
#include "lwip/pbuf.h"
#include "lwip/priv/tcp_priv.h"
#include "lwip/snmp.h"
#include "lwip/stats.h"
#include "lwip/tcp.h"
#include "mm/mm.h"
#include "net_config.h"
#include "net_handoff.h"
#include "net_instance.h"
#include "net_mem.h"
#include "netif/ethernet.h"
#include "netif_glue.h"
#include "rx_csum.h"
#include "rss_check.h"
#include "rx_gro.h"

/* Frames of one queue waiting for the core lock. Written by the queue's
 * CPU only (parked outside the lock, drained under it). */
struct glue_queue {
	/* frame, len, flags (NETDEV_RX_* and the GLUE_RX_* marks) */
	struct net_handoff_buf batch[NET_RX_BATCH + NETDEV_RX_CHAIN_MAX];
	int n;
	int dev_index; /* netdev_get(dev_index) is the queue's device */
} __attribute__((aligned(64)));

TRACE_EVENT(ev_rx, TRACE_NET, "rx", {"nic", TRACE_STR}, {"frame", TRACE_HEX},
	    {"queue", TRACE_DEC}, {"len", TRACE_DEC});
TRACE_EVENT(ev_tx, TRACE_NET, "tx", {"nic", TRACE_STR}, {"pbuf", TRACE_HEX},
	    {"queue", TRACE_DEC}, {"len", TRACE_DEC});
TRACE_EVENT(ev_gro, TRACE_NET, "gro_join", {"nic", TRACE_STR},
	    {"bytes", TRACE_DEC}, {"queue", TRACE_DEC}, {"segs", TRACE_DEC});
TRACE_EVENT(ev_input, TRACE_NET, "lwip_input", {"nic", TRACE_STR},
	    {"pbuf", TRACE_HEX}, {"queue", TRACE_DEC}, {"len", TRACE_DEC});
TRACE_EVENT(ev_drop, TRACE_NET, "drop", {"nic", TRACE_STR},
	    {"reason", TRACE_STR}, {"queue", TRACE_DEC}, {"len", TRACE_DEC});

/* A frame (or chain) of len bytes dropped on queue q, and why. */
static void trace_drop(struct netdev *dev, int q, const char *why, uint32_t len)
{
	trace_point(&ev_drop, (uintptr_t)dev->name, (uintptr_t)why, (uint64_t)q,
		    len);
}

/* lwIP's input of p, a span around ethernet_input(): what it answers
 * and frees is inside. Returns what input returned. */
static err_t glue_lwip_input(struct netdev *dev, int q, struct netif *nif,
			     struct pbuf *p)
{
	uint32_t len = p->tot_len;
	err_t err;

	trace_begin(&ev_input, (uintptr_t)dev->name, (uintptr_t)p, (uint64_t)q,
		    len);
	err = nif->input(p, nif);
	trace_end(&ev_input, (uintptr_t)dev->name, (uintptr_t)p, (uint64_t)q,
		  len);
	return err;
}

/* Room for one more chain beyond the budget: a mergeable frame begun in
 * one poll is handed up whole in a later one (drivers/virtio_net.c). */
#define GLUE_BATCH_ROOM (NET_RX_BATCH + NETDEV_RX_CHAIN_MAX)

/* The checks lwIP skips for a frame the device vouches for, and for one
 * whose sums net_rx_csum_verify() found right (the IPv4 header's too). */
#define GLUE_RX_TRUSTED (NETIF_CHECKSUM_CHECK_TCP | NETIF_CHECKSUM_CHECK_UDP)
#define GLUE_RX_CHECKS	(GLUE_RX_TRUSTED | NETIF_CHECKSUM_CHECK_IP)

/* The glue's own marks on a parked frame, above the drivers' NETDEV_RX_*
 * bits: its sums were checked here (once: the check is counted), and
 * found right. */
#define GLUE_RX_SW_CHECKED 0x100u
#define GLUE_RX_SW_GOOD	   0x200u

/* The netifs of the caller's instance, by device index. */
static NET_PERCPU struct netif *glue_nifs[NETDEV_MAX];
static NET_PERCPU int nglued;

static int glue_dev_index(const struct netdev *dev)
{
	return ((const struct glue_queue *)dev->queues[0].stack)->dev_index;
}

/* dev's netif in the caller's instance. */
static struct netif *glue_netif(const struct netdev *dev)
{
	return glue_nifs[glue_dev_index(dev)];
}

/* The glue's mark on a frame another instance handed to this one: its
 * owner is known, it is not handed on again. */
#define GLUE_RX_HANDED 0x400u

/* A frame the device hashed: count it, and whether it came on the queue
 * the redirection table names for its hash, which is what lets the
 * stack put a flow's connection on the CPU its frames reach. */
static void glue_rx_rss(struct netdev *dev, int q, const void *frame,
			uint32_t len, unsigned int flags, uint32_t hash)
{
	struct netdev_stats *st = &dev->queues[q].stats;
	uint32_t sw;

	st->rx_rss_hashed++;
	if (dev->rss_table_len && netdev_rss_queue(dev, hash) != q)
		st->rx_rss_other_queue++;
	/* net_rss_check=on: is the hash the device reports the one the
	 * stack computes from the key it gave it? The port choice for
	 * connections the guest opens relies on it. */
	if (net_config.rss_check &&
	    rss_frame_hash(dev->rss_key, frame, len, flags & NETDEV_RX_HASH_L4,
			   &sw)) {
		st->rx_rss_hash_checked++;
		if (sw != hash)
			st->rx_rss_hash_mismatch++;
	}
}

/* rx_poll's callback, outside the lock: park the frame. rx_poll is never
 * asked for more than fits; a driver that hands up more is dropped from. */
static void glue_rx(struct netdev *dev, int q, void *frame, uint32_t len,
		    unsigned int flags, uint32_t hash)
{
	struct glue_queue *gq = dev->queues[q].stack;

	/* Each queue's frames are handled on its own CPU (net_poll.c):
	 * count any that are not, so a test can prove it. */
	if (this_cpu_id() != dev->queues[q].cpu)
		dev->queues[q].stats.rx_other_cpu++;
	if ((flags & (NETDEV_RX_HASH_L3 | NETDEV_RX_HASH_L4)) &&
	    !(flags & NETDEV_RX_MORE))
		glue_rx_rss(dev, q, frame, len, flags, hash);
	if (gq->n == GLUE_BATCH_ROOM) {
		dev->queues[q].stats.rx_dropped++;
		trace_drop(dev, q, "batch_full", len);
		page_frag_free(frame);
		return;
	}
	trace_point(&ev_rx, (uintptr_t)dev->name, (uintptr_t)frame, (uint64_t)q,
		    len);
	gq->batch[gq->n].frame = frame;
	gq->batch[gq->n].len = len;
	gq->batch[gq->n].flags = flags;
	gq->n++;
}

/* A frame of n parked buffers as one pbuf chain; NULL (every buffer
 * consumed, counted) on allocation failure. */
static struct pbuf *glue_frame_pbuf(struct glue_queue *gq, int first, int n)
{
	struct pbuf *head = NULL;

	for (int i = first; i < first + n; i++) {
		struct pbuf *p =
			net_rx_pbuf(gq->batch[i].frame, gq->batch[i].len);

		if (!p) {
			for (int k = i + 1; k < first + n; k++)
				page_frag_free(gq->batch[k].frame);
			if (head)
				pbuf_free(head);
			return NULL;
		}
		if (head)
			pbuf_cat(head, p);
		else
			head = p;
	}
	return head;
}

/* Parked frame i, one buffer the device did not vouch for: are its sums
 * right? Checked here in one pass (net/rx_csum.c), once (the verdict is
 * kept in the frame's flags), counted; a wrong or unchecked one goes to
 * lwIP's own checks. */
static bool glue_rx_verified(struct netdev *dev, int q, struct glue_queue *gq,
			     int i)
{
	unsigned int *flags = &gq->batch[i].flags;
	enum net_rx_csum r;

	if (*flags & GLUE_RX_SW_CHECKED)
		return *flags & GLUE_RX_SW_GOOD;
	r = net_rx_csum_verify(gq->batch[i].frame, gq->batch[i].len);
	*flags |= GLUE_RX_SW_CHECKED;
	if (r == NET_RX_CSUM_GOOD) {
		*flags |= GLUE_RX_SW_GOOD;
		dev->queues[q].stats.rx_csum_sw++;
		return true;
	}
	if (r == NET_RX_CSUM_BAD)
		dev->queues[q].stats.rx_csum_sw_bad++;
	return false;
}

/*
 * Under the lock: one parked frame (n buffers from first) into lwIP. lwIP
 * checks TCP/UDP sums per netif (LWIP_CHECKSUM_CTRL_PER_NETIF); a frame
 * the device vouches for (NETDEV_RX_CSUM_OK) goes in with those checks
 * off, one whose sums glue_rx_verified() found right with the IPv4
 * header check off too, every other frame with them all on.
 * ethernet_input() runs the whole frame through IP and TCP/UDP before it
 * returns, so the flags hold for exactly this frame.
 */
static void glue_input_one(struct netdev *dev, int q, struct glue_queue *gq,
			   int first, int n)
{
	struct netif *nif = glue_netif(dev);
	unsigned int flags = gq->batch[first + n - 1].flags;
	struct pbuf *p;

	if (!netif_is_up(nif)) {
		dev->queues[q].stats.rx_dropped++;
		trace_drop(dev, q, "netif_down", gq->batch[first].len);
		for (int i = first; i < first + n; i++)
			page_frag_free(gq->batch[i].frame);
		return;
	}
	if (flags & NETDEV_RX_CSUM_OK)
		nif->chksum_flags =
			(u16_t)((nif->chksum_flags | GLUE_RX_CHECKS) &
				~GLUE_RX_TRUSTED);
	else if (n == 1 && glue_rx_verified(dev, q, gq, first))
		nif->chksum_flags &= (u16_t)~GLUE_RX_CHECKS;
	else
		nif->chksum_flags |= GLUE_RX_CHECKS;
	p = n == 1 ? net_rx_pbuf(gq->batch[first].frame, gq->batch[first].len)
		   : glue_frame_pbuf(gq, first, n);
	if (!p) {
		dev->queues[q].stats.rx_dropped++;
		trace_drop(dev, q, "no_pbuf", gq->batch[first].len);
		LINK_STATS_INC(link.memerr);
		return;
	}
	LINK_STATS_INC(link.recv);
	if (glue_lwip_input(dev, q, nif, p) != ERR_OK) {
		LINK_STATS_INC(link.drop);
		trace_drop(dev, q, "lwip_refused", p->tot_len);
		pbuf_free(p);
	}
}

/* ---- coalescing (net/rx_gro.c) ---- */

#define GLUE_ETH_HLEN 14
/* The joined packet's headers are rewritten in its first pbuf: in stock
 * mode a PBUF_POOL pbuf, which must hold the longest header block. */
_Static_assert(PBUF_POOL_BUFSIZE >= GLUE_ETH_HLEN + 60 + 60,
	       "a pool pbuf holds an Ethernet, IPv4 and TCP header");

/*
 * The TCP segments in the packet lwIP is taking in right now when the
 * glue joined several, else 0. Read by net_tcp_gro_ack() from lwIP's
 * input hook, inside the same ethernet_input() call and core lock hold.
 */
static NET_PERCPU int glue_gro_segs;

/* A connection state in which lwIP takes data (and acknowledges data it
 * cannot take at once, segment by segment). */
static bool glue_takes_data(const struct tcp_pcb *pcb)
{
	return pcb->state == ESTABLISHED || pcb->state == FIN_WAIT_1 ||
	       pcb->state == FIN_WAIT_2;
}

/*
 * net_tcp_gro_ack - lwIP's TCP input hook for a segment of an existing
 * connection (LWIP_HOOK_TCP_INPACKET_PCB, net/lwipopts.h).
 *
 * In order: lwIP acknowledges every second segment: the first sets
 * ACK_DELAY, the next finds it set and sends the ACK at once. A joined
 * packet is at least two segments, so it arrives with ACK_DELAY set:
 * lwIP acknowledges it at once, one ACK for the packet, as Linux
 * acknowledges a GRO packet (without the mark, a packet of many segments
 * would wait for the next one or for the 250 ms delayed-ACK timer).
 *
 * Not at the next expected byte (past a hole, old, or outside the
 * window): lwIP answers each such segment at once with an ACK of what it
 * has, and for a sender without SACK these duplicate ACKs are what it
 * counts to retransmit the hole's segment fast (three of them). Joined,
 * four segments past a hole drew one duplicate ACK instead of four, and
 * the sender waited for its retransmission timer. So the packet's other
 * segments get their ACKs here, the same ACK lwIP then sends for the
 * packet. Never refuses the segment.
 *
 * tcp_input() has turned @hdr's fields to host order before the hook, so
 * the sequence number is compared as it is. (Swapped once more, it
 * differed from rcv_nxt for nearly every packet: each joined packet in
 * order drew a duplicate ACK per segment, and the sender, counting
 * three, resent what had arrived: one frame in five of a stream.)
 */
signed char net_tcp_gro_ack(struct tcp_pcb *pcb, const struct tcp_hdr *hdr)
{
	if (glue_gro_segs < 2)
		return ERR_OK;
	if (hdr->seqno != pcb->rcv_nxt && glue_takes_data(pcb)) {
		for (int i = 1; i < glue_gro_segs; i++)
			tcp_send_empty_ack(pcb);
	}
	/* After those: a sent ACK clears the mark. */
	tcp_set_flags(pcb, TF_ACK_DELAY);
	return ERR_OK;
}

/* Parked frame i (one buffer, accepted by net_gro_parse) has sums known
 * right: the device vouched for its TCP sum and its IPv4 header sum is
 * right (IPv6 has none), or both were checked here. */
static bool glue_rx_good(struct netdev *dev, int q, struct glue_queue *gq,
			 int i)
{
	if (gq->batch[i].flags & NETDEV_RX_CSUM_OK)
		return net_gro_ip_sum_ok(gq->batch[i].frame);
	return glue_rx_verified(dev, q, gq, i);
}

/* A parked frame that could not become a pbuf (net_rx_pbuf freed it). */
static void glue_rx_dropped(struct netdev *dev, int q)
{
	dev->queues[q].stats.rx_dropped++;
	trace_drop(dev, q, "no_pbuf", 0);
	LINK_STATS_INC(link.memerr);
}

/* Under the lock: segs parked frames from first, parsed into seg[], into
 * lwIP as one packet. A frame that cannot become a pbuf (memory) is
 * dropped and counted, and the packet ends before it. Returns the frames
 * taken. */
static int glue_input_joined(struct netdev *dev, int q, struct glue_queue *gq,
			     int first, int segs, const struct net_gro_seg *seg)
{
	struct netif *nif = glue_netif(dev);
	struct pbuf *piece[NET_GRO_MAX_SEGS];
	uint32_t ip_len = seg[0].ip_len;
	uint8_t flags = 0;
	int joined;

	for (joined = 0; joined < segs; joined++) {
		struct net_gro_seg const *s = &seg[joined];

		piece[joined] = net_rx_pbuf(gq->batch[first + joined].frame,
					    GLUE_ETH_HLEN + s->ip_len);
		if (!piece[joined])
			break;
		if (joined) { /* only the payload: the headers fit (parsed) */
			pbuf_remove_header(piece[joined], s->hdr_len);
			ip_len += s->payload;
			flags |= s->flags;
		}
	}
	if (joined == 0) {
		glue_rx_dropped(dev, q);
		return 1;
	}
	/* Chained back to front: pbuf_cat walks its first argument's chain,
	 * here one piece, so the chain costs the same for each segment. */
	for (int i = joined - 1; i > 0; i--)
		pbuf_cat(piece[i - 1], piece[i]);
	if (joined > 1) {
		net_gro_rewrite_head(piece[0]->payload, (uint16_t)ip_len,
				     flags & NET_GRO_TCP_PSH);
		dev->queues[q].stats.rx_gro_packets++;
		dev->queues[q].stats.rx_gro_segs += (uint64_t)joined;
		trace_point(&ev_gro, (uintptr_t)dev->name, ip_len, (uint64_t)q,
			    (uint32_t)joined);
	}
	nif->chksum_flags &= (u16_t)~GLUE_RX_CHECKS; /* every piece checked */
	LINK_STATS_INC(link.recv);
	glue_gro_segs = joined;
	if (glue_lwip_input(dev, q, nif, piece[0]) != ERR_OK) {
		LINK_STATS_INC(link.drop);
		trace_drop(dev, q, "lwip_refused", piece[0]->tot_len);
		pbuf_free(piece[0]);
	}
	glue_gro_segs = 0;
	if (joined == segs)
		return segs;
	glue_rx_dropped(dev, q); /* frame first + joined */
	return joined + 1;
}

/*
 * Under the lock: the parked frames from first (of n) that continue one
 * another as one TCP connection's segments (net/rx_gro.c) go into lwIP
 * as one packet. Returns the frames taken, or 0 when frame first starts
 * no such run of two or more: the caller hands it in as it came.
 */
static int glue_input_coalesced(struct netdev *dev, int q,
				struct glue_queue *gq, int first, int n)
{
	struct net_gro_seg seg[NET_GRO_MAX_SEGS];
	const void *head = gq->batch[first].frame;
	uint32_t next, ip_len;
	uint8_t flags;
	int segs = 1;

	if (!netif_is_up(glue_netif(dev)) ||
	    !net_gro_parse(head, gq->batch[first].len, &seg[0]) ||
	    !glue_rx_good(dev, q, gq, first))
		return 0;
	next = seg[0].seq + seg[0].payload;
	ip_len = seg[0].ip_len;
	flags = seg[0].flags;
	while (segs < NET_GRO_MAX_SEGS && first + segs < n &&
	       !(flags & NET_GRO_TCP_PSH)) {
		int i = first + segs;
		struct net_gro_seg *s = &seg[segs];

		if ((gq->batch[i].flags & NETDEV_RX_MORE) ||
		    !net_gro_parse(gq->batch[i].frame, gq->batch[i].len, s) ||
		    !net_gro_follows(head, &seg[0], next, gq->batch[i].frame,
				     s) ||
		    ip_len + s->payload > 0xffffu ||
		    !glue_rx_good(dev, q, gq, i))
			break;
		next += s->payload;
		ip_len += s->payload;
		flags |= s->flags;
		segs++;
	}
	return segs > 1 ? glue_input_joined(dev, q, gq, first, segs, seg) : 0;
}

static void glue_tx_done(struct netdev *dev, int q, void *cookie)
{
	(void)dev;
	(void)q;
	pbuf_free(cookie);
}

/*
 * A chain longer than the driver's scatter list (rare: tcp_write builds
 * at most header + a few data pbufs) is flattened into one PBUF_RAM copy.
 */
static err_t glue_linkoutput(struct netif *nif, struct pbuf *p)
{
	struct netdev *dev = nif->state;
	struct netdev_sg sg[NETDEV_MAX_SG];
	struct pbuf *q, *send = p;
	int n = 0, txq = netdev_tx_queue(dev, net_tx_cpu());

	if (pbuf_clen(p) > NETDEV_MAX_SG) {
		send = pbuf_clone(PBUF_RAW, PBUF_RAM, p);
		if (!send) {
			LINK_STATS_INC(link.memerr);
			trace_drop(dev, txq, "tx_no_mem", p->tot_len);
			return ERR_MEM;
		}
	} else {
		pbuf_ref(p);
	}
	for (q = send; q; q = q->next)
		if (q->len)
			sg[n++] = (struct netdev_sg){q->payload, q->len};
	if (dev->ops->xmit(dev, txq, sg, n, send) != 0) {
		trace_drop(dev, txq, "tx_ring_full", send->tot_len);
		pbuf_free(send);
		LINK_STATS_INC(link.drop);
		return ERR_IF;
	}
	if (p->flags & PBUF_FLAG_TCP_LARGE) /* lwIP's mark (tcp_seg_max.h) */
		dev->queues[txq].stats.tx_large_segs++;
	trace_point(&ev_tx, (uintptr_t)dev->name, (uintptr_t)send,
		    (uint64_t)txq, send->tot_len);
	if (net_capturing())
		net_capture_frame(dev, CAPTURE_TX, sg, n);
	if (dev->ops->tx_flush) /* one notify per lock hold */
		net_core_tx_flush_later(dev, txq);
	LINK_STATS_INC(link.xmit);
	return ERR_OK;
}

static err_t glue_netif_init(struct netif *nif)
{
	struct netdev *dev = nif->state;

	nif->name[0] = 'e';
	nif->name[1] = 'n';
	nif->hwaddr_len = ETH_HWADDR_LEN;
	memcpy(nif->hwaddr, dev->mac, ETH_HWADDR_LEN);
	nif->mtu = dev->mtu;
	/* MLD6: lwIP sends MLD reports for the solicited-node groups of our
	 * addresses. No mld_mac_filter: every NIC already hands us all
	 * multicast (33:33:... included): virtio-net starts promiscuous and
	 * we negotiate no CTRL_RX to narrow it; e1000/e1000e set RCTL.MPE. */
	nif->flags = NETIF_FLAG_BROADCAST | NETIF_FLAG_ETHARP |
		     NETIF_FLAG_ETHERNET | NETIF_FLAG_MLD6;
	/* A device that fills TCP/UDP sums (IPv4 and IPv6): lwIP leaves
	 * them zero (IP headers, ICMP and ICMPv6 are still summed here). */
	NETIF_SET_CHECKSUM_CTRL(nif, NETIF_CHECKSUM_ENABLE_ALL);
	if (dev->offloads & NETDEV_OFF_TX_CSUM)
		nif->chksum_flags &= (u16_t) ~(NETIF_CHECKSUM_GEN_TCP |
					       NETIF_CHECKSUM_GEN_UDP);
	nif->output = etharp_output;
	nif->output_ip6 = ethip6_output;
	nif->linkoutput = glue_linkoutput;
	netif_set_hostname(nif, net_config.hostname);
	return ERR_OK;
}

/* Each queue's parking place, on the node of the CPU that polls it (only
 * that CPU writes it). Returns false, with none left allocated, when
 * memory runs out. */
static bool glue_queues_alloc(struct netdev *dev, int dev_index)
{
	for (int q = 0; q < dev->nqueues; q++) {
		struct glue_queue *gq = kmalloc_node(sizeof(struct glue_queue),
						     GFP_KERNEL | __GFP_ZERO,
						     dev->queues[q].node);

		dev->queues[q].stack = gq;
		if (gq) {
			gq->dev_index = dev_index;
			continue;
		}
		while (q--) {
			kfree(dev->queues[q].stack);
			dev->queues[q].stack = NULL;
		}
		return false;
	}
	return true;
}

static int netdev_index_of(const struct netdev *dev)
{
	for (int i = 0; i < netdev_count(); i++)
		if (netdev_get(i) == dev)
			return i;
	return -1;
}

struct netif *netif_glue_add(struct netdev *dev, struct netif *nif,
			     const ip4_addr_t *ip, const ip4_addr_t *mask,
			     const ip4_addr_t *gw)
{
	int index = netdev_index_of(dev);
	/* per-CPU mode: the first instance to add dev makes its queues */
	bool first = dev->queues[0].stack == NULL;

	if (nglued == NETDEV_MAX || index < 0 ||
	    (first && !glue_queues_alloc(dev, index)))
		return NULL;
	dev->rx = glue_rx;
	dev->tx_done = glue_tx_done;
	if (first)
		dev->stack = nif;
	glue_nifs[index] = nif;
	if (!netif_add(nif, ip, mask, gw, dev, glue_netif_init,
		       ethernet_input)) {
		glue_nifs[index] = NULL;
		if (!first)
			return NULL;
		for (int q = 0; q < dev->nqueues; q++) {
			kfree(dev->queues[q].stack);
			dev->queues[q].stack = NULL;
		}
		return NULL;
	}
	nglued++;
	return nif;
}

int netif_glue_rx_poll(struct netif *nif, int q)
{
	struct netdev *dev = nif->state;
	struct glue_queue *gq = dev->queues[q].stack;

	if (gq->n >= NET_RX_BATCH)
		return 0;
	return dev->ops->rx_poll(dev, q, NET_RX_BATCH - gq->n);
}

int netif_glue_parked(struct netif *nif, int q)
{
	struct netdev *dev = nif->state;

	return ((struct glue_queue *)dev->queues[q].stack)->n;
}

/* Parked frames first..last (its buffers) into the capture. */
static void glue_capture_rx(struct netdev *dev, struct glue_queue *gq,
			    int first, int last)
{
	struct netdev_sg piece[NETDEV_RX_CHAIN_MAX + 1];
	int n = 0;

	for (int i = first;
	     i <= last && n < (int)(sizeof(piece) / sizeof(piece[0])); i++)
		piece[n++] = (struct netdev_sg){gq->batch[i].frame,
						gq->batch[i].len};
	net_capture_frame(dev, CAPTURE_RX, piece, n);
}

/* ---- a stack per CPU: frames for another instance (net_handoff.h) ---- */

/* TCP port pinned to instance 0 (the GDB stub's), 0: none. */
static uint16_t glue_pinned_tcp_port;

void netif_glue_pin_tcp_port(uint16_t port)
{
	glue_pinned_tcp_port = port;
}

/* A copy of parked frame i (one buffer) for instance to, in a buffer
 * of this CPU's RX cache with the headroom the RX pbuf needs. */
static void glue_fan_out_one(struct glue_queue *gq, int i, int self, int to)
{
	uint32_t len = gq->batch[i].len;
	uint8_t *copy = napi_alloc_frag(NETDEV_RX_HEADROOM + len);
	struct net_handoff_buf b;

	if (!copy) {
		net_handoff_copy_failed(self);
		return;
	}
	memcpy(copy + NETDEV_RX_HEADROOM, gq->batch[i].frame, len);
	b = (struct net_handoff_buf){copy + NETDEV_RX_HEADROOM, len,
				     gq->batch[i].flags | GLUE_RX_HANDED};
	if (!net_handoff_send(self, to, gq->dev_index, &b, 1, true))
		page_frag_free(copy); /* a copy: counted as ring_full */
}

/*
 * Before this instance takes its batch in: each frame it does not own
 * goes to its owner (flow_owner.h), each frame every instance needs gets
 * a copy to each of the others, and what stays is packed to the front.
 * A frame its owner's full ring refused stays too, marked, for the next
 * round. Returns the frames (not buffers) to take in now, first ones.
 */
static int glue_steer(struct netdev *dev, struct glue_queue *gq, int *keep_from)
{
	int self = net_instance_here(), n = gq->n, out = 0, kept = 0;
	struct flow_owner_rules rules = {
		.self = self,
		.device_steers = dev->rss_table_len && !dev->rss_software,
		.key = dev->rss_key,
		.table = dev->rss_table,
		.table_len = dev->rss_table_len,
		.pinned_tcp_port = glue_pinned_tcp_port,
	};
	struct net_handoff_buf later[GLUE_BATCH_ROOM];
	int nlater = 0;

	for (int i = 0; i < n;) {
		int k = i, owner = self;

		while (k < n - 1 && (gq->batch[k].flags & NETDEV_RX_MORE))
			k++;
		if (!(gq->batch[i].flags & GLUE_RX_HANDED))
			owner = flow_owner(&rules, gq->batch[i].frame,
					   gq->batch[i].len);
		if (owner == FLOW_OWNER_ALL) {
			for (int to = 0; k == i && to < net_instance_count;
			     to++)
				if (to != self)
					glue_fan_out_one(gq, i, self, to);
			owner = self;
		}
		if (owner != self &&
		    net_handoff_send(self, owner, gq->dev_index, &gq->batch[i],
				     k - i + 1, false)) {
			i = k + 1;
			continue;
		}
		for (int j = i; j <= k; j++) {
			if (owner != self)
				later[nlater++] = gq->batch[j];
			else
				gq->batch[out++] = gq->batch[j];
		}
		i = k + 1;
	}
	/* the refused ones after those taken in now, for the next round */
	*keep_from = out;
	for (int j = 0; j < nlater; j++, kept++)
		gq->batch[out + j] = later[j];
	gq->n = out + kept;
	return out;
}

/* net_handoff_take's callback: a handed buffer joins the batch of its
 * device's queue of this instance (instance i polls queue i). */
static void glue_park_handed(void *arg, int dev_index,
			     const struct net_handoff_buf *b)
{
	struct netdev *dev = netdev_get(dev_index);
	int q = *(const int *)arg;
	struct glue_queue *gq;

	if (!dev || q >= dev->nqueues) {
		page_frag_free(b->frame);
		return;
	}
	gq = dev->queues[q].stack;
	if (gq->n == GLUE_BATCH_ROOM) { /* only with several NICs */
		dev->queues[q].stats.rx_dropped++;
		trace_drop(dev, q, "batch_full", b->len);
		page_frag_free(b->frame);
		return;
	}
	gq->batch[gq->n] = *b;
	gq->batch[gq->n].flags |= GLUE_RX_HANDED;
	gq->n++;
}

int netif_glue_take_handed(struct netif *nif, int q)
{
	struct netdev *dev = nif->state;
	struct glue_queue *gq = dev->queues[q].stack;
	int room = NET_RX_BATCH - gq->n;

	if (room <= 0 || !net_handoff_waiting(q))
		return 0;
	return net_handoff_take(q, room / 2 > 0 ? room / 2 : 1,
				glue_park_handed, &q);
}

int netif_glue_input(struct netif *nif, int q)
{
	struct netdev *dev = nif->state;
	struct glue_queue *gq = dev->queues[q].stack;
	int n = gq->n, work = dev->ops->tx_reap(dev, q), frames = 0;
	int keep_from = n;

	if (net_instance_count > 1 && n)
		n = glue_steer(dev, gq, &keep_from);
	for (int i = 0; i < n;) {
		int k = i;

		/* A driver hands up only whole frames; a last MORE cannot
		 * happen, and would end the frame at the batch's end. */
		while (k < n - 1 && (gq->batch[k].flags & NETDEV_RX_MORE))
			k++;
		if (net_capturing())
			glue_capture_rx(dev, gq, i, k);
		if (k == i && net_config.gro) {
			int taken = glue_input_coalesced(dev, q, gq, i, n);

			if (taken) {
				frames++;
				i += taken;
				continue;
			}
		}
		glue_input_one(dev, q, gq, i, k - i + 1);
		frames++;
		i = k + 1;
	}
	/* frames an owner's full ring refused wait at the front */
	for (int j = keep_from; j < gq->n; j++)
		gq->batch[j - keep_from] = gq->batch[j];
	gq->n -= keep_from;
	return work + frames;
}

struct netdev *netif_glue_dev(struct netif *nif)
{
	return nif && nif->linkoutput == glue_linkoutput ? nif->state : NULL;
}

void netif_glue_link(struct netif *nif)
{
	struct netdev *dev = nif->state;
	bool up = dev->ops->link_up(dev);

	if (up == !!netif_is_link_up(nif))
		return;
	if (up)
		netif_set_link_up(nif);
	else
		netif_set_link_down(nif);
}
