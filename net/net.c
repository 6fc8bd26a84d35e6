/*
 * Start-up of the network stack. See net.h; the poll rounds that follow
 * are net_poll.c.
 *
 * Boot: probe the NIC the command line names (one queue pair per CPU
 * where the device offers multiqueue), lwip_init() (which sets up the
 * chosen allocator mode through memp_init()), one netif per netdev, then
 * DHCP or the static address, all under the lwIP core lock, and the
 * queues handed to net_poll.c. When the first interface gets its address
 * the status callback prints the line tests and `make run` wait for:
 *   net: eth0 up ip=10.0.2.15/24 mac=52:54:00:12:34:56 nic=virtio
 * and calls the ready hook, through which the layer above (apps/boot.c)
 * says what listens. The stack itself knows no app.
 */
#include "net.h"

#include <stdio.h>

#include "core_lock.h"
#include "drivers/e1000.h"
#include "drivers/e1000e.h"
#include "drivers/igb.h"
#include "drivers/netdev.h"
#include "drivers/pci.h"
#include "drivers/virtio_net.h"
#include "kernel/console.h"
#include "kernel/percpu.h"
#include "lwip/dhcp.h"
#include "lwip/init.h"
#include "lwip/netif.h"
#include "mm/mm.h"
#include "net_config.h"
#include "net_ip6.h"
#include "net_mem.h"
#include "net_poll.h"
#include "net_numa.h"
#include "net_oom.h"
#include "netif_glue.h"

static struct netif netifs[NETDEV_MAX];
static int nnetifs;
static bool announced;

static int prefix_len(uint32_t mask)
{
	return __builtin_popcount(mask);
}

/* Called once, when the first interface has its IPv4 address. */
static void (*ready_hook)(void);

void net_set_ready_hook(void (*hook)(void))
{
	ready_hook = hook;
}

/* The IPv4 address each netif was last announced with (by nif->num). */
static uint32_t announced_ip[NETDEV_MAX];

/*
 * Every queue has polled once (rings_now_primed). The RX rings start empty
 * and each queue's first poll fills its ring on its own CPU, from that
 * CPU's node; a frame that comes before finds no buffer (igb and e1000
 * drop it). A static address is set before any poller runs, so its
 * "up" line waited for nothing: a ping sent at that line lost its first
 * echo on igb (test_ping_over_tap_in_netns, the queue of CPU 1 not yet
 * polled). DHCP's address comes later anyway.
 */
static bool rings_primed;

/* Called by lwIP when an address is set: DHCP bound or static, and on
 * each IPv6 address state change, which net_ip6.c reports itself. */
static void status_callback(struct netif *nif)
{
	struct netdev *dev = nif->state;
	uint32_t ip = lwip_ntohl(ip4_addr_get_u32(netif_ip4_addr(nif)));
	uint32_t mask = lwip_ntohl(ip4_addr_get_u32(netif_ip4_netmask(nif)));

	char ip6[3 * IP6ADDR_STRLEN_MAX + 3];

	if (!rings_primed || !netif_is_up(nif) || ip == 0 ||
	    nif->num >= NETDEV_MAX || announced_ip[nif->num] == ip)
		return;
	announced_ip[nif->num] = ip;
	kprintf("net: %s up ip=%u.%u.%u.%u/%d "
		"mac=%02x:%02x:%02x:%02x:%02x:%02x nic=%s\n",
		dev->name, ip >> 24, (ip >> 16) & 255, (ip >> 8) & 255,
		ip & 255, prefix_len(mask), dev->mac[0], dev->mac[1],
		dev->mac[2], dev->mac[3], dev->mac[4], dev->mac[5], dev->kind);
	/* '?': still tentative; "net: DEV ip6 ADDR ready" follows. */
	net_ip6_addrs_text(nif, ip6, sizeof(ip6));
	kprintf("net: %s ip6=%s\n", dev->name, ip6);
	if (!announced) {
		announced = true;
		if (ready_hook)
			ready_hook();
	}
}

/* net_poll.c: every queue has polled once (net_poll_on_primed). Under
 * the core lock. */
static void rings_now_primed(void)
{
	if (rings_primed)
		return;
	rings_primed = true;
	for (int i = 0; i < nnetifs; i++)
		status_callback(&netifs[i]);
}

/* One queue pair per CPU (queue i on CPU i), or net_queues= of them. */
static int probe_nics(void)
{
	int node = mm_this_node();
	int queues = net_config.queues ? net_config.queues : nr_cpus;

	if (queues > nr_cpus)
		queues = nr_cpus;
	virtio_net_allow_offloads(&net_config.virtio);
	igb_allow_untested(net_config.igb_untested);
	e1000e_allow_offloads(&net_config.e1000e);
	switch (net_config.nic) {
	case NET_NIC_VIRTIO:
		return virtio_net_probe(true, queues);
	case NET_NIC_E1000:
		return e1000_probe(node);
	case NET_NIC_E1000E:
		return e1000e_probe(node);
	case NET_NIC_IGB:
		return igb_probe(queues);
	case NET_NIC_ALL:
		return virtio_net_probe(true, queues) + e1000_probe(node) +
		       e1000e_probe(node) + igb_probe(queues);
	default:
		return 0;
	}
}

/* Adds dev's netif and starts its address; false when lwIP refused it. */
static bool bring_up(struct netdev *dev, struct netif *nif)
{
	ip4_addr_t ip, mask, gw;

	ip4_addr_set_zero(&ip);
	ip4_addr_set_zero(&mask);
	ip4_addr_set_zero(&gw);
	if (!net_config.dhcp && nnetifs == 0) {
		ip4_addr_set_u32(&ip, lwip_htonl(net_config.ip));
		ip4_addr_set_u32(&mask, lwip_htonl(net_config.mask));
		ip4_addr_set_u32(&gw, lwip_htonl(net_config.gw));
	}
	if (!netif_glue_add(dev, nif, &ip, &mask, &gw)) {
		kprintf("net: lwIP refused %s (or no memory for its queues)\n",
			dev->name);
		return false;
	}
	nnetifs++;
	netif_set_status_callback(nif, status_callback);
	if (nnetifs == 1)
		netif_set_default(nif);
	net_ip6_start(nif);
	netif_set_up(nif);
	if (dev->ops->link_up(dev))
		netif_set_link_up(nif);
	if (net_config.dhcp && dhcp_start(nif) != ERR_OK)
		kprintf("net: %s: dhcp_start failed\n", dev->name);
	return true;
}

/* net_irq=on: every device that can gets its queues' interrupts (the
 * driver prints which); the rest stay polled. */
static void irq_setup_all(void)
{
	if (!net_config.irq) {
		kprintf("net: net_irq=off, queues polled only\n");
		return;
	}
	for (int i = 0; i < netdev_count(); i++) {
		struct netdev *dev = netdev_get(i);

		if (!dev->ops->irq_setup)
			kprintf("net: %s: %s has no interrupts, polled\n",
				dev->name, dev->kind);
		else
			dev->ops->irq_setup(dev);
	}
}

/* lwIP and the netifs, under the core lock: lwIP asserts it is held
 * (LWIP_ASSERT_CORE_LOCKED), also at boot. */
static void start_stack(void)
{
	int n = netdev_count();

	net_core_lock();
	lwip_init();
	for (int i = 0; i < n && i < NETDEV_MAX; i++) {
		struct netif *nif = &netifs[nnetifs];

		if (bring_up(netdev_get(i), nif))
			net_poll_add(nif);
	}
	net_oom_start();
	net_core_unlock();
}

int net_init(void)
{
	int found;

	net_alloc_mode = (enum net_alloc_mode)net_config.alloc;
	if (net_config.nic == NET_NIC_NONE) {
		kprintf("net: nic=none, networking off\n");
		return 0;
	}
	found = probe_nics();
	netdev_report_left_out(); /* the NICs past NETDEV_MAX, if any */
	if (found == 0) {
		kprintf("net: no network device found\n");
		return 0;
	}
	net_numa_apply();
	net_poll_on_primed(rings_now_primed);
	irq_setup_all();
	start_stack();
	kprintf("net: lwIP %s up on %d interface(s), net_alloc=%s, %s\n",
		LWIP_VERSION_STRING, nnetifs, net_alloc_name(),
		net_config.dhcp ? "waiting for DHCP" : "static address");
	return nnetifs;
}
