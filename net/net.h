/*
 * The network stack as the kernel sees it: start it at boot; then each NIC
 * queue is polled from its own CPU's poll loop (net_poll.h). lwIP is not
 * thread-safe: any code that calls into it holds the lwIP core lock
 * (core_lock.h). Its boot configuration is net_config.h, the apps on top
 * of it apps.h.
 */
#ifndef NET_NET_H
#define NET_NET_H

#include <stddef.h>

/**
 * net_init - probe the NICs (one queue pair per CPU where offered), start
 * lwIP, bind a netif to every NIC, start DHCP or the static address, start
 * the apps, and hand every queue to net_poll.c.
 * Context: boot, on CPU 0, before the pollers are registered.
 * Return: number of interfaces brought up.
 */
int net_init(void);

/* /stats.json: the whole document. snprintf semantics. */
int net_stats_json(char *buf, size_t size);

#endif /* NET_NET_H */
