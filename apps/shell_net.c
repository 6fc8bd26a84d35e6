/*
 * The network's shell commands, added to the kernel's shell table at boot
 * (kernel/ may not call upwards, so apps_boot registers them): ifconfig and
 * netstat in net-tools' layouts, stats (the /stats.json document), and
 * ping (apps/ping.c).
 *
 * They read lwIP's interface and PCB lists, which every CPU that owns a
 * NIC queue changes under the lwIP core lock (net/core_lock.h): so they
 * hold it too, for as long as they walk the lists. The shell's poller
 * never holds it otherwise, so taking it here cannot deadlock.
 */
#include <stdio.h>

#include "net/core_lock.h"
#include "net/instance_enter.h"
#include "net/net_instance.h"
#include "drivers/netdev.h"
#include "kernel/shell.h"
#include "lwip/netif.h"
#include "lwip/priv/tcp_priv.h"
#include "lwip/tcp.h"
#include "lwip/udp.h"
#include "stats.h"
#include "net/net_ip6.h"
#include "shell_net.h"
#include "ping.h"

/* ---- ifconfig ---- */

/* "2.2 KiB": the human-readable figure net-tools' ifconfig adds. */
static void human_bytes(char *buf, size_t size, uint64_t b)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	uint64_t whole = b, tenths = 0;
	int u = 0;

	while (whole >= 1024 && u < 4) {
		tenths = (whole % 1024) * 10 / 1024;
		whole /= 1024;
		u++;
	}
	snprintf(buf, size, "%llu.%llu %s", (unsigned long long)whole,
		 (unsigned long long)tenths, units[u]);
}

static void print_ip(char *buf, size_t size, const ip4_addr_t *a)
{
	uint32_t v = lwip_ntohl(ip4_addr_get_u32(a));

	snprintf(buf, size, "%u.%u.%u.%u", v >> 24, (v >> 16) & 255,
		 (v >> 8) & 255, v & 255);
}

/* The Linux interface flags ifconfig prints, from the netif's state. */
static void print_flags(const struct netif *nif)
{
	unsigned int flags = 0;
	const char *sep = "";

	shell_printf("flags=");
	if (netif_is_up(nif))
		flags |= 0x1; /* IFF_UP */
	if (nif->flags & NETIF_FLAG_BROADCAST)
		flags |= 0x2; /* IFF_BROADCAST */
	if (netif_is_link_up(nif))
		flags |= 0x40; /* IFF_RUNNING */
	shell_printf("%u<", flags);
	if (flags & 0x1) {
		shell_printf("UP");
		sep = ",";
	}
	if (flags & 0x2) {
		shell_printf("%sBROADCAST", sep);
		sep = ",";
	}
	if (flags & 0x40)
		shell_printf("%sRUNNING", sep);
	shell_printf(">");
}

static void ifconfig_one(const struct netif *nif)
{
	const struct netdev *dev = nif->state;
	struct netdev_stats sum;
	const struct netdev_stats *s = &sum;
	char ip[16], mask[16], bcast[16], rx[24], tx[24];
	char ip6[IP6ADDR_STRLEN_MAX];
	ip4_addr_t b;

	netdev_stats_sum(dev, &sum); /* every queue's counters */
	ip4_addr_set_u32(&b, ip4_addr_get_u32(netif_ip4_addr(nif)) |
				     ~ip4_addr_get_u32(netif_ip4_netmask(nif)));
	print_ip(ip, sizeof(ip), netif_ip4_addr(nif));
	print_ip(mask, sizeof(mask), netif_ip4_netmask(nif));
	print_ip(bcast, sizeof(bcast), &b);
	human_bytes(rx, sizeof(rx), s->rx_bytes);
	human_bytes(tx, sizeof(tx), s->tx_bytes);
	shell_printf("%s: ", dev->name);
	print_flags(nif);
	shell_printf("  mtu %u\n", nif->mtu);
	if (!ip4_addr_isany(netif_ip4_addr(nif)))
		shell_printf("        inet %s  netmask %s  broadcast %s\n", ip,
			     mask, bcast);
	for (int i = 0; i < LWIP_IPV6_NUM_ADDRESSES; i++)
		if (!ip6_addr_isinvalid(netif_ip6_addr_state(nif, i)))
			shell_printf("        inet6 %s  prefixlen 64\n",
				     net_ip6_text(netif_ip6_addr(nif, i), ip6,
						  sizeof(ip6)));
	shell_printf("        ether %02x:%02x:%02x:%02x:%02x:%02x  (Ethernet, "
		     "%s, NUMA node %d)\n",
		     dev->mac[0], dev->mac[1], dev->mac[2], dev->mac[3],
		     dev->mac[4], dev->mac[5], dev->kind, dev->dev_node);
	shell_printf("        RX packets %llu  bytes %llu (%s)\n",
		     (unsigned long long)s->rx_packets,
		     (unsigned long long)s->rx_bytes, rx);
	shell_printf("        RX errors %llu  dropped %llu  overruns %llu  "
		     "frame 0\n",
		     (unsigned long long)(s->rx_errors + s->rx_bad_len),
		     (unsigned long long)(s->rx_dropped + s->rx_refill_fail),
		     (unsigned long long)s->rx_missed);
	shell_printf("        TX packets %llu  bytes %llu (%s)\n",
		     (unsigned long long)s->tx_packets,
		     (unsigned long long)s->tx_bytes, tx);
	shell_printf("        TX errors 0  dropped %llu overruns 0  carrier 0  "
		     "collisions 0\n\n",
		     (unsigned long long)s->tx_busy);
}

static int run_ifconfig(int argc, char **argv)
{
	struct netif *nif;
	int n = 0;

	(void)argc;
	(void)argv;
	net_core_lock();
	NETIF_FOREACH(nif)
	{
		ifconfig_one(nif);
		n++;
	}
	net_core_unlock();
	if (n == 0)
		shell_printf("ifconfig: no interface (nic=none, or no NIC "
			     "found)\n");
	return 0;
}

/* ---- netstat ---- */

/* netstat's names for the TCP states (lwIP's enum tcp_state order). */
static const char *tcp_state_name(enum tcp_state s)
{
	static const char *const names[] = {
		"CLOSE",       "LISTEN",    "SYN_SENT",	 "SYN_RECV",
		"ESTABLISHED", "FIN_WAIT1", "FIN_WAIT2", "CLOSE_WAIT",
		"CLOSING",     "LAST_ACK",  "TIME_WAIT",
	};

	return (unsigned int)s < sizeof(names) / sizeof(names[0]) ? names[s]
								  : "UNKNOWN";
}

static void endpoint(char *buf, size_t size, const ip_addr_t *a, uint16_t port)
{
	char ip[IP6ADDR_STRLEN_MAX + 2], text[IP6ADDR_STRLEN_MAX];

	if (IP_IS_V6(a))
		snprintf(ip, sizeof(ip), "[%s]",
			 net_ip6_text(ip_2_ip6(a), text, sizeof(text)));
	else
		print_ip(ip, sizeof(ip), ip_2_ip4(a));
	if (port)
		snprintf(buf, size, "%s:%u", ip, port);
	else
		snprintf(buf, size, "%s:*", ip);
}

static void netstat_row(const char *proto, unsigned long rq, unsigned long sq,
			const ip_addr_t *lip, uint16_t lport,
			const ip_addr_t *rip, uint16_t rport, const char *state)
{
	char local[IP6ADDR_STRLEN_MAX + 8], remote[IP6ADDR_STRLEN_MAX + 8];

	endpoint(local, sizeof(local), lip, lport);
	endpoint(remote, sizeof(remote), rip, rport);
	shell_printf("%-4s  %6lu %6lu %-23s %-23s %s\n", proto, rq, sq, local,
		     remote, state);
}

/* Recv-Q: bytes received and not yet taken by the app (the window it has
 * not given back); Send-Q: bytes queued and not yet acknowledged. */
static void netstat_tcp(struct tcp_pcb *list)
{
	for (struct tcp_pcb *p = list; p; p = p->next) {
		unsigned long rq =
			p->rcv_wnd < TCP_WND ? TCP_WND - p->rcv_wnd : 0;
		unsigned long sq =
			p->snd_buf < TCP_SND_BUF ? TCP_SND_BUF - p->snd_buf : 0;

		netstat_row("tcp", rq, sq, &p->local_ip, p->local_port,
			    &p->remote_ip, p->remote_port,
			    tcp_state_name(p->state));
	}
}

/* The PCBs of the instance the caller is in. Never inlined into a
 * function that switches instances (net_instance.h says why). */
static __attribute__((noinline)) void netstat_instance(void)
{
	for (struct tcp_pcb_listen *l = tcp_listen_pcbs.listen_pcbs; l;
	     l = l->next)
		netstat_row("tcp", 0, 0, &l->local_ip, l->local_port,
			    IP4_ADDR_ANY, 0, "LISTEN");
	netstat_tcp(tcp_active_pcbs);
	netstat_tcp(tcp_tw_pcbs);
	for (struct udp_pcb *u = udp_pcbs; u; u = u->next)
		netstat_row("udp", 0, 0, &u->local_ip, u->local_port,
			    &u->remote_ip, u->remote_port, "");
}

static int run_netstat(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	shell_printf("Active Internet connections (servers and established)\n"
		     "Proto Recv-Q Send-Q Local Address           Foreign "
		     "Address         State\n");
	/* every stack instance in turn (one, or one per CPU) */
	for (int i = 0; i < net_instance_count; i++) {
		struct net_instance_saved saved;

		net_instance_enter(i, &saved);
		if (net_instance_percpu)
			shell_printf("(the stack of cpu %d)\n", i);
		netstat_instance();
		net_instance_leave(&saved);
	}
	return 0;
}

/* ---- stats ---- */

static int run_stats(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	(void)shell_print_text(stats_json); /* a refusal is printed */
	return 0;
}

static const struct shell_cmd cmd_ifconfig = {
	"ifconfig", "", "network interfaces (net-tools' ifconfig)",
	0,	    0,	run_ifconfig};
static const struct shell_cmd cmd_netstat = {
	"netstat", "", "TCP and UDP endpoints (netstat -tuan)",
	0,	   0,  run_netstat};
static const struct shell_cmd cmd_stats = {
	"stats", "", "every counter as JSON (the same as /stats.json)",
	0,	 0,  run_stats};

void shell_net_register(void)
{
	shell_register(&cmd_ifconfig);
	shell_register(&cmd_netstat);
	shell_register(&cmd_stats);
	shell_ping_register();
}
