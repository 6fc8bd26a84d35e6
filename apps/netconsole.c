/*
 * netconsole: the kernel's log as UDP datagrams to a host and port given
 * at boot (netconsole=A.B.C.D:PORT), for PCs without a serial port. The
 * datagrams are Linux netconsole's (its basic format): the log's text,
 * one line per datagram, from source port 6665, so the listeners people
 * use for Linux work unchanged (`nc -u -l PORT`, `socat -u
 * UDP-RECV:PORT -`).
 *
 * The text comes from the log ring (kernel/log_ring.h), which holds the
 * log from the first boot line: the listener gets the whole boot,
 * although the network comes up late in it. kprintf runs in any context,
 * lwIP only under its core lock in poll context, so the log never sends
 * itself: the ring's notifier wakes a poller on CPU 0, which sends what
 * is new. A line waits for its end ('\n') unless it fills a datagram.
 *
 * Nothing is sent before the next hop answers ARP: lwIP keeps only one
 * datagram per unresolved address, and the rest of a boot log would be
 * lost behind it. The poller asks every ARP_RETRY_MS until it answers.
 * Bytes the ring overwrote before they could be sent are said in a line
 * of their own.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "apps.h"
#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/log_ring.h"
#include "kernel/poll.h"
#include "kernel/time.h"
#include "libc/strbuf.h"
#include "lwip/etharp.h"
#include "lwip/ip4_addr.h"
#include "lwip/netif.h"
#include "lwip/udp.h"
#include "net/core_lock.h"

#define NETCONSOLE_SRC_PORT 6665 /* Linux's default */
#define CHUNK		    1000 /* Linux's longest datagram of text */
#define ARP_RETRY_MS	    200
#define NETCONSOLE_CPU	    0

/* off, or A.B.C.D:PORT (PORT 1-65535). */
static bool parse_target(const char *v, ip4_addr_t *ip, uint16_t *port)
{
	char addr[16];
	const char *colon = strchr(v, ':');
	char *end;
	unsigned long p;

	if (!colon || colon - v >= (long)sizeof(addr) || colon == v)
		return false;
	memcpy(addr, v, (size_t)(colon - v));
	addr[colon - v] = '\0';
	p = strtoul(colon + 1, &end, 10);
	if (end == colon + 1 || *end || p < 1 || p > 65535 ||
	    !ip4addr_aton(addr, ip))
		return false;
	*port = (uint16_t)p;
	return true;
}

static bool valid_netconsole(const char *v, const char *allowed)
{
	ip4_addr_t ip;
	uint16_t port;

	(void)allowed;
	return !strcmp(v, "off") || parse_target(v, &ip, &port);
}

CMDLINE_KEY(apps, netconsole, "off", valid_netconsole, "off|A.B.C.D:PORT",
	    "send the kernel log as UDP (Linux netconsole's format) to this "
	    "host and port, from port 6665");

static struct {
	struct udp_pcb *pcb;
	ip_addr_t target;
	uint16_t port;
	uint64_t pos;	      /* the next log byte to send */
	uint64_t lost;	      /* overwritten before they were sent */
	uint64_t next_arp_ms; /* when to ask for the next hop again */
	atomic_bool pending;  /* the ring has more: the poller is woken */
} nc;

static char text[CHUNK];

/* The log ring's notifier: any context, the console's lock held. */
static void wake(void)
{
	if (!atomic_exchange(&nc.pending, true))
		poll_wake(NETCONSOLE_CPU);
}

/* Is the next hop to the target known to ARP (asking when it is not)? */
static bool next_hop_known(struct netif *nif)
{
	const ip4_addr_t *dst = ip_2_ip4(&nc.target), *hop = dst;
	struct eth_addr *mac;
	const ip4_addr_t *ip;

	if (!ip4_addr_netcmp(dst, netif_ip4_addr(nif), netif_ip4_netmask(nif)))
		hop = netif_ip4_gw(nif);
	if (etharp_find_addr(nif, hop, &mac, &ip) >= 0)
		return true;
	if (clock_ms() >= nc.next_arp_ms) {
		etharp_query(nif, hop, NULL);
		nc.next_arp_ms = clock_ms() + ARP_RETRY_MS;
	}
	return false;
}

/* One datagram of n bytes of text; false when lwIP has no room now. */
static bool send_text(const char *s, size_t n)
{
	struct pbuf *p = pbuf_alloc(PBUF_TRANSPORT, (u16_t)n, PBUF_RAM);
	err_t err;

	if (!p)
		return false;
	memcpy(p->payload, s, n);
	err = udp_sendto(nc.pcb, p, &nc.target, nc.port);
	pbuf_free(p);
	return err == ERR_OK;
}

/* The next line (with its '\n'), or a full datagram's worth of a longer
 * one, into text: its length (0: none yet, or only a line still open),
 * and at *end the position after it. Bytes the ring lost are skipped
 * and counted. */
static size_t next_line(uint64_t *end)
{
	uint64_t pos = nc.pos, lost;
	size_t n = log_ring_read(&pos, text, sizeof(text), &lost);
	size_t len = 0;

	nc.lost += lost;
	nc.pos = pos - n; /* past what the ring lost, if any */
	while (len < n && text[len] != '\n')
		len++;
	if (len < n)
		len++;
	else if (n < sizeof(text))
		return 0;
	*end = nc.pos + len;
	return len;
}

/* Sends "netconsole: N bytes lost"; false when lwIP has no room. */
static bool send_lost(void)
{
	char line[64];
	struct strbuf sb;

	strbuf_init(&sb, line, sizeof(line));
	strbuf_printf(&sb, "netconsole: %llu bytes lost\n",
		      (unsigned long long)nc.lost);
	if (!send_text(line, (size_t)strbuf_done(&sb)))
		return false;
	nc.lost = 0;
	return true;
}

/* Sends what the ring has, a line a datagram. Under the core lock. */
static int drain(void)
{
	int sent = 0;

	for (;;) {
		uint64_t end;
		size_t n = next_line(&end);

		if (nc.lost && !send_lost())
			return sent;
		if (!n || !send_text(text, n))
			return sent;
		nc.pos = end;
		sent++;
	}
}

/* The poller (CPU 0): once the interface has its address and the next
 * hop answers, whatever the log has. */
static int netconsole_poll(void *arg)
{
	struct netif *nif = netif_default;
	int sent = 0;

	(void)arg;
	if (!atomic_exchange(&nc.pending, false) && nc.pos == log_ring_head())
		return 0;
	if (!net_core_trylock()) {
		atomic_store(&nc.pending, true); /* next round */
		return 1;
	}
	if (nif && netif_is_up(nif) && !ip4_addr_isany(netif_ip4_addr(nif)) &&
	    next_hop_known(nif))
		sent = drain();
	else /* no address yet, or no answer to ARP: look again soon */
		poll_deadline(clock_ns() + ARP_RETRY_MS * 1000000ULL);
	net_core_unlock();
	if (nc.pos != log_ring_head())
		atomic_store(&nc.pending, true);
	return sent;
}

void app_netconsole_start(void)
{
	const char *v = cmdline_get("netconsole");
	ip4_addr_t ip;

	if (!strcmp(v, "off") || !parse_target(v, &ip, &nc.port))
		return;
	ip_addr_copy_from_ip4(nc.target, ip);
	nc.pcb = udp_new();
	if (!nc.pcb || udp_bind(nc.pcb, IP_ANY_TYPE, NETCONSOLE_SRC_PORT) ||
	    poll_register(NETCONSOLE_CPU, netconsole_poll, NULL,
			  "netconsole")) {
		kprintf("netconsole: cannot start (no UDP pcb, port %d taken "
			"or no poller slot)\n",
			NETCONSOLE_SRC_PORT);
		return;
	}
	kprintf("netconsole: the log goes to %s:%u from udp/%d\n",
		ip4addr_ntoa(&ip), nc.port, NETCONSOLE_SRC_PORT);
	log_ring_set_notifier(wake);
	wake();
}
