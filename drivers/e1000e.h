/*
 * e1000e: the Intel 82574L PCIe gigabit NIC (what QEMU's `-device e1000e`
 * emulates, q35's usual NIC). The part is brought up by e1000e_hw.c and
 * then runs e1000.c's per-packet path (legacy descriptors). See
 * docs/e1000e.md.
 */
#ifndef DRIVERS_E1000E_H
#define DRIVERS_E1000E_H

#include <stdbool.h>

/**
 * e1000e_probe - bind every 82574L PCI function found; report, and stop
 * (receive, transmit and bus mastering off), the other e1000e-family
 * parts (82571/2/3, 82583, 80003ES2LAN, ICH8-10 and the PCH parts I217,
 * I218, I219 and their kin).
 * @node: NUMA node of the CPU that will poll the devices (rings there).
 * Context: boot, after pci_init() and mm_init(), before the poll loop.
 * Return: number of devices registered (0 when none, or all failed; each
 * failure and each refused part is reported on the console).
 */
int e1000e_probe(int node);

/* Offloads the driver may use (each a boot switch, for A/B runs):
 * rx_csum: RXCSUM.TUOFL, the device checks TCP/UDP sums of received IPv4
 * and IPv6 frames (e1000e_rx_csum=). */
struct e1000e_offloads {
	bool rx_csum;
};

/**
 * e1000e_allow_offloads - what later probes may turn on (all of them
 * unless told otherwise).
 * Context: boot, before e1000e_probe().
 */
void e1000e_allow_offloads(const struct e1000e_offloads *o);

#endif /* DRIVERS_E1000E_H */
