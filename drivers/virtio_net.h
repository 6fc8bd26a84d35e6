/*
 * virtio-net driver: probes every virtio network function on the PCI bus
 * and registers each as a netdev, with one RX/TX queue pair per CPU when
 * the device offers multiqueue. See virtio_net.c and virtio_net_setup.c.
 */
#ifndef DRIVERS_VIRTIO_NET_H
#define DRIVERS_VIRTIO_NET_H

#include <stdbool.h>

/* Features the driver may use when the device offers them: csum: CSUM
 * and GUEST_CSUM; tso, tso6: GUEST_TSO4, GUEST_TSO6 (each needs csum and
 * mrg); mrg: MRG_RXBUF; event_idx: VIRTIO_F_EVENT_IDX (interrupt and
 * notify suppression by index instead of by flag); host_tso, host_tso6:
 * HOST_TSO4, HOST_TSO6 (each needs csum; the driver merges the stack's
 * TCP segments, virtio_net_gso.c). */
struct virtio_net_offloads {
	bool csum, tso, mrg, event_idx, host_tso, tso6, host_tso6, rss;
};

/**
 * virtio_net_allow_offloads - what later probes may negotiate (boot
 * switches virtio_csum=, virtio_tso=, virtio_tso6=, virtio_mrg=,
 * virtio_event_idx=, virtio_host_tso=, virtio_host_tso6=,
 * virtio_rss=, for A/B runs).
 * Context: boot, before virtio_net_probe().
 */
void virtio_net_allow_offloads(const struct virtio_net_offloads *o);

/**
 * virtio_net_probe - bind every virtio-net PCI function found, while the
 * netdev registry has room (the rest are left stopped and named).
 * @allow_modern: false forces the legacy transport (for tests of it).
 * @max_queues: most RX/TX queue pairs per device (one per CPU that will
 * poll one: pair i is CPU i's, its rings on CPU i's node). A device
 * without multiqueue gets one pair whatever this says.
 * Context: boot, after pci_init() and mm_init(), on CPU 0.
 * Return: number of devices registered.
 */
int virtio_net_probe(bool allow_modern, int max_queues);

#endif /* DRIVERS_VIRTIO_NET_H */
