/*
 * Split virtqueue (virtio spec 2.7): a descriptor table, an "available"
 * ring the driver writes and a "used" ring the device writes, laid out in
 * one zeroed, physically contiguous block in the legacy layout (used ring
 * on the next 4096-byte boundary), which both transports accept.
 *
 * The driver side here is single-threaded: only the CPU polling the device
 * adds buffers and reaps them. Each chain carries an opaque cookie that
 * comes back when the device returns the chain.
 */
#ifndef DRIVERS_VIRTQUEUE_H
#define DRIVERS_VIRTQUEUE_H

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

/* One buffer of a chain: device-readable (out) or device-writable (in). */
struct virtq_buf {
	uint64_t addr;
	uint32_t len;
	int device_writes;
};

struct virtq {
	struct virtio_pci *vp;
	uint16_t index; /* queue number on the device */
	uint16_t num;	/* entries, a power of two */
	uint16_t free_head, num_free;
	uint16_t avail_idx; /* next avail slot (free-running) */
	uint16_t last_used; /* next used slot to reap (free-running) */
	uint16_t pending;   /* added since the last kick */
	struct virtq_desc *desc;
	struct virtq_avail *avail;
	struct virtq_used *used;
	void **cookie; /* by head descriptor */
	void *mem;
	unsigned int mem_order;
	uint64_t bad_used; /* used entries with an id we never gave out */
};

/**
 * virtq_create - allocate and register queue @index of @vp.
 * @max: upper bound on entries (the device may allow fewer; legacy
 * devices impose theirs). @node: NUMA node for the ring memory.
 * Context: boot. Return: 0, or -1 (no memory, no such queue; printed).
 */
int virtq_create(struct virtq *vq, struct virtio_pci *vp, uint16_t index,
		 uint16_t max, int node);

/**
 * virtq_add - post one chain of n buffers with its cookie (not yet
 * visible to the device: call virtq_kick()).
 * Return: 0, or -1 when fewer than n descriptors are free.
 */
int virtq_add(struct virtq *vq, const struct virtq_buf *bufs, int n,
	      void *cookie);

/* Publish the chains added since the last kick and notify the device
 * unless it asked not to be notified. */
void virtq_kick(struct virtq *vq);

/**
 * virtq_get - reap one chain the device has finished.
 * @len: bytes the device wrote into the chain's writable buffers.
 * Return: the chain's cookie, or NULL when none is ready.
 */
void *virtq_get(struct virtq *vq, uint32_t *len);

#endif /* DRIVERS_VIRTQUEUE_H */
