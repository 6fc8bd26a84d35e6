/*
 * Binding lwIP netifs to netdevs, queue by queue (net/netif_glue.c).
 */
#ifndef NET_NETIF_GLUE_H
#define NET_NETIF_GLUE_H

#include "drivers/netdev.h"
#include "lwip/netif.h"

/* Frames one queue takes per round and parks for the core lock (NAPI's
 * weight): bounds how long one CPU holds the lock before timers, other
 * queues and other CPUs get their turn. */
#define NET_RX_BATCH 64

/**
 * netif_glue_add - register @nif with lwIP as the interface of @dev,
 * with a parking place for each queue's frames on that queue's node.
 * Addresses may be zero (DHCP). Context: boot, core lock held, after
 * lwip_init(). Return: nif, or NULL when lwIP refused it or memory ran
 * out.
 */
struct netif *netif_glue_add(struct netdev *dev, struct netif *nif,
			     const ip4_addr_t *ip, const ip4_addr_t *mask,
			     const ip4_addr_t *gw);

/**
 * netif_glue_rx_poll - take received frames from queue @q of @nif's
 * device into the queue's batch (as many as fit) and refill its ring.
 * Context: the queue's CPU, poll context, core lock NOT needed.
 * Return: RX descriptors the driver consumed.
 */
int netif_glue_rx_poll(struct netif *nif, int q);

/* Frames parked in queue @q's batch. The queue's CPU only. */
int netif_glue_parked(struct netif *nif, int q);

/**
 * netif_glue_input - reap queue @q's TX completions and give its parked
 * frames to lwIP. Context: the queue's CPU, core lock held.
 * Return: frames input plus transmissions completed.
 */
int netif_glue_input(struct netif *nif, int q);

/**
 * netif_glue_dev - the device behind @nif when the glue added it (its
 * RSS key and table, its queues and their CPUs), else NULL (loopback).
 * Context: any; the device outlives its netif.
 */
struct netdev *netif_glue_dev(struct netif *nif);

/**
 * netif_glue_take_handed - net_stack=percpu: the frames other instances
 * handed to this one (net_handoff.h) join queue @q's batch, before the
 * queue's own; at most half the room the batch has.
 * Return: the buffers taken. Context: queue q's CPU, outside the lock.
 */
int netif_glue_take_handed(struct netif *nif, int q);

/* netif_glue_pin_tcp_port - frames for TCP port @port belong to instance
 * 0 (a service that listens there only). Context: boot. */
void netif_glue_pin_tcp_port(uint16_t port);

/* Follow the device's link state into lwIP. Core lock held. */
void netif_glue_link(struct netif *nif);

#endif /* NET_NETIF_GLUE_H */
