/*
 * IPv6 on each interface: the link-local address, SLAAC or the static
 * ip6=/gw6= address, the log lines when an address becomes usable, and
 * the gateway hook lwIP asks for off-link destinations (net_ip6.c).
 */
#ifndef NET_NET_IP6_H
#define NET_NET_IP6_H

#include <stddef.h>

#include "lwip/ip6_addr.h"
#include "lwip/netif.h"

/**
 * net_ip6_start - give @nif its IPv6 addresses. Always the link-local
 * fe80::/64 address from the MAC (EUI-64); on the first interface, the
 * static ip6= address if one was given, else SLAAC from router
 * advertisements (on every interface). Each address first runs duplicate
 * address detection (about a second), then "net: DEV ip6 ADDR ready" is
 * printed. Context: boot, under the core lock, after netif_add().
 */
void net_ip6_start(struct netif *nif);

/**
 * net_ip6_text - @a as RFC 5952 text ("fe80::5054:ff:fe12:3456") in @buf
 * (IP6ADDR_STRLEN_MAX bytes are always enough). Return: @buf.
 */
char *net_ip6_text(const ip6_addr_t *a, char *buf, size_t size);

/**
 * net_ip6_addrs_text - the addresses of @nif as text, e.g.
 * "fe80::5054:ff:fe12:3456 2001:db8::2", each followed by '?' while it is
 * still tentative (duplicate address detection).
 * Return: the length written (snprintf semantics).
 */
int net_ip6_addrs_text(struct netif *nif, char *buf, size_t size);

/**
 * net_ip6_gateway - lwIP's LWIP_HOOK_ND6_GET_GW: the next hop for an
 * off-link @dest that no router advertisement covers: gw6= when given on
 * the first interface, else NULL (lwIP then picks an advertised router).
 */
const ip6_addr_t *net_ip6_gateway(struct netif *nif, const ip6_addr_t *dest);

/**
 * net_ip6_json - the "ip6" section of /stats.json: per interface its
 * addresses with their state ("tentative", "preferred", ...), and the
 * bad ip6=/gw6= values refused at boot. net_ip6_schema describes every
 * member (libc/stat_table.h).
 */
int net_ip6_json(char *buf, size_t size);
struct stat_schema;
extern const struct stat_schema net_ip6_schema;

#endif /* NET_NET_IP6_H */
