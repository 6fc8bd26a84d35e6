/*
 * The network stack as the kernel sees it: configure and start it at boot,
 * then poll it from one CPU's poll loop. lwIP is not thread-safe; only the
 * CPU that calls net_poll() may call into lwIP.
 */
#ifndef NET_NET_H
#define NET_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NET_APP_ECHO  1u
#define NET_APP_HTTP  2u
#define NET_APP_IPERF 4u

/* Boot configuration, filled from the command line (net_config.c). */
struct net_config {
	int nic;	       /* NET_NIC_* */
	bool dhcp;	       /* ip=dhcp (default) or a static address */
	uint32_t ip, mask, gw; /* static: host byte order */
	int prefix;
	unsigned int apps; /* NET_APP_* bits */
	int alloc;	   /* enum net_alloc_mode */
	const char *hostname;
};

#define NET_NIC_VIRTIO 0
#define NET_NIC_E1000  1
#define NET_NIC_NONE   2
#define NET_NIC_ALL    3 /* every supported NIC found, one netif each */

extern struct net_config net_config;

/**
 * net_config_parse - read nic=, ip=, gw=, app=, net_alloc=, virtio= from
 * the command line. Bad values are reported and the default is kept.
 */
void net_config_parse(void);

/**
 * net_init - probe the NICs, start lwIP, bind a netif to every NIC, start
 * DHCP or the static address, start the apps.
 * Context: boot, on the CPU that will call net_poll() (its node gives the
 * RX buffers). Return: number of interfaces brought up.
 */
int net_init(void);

/**
 * net_poll - one round: poll every NIC (RX and TX completions), then run
 * lwIP's due timers. Context: the net CPU's poll loop only.
 * Return: frames received and transmissions completed (0: idle round).
 */
int net_poll(void);

/* Busy poll rounds, their guest time and work done, as JSON. */
int net_poll_stats_json(char *buf, size_t size);

/* /stats.json: the whole document. snprintf semantics. */
int net_stats_json(char *buf, size_t size);

/* Apps (net/app_*.c). Each prints a line naming what it listens on. */
void app_echo_start(void);
void app_http_start(void);
/* Error pages the HTTP server sent, per status (400, 404, 501, 503), as
 * JSON. snprintf semantics. */
int app_http_stats_json(char *buf, size_t size);
void app_iperf_start(void);

struct ip4_addr;
/* Start lwiperf's 10 s TCP client test towards server:port (host order
 * port). Net CPU only. Returns 0, or -1 when it cannot start. */
int app_iperf_client(const struct ip4_addr *server, uint16_t port);

#endif /* NET_NET_H */
