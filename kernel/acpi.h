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
/* SRAT memory ranges: a few per node (PC firmware splits node 0 around
 * the legacy and PCI holes); more are counted and their memory stays on
 * node 0, said in the boot report. */
#define ACPI_MAX_MEM	 (4 * MAX_NODES)
#define ACPI_MAX_MCFG	 16
#define ACPI_MAX_TABLES	 32
#define ACPI_MAX_BRIDGES 16
/* Proximity domains SRAT may list (SLIT's matrix has at most 256 rows
 * here); the first MAX_NODES are nodes, the rest are folded into them. */
#define ACPI_MAX_DOMAINS 256

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

/*
 * A proximity domain SRAT lists, and the node it became: the lowest
 * MAX_NODES domains are nodes 0.. in domain order; a domain beyond them
 * is folded into the node nearest to it by SLIT distance, its CPUs and
 * memory with it (kernel/acpi_numa.c says why).
 */
struct acpi_domain {
	uint32_t pxm;
	int node;
	bool folded;	  /* a domain beyond MAX_NODES, joined to node */
	uint8_t distance; /* SLIT distance to node when folded; 0: none */
	uint64_t bytes;	  /* memory SRAT gives the domain */
	int cpus;	  /* MADT CPUs SRAT puts in it */
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
	/* MADT (or, without one, the MP table: kernel/mptable_boot.c) */
	bool has_madt;
	uint64_t lapic_base;
	int nr_cpus; /* enabled CPUs, in the firmware's order */
	uint32_t apic_ids[MAX_FW_CPUS];
	int nr_cpus_skipped; /* beyond MAX_FW_CPUS */
	struct acpi_ioapic ioapics[ACPI_MAX_IOAPICS];
	int nr_ioapics;
	struct acpi_iso isos[ACPI_MAX_ISOS];
	int nr_isos;
	bool pic_present; /* MADT flag PCAT_COMPAT: 8259s to mask */
	/* SRAT, SLIT (kernel/acpi_numa.c): node ids are 0..nr_nodes-1 in
	 * proximity domain order */
	const void *srat, *slit; /* the tables, NULL when absent */
	bool has_srat, has_slit;
	int nr_nodes;
	struct acpi_domain domains[ACPI_MAX_DOMAINS]; /* ascending pxm */
	int nr_domains;		   /* nodes first, then the folded ones */
	int cpu_node[MAX_FW_CPUS]; /* by index into apic_ids */
	struct acpi_mem_affinity mem[ACPI_MAX_MEM];
	int nr_mem;
	/* SRAT entries past ACPI_MAX_DOMAINS or ACPI_MAX_MEM: their CPUs
	 * and memory stay on node 0 (reported) */
	int srat_entries_lost;
	uint8_t distance[MAX_NODES][MAX_NODES];
	/* MCFG */
	struct acpi_mcfg mcfg[ACPI_MAX_MCFG];
	int nr_mcfg;
	int nr_mcfg_dropped; /* windows past ACPI_MAX_MCFG: not scanned */
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
 * areas) and parse the tables into acpi; with acpi=off, none. Without a
 * MADT (has_madt false), acpi describes one CPU (the boot CPU) and no
 * IOAPIC, until mptable_init (kernel/mptable.h) fills in what the MP
 * table says. The NUMA nodes are acpi_numa_init's (kernel/acpi_numa.h),
 * from the SRAT and SLIT found here; without SRAT, one node holding all
 * memory. Boot CPU, once, after the command line and once paging can map.
 */
void acpi_init(uint64_t rsdp_hint);

/*
 * acpi_memmap_update - tell the memory map (kernel/memmap.h) each SRAT
 * memory range's node and where the tables are, to keep them out of the
 * page allocator. Boot CPU, once, after acpi_numa_init.
 */
void acpi_memmap_update(void);

#endif
