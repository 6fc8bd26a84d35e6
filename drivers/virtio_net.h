/*
 * virtio-net driver: probes every virtio network function on the PCI bus
 * and registers each as a netdev, with one RX/TX queue pair per CPU when
 * the device offers multiqueue. See virtio_net.c and virtio_net_setup.c.
 */
#ifndef DRIVERS_VIRTIO_NET_H
#define DRIVERS_VIRTIO_NET_H

#include <stdbool.h>

/**
 * virtio_net_probe - bind every virtio-net PCI function found.
 * @allow_modern: false forces the legacy transport (for tests of it).
 * @max_queues: most RX/TX queue pairs per device (one per CPU that will
 * poll one: pair i is CPU i's, its rings on CPU i's node). A device
 * without multiqueue gets one pair whatever this says.
 * Context: boot, after pci_init() and mm_init(), on CPU 0.
 * Return: number of devices registered.
 */
int virtio_net_probe(bool allow_modern, int max_queues);

#endif /* DRIVERS_VIRTIO_NET_H */
