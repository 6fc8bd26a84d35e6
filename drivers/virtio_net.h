/*
 * virtio-net driver: probes every virtio network function on the PCI bus
 * and registers each as a netdev. See virtio_net.c.
 */
#ifndef DRIVERS_VIRTIO_NET_H
#define DRIVERS_VIRTIO_NET_H

#include <stdbool.h>

/**
 * virtio_net_probe - bind every virtio-net PCI function found.
 * @allow_modern: false forces the legacy transport (for tests of it).
 * @node: NUMA node of the CPU that will poll the devices.
 * Context: boot, after pci_init() and mm_init().
 * Return: number of devices registered.
 */
int virtio_net_probe(bool allow_modern, int node);

#endif /* DRIVERS_VIRTIO_NET_H */
