/*
 * virtio over PCI: the two transports a virtio device may offer.
 *
 * Modern (virtio 1.x): vendor capabilities point into memory BARs at the
 * common configuration (features, status, queue set-up), the notify area,
 * the ISR byte and the device-specific configuration.
 * Legacy (virtio 0.9.5, "transitional" devices, disable-modern=on): one I/O
 * BAR with fixed register offsets, 32 feature bits, and a queue given as a
 * page frame number of one contiguous ring.
 *
 * Everything above this file (virtqueue.c, virtio_net.c) calls the same
 * functions and does not care which transport is below.
 */
#ifndef DRIVERS_VIRTIO_PCI_H
#define DRIVERS_VIRTIO_PCI_H

#include <stdbool.h>
#include <stdint.h>

#include "pci.h"

#define VIRTIO_VENDOR 0x1af4

/* Device status bits (virtio spec 2.1). */
#define VIRTIO_STATUS_ACK	  1
#define VIRTIO_STATUS_DRIVER	  2
#define VIRTIO_STATUS_DRIVER_OK	  4
#define VIRTIO_STATUS_FEATURES_OK 8
#define VIRTIO_STATUS_FAILED	  128

#define VIRTIO_F_EVENT_IDX 29 /* used_event/avail_event (spec 2.7.10) */
#define VIRTIO_F_VERSION_1 32

struct virtio_pci {
	struct pci_dev *pci;
	bool modern;
	/* modern */
	volatile uint8_t *common;
	volatile uint8_t *notify;
	volatile uint8_t *isr;
	volatile uint8_t *device;
	uint32_t notify_len, device_len; /* window lengths, checked vs BAR */
	uint32_t notify_mult;
	/* legacy */
	uint16_t io;
};

/**
 * virtio_pci_init - find the transport of a virtio PCI function.
 * @vp: state to fill; @d: the PCI function (bus mastering gets enabled).
 * @allow_modern: false forces the legacy transport on transitional devices.
 * A modern capability whose window does not fit inside its memory BAR,
 * or is shorter than the registers used, is ignored (and reported).
 * Return: 0, or -1 when neither transport is usable (reason printed).
 */
int virtio_pci_init(struct virtio_pci *vp, struct pci_dev *d,
		    bool allow_modern);

/**
 * virtio_pci_reset - reset the device; afterwards it uses no queue.
 * Return: 0, or -1 (printed) when a modern device does not finish its
 * reset within a second: it may still use the queues it had.
 */
int virtio_pci_reset(struct virtio_pci *vp);
uint8_t virtio_pci_get_status(struct virtio_pci *vp);
/* ORs bits into the device status. */
void virtio_pci_add_status(struct virtio_pci *vp, uint8_t bits);
uint64_t virtio_pci_get_features(struct virtio_pci *vp);
void virtio_pci_set_features(struct virtio_pci *vp, uint64_t features);

/* Device-specific configuration (e.g. virtio-net's MAC and status); on
 * the modern transport, bytes past the device's window read as 0. */
uint8_t virtio_pci_config8(struct virtio_pci *vp, unsigned int off);
uint16_t virtio_pci_config16(struct virtio_pci *vp, unsigned int off);

/* Largest queue size the device allows for queue q (0: no such queue). */
uint16_t virtio_pci_queue_max(struct virtio_pci *vp, uint16_t q);

/**
 * virtio_pci_queue_setup - tell the device where queue q lives and enable it.
 * @size: entries (legacy devices accept only their own maximum).
 * @desc/@avail/@used: ring parts; for legacy they must be the one
 * contiguous, 4096-aligned layout of the legacy spec.
 * @notify_off: gets the queue's notify offset (modern; 0 for legacy), to
 * pass to virtio_pci_notify(). Kept by the caller's queue, so a device
 * may have as many queues as it offers (a multiqueue virtio-net puts its
 * control queue after all its pairs).
 * Return: 0, or -1 when the device refuses (or a modern device puts the
 * queue's notify register outside its notify window); then the device
 * was given no address of the rings.
 */
int virtio_pci_queue_setup(struct virtio_pci *vp, uint16_t q, uint16_t size,
			   uint64_t desc, uint64_t avail, uint64_t used,
			   uint16_t *notify_off);

/* Kick: tell the device queue q (notify offset from set-up) has new
 * available buffers. */
void virtio_pci_notify(struct virtio_pci *vp, uint16_t q, uint16_t notify_off);

/*
 * Interrupts. virtio_pci_isr: read the ISR status byte (bit 0: a queue,
 * bit 1: a configuration change); reading acknowledges it and deasserts
 * the INTx pin. 0 from a device that has no ISR capability. Any context.
 */
uint8_t virtio_pci_isr(struct virtio_pci *vp);

#define VIRTIO_MSI_NO_VECTOR 0xffff

/*
 * virtio_pci_config_vector / virtio_pci_queue_vector - route
 * configuration changes, or queue q's used buffers, to MSI-X table entry
 * @entry (VIRTIO_MSI_NO_VECTOR: none). Modern transport only. Boot.
 * Return: 0, or -1 when the device does not take the entry (it reads
 * back NO_VECTOR: out of its vectors) or the transport is legacy.
 */
int virtio_pci_config_vector(struct virtio_pci *vp, uint16_t entry);
int virtio_pci_queue_vector(struct virtio_pci *vp, uint16_t q, uint16_t entry);

#endif /* DRIVERS_VIRTIO_PCI_H */
