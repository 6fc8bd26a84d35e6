/*
 * The network stack as the kernel sees it: start it at boot, then poll it
 * from one CPU's poll loop. lwIP is not thread-safe; only the CPU that
 * calls net_poll() may call into lwIP. Its boot configuration is
 * net_config.h, the apps on top of it apps.h.
 */
#ifndef NET_NET_H
#define NET_NET_H

#include <stddef.h>

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

#endif /* NET_NET_H */
