/*
 * The glue between one netdev (a NIC driver) and one lwIP netif, queue by
 * queue.
 *
 * RX, in two halves. Outside any lock, on the queue's CPU, the driver's
 * rx_poll hands frames (page_frag buffers from that CPU's napi cache) to
 * glue_rx, which only parks them in the queue's batch. Then, under the
 * lwIP core lock, netif_glue_input() turns each parked frame into a pbuf
 * (net_rx_pbuf: zero-copy or copied, by mode) and gives it to lwIP's
 * ethernet_input(). The batch is bounded: rx_poll is asked for no more
 * than fits, and while the lock is busy the rest waits in the ring.
 * TX: lwIP calls linkoutput with a pbuf chain, always under the core
 * lock; each pbuf with data becomes one scatter-gather segment on the
 * calling CPU's own TX queue (netdev_tx_queue), the chain gets an extra
 * reference for as long as the device reads it, and tx_done (from
 * tx_reap, also under the lock) drops that reference.
 */
#include <string.h>

#include "core_lock.h"
#include "drivers/netdev.h"
#include "kernel/percpu.h"
#include "lwip/etharp.h"
#include "lwip/ethip6.h"
#include "lwip/netif.h"
#include "lwip/pbuf.h"
#include "lwip/snmp.h"
#include "lwip/stats.h"
#include "mm/mm.h"
#include "net_config.h"
#include "net_mem.h"
#include "netif/ethernet.h"
#include "netif_glue.h"

/* Frames of one queue waiting for the core lock. Written by the queue's
 * CPU only (parked outside the lock, drained under it). */
struct glue_queue {
	struct {
		void *frame;
		uint32_t len;
	} batch[NET_RX_BATCH];
	int n;
} __attribute__((aligned(64)));

static struct glue_queue glue_queues[NETDEV_MAX][NETDEV_MAX_QUEUES];
static int nglued;

/* rx_poll's callback, outside the lock: park the frame. rx_poll is never
 * asked for more than fits; a driver that hands up more is dropped from. */
static void glue_rx(struct netdev *dev, int q, void *frame, uint32_t len)
{
	struct glue_queue *gq = dev->queues[q].stack;

	if (gq->n == NET_RX_BATCH) {
		dev->queues[q].stats.rx_dropped++;
		page_frag_free(frame);
		return;
	}
	gq->batch[gq->n].frame = frame;
	gq->batch[gq->n].len = len;
	gq->n++;
}

/* Under the lock: one parked frame into lwIP. */
static void glue_input_one(struct netdev *dev, int q, void *frame, uint32_t len)
{
	struct netif *nif = dev->stack;
	struct pbuf *p;

	if (!netif_is_up(nif)) {
		dev->queues[q].stats.rx_dropped++;
		page_frag_free(frame);
		return;
	}
	p = net_rx_pbuf(frame, len);
	if (!p) {
		dev->queues[q].stats.rx_dropped++;
		LINK_STATS_INC(link.memerr);
		return;
	}
	LINK_STATS_INC(link.recv);
	if (nif->input(p, nif) != ERR_OK) {
		LINK_STATS_INC(link.drop);
		pbuf_free(p);
	}
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
	int n = 0, txq;

	if (pbuf_clen(p) > NETDEV_MAX_SG) {
		send = pbuf_clone(PBUF_RAW, PBUF_RAM, p);
		if (!send) {
			LINK_STATS_INC(link.memerr);
			return ERR_MEM;
		}
	} else {
		pbuf_ref(p);
	}
	for (q = send; q; q = q->next)
		if (q->len)
			sg[n++] = (struct netdev_sg){q->payload, q->len};
	txq = netdev_tx_queue(dev, this_cpu_id());
	if (dev->ops->xmit(dev, txq, sg, n, send) != 0) {
		pbuf_free(send);
		LINK_STATS_INC(link.drop);
		return ERR_IF;
	}
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
	nif->output = etharp_output;
	nif->output_ip6 = ethip6_output;
	nif->linkoutput = glue_linkoutput;
	netif_set_hostname(nif, net_config.hostname);
	return ERR_OK;
}

struct netif *netif_glue_add(struct netdev *dev, struct netif *nif,
			     const ip4_addr_t *ip, const ip4_addr_t *mask,
			     const ip4_addr_t *gw)
{
	if (nglued == NETDEV_MAX)
		return NULL;
	dev->rx = glue_rx;
	dev->tx_done = glue_tx_done;
	dev->stack = nif;
	for (int q = 0; q < dev->nqueues; q++)
		dev->queues[q].stack = &glue_queues[nglued][q];
	if (!netif_add(nif, ip, mask, gw, dev, glue_netif_init, ethernet_input))
		return NULL;
	nglued++;
	return nif;
}

int netif_glue_rx_poll(struct netif *nif, int q)
{
	struct netdev *dev = nif->state;
	struct glue_queue *gq = dev->queues[q].stack;

	if (gq->n == NET_RX_BATCH)
		return 0;
	return dev->ops->rx_poll(dev, q, NET_RX_BATCH - gq->n);
}

int netif_glue_parked(struct netif *nif, int q)
{
	struct netdev *dev = nif->state;

	return ((struct glue_queue *)dev->queues[q].stack)->n;
}

int netif_glue_input(struct netif *nif, int q)
{
	struct netdev *dev = nif->state;
	struct glue_queue *gq = dev->queues[q].stack;
	int n = gq->n, work = dev->ops->tx_reap(dev, q);

	for (int i = 0; i < n; i++)
		glue_input_one(dev, q, gq->batch[i].frame, gq->batch[i].len);
	gq->n = 0;
	return work + n;
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
