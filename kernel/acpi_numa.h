/*
 * The NUMA topology the firmware describes: nodes from SRAT's proximity
 * domains, distances from SLIT, and the node of each PCI bus from its
 * host bridge's _PXM. Read once at boot into struct acpi_info
 * (kernel/acpi.h); kernel/acpi_numa.c.
 */
#ifndef KERNEL_ACPI_NUMA_H
#define KERNEL_ACPI_NUMA_H

#include <stdint.h>

#include "kernel/acpi.h"

/*
 * acpi_numa_init - the NUMA nodes from the SRAT and SLIT acpi_init found:
 * fills acpi's nr_nodes, domains, cpu_node (for the MADT's CPUs), mem and
 * distance, and sets has_srat and has_slit. Without SRAT: one node with
 * every CPU and all memory. Without a usable SLIT: 10 to a node itself,
 * 20 to any other. Boot CPU, once, right after acpi_init.
 */
void acpi_numa_init(void);

/*
 * acpi_domain_node - the node id of proximity domain dom (SRAT's): its
 * own node, or the node it was folded into; -1 when SRAT does not list
 * it. Any context after acpi_numa_init.
 */
int acpi_domain_node(uint32_t dom);

/*
 * acpi_pci_bus_node - the NUMA node of PCI bus bus on segment seg, as the
 * firmware reports it: the _PXM of the host bridge the bus sits behind.
 * Which bridge that is, is a heuristic: the one of that segment with the
 * largest _BBN at or below bus (a bridge's real bus range is its _CRS,
 * which the scanner does not read; QEMU's expander bridges and PC
 * firmware number the buses behind a bridge upward from its _BBN). A
 * bridge without a constant _PXM, a _PXM that SRAT does not list, no
 * bridge at all, or no SRAT: node 0. *bridge (may be NULL) gets the
 * bridge used, or NULL. Any context after acpi_numa_init.
 */
int acpi_pci_bus_node(int seg, int bus, const struct acpi_host_bridge **bridge);

#endif
