/*
 * Split virtqueue (virtio spec 2.7): a descriptor table, an "available"
 * ring the driver writes and a "used" ring the device writes, laid out in
 * one zeroed, physically contiguous block in the legacy layout (used ring
 * on the next 4096-byte boundary), which both transports accept.
 *
 * A virtqueue has no lock: one user at a time adds buffers and reaps
 * them (virtio-net: an RX queue only on its CPU, a TX queue only under
 * the stack's TX guard). Each chain carries an opaque cookie that comes
 * back when the device returns the chain.
 *
 * The rings are shared with the device, and a broken or hostile device can
 * write anywhere in them, the descriptor table included. So the driver
 * keeps its own shadow of every descriptor in private memory (struct
 * virtq_desc_state, as Linux's desc_state/desc_extra): the free list, each
 * chain's links and length, and the cookie of each in-flight head. It only
 * ever writes descriptors and never reads a link back from them, so a
 * corrupt next, a cycle or next >= num cannot lead it astray; and a used
 * entry whose id is not the head of an in-flight chain is counted
 * (bad_used) and skipped.
 *
 * Suppression (spec 2.7.7 and 2.7.10). Without VIRTIO_F_EVENT_IDX the
 * two sides set flags: VIRTQ_AVAIL_F_NO_INTERRUPT (the driver: "do not
 * interrupt me") and VIRTQ_USED_F_NO_NOTIFY (the device: "do not kick
 * me"). With it (virtq_use_event_idx) the flags stay 0 and each side
 * writes an index instead, in the word after the other's ring: used_event
 * (after avail->ring[num]): "interrupt me once the used index passes
 * this", and avail_event (after used->ring[num]): "kick me once the avail
 * index passes this". A side is signalled only when the index it moved
 * stepped over the other's event index, so a device that is already at
 * work is not kicked per frame, and an armed driver gets one interrupt per
 * batch the device publishes rather than per chain.
 */
#ifndef DRIVERS_VIRTQUEUE_H
#define DRIVERS_VIRTQUEUE_H

#include <stdbool.h>
#include <stdint.h>

#include "virtio_pci.h"

#define VIRTQ_DESC_F_NEXT	   1
#define VIRTQ_DESC_F_WRITE	   2
#define VIRTQ_AVAIL_F_NO_INTERRUPT 1
#define VIRTQ_USED_F_NO_NOTIFY	   1

struct virtq_desc {
	uint64_t addr;
	uint32_t len;
	uint16_t flags;
	uint16_t next;
};

struct virtq_avail {
	uint16_t flags;
	uint16_t idx;
	uint16_t ring[];
};

struct virtq_used_elem {
	uint32_t id;
	uint32_t len;
};

struct virtq_used {
	uint16_t flags;
	uint16_t idx;
	struct virtq_used_elem ring[];
};

/* Driver-private state of one descriptor (never shared with the device). */
struct virtq_desc_state {
	void *cookie;	    /* on the head of an in-flight chain, else NULL */
	uint16_t next;	    /* free list link, or the next one in its chain */
	uint16_t chain_len; /* on an in-flight head: descriptors in the chain */
};

/* One buffer of a chain: device-readable (out) or device-writable (in). */
struct virtq_buf {
	uint64_t addr;
	uint32_t len;
	int device_writes;
};

struct virtq {
	struct virtio_pci *vp;
	uint16_t index;		      /* queue number on the device */
	uint16_t num;		      /* entries, a power of two */
	uint16_t free_head, num_free; /* driver's free list (state[].next) */
	uint16_t avail_idx;	      /* next avail slot (free-running) */
	uint16_t last_used;  /* next used slot to reap (free-running) */
	uint16_t pending;    /* added since the last publish */
	bool unnotified;     /* published since the last notify decision */
	uint16_t kick_idx;   /* avail_idx at the last notify decision */
	bool event_idx;	     /* VIRTIO_F_EVENT_IDX negotiated */
	uint16_t notify_off; /* the device's notify offset for this queue */
	struct virtq_desc *desc;
	struct virtq_avail *avail;
	struct virtq_used *used;
	struct virtq_desc_state *state; /* by descriptor, driver memory */
	void *mem;
	unsigned int mem_order;
	/* used entries whose id is not an in-flight head: skipped */
	uint64_t bad_used;
	/* virtq_kick with new chains: the device was notified, or it had
	 * said (NO_NOTIFY or avail_event) that it needs no notify */
	uint64_t notifies, notifies_suppressed;
};

/*
 * virtq_need_event - the event index rule (spec 2.7.10): an index that
 * moved from old to new (16-bit, wrapping) stepped over event, i.e. the
 * entry at event is among those just published. Written as Linux and the
 * spec do: new - event - 1 < new - old, all modulo 2^16.
 */
static inline bool virtq_need_event(uint16_t event, uint16_t new_idx,
				    uint16_t old_idx)
{
	return (uint16_t)(new_idx - event - 1) < (uint16_t)(new_idx - old_idx);
}

/* The driver's used_event word (after the avail ring's num slots) and
 * the device's avail_event word (after the used ring's num entries). */
static inline volatile uint16_t *virtq_used_event(const struct virtq *vq)
{
	return &vq->avail->ring[vq->num];
}

static inline const volatile uint16_t *virtq_avail_event(const struct virtq *vq)
{
	return (const volatile uint16_t *)((const uint8_t *)vq->used + 4u +
					   8u * vq->num);
}

/**
 * virtq_create - allocate and register queue @index of @vp.
 * @max: upper bound on entries, a power of two (the device may allow
 * fewer; legacy devices impose theirs). @node: NUMA node for the rings.
 * The device's size must be a power of two (virtio spec 2.7: split
 * rings index with num - 1); another size is refused.
 * Context: boot. Return: 0, or -1 (no memory, no such queue, a size that
 * is not a power of two, the device refused it; printed). On failure
 * nothing stays allocated and the device was not given the rings.
 */
int virtq_create(struct virtq *vq, struct virtio_pci *vp, uint16_t index,
		 uint16_t max, int node);

/**
 * virtq_use_event_idx - suppress with used_event/avail_event instead of
 * the ring flags, for a device that negotiated VIRTIO_F_EVENT_IDX.
 * Context: boot, after virtq_create() and before DRIVER_OK (the device
 * reads neither yet). Leaves the queue's interrupt off, as created.
 */
void virtq_use_event_idx(struct virtq *vq);

/**
 * virtq_destroy - free the rings and the driver's state of @vq.
 * Context: boot or teardown, once the device no longer uses the queue
 * (never set up, or the device was reset). A zeroed or already destroyed
 * @vq is left alone.
 */
void virtq_destroy(struct virtq *vq);

/**
 * virtq_add - post one chain of n buffers with its cookie (not yet
 * visible to the device: call virtq_kick()).
 * @cookie: must not be NULL (NULL marks "not in flight").
 * Return: 0, or -1 when fewer than n descriptors are free or cookie is
 * NULL.
 */
int virtq_add(struct virtq *vq, const struct virtq_buf *bufs, int n,
	      void *cookie);

/**
 * virtq_add_one - virtq_add() of one buffer, inline: what an RX refill
 * posts for every frame received. The loop, the chain links and the call
 * of virtq_add cost 66 guest instructions per buffer (tools/insn-profile
 * --blocks virtq_add); this, about 20.
 * Return: 0, or -1 when no descriptor is free or @cookie is NULL.
 */
static inline int virtq_add_one(struct virtq *vq, uint64_t addr, uint32_t len,
				bool device_writes, void *cookie)
{
	uint16_t head = vq->free_head;
	struct virtq_desc *d = &vq->desc[head];

	if (!vq->num_free || !cookie)
		return -1;
	d->addr = addr;
	d->len = len;
	d->flags = device_writes ? VIRTQ_DESC_F_WRITE : 0;
	d->next = 0;
	vq->free_head = vq->state[head].next;
	vq->num_free--;
	vq->state[head].cookie = cookie;
	vq->state[head].chain_len = 1;
	vq->avail->ring[vq->avail_idx & (vq->num - 1)] = head;
	vq->avail_idx++;
	vq->pending++;
	return 0;
}

/* Publish the chains added since the last kick and notify the device
 * unless it asked not to be notified: without EVENT_IDX its NO_NOTIFY
 * flag; with it, unless the chains published since the last kick leave
 * its avail_event behind. Counts notifies and notifies_suppressed. */
void virtq_kick(struct virtq *vq);
/* Publish them without the notify (a device already at work may take
 * them); the next virtq_kick() notifies once for all. One notify costs a
 * device exit: on the TX path, one per lock hold instead of per frame. */
void virtq_publish(struct virtq *vq);

/**
 * virtq_used_pending - has the device returned a chain not yet reaped?
 * Reads the device's used index and our last_used without the queue's
 * user's guard: a hint, true or false a moment later.
 */
static inline bool virtq_used_pending(const struct virtq *vq)
{
	return *(const volatile uint16_t *)&vq->used->idx !=
	       *(const volatile uint16_t *)&vq->last_used;
}

/**
 * virtq_get - reap one chain the device has finished.
 * @len: bytes the device wrote into the chain's writable buffers.
 * Return: the chain's cookie, or NULL when none is ready.
 */
void *virtq_get(struct virtq *vq, uint32_t *len);

/**
 * virtq_irq_enable - ask the device to interrupt when it next returns a
 * chain (clears VIRTQ_AVAIL_F_NO_INTERRUPT; with EVENT_IDX, publishes
 * used_event = last_used), then look once more.
 * Return: true when a chain is already waiting, which may have come
 * before the device saw the flag cleared: the caller polls again rather
 * than waits for an interrupt that may not come. The queue's user, or
 * (virtq_irq_disable) the interrupt handler on the same CPU.
 */
bool virtq_irq_enable(struct virtq *vq);
/* virtq_irq_disable - no interrupts for this queue (a hint the device
 * may act on late: one more interrupt can come). With EVENT_IDX it sets
 * used_event one behind last_used, an index the device has already
 * passed: it would interrupt only after 65536 more chains (at most one
 * spurious interrupt per 65536 chains of pure polling, which the handler
 * takes as any other). */
void virtq_irq_disable(struct virtq *vq);

#endif /* DRIVERS_VIRTQUEUE_H */
