/*
 * Network configuration from the kernel command line. The keys, their
 * defaults and their validators live in kernel/cmdline.c's table; a bad
 * value has already been reported there and replaced by the default, so
 * here we only translate the strings.
 */
#include <stdlib.h>
#include <string.h>

#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "mm/mm.h"
#include "net_config.h"
#include "net_mem.h"

struct net_config net_config;

/* "A.B.C.D" -> host-order address; returns -1 on a malformed string. */
static int parse_ip(const char *s, uint32_t *out)
{
	uint32_t ip = 0;

	for (int i = 0; i < 4; i++) {
		char *end;
		unsigned long v = strtoul(s, &end, 10);

		if (end == s || v > 255 || (i < 3 && *end != '.'))
			return -1;
		ip = ip << 8 | (uint32_t)v;
		s = end + 1;
		if (i == 3 && *end != '\0' && *end != '/')
			return -1;
	}
	*out = ip;
	return 0;
}

static void parse_static(const char *ip)
{
	const char *slash = strchr(ip, '/');
	long prefix = slash ? strtol(slash + 1, NULL, 10) : 24;

	/* cmdline.c's validator refuses what fails here (and says so); a
	 * value that slipped by is a bug between the two: say it too. */
	if (parse_ip(ip, &net_config.ip) != 0 || prefix < 1 || prefix > 32) {
		kprintf("net: ip=%s not understood, using DHCP\n", ip);
		return;
	}
	net_config.dhcp = false;
	net_config.prefix = (int)prefix;
	net_config.mask = prefix == 32 ? 0xffffffffu : ~(0xffffffffu >> prefix);
	if (cmdline_given("gw"))
		parse_ip(cmdline_get("gw"), &net_config.gw);
}

/*
 * virtio_tso (coalesced TCP receive over mergeable buffers): on unless
 * the command line says otherwise, but off by default below
 * NET_COALESCE_MIN_MIB of memory. One coalesced segment takes up to
 * NETDEV_RX_CHAIN_MAX (34) RX buffers at once, and the device waits until
 * that many are posted: at -m 8M, after a flood with eight TCP echo
 * streams, the guest stayed unable to answer TCP and UDP in 3 of 5 runs
 * with it on and 0 of 4 with it off.
 */
#define NET_COALESCE_MIN_MIB 64

static bool coalesce_by_default(void)
{
	unsigned long pages = 0;

	if (cmdline_given("virtio_tso"))
		return cmdline_get_bool("virtio_tso");
	for (int nid = 0; nid < mm_nr_nodes(); nid++)
		pages += nr_managed_pages_node(nid);
	return pages >= (NET_COALESCE_MIN_MIB << 20) / MM_PAGE_SIZE;
}

void net_config_parse(void)
{
	const char *nic = cmdline_get("nic");
	const char *ip = cmdline_get("ip");

	if (strcmp(nic, "e1000") == 0)
		net_config.nic = NET_NIC_E1000;
	else if (strcmp(nic, "e1000e") == 0)
		net_config.nic = NET_NIC_E1000E;
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
		cmdline_get_bool("virtio_csum"), coalesce_by_default(),
		cmdline_get_bool("virtio_mrg"),
		cmdline_get_bool("virtio_event_idx"),
		cmdline_get_bool("virtio_host_tso")};
	net_config.irq = strcmp(cmdline_get("net_irq"), "on") == 0;
	net_config.gro = strcmp(cmdline_get("net_gro"), "on") == 0;
	net_config.poll_us = (uint32_t)cmdline_get_long("poll_us");
}
