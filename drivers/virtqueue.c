/*
 * Split virtqueue, driver side. See virtqueue.h for the layout.
 *
 * Ordering (spec 2.7.13): the device may read a descriptor as soon as it
 * sees the avail index move, so descriptor and ring-slot stores must be
 * visible before the index store (release). Before deciding whether to
 * notify, the index store must be visible before we read the device's
 * NO_NOTIFY flag or avail_event (a full fence: store then load). The
 * device does the mirror image: it publishes avail_event (its last seen
 * avail index), fences, and reads the avail index once more, so either
 * it sees our new index or we see its new avail_event. When reaping, the
 * used index is read before the used entries (acquire).
 *
 * Trust: descriptors are write-only for the driver. The free list, chain
 * links and chain lengths live in vq->state (driver memory), so returning
 * a chain takes exactly chain_len steps through links the driver wrote
 * itself, whatever the device did to the table meanwhile.
 */
#include "virtqueue.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>

#include "drv_port.h"
#include "mm/mm.h"

static size_t ring_bytes(uint16_t num, size_t *used_off)
{
	size_t first = 16u * num + 6u + 2u * num;

	*used_off = (first + 4095) & ~(size_t)4095;
	return *used_off + 6u + 8u * num;
}

static bool is_power_of_2(unsigned int n)
{
	return n && !(n & (n - 1));
}

static void init_free_list(struct virtq *vq)
{
	for (uint16_t i = 0; i < vq->num; i++)
		vq->state[i].next = (uint16_t)(i + 1);
	vq->free_head = 0;
	vq->num_free = vq->num;
}

/* The entries to use: the device's size, which must be a power of two;
 * a modern device also takes any smaller power of two, so cap it at max.
 * Returns 0 (reported) when there is no usable size. */
static uint16_t queue_size(struct virtio_pci *vp, uint16_t index, uint16_t max)
{
	uint16_t num = virtio_pci_queue_max(vp, index);

	if (num == 0) {
		drv_printf("virtio: queue %u absent\n", index);
		return 0;
	}
	if (!is_power_of_2(num) || !is_power_of_2(max)) {
		drv_printf("virtio: queue %u size %u (driver max %u) is not a "
			   "power of two, refused\n",
			   index, num, max);
		return 0;
	}
	if (vp->modern && num > max)
		num = max;
	return num;
}

int virtq_create(struct virtq *vq, struct virtio_pci *vp, uint16_t index,
		 uint16_t max, int node)
{
	uint16_t num;
	size_t used_off, bytes;
	unsigned int order = 0;
	struct page *pg;

	memset(vq, 0, sizeof(*vq));
	num = queue_size(vp, index, max);
	if (num == 0)
		return -1;
	bytes = ring_bytes(num, &used_off);
	while ((MM_PAGE_SIZE << order) < bytes)
		order++;
	pg = alloc_pages_node(node, __GFP_ZERO, order);
	if (pg) {
		vq->mem = page_address(pg);
		vq->mem_order = order;
	}
	vq->state = kmalloc_node(sizeof(*vq->state) * num, __GFP_ZERO, node);
	if (!pg || !vq->state) {
		drv_printf("virtio: no memory for queue %u (%u entries)\n",
			   index, num);
		virtq_destroy(vq);
		return -1;
	}
	vq->vp = vp;
	vq->index = index;
	vq->num = num;
	vq->desc = vq->mem;
	vq->avail = (struct virtq_avail *)((uint8_t *)vq->mem + 16u * num);
	vq->used = (struct virtq_used *)((uint8_t *)vq->mem + used_off);
	init_free_list(vq);
	/* No interrupt until the poller asks for one (virtq_irq_enable). */
	vq->avail->flags = VIRTQ_AVAIL_F_NO_INTERRUPT;
	if (virtio_pci_queue_setup(vp, index, num, drv_dma_addr(vq->desc),
				   drv_dma_addr(vq->avail),
				   drv_dma_addr(vq->used),
				   &vq->notify_off) != 0) {
		/* The transport refuses before it hands the device any
		 * address, so the memory can go at once. */
		drv_printf("virtio: device refused queue %u\n", index);
		virtq_destroy(vq);
		return -1;
	}
	return 0;
}

void virtq_use_event_idx(struct virtq *vq)
{
	vq->event_idx = true;
	/* With EVENT_IDX the device ignores the flags; the spec asks for 0. */
	vq->avail->flags = 0;
	*virtq_used_event(vq) = (uint16_t)(vq->last_used - 1);
}

void virtq_destroy(struct virtq *vq)
{
	if (vq->mem)
		free_pages(vq->mem, vq->mem_order);
	kfree(vq->state);
	memset(vq, 0, sizeof(*vq));
}

int virtq_add(struct virtq *vq, const struct virtq_buf *bufs, int n,
	      void *cookie)
{
	uint16_t head = vq->free_head, i = head, last = head;

	if (n <= 0 || vq->num_free < n || !cookie)
		return -1;
	for (int k = 0; k < n; k++) {
		struct virtq_desc *d = &vq->desc[i];

		d->addr = bufs[k].addr;
		d->len = bufs[k].len;
		d->flags = (bufs[k].device_writes ? VIRTQ_DESC_F_WRITE : 0) |
			   (k + 1 < n ? VIRTQ_DESC_F_NEXT : 0);
		/* The device's copy of the link; ours stays in state[]. */
		d->next = k + 1 < n ? vq->state[i].next : 0;
		last = i;
		i = vq->state[i].next;
	}
	vq->free_head = vq->state[last].next;
	vq->num_free = (uint16_t)(vq->num_free - n);
	vq->state[head].cookie = cookie;
	vq->state[head].chain_len = (uint16_t)n;
	vq->avail->ring[vq->avail_idx & (vq->num - 1)] = head;
	vq->avail_idx++;
	vq->pending++;
	return 0;
}

void virtq_publish(struct virtq *vq)
{
	if (!vq->pending)
		return;
	vq->pending = 0;
	vq->unnotified = true;
	atomic_thread_fence(memory_order_release);
	*(volatile uint16_t *)&vq->avail->idx = vq->avail_idx;
}

/* Does the device want a notify for the chains published since the
 * last decision (old: the avail index then)? */
static bool device_wants_notify(const struct virtq *vq, uint16_t old)
{
	if (vq->event_idx)
		return virtq_need_event(*virtq_avail_event(vq), vq->avail_idx,
					old);
	return !(*(volatile uint16_t *)&vq->used->flags &
		 VIRTQ_USED_F_NO_NOTIFY);
}

void virtq_kick(struct virtq *vq)
{
	uint16_t old = vq->kick_idx;

	virtq_publish(vq);
	if (!vq->unnotified)
		return;
	vq->unnotified = false;
	vq->kick_idx = vq->avail_idx;
	/* The index store before the flag or avail_event load: a device
	 * that stops looking publishes what it saw, then looks again. */
	atomic_thread_fence(memory_order_seq_cst);
	if (device_wants_notify(vq, old)) {
		vq->notifies++;
		virtio_pci_notify(vq->vp, vq->index, vq->notify_off);
	} else {
		vq->notifies_suppressed++;
	}
}

/* Put the in-flight chain starting at head back on the free list: its
 * chain_len links in state[] were written by virtq_add, never by the
 * device, so the walk is bounded and stays inside the table. */
static void free_chain(struct virtq *vq, uint16_t head)
{
	uint16_t i = head, n = vq->state[head].chain_len;

	for (uint16_t k = 1; k < n; k++)
		i = vq->state[i].next;
	vq->state[i].next = vq->free_head;
	vq->free_head = head;
	vq->num_free = (uint16_t)(vq->num_free + n);
	vq->state[head].cookie = NULL;
	vq->state[head].chain_len = 0;
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
		/* Never trust the device's id: out of range, or not the head
		 * of a chain in flight (a chain's inner descriptor, one
		 * already returned) means a broken device; skip and count. */
		if (e.id >= vq->num || !vq->state[e.id].cookie) {
			vq->bad_used++;
			continue;
		}
		cookie = vq->state[e.id].cookie;
		free_chain(vq, (uint16_t)e.id);
		*len = e.len;
		return cookie;
	}
	return NULL;
}

/*
 * Arm, and why no wake-up is lost. Without EVENT_IDX: clear NO_INTERRUPT.
 * With it: publish used_event = last_used, "interrupt me when you write
 * the entry at last_used", the first chain we have not reaped. Then,
 * either way, a full fence and a fresh read of the used index.
 *
 * The device does the mirror image (spec 2.7.13): it stores used->idx,
 * fences, then reads the flag or used_event and interrupts if the flag is
 * clear, or if its index just stepped over used_event (virtq_need_event).
 * Both sides store, fence, load: at least one load sees the other's
 * store. So:
 *  - our re-read sees idx != last_used: a chain is already there; we
 *    return true and the caller polls again instead of sleeping;
 *  - it sees idx == last_used: every later chain is published after it,
 *    so the device's load comes after our store and sees it; its first
 *    move of the index goes from last_used to past it, which steps over
 *    used_event (or finds the flag clear), and it interrupts.
 * Without the re-read, a chain published between our last poll and the
 * store would wait for the next one (tests/host/drivers/
 * test_virtq_event.c has the test that fails without it).
 */
bool virtq_irq_enable(struct virtq *vq)
{
	if (vq->event_idx)
		*virtq_used_event(vq) = vq->last_used;
	else
		*(volatile uint16_t *)&vq->avail->flags = 0;
	atomic_thread_fence(memory_order_seq_cst);
	return virtq_used_pending(vq);
}

void virtq_irq_disable(struct virtq *vq)
{
	if (vq->event_idx)
		*virtq_used_event(vq) =
			(uint16_t)(*(volatile uint16_t *)&vq->last_used - 1);
	else
		*(volatile uint16_t *)&vq->avail->flags =
			VIRTQ_AVAIL_F_NO_INTERRUPT;
}
