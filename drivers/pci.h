/*
 * PCI: enumerate every function once at boot, decode its BARs and
 * capabilities, and let drivers find devices by id.
 *
 * Configuration space is reached through ECAM (the memory windows ACPI's
 * MCFG describes, one or more per PCI segment group: 4 KiB per function)
 * when there are any, otherwise through the legacy 0xCF8/0xCFC port pair
 * (segment 0 only, 256 bytes per function). The table of functions grows
 * with what is found: no limit but memory.
 */
#ifndef DRIVERS_PCI_H
#define DRIVERS_PCI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drivers/drv_port.h"

#define PCI_CAP_MSI    0x05
#define PCI_CAP_VENDOR 0x09
#define PCI_CAP_MSIX   0x11

struct pci_bar {
	uint64_t addr; /* bus address (memory) or port number (I/O) */
	uint64_t size; /* 0: BAR not implemented */
	bool io;
	bool is64;
	bool prefetch;
};

struct pci_dev {
	uint16_t segment; /* PCI segment group (MCFG), 0 on most PCs */
	uint8_t bus, dev, fn;
	volatile uint8_t *cfg; /* its 4 KiB of ECAM; NULL: legacy ports */
	uint16_t vendor, device;
	uint16_t subsys_vendor, subsys_id;
	uint8_t class_code, subclass, prog_if, revision;
	uint8_t irq_line;
	uint8_t cap_msi, cap_msix; /* config offsets, 0 when absent */
	int node; /* NUMA node of its host bridge (firmware), 0 if unknown */
	struct pci_bar bar[6];
};

/**
 * pci_init - enumerate every bus of every ECAM window (or, without one,
 * buses 0-255 through the legacy ports) and print one line per function
 * found ("ssss:" in front of the bus on a segment other than 0).
 * Context: boot CPU, once, after ACPI, MMIO mapping and kmalloc are up.
 * Return: the number of functions found (0 when config space is absent).
 */
int pci_init(void);

/* Which access method pci_init() chose: "ecam" or "legacy". */
const char *pci_method(void);

int pci_count(void);
struct pci_dev *pci_get(int i);

/* The idx-th device with this vendor and device id, or NULL. */
struct pci_dev *pci_find(uint16_t vendor, uint16_t device, int idx);

uint8_t pci_read8(const struct pci_dev *d, unsigned int off);
uint16_t pci_read16(const struct pci_dev *d, unsigned int off);
uint32_t pci_read32(const struct pci_dev *d, unsigned int off);
void pci_write16(const struct pci_dev *d, unsigned int off, uint16_t v);
void pci_write32(const struct pci_dev *d, unsigned int off, uint32_t v);

/**
 * pci_enable - turn on memory and I/O decoding and bus mastering (DMA).
 * Context: boot, before the driver touches BARs or queues buffers.
 */
void pci_enable(struct pci_dev *d);

/**
 * pci_disable_master - turn bus mastering off: the function can no longer
 * read or write memory (DMA), whatever its own registers still say. For
 * a device no driver keeps (refused, or past a limit), so a ring that
 * firmware or a half-done set-up left live cannot write into memory the
 * allocator hands out again. Context: boot.
 */
void pci_disable_master(const struct pci_dev *d);

/**
 * pci_next_cap - walk the capability list.
 * @d: device; @id: capability id wanted; @after: 0 to start, else the
 * offset returned by the previous call.
 * Return: the config-space offset of the next capability with that id, or
 * 0 when there is none.
 */
unsigned int pci_next_cap(const struct pci_dev *d, uint8_t id,
			  unsigned int after);

/**
 * pci_map_bar - map a memory BAR and return its virtual address, or NULL
 * when the BAR is absent, is an I/O BAR, or cannot be mapped.
 */
volatile void *pci_map_bar(const struct pci_dev *d, int bar);

/* ---- interrupts (pci_msi.c) ---- */

/* Bytes per MSI-X table entry: address low, high, data, vector control. */
#define PCI_MSIX_ENTRY 16

/* Set the command register's interrupt-disable bit: INTx stays quiet. */
void pci_intx_disable(const struct pci_dev *d);
/* Clear it: the function may assert its INTx pin again (the way back
 * when MSI or MSI-X could not be set up after all). */
void pci_intx_enable(const struct pci_dev *d);

/**
 * pci_msi_enable - program the MSI capability with one message and turn
 * MSI on (and INTx off). Context: boot.
 * Return: 0, or -1 when the function has no MSI (or only 32-bit
 * addresses and @addr is above 4 GiB).
 */
int pci_msi_enable(const struct pci_dev *d, uint64_t addr, uint32_t data);

/* Entries of the function's MSI-X table, 0 without MSI-X. */
int pci_msix_size(const struct pci_dev *d);

/**
 * pci_msix_map - map the MSI-X table. Return: the table, or NULL when
 * there is none or the device puts it outside its BAR (reported).
 */
volatile uint32_t *pci_msix_map(const struct pci_dev *d);

/* Write entry's message and unmask it (masked while it changes). The
 * caller checks entry < pci_msix_size(). */
void pci_msix_entry_set(volatile uint32_t *table, int entry, uint64_t addr,
			uint32_t data);

/* A vector of its own for fn(arg) on @cpu, its message written into
 * entry of table and unmasked. Boot. Returns the vector, or -1 (the entry
 * then stays as it was). */
static inline int pci_msix_vector(volatile uint32_t *table, int entry, int cpu,
				  drv_irq_fn fn, void *arg)
{
	uint64_t addr;
	uint32_t data;
	int v = drv_irq_msi(cpu, fn, arg, &addr, &data);

	if (v >= 0)
		pci_msix_entry_set(table, entry, addr, data);
	return v;
}

/* Turn MSI-X on with the function mask clear (and INTx off). Entries not
 * set stay masked as reset left them. Context: boot. */
void pci_msix_enable(const struct pci_dev *d);

/* Turn MSI-X off again (function mask set): the function falls back to
 * its INTx pin, which the caller turns on with pci_intx_enable(). */
void pci_msix_disable(const struct pci_dev *d);

/* The device list as JSON (array of "bb:dd.f vvvv:dddd" strings, with
 * "ssss:" in front on a segment other than 0), and its description
 * (libc/stat_table.h). snprintf semantics. */
int pci_json(char *buf, size_t size);
struct stat_schema;
extern const struct stat_schema pci_schema;

#endif /* DRIVERS_PCI_H */
