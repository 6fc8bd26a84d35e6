/*
 * The glue between one netdev (a NIC driver) and one lwIP netif.
 *
 * RX: the driver calls the netdev's rx callback (glue_rx here) with a
 * frame in a page_frag buffer; net_rx_pbuf() turns it into a pbuf (zero-copy or copied, by mode) and
 * lwIP's ethernet_input() takes it from there.
 * TX: lwIP calls linkoutput with a pbuf chain; each pbuf with data becomes
 * one scatter-gather segment, the chain gets an extra reference for as
 * long as the device reads it, and tx_done drops that reference.
 */
#include <string.h>

#include "drivers/netdev.h"
#include "lwip/etharp.h"
#include "lwip/netif.h"
#include "lwip/pbuf.h"
#include "lwip/snmp.h"
#include "lwip/stats.h"
#include "mm/mm.h"
#include "net_config.h"
#include "net_mem.h"
#include "netif/ethernet.h"
#include "netif_glue.h"

static void glue_rx(struct netdev *dev, void *frame, uint32_t len)
{
	struct netif *nif = dev->stack;
	struct pbuf *p;

	if (!netif_is_up(nif)) {
		dev->stats.rx_dropped++;
		page_frag_free(frame);
		return;
	}
	p = net_rx_pbuf(frame, len);
	if (!p) {
		dev->stats.rx_dropped++;
		LINK_STATS_INC(link.memerr);
		return;
	}
	LINK_STATS_INC(link.recv);
	if (nif->input(p, nif) != ERR_OK) {
		LINK_STATS_INC(link.drop);
		pbuf_free(p);
	}
}

static void glue_tx_done(struct netdev *dev, void *cookie)
{
	(void)dev;
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
	int n = 0;

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
	if (dev->ops->xmit(dev, sg, n, send) != 0) {
		pbuf_free(send);
		LINK_STATS_INC(link.drop);
		return ERR_IF;
	}
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
	nif->flags =
		NETIF_FLAG_BROADCAST | NETIF_FLAG_ETHARP | NETIF_FLAG_ETHERNET;
	nif->output = etharp_output;
	nif->linkoutput = glue_linkoutput;
	netif_set_hostname(nif, net_config.hostname);
	return ERR_OK;
}

struct netif *netif_glue_add(struct netdev *dev, struct netif *nif,
			     const ip4_addr_t *ip, const ip4_addr_t *mask,
			     const ip4_addr_t *gw)
{
	dev->rx = glue_rx;
	dev->tx_done = glue_tx_done;
	dev->stack = nif;
	if (!netif_add(nif, ip, mask, gw, dev, glue_netif_init, ethernet_input))
		return NULL;
	return nif;
}

int netif_glue_poll(struct netif *nif, int budget)
{
	struct netdev *dev = nif->state;
	bool up = dev->ops->link_up(dev);

	if (up != !!netif_is_link_up(nif)) {
		if (up)
			netif_set_link_up(nif);
		else
			netif_set_link_down(nif);
	}
	return dev->ops->poll(dev, budget);
}
