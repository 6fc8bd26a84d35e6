/*
 * The kernel's interrupt services as the e1000 and e1000e host tests fake
 * them (drivers/drv_port.h, drivers/pci.h), shared so both simulate the
 * same machine. Every request succeeds with the next fixed vector (0x30 for
 * the INTx line, then 0x31, 0x32... for messages) and remembers its handler,
 * so a test fires an interrupt by calling fake_irq_fire(); wakes are
 * counted. The MSI-X table is plain memory of FAKE_MSIX_ENTRIES entries
 * (a test may claim fewer in fake_msix_entries), offered only when the
 * test's pci_dev has cap_msix set.
 *
 * Include once, after the driver sources, from a test that defines nothing
 * of this itself; fake_irq_reset() belongs in its setup.
 */
#ifndef TESTS_HOST_DRIVERS_E1000_IRQ_FAKE_H
#define TESTS_HOST_DRIVERS_E1000_IRQ_FAKE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "drivers/drv_port.h"
#include "drivers/pci.h"

#define FAKE_IRQ_MAX	  8
#define FAKE_MSIX_ENTRIES 5 /* what QEMU's 82574L offers */

static struct fake_irq {
	drv_irq_fn fn;
	void *arg;
	int cpu, vector;
} fake_irqs[FAKE_IRQ_MAX];
static int nfake_irqs;
static int fake_wakes, fake_wake_cpu = -1;
static bool fake_msi_enabled, fake_msix_enabled;
static int fake_msi_fail_after; /* drv_irq_msi fails after this many, +1 */
static int fake_msi_taken, fake_vectors_freed;
static bool fake_msi_refused; /* pci_msi_enable refuses (no 64-bit) */
static int fake_msix_entries = FAKE_MSIX_ENTRIES; /* the table's size */
static uint32_t fake_msix_table[FAKE_MSIX_ENTRIES * PCI_MSIX_ENTRY / 4];

static inline void fake_irq_reset(void)
{
	memset(fake_irqs, 0, sizeof(fake_irqs));
	nfake_irqs = 0;
	fake_wakes = 0;
	fake_wake_cpu = -1;
	fake_msi_enabled = fake_msix_enabled = false;
	fake_msi_fail_after = fake_msi_taken = fake_vectors_freed = 0;
	fake_msi_refused = false;
	fake_msix_entries = FAKE_MSIX_ENTRIES;
	memset(fake_msix_table, 0, sizeof(fake_msix_table));
}

static inline int fake_irq_add(int cpu, drv_irq_fn fn, void *arg, int vector)
{
	if (nfake_irqs == FAKE_IRQ_MAX)
		return -1;
	fake_irqs[nfake_irqs++] = (struct fake_irq){fn, arg, cpu, vector};
	return vector;
}

/* Run the handler of the i-th interrupt given out, as its vector would. */
static inline void fake_irq_fire(int i)
{
	fake_irqs[i].fn(fake_irqs[i].arg);
}

/* The MSI-X entry that carries vector v: the index, or -1 if none. */
static inline int fake_msix_entry_of(int v)
{
	for (int i = 0; i < FAKE_MSIX_ENTRIES; i++)
		if (fake_msix_table[i * 4 + 2] == (uint32_t)v &&
		    fake_msix_table[i * 4] != 0)
			return i;
	return -1;
}

int drv_irq_line(uint8_t line, int cpu, drv_irq_fn fn, void *arg)
{
	(void)line;
	return fake_irq_add(cpu, fn, arg, 0x30);
}

int drv_irq_msi(int cpu, drv_irq_fn fn, void *arg, uint64_t *addr,
		uint32_t *data)
{
	int v = 0x31 + nfake_irqs;

	if (fake_msi_fail_after && fake_msi_taken == fake_msi_fail_after - 1)
		return -1; /* the kernel is out of vectors */
	fake_msi_taken++;
	*addr = 0xFEE00000u | (uint64_t)cpu << 12;
	*data = (uint32_t)v;
	return fake_irq_add(cpu, fn, arg, v);
}

void drv_irq_free(int vector)
{
	(void)vector;
	fake_vectors_freed++;
}

void drv_irq_wake(int cpu)
{
	fake_wakes++;
	fake_wake_cpu = cpu;
}

int pci_msi_enable(const struct pci_dev *d, uint64_t addr, uint32_t data)
{
	(void)addr;
	(void)data;
	if (!d->cap_msi || fake_msi_refused)
		return -1;
	fake_msi_enabled = true;
	return 0;
}

int pci_msix_size(const struct pci_dev *d)
{
	return d->cap_msix ? fake_msix_entries : 0;
}

volatile uint32_t *pci_msix_map(const struct pci_dev *d)
{
	return d->cap_msix ? fake_msix_table : NULL;
}

void pci_msix_entry_set(volatile uint32_t *table, int entry, uint64_t addr,
			uint32_t data)
{
	volatile uint32_t *e = table + (unsigned int)entry * PCI_MSIX_ENTRY / 4;

	e[0] = (uint32_t)addr;
	e[1] = (uint32_t)(addr >> 32);
	e[2] = data;
	e[3] = 0;
}

void pci_msix_enable(const struct pci_dev *d)
{
	(void)d;
	fake_msix_enabled = true;
}

#endif /* TESTS_HOST_DRIVERS_E1000_IRQ_FAKE_H */
