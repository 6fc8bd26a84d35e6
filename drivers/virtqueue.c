/*
 * Split virtqueue, driver side. See virtqueue.h for the layout.
 *
 * Ordering (spec 2.7.13): the device may read a descriptor as soon as it
 * sees the avail index move, so descriptor and ring-slot stores must be
 * visible before the index store (release). Before deciding whether to
 * notify, the index store must be visible before we read the device's
 * NO_NOTIFY flag (a full fence: store then load). When reaping, the used
 * index is read before the used entries (acquire).
 */
#include "virtqueue.h"

#include <stdatomic.h>
#include <string.h>

#include "drv_port.h"
#include "mm/mm.h"

static size_t ring_bytes(uint16_t num, size_t *used_off)
{
	size_t first = 16u * num + 6u + 2u * num;

	*used_off = (first + 4095) & ~(size_t)4095;
	return *used_off + 6u + 8u * num;
}

static void init_free_list(struct virtq *vq)
{
	for (uint16_t i = 0; i < vq->num; i++)
		vq->desc[i].next = (uint16_t)(i + 1);
	vq->free_head = 0;
	vq->num_free = vq->num;
}

int virtq_create(struct virtq *vq, struct virtio_pci *vp, uint16_t index,
		 uint16_t max, int node)
{
	uint16_t num = virtio_pci_queue_max(vp, index);
	size_t used_off, bytes;
	unsigned int order = 0;
	struct page *pg;

	memset(vq, 0, sizeof(*vq));
	if (num == 0) {
		drv_printf("virtio: queue %u absent\n", index);
		return -1;
	}
	/* Modern devices accept any power of two up to their maximum. */
	if (vp->modern)
		while (num > max)
			num >>= 1;
	bytes = ring_bytes(num, &used_off);
	while ((MM_PAGE_SIZE << order) < bytes)
		order++;
	pg = alloc_pages_node(node, __GFP_ZERO, order);
	vq->cookie = kmalloc_node(sizeof(void *) * num, __GFP_ZERO, node);
	if (!pg || !vq->cookie) {
		drv_printf("virtio: no memory for queue %u (%u entries)\n",
			   index, num);
		if (pg)
			__free_pages(pg, order);
		kfree(vq->cookie);
		return -1;
	}
	vq->vp = vp;
	vq->index = index;
	vq->num = num;
	vq->mem = page_address(pg);
	vq->mem_order = order;
	vq->desc = vq->mem;
	vq->avail = (struct virtq_avail *)((uint8_t *)vq->mem + 16u * num);
	vq->used = (struct virtq_used *)((uint8_t *)vq->mem + used_off);
	init_free_list(vq);
	/* We poll: ask the device not to interrupt. */
	vq->avail->flags = VIRTQ_AVAIL_F_NO_INTERRUPT;
	if (virtio_pci_queue_setup(vp, index, num, drv_dma_addr(vq->desc),
				   drv_dma_addr(vq->avail),
				   drv_dma_addr(vq->used)) != 0) {
		drv_printf("virtio: device refused queue %u\n", index);
		return -1;
	}
	return 0;
}

int virtq_add(struct virtq *vq, const struct virtq_buf *bufs, int n,
	      void *cookie)
{
	uint16_t head = vq->free_head, i = head, last = head;

	if (n <= 0 || vq->num_free < n)
		return -1;
	for (int k = 0; k < n; k++) {
		struct virtq_desc *d = &vq->desc[i];

		d->addr = bufs[k].addr;
		d->len = bufs[k].len;
		d->flags = (bufs[k].device_writes ? VIRTQ_DESC_F_WRITE : 0) |
			   (k + 1 < n ? VIRTQ_DESC_F_NEXT : 0);
		last = i;
		i = d->next;
	}
	vq->free_head = vq->desc[last].next;
	vq->num_free = (uint16_t)(vq->num_free - n);
	vq->cookie[head] = cookie;
	vq->avail->ring[vq->avail_idx & (vq->num - 1)] = head;
	vq->avail_idx++;
	vq->pending++;
	return 0;
}

void virtq_kick(struct virtq *vq)
{
	if (!vq->pending)
		return;
	vq->pending = 0;
	atomic_thread_fence(memory_order_release);
	*(volatile uint16_t *)&vq->avail->idx = vq->avail_idx;
	atomic_thread_fence(memory_order_seq_cst);
	if (!(*(volatile uint16_t *)&vq->used->flags & VIRTQ_USED_F_NO_NOTIFY))
		virtio_pci_notify(vq->vp, vq->index);
}

/* Put the chain starting at head back on the free list. */
static void free_chain(struct virtq *vq, uint16_t head)
{
	uint16_t i = head, n = 1;

	while (vq->desc[i].flags & VIRTQ_DESC_F_NEXT) {
		i = vq->desc[i].next;
		n++;
	}
	vq->desc[i].next = vq->free_head;
	vq->free_head = head;
	vq->num_free = (uint16_t)(vq->num_free + n);
}

void *virtq_get(struct virtq *vq, uint32_t *len)
{
	uint16_t used_idx = *(volatile uint16_t *)&vq->used->idx;
	struct virtq_used_elem e;
	void *cookie;

	while (vq->last_used != used_idx) {
		atomic_thread_fence(memory_order_acquire);
		e = vq->used->ring[vq->last_used & (vq->num - 1)];
		vq->last_used++;
		/* Never trust the device's id: out of range or not in flight
		 * means a broken device; skip the entry and count it. */
		if (e.id >= vq->num || !vq->cookie[e.id]) {
			vq->bad_used++;
			continue;
		}
		cookie = vq->cookie[e.id];
		vq->cookie[e.id] = NULL;
		free_chain(vq, (uint16_t)e.id);
		*len = e.len;
		return cookie;
	}
	return NULL;
}
