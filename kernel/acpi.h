/*
 * ACPI tables the kernel reads: MADT (CPUs, IOAPICs, interrupt overrides),
 * SRAT (which node owns each CPU and memory range), SLIT (node distances),
 * MCFG (PCI ECAM windows) and FADT (power-off and reset), and the PCI host
 * bridges the DSDT and SSDTs declare (kernel/acpi_aml.c: their bus numbers
 * and NUMA proximity). Parsed once at boot into struct acpi_info; every
 * table's checksum is checked and a bad table is reported and skipped.
 */
#ifndef KERNEL_ACPI_H
#define KERNEL_ACPI_H

#include <stdbool.h>
#include <stdint.h>
#include "kernel/acpi_aml.h"
#include "kernel/config.h"

#define ACPI_MAX_IOAPICS 8
#define ACPI_MAX_ISOS	 16
#define ACPI_MAX_MEM	 32
#define ACPI_MAX_MCFG	 4
#define ACPI_MAX_TABLES	 32
#define ACPI_MAX_BRIDGES 16

struct acpi_ioapic {
	uint8_t id;
	uint64_t addr;
	uint32_t gsi_base;
};

/* An ISA interrupt that is wired to another GSI, or with other polarity
 * or trigger (MPS INTI flags: bits 0-1 polarity, 2-3 trigger mode). */
struct acpi_iso {
	uint8_t source;
	uint32_t gsi;
	uint16_t flags;
};

struct acpi_mem_affinity {
	uint64_t base, len;
	int node;
};

/* One PCI ECAM window (MCFG): config space of bus b, device d, function f
 * is at base + ((b - bus_start) << 20 | d << 15 | f << 12). */
struct acpi_mcfg {
	uint64_t base;
	uint16_t segment;
	uint8_t bus_start, bus_end;
};

struct acpi_info {
	bool found; /* an RSDP was found and checked */
	uint64_t rsdp;
	int revision;
	/* MADT */
	uint64_t lapic_base;
	int nr_cpus; /* enabled CPUs, boot CPU first once smp_init ran */
	uint32_t apic_ids[MAX_CPUS];
	int nr_cpus_skipped; /* beyond MAX_CPUS */
	struct acpi_ioapic ioapics[ACPI_MAX_IOAPICS];
	int nr_ioapics;
	struct acpi_iso isos[ACPI_MAX_ISOS];
	int nr_isos;
	bool pic_present; /* MADT flag PCAT_COMPAT: 8259s to mask */
	/* SRAT, SLIT: node ids are 0..nr_nodes-1 in proximity domain order */
	bool has_srat, has_slit;
	int nr_nodes;
	uint32_t node_domain[MAX_NODES];
	int cpu_node[MAX_CPUS]; /* by index into apic_ids */
	struct acpi_mem_affinity mem[ACPI_MAX_MEM];
	int nr_mem;
	uint8_t distance[MAX_NODES][MAX_NODES];
	/* MCFG */
	struct acpi_mcfg mcfg[ACPI_MAX_MCFG];
	int nr_mcfg;
	/* FADT: power off (S5) and reset */
	uint32_t pm1a_cnt, pm1b_cnt;
	uint16_t slp_typa, slp_typb;
	bool has_s5;
	uint8_t reset_space; /* GAS address space: 0 memory, 1 I/O */
	uint64_t reset_addr;
	uint8_t reset_value;
	bool has_reset;
	uint32_t smi_cmd;
	uint8_t acpi_enable;
	/* PCI host bridges from the DSDT and SSDTs, in table order */
	struct acpi_host_bridge bridges[ACPI_MAX_BRIDGES];
	int nr_bridges;
	struct aml_scan_stats aml; /* summed over the tables scanned */
	/* HPET (memory-mapped event timer), 0 if none */
	uint64_t hpet_base;
	/* where the tables are, to keep them out of the page allocator */
	struct {
		uint64_t start, end;
	} tables[ACPI_MAX_TABLES];
	int nr_tables;
	char table_names[ACPI_MAX_TABLES][5];
};

extern struct acpi_info acpi;

/*
 * acpi_init - find the RSDP (rsdp_hint from the boot loader, else the BIOS
 * areas) and parse the tables into acpi. Boot CPU, once, after paging can
 * map. Without ACPI or without a MADT, acpi describes one CPU (the boot
 * CPU) and one node; without SRAT, one node holding all memory. Then it
 * tells the memory map (kernel/memmap.h) each SRAT memory range's node
 * and where the tables are, to keep them out of the page allocator.
 */
void acpi_init(uint64_t rsdp_hint);

/*
 * acpi_domain_node - the node id of proximity domain dom (SRAT's), or -1
 * when SRAT does not list it. Any context after acpi_init.
 */
int acpi_domain_node(uint32_t dom);

/*
 * acpi_pci_bus_node - the NUMA node of PCI bus bus on segment 0, as the
 * firmware reports it: the _PXM of the host bridge the bus sits behind.
 * Which bridge that is, is a heuristic: the one with the largest _BBN at
 * or below bus (a bridge's real bus range is its _CRS, which the scanner
 * does not read; QEMU's expander bridges and PC firmware number the buses
 * behind a bridge upward from its _BBN). A bridge without a constant
 * _PXM, a _PXM that SRAT does not list, no bridge at all, or no SRAT:
 * node 0. *bridge (may be NULL) gets the bridge used, or NULL.
 * Any context after acpi_init.
 */
int acpi_pci_bus_node(int bus, const struct acpi_host_bridge **bridge);

#endif
