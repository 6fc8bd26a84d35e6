/*
 * Frames handed from the instance that received them to the one that
 * owns them (net_stack=percpu; net/flow_owner.h says who owns what).
 *
 * Each instance has one ring of frames handed to it, an ALF queue
 * (mm/alf_queue.h) that any CPU fills and only the owner empties
 * (ALF_SC_DEQ). A frame travels as pairs of pointers, one pair per
 * buffer: the buffer, and its length, flags and device packed in the
 * second; a frame of several buffers goes in one bulk, so it is taken
 * out whole. The receiving CPU wakes the owner (poll_wake); the owner
 * takes what was handed to it at the start of its next round, before
 * its own queue, so the frames of a flow that all come the same way
 * stay in order. A full ring refuses the frame, and the sender keeps it
 * for its next round: nothing is dropped. The buffers are RX buffers of
 * the sender's page_frag cache; the owner frees them, remotely.
 */
#ifndef NET_NET_HANDOFF_H
#define NET_NET_HANDOFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Rings at most: one per stack instance (net_instance.h's
 * NET_INSTANCES_MAX, which net_instance.c checks against this). */
#define NET_HANDOFF_MAX 16

/**
 * net_handoff_init - a ring for each of @n instances (1..NET_HANDOFF_MAX),
 * on its CPU's node (instance i's home is CPU i).
 * Return: 0, or -1 for a bad @n or when memory ran out (none left
 * allocated).
 * Context: boot.
 */
int net_handoff_init(int n);

/* One buffer of a frame, as the glue parks it. */
struct net_handoff_buf {
	void *frame;
	uint32_t len;
	unsigned int flags; /* NETDEV_RX_* (MORE: the frame goes on) */
};

/**
 * net_handoff_send - hand the frame of @n buffers of device @dev_index,
 * received by instance @from, to instance @to; @copy: a copy for a
 * fan-out (counted as such, not as a frame on the wrong CPU).
 * Return: true, or false when @to's ring is full (nothing handed; the
 * caller keeps the frame). Context: @from's home CPU, poll context.
 */
bool net_handoff_send(int from, int to, int dev_index,
		      const struct net_handoff_buf *buf, int n, bool copy);

/* net_handoff_copy_failed - instance @from found no memory for a copy
 * for a fan-out (counted; that instance misses the frame). */
void net_handoff_copy_failed(int from);

/**
 * net_handoff_take - instance @self's handed frames, whole: each buffer
 * to @park(arg, dev_index, buf), at most about @max buffers (a frame is
 * never split). Return: the buffers taken. Context: @self's home CPU.
 */
int net_handoff_take(int self, int max,
		     void (*park)(void *arg, int dev_index,
				  const struct net_handoff_buf *buf),
		     void *arg);

/* net_handoff_waiting - frames wait in @self's ring. Any context. */
bool net_handoff_waiting(int self);

/* Hand-off counters: frames handed on, taken, fan-out copies, refusals
 * by a full ring, copies not made. */
struct net_handoff_totals {
	uint64_t sent, taken, copies, ring_full, copy_fail;
};
/* net_handoff_stats - instance @i's counters (zeros for no such ring). */
void net_handoff_stats(int i, struct net_handoff_totals *out);
/* net_handoff_totals - the sums over the instances. */
void net_handoff_totals(struct net_handoff_totals *out);

#endif /* NET_NET_HANDOFF_H */
