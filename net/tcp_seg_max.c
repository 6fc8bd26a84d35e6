/*
 * How long a TCP segment lwIP may build; see tcp_seg_max.h for why.
 */
#include "tcp_seg_max.h"

#include "drivers/netdev.h"
#include "lwip/ip.h"
#include "lwip/netif.h"
#include "net_config.h"
#include "netif_glue.h"

#define IP4_TCP_HLEN 40u /* IPv4 and TCP headers without options */
#define IP6_TCP_HLEN 60u
#define IP_MAX	     65535u

u16_t net_tcp_seg_max(const struct tcp_pcb *pcb)
{
	bool v6 = IP_IS_V6(&pcb->remote_ip);
	unsigned int n = (unsigned int)net_config.tcp_seg_mss, mss = pcb->mss;
	unsigned int hlen = v6 ? IP6_TCP_HLEN : IP4_TCP_HLEN, mtu, most;
	struct netif *nif;
	struct netdev *dev;

	if (n <= 1 || mss == 0)
		return pcb->mss;
	nif = pcb->netif_idx != NETIF_NO_INDEX
		      ? netif_get_by_index(pcb->netif_idx)
		      : ip_route(&pcb->local_ip, &pcb->remote_ip);
	dev = netif_glue_dev(nif);
	if (!dev || !(dev->offloads & (v6 ? NETDEV_OFF_TSO6 : NETDEV_OFF_TSO4)))
		return pcb->mss;
	mtu = v6 ? netif_mtu6(nif) : nif->mtu;
	if (mss + hlen != mtu)
		return pcb->mss;
	/* One IP datagram, TCP options (at most 40 bytes) included. */
	most = (IP_MAX - hlen - 40u) / mss;
	return (u16_t)((n < most ? n : most) * mss);
}
