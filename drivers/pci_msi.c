/*
 * Message-signalled interrupts (PCI 3.0 chapter 6.8). Instead of a
 * shared level-triggered pin, the function writes a 32-bit data word to
 * an address; on x86 the address names a CPU's local APIC and the data
 * the vector (kernel/irq.h builds both), so each interrupt goes straight
 * to the CPU that polls the queue and needs no cause register read.
 *
 * MSI: one message, in the capability itself (address, data, an enable
 * bit). MSI-X: a table of 16-byte entries (address low/high, data, vector
 * control with a per-entry mask bit) in one of the function's memory BARs,
 * so a multiqueue NIC gives each queue its own vector. Both turn the INTx
 * pin off (the command register's interrupt-disable bit, so a device that
 * would still assert it cannot storm a line nobody handles).
 */
#include "pci.h"

#include "drv_port.h"

#define PCI_COMMAND	     0x04
#define PCI_CMD_INTX_DISABLE (1u << 10)

#define MSI_CTRL     2
#define MSI_CTRL_EN  (1u << 0)
#define MSI_CTRL_MME (7u << 4) /* multiple message enable: we use one */
#define MSI_CTRL_64  (1u << 7)
#define MSI_ADDR_LO  4
#define MSI_ADDR_HI  8
#define MSI_DATA_32  8
#define MSI_DATA_64  12

#define MSIX_CTRL      2
#define MSIX_CTRL_SIZE 0x7ffu
#define MSIX_CTRL_MASK (1u << 14) /* function mask: every entry */
#define MSIX_CTRL_EN   (1u << 15)
#define MSIX_TABLE     4 /* offset in BAR | BIR (bits 0-2) */

void pci_intx_disable(const struct pci_dev *d)
{
	pci_write16(
		d, PCI_COMMAND,
		(uint16_t)(pci_read16(d, PCI_COMMAND) | PCI_CMD_INTX_DISABLE));
}

void pci_intx_enable(const struct pci_dev *d)
{
	pci_write16(
		d, PCI_COMMAND,
		(uint16_t)(pci_read16(d, PCI_COMMAND) & ~PCI_CMD_INTX_DISABLE));
}

int pci_msi_enable(const struct pci_dev *d, uint64_t addr, uint32_t data)
{
	unsigned int c = d->cap_msi;
	uint16_t ctrl;

	if (!c)
		return -1;
	ctrl = pci_read16(d, c + MSI_CTRL);
	if (!(ctrl & MSI_CTRL_64) && (addr >> 32))
		return -1;
	pci_write32(d, c + MSI_ADDR_LO, (uint32_t)addr);
	if (ctrl & MSI_CTRL_64) {
		pci_write32(d, c + MSI_ADDR_HI, (uint32_t)(addr >> 32));
		pci_write16(d, c + MSI_DATA_64, (uint16_t)data);
	} else {
		pci_write16(d, c + MSI_DATA_32, (uint16_t)data);
	}
	pci_intx_disable(d);
	pci_write16(d, c + MSI_CTRL,
		    (uint16_t)((ctrl & ~MSI_CTRL_MME) | MSI_CTRL_EN));
	return 0;
}

int pci_msix_size(const struct pci_dev *d)
{
	if (!d->cap_msix)
		return 0;
	return (int)(pci_read16(d, d->cap_msix + MSIX_CTRL) & MSIX_CTRL_SIZE) +
	       1;
}

volatile uint32_t *pci_msix_map(const struct pci_dev *d)
{
	uint32_t t;
	unsigned int bir;
	uint64_t off, len = (uint64_t)pci_msix_size(d) * PCI_MSIX_ENTRY;
	volatile uint8_t *base;

	if (!len)
		return NULL;
	t = pci_read32(d, d->cap_msix + MSIX_TABLE);
	bir = t & 7;
	off = t & ~7u;
	/* The device says where its table is: it must lie inside a memory
	 * BAR it has, or writing an entry would land anywhere. */
	if (bir > 5 || !d->bar[bir].size || d->bar[bir].io ||
	    off + len > d->bar[bir].size) {
		drv_printf("pci: %02x:%02x.%x MSI-X table BAR%u+0x%llx does "
			   "not fit its BAR, not used\n",
			   d->bus, d->dev, d->fn, bir, (unsigned long long)off);
		return NULL;
	}
	base = pci_map_bar(d, (int)bir);
	return base ? (volatile uint32_t *)(base + off) : NULL;
}

void pci_msix_entry_set(volatile uint32_t *table, int entry, uint64_t addr,
			uint32_t data)
{
	volatile uint32_t *e = table + (unsigned int)entry * PCI_MSIX_ENTRY / 4;

	e[3] = 1; /* masked while the message changes */
	e[0] = (uint32_t)addr;
	e[1] = (uint32_t)(addr >> 32);
	e[2] = data;
	e[3] = 0;
}

void pci_msix_disable(const struct pci_dev *d)
{
	uint16_t ctrl = pci_read16(d, d->cap_msix + MSIX_CTRL);

	pci_write16(d, d->cap_msix + MSIX_CTRL,
		    (uint16_t)((ctrl & ~MSIX_CTRL_EN) | MSIX_CTRL_MASK));
}

void pci_msix_enable(const struct pci_dev *d)
{
	uint16_t ctrl = pci_read16(d, d->cap_msix + MSIX_CTRL);

	pci_intx_disable(d);
	pci_write16(d, d->cap_msix + MSIX_CTRL,
		    (uint16_t)((ctrl & ~MSIX_CTRL_MASK) | MSIX_CTRL_EN));
}
