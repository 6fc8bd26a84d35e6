/*
 * Network configuration from the kernel command line: the network's keys
 * are declared here (kernel/cmdline.h), with the validators of their own
 * syntax. cmdline_init() checks them early in the boot; a bad value has
 * been reported then and replaced by the default, so net_config_parse()
 * only translates the strings.
 */
#include <stdlib.h>
#include <string.h>

#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "mm/mm.h"
#include "net_config.h"
#include "net_mem.h"

struct net_config net_config;

/* A dotted quad at *p (four numbers 0-255 of at most three digits) into
 * *out, host byte order; *p is left after it. False if malformed. */
static bool read_ipv4(const char **p, uint32_t *out)
{
	uint32_t ip = 0;

	for (int i = 0; i < 4; i++) {
		char *end;
		unsigned long n = strtoul(*p, &end, 10);

		if (end == *p || n > 255 || end - *p > 3)
			return false;
		ip = ip << 8 | (uint32_t)n;
		*p = end;
		if (i < 3) {
			if (**p != '.')
				return false;
			(*p)++;
		}
	}
	*out = ip;
	return true;
}

static bool valid_ipv4(const char *v, const char *allowed)
{
	uint32_t ip;

	(void)allowed;
	return read_ipv4(&v, &ip) && *v == 0;
}

/* dhcp, or A.B.C.D/N: /0 would make every address on-link, not a host's
 * network. */
static bool valid_ipv4_cidr(const char *v, const char *allowed)
{
	char *end;
	unsigned long n;
	uint32_t ip;

	(void)allowed;
	if (!strcmp(v, "dhcp"))
		return true;
	if (!read_ipv4(&v, &ip) || *v != '/')
		return false;
	n = strtoul(v + 1, &end, 10);
	return end != v + 1 && *end == 0 && n >= 1 && n <= 32;
}

/* A DHCP host name: letters, digits and '-', not first; 1-63 bytes. */
static bool valid_hostname(const char *v, const char *allowed)
{
	size_t n = strlen(v);

	(void)allowed;
	if (n == 0 || n > 63 || v[0] == '-')
		return false;
	for (; *v; v++) {
		char c = *v;

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '-'))
			return false;
	}
	return true;
}

CMDLINE_KEY(net, nic, "virtio", cmdline_valid_choice,
	    "virtio|e1000|e1000e|igb|all|none",
	    "network card driver (all: every supported NIC found)");
CMDLINE_KEY(net, igb_untested, "0", cmdline_valid_choice, "0|1",
	    "drive igb-family parts this driver was never tested on (all "
	    "but QEMU's 82576); 0: name them and leave them stopped");
CMDLINE_KEY(net, ip, "dhcp", valid_ipv4_cidr, "dhcp|A.B.C.D/N, N=1-32",
	    "IPv4 address");
CMDLINE_KEY(net, gw, "", valid_ipv4, "A.B.C.D",
	    "IPv4 gateway (with a static ip=)");
CMDLINE_KEY(net, hostname, "unikernel", valid_hostname,
	    "letters, digits, '-' (1-63)", "DHCP host name");
CMDLINE_KEY(net, net_alloc, "native", cmdline_valid_choice, "stock|native",
	    "lwIP memory: its own pools or our allocators");
CMDLINE_KEY(net, net_queues, "", cmdline_valid_uint, "1-16",
	    "most RX/TX queue pairs per NIC (default: one per CPU)");
CMDLINE_KEY(net, net_irq, "on", cmdline_valid_choice, "on|off",
	    "NIC interrupts wake the queue pollers (off: pure polling)");
CMDLINE_KEY(net, net_stack, "shared", cmdline_valid_choice, "shared|percpu",
	    "one lwIP for every CPU under one lock, or one per queue's CPU "
	    "(docs/percpu-stack.md)");
CMDLINE_KEY(net, net_gro, "on", cmdline_valid_choice, "on|off",
	    "join consecutive TCP segments of one connection into one packet "
	    "before lwIP (receive coalescing, as Linux's GRO)");
CMDLINE_KEY(net, net_rss_check, "off", cmdline_valid_choice, "on|off",
	    "compute the RSS hash of every frame the NIC hashed again in "
	    "software and count those that differ (rx_rss_hash_mismatch)");
CMDLINE_KEY(net, tcp_seg_mss, "15", cmdline_valid_uint, "1-15",
	    "longest TCP segment the stack builds, in MSS, on a NIC that "
	    "cuts segments itself (TSO): 1 builds MSS-sized ones, which the "
	    "driver merges; not given: 1 below 64 MiB of memory");
CMDLINE_KEY(net, poll_us, "200", cmdline_valid_uint, "0-1000000",
	    "busy-poll a NIC queue at most this long after its last frame "
	    "before sleeping on its interrupt (0: sleep at once)");
CMDLINE_KEY(net, poll_adapt, "on", cmdline_valid_choice, "on|off",
	    "busy-poll only while busy-polling finds frames; a short sleep "
	    "starts it again (off: always poll_us=)");

static void parse_static(const char *ip)
{
	const char *slash = strchr(ip, '/');
	long prefix = slash ? strtol(slash + 1, NULL, 10) : 24;
	const char *p = ip, *gw;

	/* valid_ipv4_cidr refused what fails here (and said so); a value
	 * that slipped by is a bug between the two: say it too. */
	if (!read_ipv4(&p, &net_config.ip) || prefix < 1 || prefix > 32) {
		kprintf("net: ip=%s not understood, using DHCP\n", ip);
		return;
	}
	net_config.dhcp = false;
	net_config.prefix = (int)prefix;
	net_config.mask = prefix == 32 ? 0xffffffffu : ~(0xffffffffu >> prefix);
	gw = cmdline_get("gw");
	if (cmdline_given("gw"))
		read_ipv4(&gw, &net_config.gw);
}

/*
 * virtio_tso and virtio_tso6 (coalesced TCP receive over mergeable
 * buffers, IPv4 and IPv6): on unless the command line says otherwise,
 * but off by default below NET_COALESCE_MIN_MIB of memory. One coalesced
 * segment takes up to NETDEV_RX_CHAIN_MAX (34) RX buffers at once, and
 * the device waits until that many are posted: at -m 8M, after a flood
 * with eight TCP echo streams, the guest stayed unable to answer TCP and
 * UDP in 3 of 5 runs with it on and 0 of 4 with it off.
 */
#define NET_COALESCE_MIN_MIB 64

/*
 * The virtio-net offloads are the network's policy, not the driver's
 * keys: the driver reads no command line and takes what it may negotiate
 * as an argument (virtio_net_allow_offloads, which its host tests call
 * directly), and whether coalesced receive is worth its buffers depends
 * on the memory the stack has (coalesce_by_default). virtio_tso's and
 * virtio_tso6's help give NET_COALESCE_MIN_MIB's figure.
 */
CMDLINE_KEY(net, virtio_csum, "1", cmdline_valid_choice, "0|1",
	    "virtio-net checksum offload both ways (CSUM, GUEST_CSUM), when "
	    "the device offers it");
CMDLINE_KEY(net, virtio_tso, "1", cmdline_valid_choice, "0|1",
	    "virtio-net receive of coalesced TCP segments (GUEST_TSO4; needs "
	    "virtio_csum=1 and virtio_mrg=1; not given: off below 64 MiB of "
	    "memory)");
CMDLINE_KEY(net, virtio_tso6, "1", cmdline_valid_choice, "0|1",
	    "virtio-net receive of coalesced IPv6 TCP segments (GUEST_TSO6; "
	    "needs virtio_csum=1 and virtio_mrg=1; not given: off below 64 "
	    "MiB of memory)");
CMDLINE_KEY(net, virtio_host_tso, "1", cmdline_valid_choice, "0|1",
	    "virtio-net transmit of merged TCP segments (HOST_TSO4; needs "
	    "virtio_csum=1)");
CMDLINE_KEY(net, virtio_host_tso6, "1", cmdline_valid_choice, "0|1",
	    "virtio-net transmit of merged IPv6 TCP segments (HOST_TSO6; "
	    "needs virtio_csum=1)");
CMDLINE_KEY(net, virtio_rss, "1", cmdline_valid_choice, "0|1",
	    "virtio-net receive-side scaling (VIRTIO_NET_F_RSS, QEMU's "
	    "rss=on): with more than one queue pair the device steers each "
	    "flow by its Toeplitz hash, as igb does, and connections the "
	    "guest opens take a port whose answers reach the opening CPU");
CMDLINE_KEY(net, virtio_mrg, "1", cmdline_valid_choice, "0|1",
	    "virtio-net mergeable RX buffers (MRG_RXBUF)");
CMDLINE_KEY(net, virtio_event_idx, "1", cmdline_valid_choice, "0|1",
	    "virtio interrupt and notify suppression by index "
	    "(VIRTIO_F_EVENT_IDX: used_event/avail_event) when the device "
	    "offers it; 0: by ring flags");

CMDLINE_KEY(net, e1000e_rx_csum, "1", cmdline_valid_choice, "0|1",
	    "e1000e: the device checks the TCP/UDP sums of received IPv4 and "
	    "IPv6 frames (RXCSUM.TUOFL) and the stack trusts its word");

/* At least NET_COALESCE_MIN_MIB of memory? */
static bool memory_for_bulk_buffers(void)
{
	unsigned long pages = 0;

	for (int nid = 0; nid < mm_nr_nodes(); nid++)
		pages += nr_managed_pages_node(nid);
	return pages >= (NET_COALESCE_MIN_MIB << 20) / MM_PAGE_SIZE;
}

/* A coalesced-receive switch (virtio_tso, virtio_tso6): as given, else
 * on with enough memory. */
static bool coalesce_by_default(const char *key)
{
	if (cmdline_given(key))
		return cmdline_get_bool(key);
	return memory_for_bulk_buffers();
}

/*
 * tcp_seg_mss: as given, else 15 with enough memory and 1 without. A
 * large segment of copied data is one heap block of up to 15 MSS (a 32
 * KiB kmalloc block for 21,900 bytes): at -m 8M, eight flooding TCP
 * echo streams left no memory for the receive rings and the guest
 * answered nothing for over 90 s (test_memory_pressure), where
 * MSS-sized blocks let it recover in seconds.
 */
static int tcp_seg_mss_by_default(void)
{
	if (cmdline_given("tcp_seg_mss"))
		return (int)cmdline_get_long("tcp_seg_mss");
	return memory_for_bulk_buffers() ? 15 : 1;
}

void net_config_parse(void)
{
	const char *nic = cmdline_get("nic");
	const char *ip = cmdline_get("ip");

	if (strcmp(nic, "e1000") == 0)
		net_config.nic = NET_NIC_E1000;
	else if (strcmp(nic, "e1000e") == 0)
		net_config.nic = NET_NIC_E1000E;
	else if (strcmp(nic, "igb") == 0)
		net_config.nic = NET_NIC_IGB;
	else if (strcmp(nic, "all") == 0)
		net_config.nic = NET_NIC_ALL;
	else if (strcmp(nic, "none") == 0)
		net_config.nic = NET_NIC_NONE;
	else
		net_config.nic = NET_NIC_VIRTIO;
	net_config.dhcp = true;
	if (strcmp(ip, "dhcp") != 0)
		parse_static(ip);
	net_config.alloc = strcmp(cmdline_get("net_alloc"), "stock") == 0
				   ? NET_ALLOC_STOCK
				   : NET_ALLOC_NATIVE;
	net_config.hostname = cmdline_get("hostname");
	net_config.queues = cmdline_given("net_queues")
				    ? (int)cmdline_get_long("net_queues")
				    : 0;
	net_config.virtio = (struct virtio_net_offloads){
		.csum = cmdline_get_bool("virtio_csum"),
		.tso = coalesce_by_default("virtio_tso"),
		.tso6 = coalesce_by_default("virtio_tso6"),
		.mrg = cmdline_get_bool("virtio_mrg"),
		.event_idx = cmdline_get_bool("virtio_event_idx"),
		.host_tso = cmdline_get_bool("virtio_host_tso"),
		.host_tso6 = cmdline_get_bool("virtio_host_tso6"),
		.rss = cmdline_get_bool("virtio_rss")};
	net_config.e1000e = (struct e1000e_offloads){
		.rx_csum = cmdline_get_bool("e1000e_rx_csum")};
	net_config.irq = strcmp(cmdline_get("net_irq"), "on") == 0;
	net_config.gro = strcmp(cmdline_get("net_gro"), "on") == 0;
	net_config.percpu = strcmp(cmdline_get("net_stack"), "percpu") == 0;
	net_config.poll_us = (uint32_t)cmdline_get_long("poll_us");
	net_config.tcp_seg_mss = tcp_seg_mss_by_default();
	net_config.igb_untested = cmdline_get_bool("igb_untested");
	net_config.poll_adapt = strcmp(cmdline_get("poll_adapt"), "on") == 0;
	net_config.rss_check = strcmp(cmdline_get("net_rss_check"), "on") == 0;
}
