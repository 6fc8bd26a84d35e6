/*
 * The network stack as the kernel sees it: start it at boot; then each NIC
 * queue is polled from its own CPU's poll loop (net_poll.h). lwIP is not
 * thread-safe: any code that calls into it holds the lwIP core lock
 * (core_lock.h). Its boot configuration is net_config.h. The apps on top
 * of it, and the boot order of both, are apps/.
 */
#ifndef NET_NET_H
#define NET_NET_H

#include <stddef.h>

/**
 * net_init - probe the NICs (one queue pair per CPU where offered), start
 * lwIP, bind a netif to every NIC, start DHCP or the static address, and
 * hand every queue to net_poll.c (net_poll_start() then starts polling).
 * Context: boot, on CPU 0, before the pollers are registered.
 * Return: number of interfaces brought up.
 */
int net_init(void);

/**
 * net_set_ready_hook - @hook is called once, when the first interface has
 * its IPv4 address (DHCP bound or static), right after the stack's own
 * "net: DEV up ..." line: the layer above announces its services there.
 * Context: boot, before net_init(). The hook runs under the core lock.
 */
void net_set_ready_hook(void (*hook)(void));

#endif /* NET_NET_H */
