/*
 * Binding lwIP netifs to netdevs (net/netif.c).
 */
#ifndef NET_NETIF_GLUE_H
#define NET_NETIF_GLUE_H

#include "drivers/netdev.h"
#include "lwip/netif.h"

/**
 * netif_glue_add - register @nif with lwIP as the interface of @dev.
 * Addresses may be zero (DHCP). Context: net CPU, after lwip_init().
 * Return: nif, or NULL when lwIP refused it.
 */
struct netif *netif_glue_add(struct netdev *dev, struct netif *nif,
			     const ip4_addr_t *ip, const ip4_addr_t *mask,
			     const ip4_addr_t *gw);

/* Poll the device under nif for up to budget frames and follow its link.
 * Returns the work the driver reported (frames and completions). */
int netif_glue_poll(struct netif *nif, int budget);

#endif /* NET_NETIF_GLUE_H */
