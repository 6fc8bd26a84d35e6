/*
 * The hand-off rings between stack instances (see net_handoff.h).
 *
 * Why pairs of pointers: an ALF queue carries pointers, and a buffer
 * needs its length and flags besides. The second pointer packs them:
 * length in bits 0-31, flags in 32-47, the device's index in 48-55. A
 * frame's pairs are enqueued in one multi-producer bulk (one
 * compare-and-swap), so a consumer that asks for an even count always
 * gets whole pairs, and the rest of a frame begun is already there.
 *
 * Counters, per instance, each written by one CPU: frames handed on and
 * refused by a full ring (the sender's), frames taken (the owner's),
 * fan-out copies and copies that found no memory (the sender's).
 */
#include "net_handoff.h"

#include "drivers/netdev.h"
#include "kernel/poll.h"
#include "mm/alf_queue.h"
#include "mm/mm.h"
#include "mm/platform.h"

/* Slots per ring: 2048 buffers, 32 full poll batches of 64. */
#define HANDOFF_SLOTS 4096u

/* One instance's counters, on a line of their own. */
struct handoff_stats {
	struct net_handoff_totals c;
} __attribute__((aligned(64)));

static struct alf_queue *rings[NET_HANDOFF_MAX];
static struct handoff_stats stats[NET_HANDOFF_MAX];
static int nrings;

int net_handoff_init(int n)
{
	if (n < 1 || n > NET_HANDOFF_MAX)
		return -1;
	for (int i = 0; i < n; i++) {
		rings[i] = alf_queue_alloc_node(HANDOFF_SLOTS, ALF_SC_DEQ,
						GFP_KERNEL, mm_cpu_to_node(i));
		if (rings[i])
			continue;
		while (i--) {
			alf_queue_free(rings[i]);
			rings[i] = NULL;
		}
		return -1;
	}
	nrings = n;
	return 0;
}

static void *pack(const struct net_handoff_buf *b, int dev_index)
{
	return (void *)((uintptr_t)b->len |
			(uintptr_t)(b->flags & 0xffffu) << 32 |
			(uintptr_t)(dev_index & 0xff) << 48);
}

static void unpack(void *meta, void *frame, struct net_handoff_buf *b,
		   int *dev_index)
{
	uintptr_t m = (uintptr_t)meta;

	b->frame = frame;
	b->len = (uint32_t)m;
	b->flags = (unsigned int)(m >> 32 & 0xffffu);
	*dev_index = (int)(m >> 48 & 0xff);
}

bool net_handoff_send(int from, int to, int dev_index,
		      const struct net_handoff_buf *buf, int n, bool copy)
{
	void *pairs[2 * (NETDEV_RX_CHAIN_MAX + 1)];

	if (n > NETDEV_RX_CHAIN_MAX + 1)
		return false;
	for (int i = 0; i < n; i++) {
		pairs[2 * i] = buf[i].frame;
		pairs[2 * i + 1] = pack(&buf[i], dev_index);
	}
	if (!alf_mp_enqueue(rings[to], pairs, 2u * (unsigned int)n)) {
		stats[from].c.ring_full++;
		return false;
	}
	if (copy)
		stats[from].c.copies++;
	else
		stats[from].c.sent++;
	poll_wake(to); /* instance i's home is CPU i */
	return true;
}

void net_handoff_copy_failed(int from)
{
	stats[from].c.copy_fail++;
}

int net_handoff_take(int self, int max,
		     void (*park)(void *arg, int dev_index,
				  const struct net_handoff_buf *buf),
		     void *arg)
{
	void *pairs[2 * 16];
	int taken = 0;
	bool more = false;

	while (taken < max || more) {
		/* in a frame begun: one pair at a time, to its end */
		unsigned int want = more ? 2 : sizeof(pairs) / sizeof(pairs[0]);
		unsigned int got = alf_sc_dequeue(rings[self], pairs, want);

		if (got == 0)
			break;
		for (unsigned int i = 0; i + 1 < got; i += 2) {
			struct net_handoff_buf b;
			int dev;

			unpack(pairs[i + 1], pairs[i], &b, &dev);
			more = b.flags & NETDEV_RX_MORE;
			if (!more)
				stats[self].c.taken++;
			park(arg, dev, &b);
			taken++;
		}
	}
	return taken;
}

bool net_handoff_waiting(int self)
{
	return self < nrings && !alf_queue_empty(rings[self]);
}

void net_handoff_stats(int i, struct net_handoff_totals *out)
{
	*out = i >= 0 && i < nrings ? stats[i].c
				    : (struct net_handoff_totals){0};
}

void net_handoff_totals(struct net_handoff_totals *out)
{
	*out = (struct net_handoff_totals){0};
	for (int i = 0; i < nrings; i++) {
		out->sent += stats[i].c.sent;
		out->taken += stats[i].c.taken;
		out->copies += stats[i].c.copies;
		out->ring_full += stats[i].c.ring_full;
		out->copy_fail += stats[i].c.copy_fail;
	}
}
