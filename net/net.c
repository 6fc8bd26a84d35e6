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
#include <string.h>

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
#include "net_addr_pub.h"
#include "net_config.h"
#include "net_handoff.h"
#include "instance_enter.h"
#include "net_instance.h"
#include "net_ip6.h"
#include "net_mem.h"
#include "net_poll.h"
#include "net_numa.h"
#include "net_oom.h"
#include "netif_glue.h"

/* Each instance's netifs (one per device; a stack per CPU has one
 * instance per CPU that owns a queue, net_instance.h). */
static NET_PERCPU struct netif netifs[NETDEV_MAX];
static NET_PERCPU int nnetifs;
/* The netifs' device indices, the same in every instance. */
static int netif_dev[NETDEV_MAX];
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

	/* a stack per CPU: instance 0 has the DHCP client and speaks for
	 * all; the others take its address (net_addr_pub.h) */
	if (net_instance_here() != 0)
		return;
	if (net_instance_percpu && nif->num < NETDEV_MAX)
		net_addr_publish(netif_dev[nif->num],
				 ip4_addr_get_u32(netif_ip4_addr(nif)),
				 ip4_addr_get_u32(netif_ip4_netmask(nif)),
				 ip4_addr_get_u32(netif_ip4_gw(nif)));
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

/* Adds dev's netif and starts its address; false when lwIP refused it.
 * In the caller's instance: DHCP runs in instance 0 only. */
static bool bring_up(struct netdev *dev, struct netif *nif)
{
	bool dhcp = net_config.dhcp && net_instance_here() == 0;

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
	if (dhcp && dhcp_start(nif) != ERR_OK)
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

/*
 * net_stack=percpu: how many instances, one per queue pair of the device
 * with the most (queue i is CPU i's), or 1 with the reason said. Every
 * device without RSS and with several queues gets the stack's software
 * steering: the key and a table naming the instances in turn.
 */
static int instances_wanted(void)
{
	int n = 1;

	if (!net_config.percpu)
		return 1;
	for (int i = 0; i < netdev_count(); i++)
		if (netdev_get(i)->nqueues > n)
			n = netdev_get(i)->nqueues;
	if (net_alloc_mode != NET_ALLOC_NATIVE) {
		kprintf("net: net_stack=percpu needs net_alloc=native (lwIP's "
			"own pools are one for all CPUs): one shared stack\n");
		return 1;
	}
	for (int i = 0; i < netdev_count(); i++) {
		struct netdev *dev = netdev_get(i);
		uint8_t table[NETDEV_MAX_QUEUES];

		if (dev->rss_table_len || dev->nqueues < 2)
			continue;
		for (int q = 0; q < dev->nqueues; q++)
			table[q] = (uint8_t)q;
		memcpy(dev->rss_key, netdev_rss_default_key,
		       sizeof(dev->rss_key));
		dev->rss_table_len = NETDEV_RSS_TABLE_MAX;
		dev->rss_software = true;
		for (int k = 0; k < dev->rss_table_len; k++)
			dev->rss_table[k] = table[k % dev->nqueues];
	}
	return n;
}

/*
 * Instance inst's lwIP and netifs, run in it and under its lock (lwIP
 * asserts the lock is held, LWIP_ASSERT_CORE_LOCKED, also at boot).
 * Apart from start_instance, and never inlined: the compiler takes the
 * thread pointer for constant within a function, so a function that
 * switches the FS base (net_instance_enter) must not touch __thread data
 * itself (net_instance.h).
 */
static __attribute__((noinline)) void start_instance_in(int inst)
{
	int n = netdev_count();

	lwip_init();
	for (int i = 0; i < n && i < NETDEV_MAX; i++) {
		struct netdev *dev = netdev_get(i);
		struct netif *nif = &netifs[nnetifs];

		if (net_instance_percpu && inst >= dev->nqueues)
			continue;
		netif_dev[nnetifs] = i;
		if (bring_up(dev, nif))
			net_poll_add(nif, i, net_instance_percpu ? inst : -1);
	}
	net_oom_start();
}

static void start_instance(int inst)
{
	struct net_instance_saved saved;

	net_instance_enter(inst, &saved);
	start_instance_in(inst);
	net_instance_leave(&saved);
}

static void start_stack(void)
{
	int n = instances_wanted();

	bool percpu = net_config.percpu && net_alloc_mode == NET_ALLOC_NATIVE;

	if (percpu && net_handoff_init(n) != 0) {
		kprintf("net: net_stack=percpu: no memory for the hand-off "
			"rings, one shared stack\n");
		percpu = false;
		n = 1;
	}
	/* one queue pair: one instance, but CPU 0's own (its lock is not
	 * shared with the CPUs that own no queue's, counted as such) */
	if (percpu)
		n = net_instances_setup(n);
	for (int i = 0; i < n; i++)
		start_instance(i);
	if (n > 1)
		kprintf("net: net_stack=percpu: %d stacks, one per cpu 0-%d, "
			"steering %s\n",
			n, n - 1,
			netdev_get(0)->rss_software ? "in software" : "by RSS");
	else if (net_instance_percpu)
		kprintf("net: net_stack=percpu: 1 stack, cpu 0's (one queue "
			"pair)\n");
	else
		kprintf("net: net_stack=shared: one stack, one lock\n");
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
