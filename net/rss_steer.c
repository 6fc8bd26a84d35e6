/*
 * The local port of a TCP connection the guest opens (lwIP's
 * LWIP_HOOK_TCP_CONNECT_PORT, net/lwip-patches/0012): on a device with
 * RSS and more than one queue, a free port of lwIP's ephemeral range
 * whose answers the device's redirection table steers to the queue of
 * the calling CPU (net/rss_port.c), so the connection's segments come in
 * where it was opened -- the first step towards a stack per CPU, where
 * the opening CPU owns the connection. The search starts at a random
 * port (RFC 6056, as lwIP's own choice does). Counted on the queue the
 * calling CPU sends on: tcp_port_steered, or tcp_port_unsteered when the
 * CPU owns no queue or no free port would do, and lwIP chooses.
 */
#include <string.h>

#include "drivers/netdev.h"
#include "kernel/percpu.h"
#include "lwip/ip_addr.h"
#include "lwip/netif.h"
#include "lwip/priv/tcp_priv.h"
#include "lwip/tcp.h"
#include "netif_glue.h"
#include "rss_port.h"

/* lwIP's ephemeral ports (tcp.c's TCP_LOCAL_PORT_RANGE_*): IANA's
 * dynamic range, 49152-65535. */
#define EPHEMERAL_FIRST 0xc000u
#define EPHEMERAL_LAST	0xffffu

/* Does any pcb, listening, bound, open or in TIME_WAIT, hold the port?
 * The rule tcp_new_port() applies. Core lock held. */
static bool tcp_port_in_use(uint16_t port, void *arg)
{
	(void)arg;
	for (int i = 0; i < NUM_TCP_PCB_LISTS; i++)
		for (struct tcp_pcb *p = *tcp_pcb_lists[i]; p; p = p->next)
			if (p->local_port == port)
				return true;
	return false;
}

/* The queue the calling CPU polls on dev, or -1. */
static int own_queue(const struct netdev *dev, int cpu)
{
	for (int q = 0; q < dev->nqueues; q++)
		if (dev->queues[q].cpu == cpu)
			return q;
	return -1;
}

/* The addresses of pcb as bytes in network order (4 or 16 each). */
static bool flow_addresses(const struct tcp_pcb *pcb, uint8_t local[16],
			   uint8_t remote[16])
{
	if (IP_IS_V6(&pcb->remote_ip)) {
		memcpy(local, ip_2_ip6(&pcb->local_ip)->addr, 16);
		memcpy(remote, ip_2_ip6(&pcb->remote_ip)->addr, 16);
		return true;
	}
	memcpy(local, &ip_2_ip4(&pcb->local_ip)->addr, 4);
	memcpy(remote, &ip_2_ip4(&pcb->remote_ip)->addr, 4);
	return false;
}

/*
 * net_tcp_connect_port - lwIP's hook: the local port for pcb's active
 * open on nif (pcb's addresses and remote port set), or 0 for lwIP's
 * own choice. Context: core lock held (tcp_connect); the counters it
 * writes are written under that lock only.
 */
u16_t net_tcp_connect_port(struct tcp_pcb *pcb, struct netif *nif)
{
	struct netdev *dev = netif_glue_dev(nif);
	int cpu = this_cpu_id(), q;
	struct netdev_stats *st;
	uint8_t local[16], remote[16];
	struct rss_port_query query;
	uint16_t port;

	if (!dev || dev->rss_table_len == 0 || dev->nqueues < 2)
		return 0; /* every port lands on the one queue there is */
	st = &dev->queues[netdev_tx_queue(dev, cpu)].stats;
	q = own_queue(dev, cpu);
	if (q < 0) {
		st->tcp_port_unsteered++;
		return 0;
	}
	query = (struct rss_port_query){
		.key = dev->rss_key,
		.table = dev->rss_table,
		.table_len = dev->rss_table_len,
		.queue = q,
		.v6 = flow_addresses(pcb, local, remote),
		.local = local,
		.remote = remote,
		.remote_port = pcb->remote_port,
	};
	port = rss_port_pick(
		&query, EPHEMERAL_FIRST, EPHEMERAL_LAST,
		(uint16_t)(EPHEMERAL_FIRST +
			   net_rand() % (EPHEMERAL_LAST - EPHEMERAL_FIRST + 1)),
		tcp_port_in_use, NULL, NULL);
	if (port)
		st->tcp_port_steered++;
	else
		st->tcp_port_unsteered++;
	return port;
}
