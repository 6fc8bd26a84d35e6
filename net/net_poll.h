/*
 * The packet work of every CPU: one poll round per NIC queue, on the
 * queue's CPU (net/net_poll.c). net_poll_start() registers each queue's
 * poller in its CPU's poll loop.
 */
#ifndef NET_NET_POLL_H
#define NET_NET_POLL_H

#include <stddef.h>

#include "drivers/netdev.h"
#include "lwip/netif.h"

/* Queues polled at most: every queue of every netif, as many as the
 * netdev registry can hold. */
#define NET_MAX_POLLED (NETDEV_MAX * NETDEV_MAX_QUEUES)

/**
 * net_poll_add - poll every queue of @nif's netdev (netdev_get(@dev_index))
 * from now on, or only queue @only_q when it is not -1 (a stack per CPU:
 * each instance's netif is polled on its own queue).
 * Context: boot, before the pollers are registered.
 */
void net_poll_add(struct netif *nif, int dev_index, int only_q);

/**
 * net_poll_start - register the poller of every queue added (net_poll_run)
 * in the poll loop of the queue's CPU; from then on the queues are polled.
 * A poller that cannot be registered is reported.
 * Context: boot, CPU 0, once, after net_init().
 */
void net_poll_start(void);

/**
 * net_poll_on_primed - @fn is called once, when every queue added has
 * polled once (its RX ring is filled), or 1 s after the first queue's
 * first round if one never polls (named on the console). Until then a NIC
 * drops (or holds back) what arrives: net.c announces addresses only
 * from then on. @fn runs under the core lock, on a poller.
 * Context: boot, before net_poll_start().
 */
void net_poll_on_primed(void (*fn)(void));

/**
 * net_poll_queue - one round of queue @i: take its received frames
 * (outside any lock), then, under the lwIP core lock if it is free, its
 * TX completions, lwIP's input of the frames and the due timers.
 * Context: poll context of the queue's CPU, only.
 * Return: frames and completions handled, plus 1 while frames wait for
 * the lock (0: idle round).
 */
int net_poll_queue(int i);
/* net_poll_queue(): frames wait for the lock, held by another CPU, which
 * wakes this one when it lets go: the CPU may halt meanwhile. */
#define NET_POLL_SLEEP (-1)

/**
 * net_poll_run - the poller of queue @i (registered by net_poll_start() in the
 * poll loop of the queue's CPU): a round of net_poll_queue(), then the
 * choice between polling on, busy-polling (poll_us=) and sleeping on the
 * queue's interrupt, armed with the look that loses no wake-up (see
 * net_poll.c). Without an interrupt (net_irq=off, or none could be set
 * up) it spins for 200 ms after the last work, then sleeps to the tick.
 * Context: poll context of the queue's CPU, only.
 * Return: the poll loop's work count: 0 lets the CPU halt.
 */
int net_poll_run(int i);

/* Busy poll rounds, their guest time and work done, in total and per
 * queue, as JSON, and its description (libc/stat_table.h). snprintf
 * semantics. Any context. */
int net_poll_stats_json(char *buf, size_t size);
struct stat_schema;
extern const struct stat_schema net_poll_schema;

#endif /* NET_NET_POLL_H */
