/*
 * virtio-net's control queue (virtio 1.2 spec 5.1.6.5): one command at a
 * time, a device-readable header (class, command) and the command's
 * data, then the ack byte the device writes, each in its own descriptor,
 * as the spec asks of legacy devices without ANY_LAYOUT. The driver polls
 * for the answer (microseconds; a second is "never"), so a caller must
 * not hold up for long the CPU the device's I/O thread needs: commands
 * are sent at boot (the pair count, RSS) or for a rare table change.
 * The answer is the device's ack byte (VIRTIO_NET_OK, 0, or
 * VIRTIO_NET_ERR), or -1 when it did not come or the command could not
 * be queued.
 */
#include <string.h>

#include "drv_port.h"
#include "mm/mm.h"
#include "virtio_net_internal.h"

/* A device answers a control command in microseconds; this is "never". */
#define VNET_CTRL_TIMEOUT_MS 1000

int vnet_ctrl_cmd(struct vnet *vn, uint8_t class, uint8_t command,
		  const void *data, uint32_t len)
{
	uint8_t *c = kmalloc(2 + len + 1, __GFP_ZERO);
	struct virtq_buf b[3];
	uint64_t end = drv_clock_ms() + VNET_CTRL_TIMEOUT_MS;
	uint32_t got;
	void *done = NULL;
	int ack;

	if (!c)
		return -1;
	c[0] = class;
	c[1] = command;
	memcpy(c + 2, data, len);
	c[2 + len] = 0xff;
	b[0] = (struct virtq_buf){drv_dma_addr(c), 2, 0};
	b[1] = (struct virtq_buf){drv_dma_addr(c + 2), len, 0};
	b[2] = (struct virtq_buf){drv_dma_addr(c + 2 + len), 1, 1};
	if (virtq_add(&vn->ctrlq, b, 3, c) != 0) {
		drv_printf("virtio-net: control queue too small\n");
		kfree(c);
		return -1;
	}
	virtq_kick(&vn->ctrlq);
	while (!(done = virtq_get(&vn->ctrlq, &got)) && drv_clock_ms() <= end)
		__builtin_ia32_pause();
	ack = done == c ? *(volatile uint8_t *)(c + 2 + len) : -1;
	/* Unanswered, the device may still write the ack: keep the bytes. */
	if (done == c)
		kfree(c);
	return ack;
}
