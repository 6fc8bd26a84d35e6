/*
 * The network stack's boot configuration: which NIC, which address and
 * which memory for lwIP, read from the kernel command line
 * (net_config.c). Bad values are reported and the default is kept.
 */
#ifndef NET_NET_CONFIG_H
#define NET_NET_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/e1000e.h"
#include "drivers/virtio_net.h"

/* Boot configuration, filled from the command line (net_config.c). */
struct net_config {
	int nic;	       /* NET_NIC_* */
	bool dhcp;	       /* ip=dhcp (default) or a static address */
	uint32_t ip, mask, gw; /* static: host byte order */
	int prefix;
	int alloc; /* enum net_alloc_mode */
	const char *hostname;
	int queues; /* net_queues=: most queue pairs per NIC, 0: one per CPU */
	/* virtio_csum=, virtio_tso=, virtio_tso6=, virtio_mrg=,
	 * virtio_event_idx=, virtio_host_tso=, virtio_host_tso6=: features
	 * allowed */
	struct virtio_net_offloads virtio;
	struct e1000e_offloads e1000e; /* e1000e_rx_csum= */
	bool irq;	  /* net_irq=on: queues sleep on their interrupts */
	bool gro;	  /* net_gro=on: join TCP segments (net/rx_gro.c) */
	uint32_t poll_us; /* poll_us=: longest busy-poll window */
	bool poll_adapt; /* poll_adapt=on: spin only while spinning finds frames */
	bool igb_untested; /* igb_untested=1: drive untested igb parts */
	bool rss_check;	   /* net_rss_check=on: recompute RSS hashes */
	int tcp_seg_mss;   /* tcp_seg_mss=: longest TCP segment built, in MSS */
	bool percpu; /* net_stack=percpu: a stack per queue's CPU (asked for) */
};

#define NET_NIC_VIRTIO 0
#define NET_NIC_E1000  1
#define NET_NIC_NONE   2
#define NET_NIC_ALL    3 /* every supported NIC found, one netif each */
#define NET_NIC_E1000E 4
#define NET_NIC_IGB    5

extern struct net_config net_config;

/**
 * net_config_parse - read nic=, ip=, gw=, net_alloc=, virtio= from
 * the command line. Bad values are reported and the default is kept.
 */
void net_config_parse(void);

#endif /* NET_NET_CONFIG_H */
