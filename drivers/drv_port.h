/*
 * What the drivers need from the kernel, in one place: console output,
 * the millisecond clock, MMIO mapping, the ECAM window from ACPI's MCFG,
 * x86 port I/O and DMA addresses. drivers/drv_port.c implements the
 * functions on top of kernel/. This header (for kernel/arch.h's port I/O
 * inlines) and drv_port.c are the only files of drivers/ that include
 * kernel/; tools/check-layers holds it so. A host test that compiles a
 * driver provides its own drv_printf, drv_clock_ms, ... instead.
 */
#ifndef DRIVERS_DRV_PORT_H
#define DRIVERS_DRV_PORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* x86 port I/O (inb/outb/inw/outw/inl/outl): the kernel's own inlines. */
#include "kernel/arch.h"

__attribute__((format(printf, 1, 2))) void drv_printf(const char *fmt, ...);

/* Monotonic milliseconds since boot. */
uint64_t drv_clock_ms(void);

/* Map size bytes of device memory at physical address phys, uncached.
 * Returns the virtual address, or NULL when it cannot be mapped. */
void *drv_map_mmio(uint64_t phys, size_t size);

/* One ECAM window (ACPI's MCFG): the configuration space of buses
 * bus_start..bus_end of PCI segment group segment, 1 MiB per bus. base is
 * where bus 0 of the segment would be, even when the window starts at a
 * later bus. */
struct drv_ecam {
	uint64_t base;
	uint16_t segment;
	uint8_t bus_start, bus_end;
};

/* Every ECAM window the firmware lists, at most max of them into out.
 * Returns how many it wrote; 0: none (legacy config ports only). */
int drv_ecam_windows(struct drv_ecam *out, int max);

/* The NUMA node of PCI bus bus of segment seg as the firmware reports it
 * (ACPI: the _PXM of the host bridge behind which the bus sits); 0 when
 * it does not say. */
int drv_pci_bus_node(int seg, int bus);

/* CPUs started: a multiqueue NIC's boot report says which own no queue. */
int drv_nr_cpus(void);

/*
 * Interrupts. A handler runs in interrupt context on the CPU the
 * interrupt is delivered to, with interrupts masked: it reads and
 * acknowledges the device's cause, masks the queue's interrupt, calls
 * drv_irq_wake() for the queue's CPU and returns (no allocation, no
 * stack work: that is the poller's, in poll context).
 */
typedef void (*drv_irq_fn)(void *arg);

/* Join PCI interrupt line @line (shared, level-triggered) delivered to
 * @cpu: fn runs on each of the line's interrupts and must check its own
 * device. Boot. Returns the vector, or -1 (reported). */
int drv_irq_line(uint8_t line, int cpu, drv_irq_fn fn, void *arg);

/* A vector of its own for fn on @cpu, and the MSI/MSI-X message that
 * delivers it there. Boot. Returns the vector, or -1. */
int drv_irq_msi(int cpu, drv_irq_fn fn, void *arg, uint64_t *addr,
		uint32_t *data);

/* Give back a vector from drv_irq_msi() that will not be used after
 * all (a set-up that failed half-way). Boot. */
void drv_irq_free(int vector);

/* Make @cpu run its poll loop's next round (kernel/poll.h poll_wake).
 * Any context. */
void drv_irq_wake(int cpu);

/* RAM is identity-mapped (mm/platform.h): a buffer's address is its DMA
 * address. Kept as a function so an IOMMU or offset mapping has one home. */
static inline uint64_t drv_dma_addr(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

/* MMIO accessors: volatile so the compiler neither merges nor reorders
 * them against each other. x86 keeps uncached accesses in program order. */
static inline uint8_t mmio_read8(const volatile void *a)
{
	return *(const volatile uint8_t *)a;
}
static inline uint16_t mmio_read16(const volatile void *a)
{
	return *(const volatile uint16_t *)a;
}
static inline uint32_t mmio_read32(const volatile void *a)
{
	return *(const volatile uint32_t *)a;
}
static inline void mmio_write8(volatile void *a, uint8_t v)
{
	*(volatile uint8_t *)a = v;
}
static inline void mmio_write16(volatile void *a, uint16_t v)
{
	*(volatile uint16_t *)a = v;
}
static inline void mmio_write32(volatile void *a, uint32_t v)
{
	*(volatile uint32_t *)a = v;
}
/* 64-bit registers written as two halves, low first (the virtio spec
 * allows drivers to do this for queue addresses). */
static inline void mmio_write64(volatile void *a, uint64_t v)
{
	mmio_write32(a, (uint32_t)v);
	mmio_write32((volatile uint8_t *)a + 4, (uint32_t)(v >> 32));
}

#endif /* DRIVERS_DRV_PORT_H */
