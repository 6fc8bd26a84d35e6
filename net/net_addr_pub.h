/*
 * The one piece of state the stack instances share with a stack per CPU
 * (net_stack=percpu): the IPv4 address DHCP gives. Instance 0 runs the
 * DHCP client; when its lease sets or changes an interface's address it
 * publishes it here, and every other instance, at its next locked round,
 * sets the same address on its own netif for that device. Written
 * rarely, by one CPU, and read without a lock (a sequence count). IPv6
 * needs none of this: each instance gets the router advertisements
 * (net/flow_owner.h) and forms the same addresses from them itself.
 */
#ifndef NET_NET_ADDR_PUB_H
#define NET_NET_ADDR_PUB_H

#include <stdint.h>

struct netif;

/* net_addr_publish - device @dev_index's address, mask and gateway
 * (network order), from instance 0. */
void net_addr_publish(int dev_index, uint32_t ip, uint32_t mask, uint32_t gw);

/* net_addr_sync - a newer published address for device @dev_index goes
 * onto @nif, the caller's instance's netif of that device. Under the
 * instance's lock; costs one load when nothing changed. */
void net_addr_sync(struct netif *nif, int dev_index);

#endif /* NET_NET_ADDR_PUB_H */
