/*
 * Interrupt registration for drivers. Handlers run in interrupt context
 * with interrupts masked: acknowledge the device, wake a poller
 * (poll_wake), return. The LAPIC EOI is sent by the dispatcher.
 */
#ifndef KERNEL_IRQ_H
#define KERNEL_IRQ_H

#include <stdint.h>
#include "kernel/vector.h"

/*
 * irq_alloc_vector - reserve a free vector (VEC_DEVICE_FIRST..LAST) and
 * install fn(arg) for it. Any CPU, not from interrupt context. Returns the
 * vector, or -1 when all are taken (reported).
 */
int irq_alloc_vector(irq_handler_t fn, void *arg);

/* irq_free_vector - release a vector from irq_alloc_vector. */
void irq_free_vector(int vector);

/*
 * irq_delivery_init - decide, for every started CPU, where its device
 * interrupts arrive: on itself when its APIC id fits the 8 bits an IOAPIC
 * entry or an MSI has for it (0-254), else on the first CPU of its node
 * whose id does (no interrupt remapping: kernel/apic.c). Prints one line
 * when some CPU's interrupts go elsewhere. Boot CPU, after smp_boot_aps.
 */
void irq_delivery_init(void);

/*
 * irq_delivery_cpu - the CPU that takes the device interrupts meant for
 * cpu (itself, or the one irq_delivery_init chose). A handler that must
 * run its poller on cpu wakes it with poll_wake(cpu), as usual. Any
 * context.
 */
int irq_delivery_cpu(int cpu);

/*
 * irq_msi_message - the MSI/MSI-X address and data that deliver vector to
 * cpu, or to irq_delivery_cpu(cpu) (fixed delivery, edge, physical
 * destination). Returns 0, or -1 for a bad cpu or vector, or when no
 * started CPU has an APIC id an MSI can name.
 */
int irq_msi_message(int vector, int cpu, uint64_t *addr, uint32_t *data);

/*
 * irq_route_isa - route legacy ISA interrupt irq (0-15) through the
 * IOAPIC to vector on cpu (or irq_delivery_cpu(cpu)), honouring the MADT's interrupt source
 * overrides (e.g. the PIT's IRQ 0 on GSI 2). Returns 0 or -1.
 */
int irq_route_isa(int irq, int vector, int cpu);

/*
 * irq_route_gsi - route a PCI INTx GSI (level-triggered, active low by
 * default) to vector on cpu. Returns 0, or -1 when no IOAPIC serves gsi.
 */
int irq_route_gsi(uint32_t gsi, int vector, int cpu);

/*
 * irq_route_pci_line - route a PCI function's INTx, named by its
 * Interrupt Line register (the ISA IRQ the firmware gave its link, or a
 * GSI above 15), level-triggered, through the IOAPIC to vector on cpu.
 * The MADT's interrupt source overrides decide the GSI and polarity.
 * Returns 0, or -1 (no line, bad cpu, no IOAPIC serves it).
 */
int irq_route_pci_line(uint8_t line, int vector, int cpu);

/*
 * irq_request_line - add fn(arg) to the handlers of PCI interrupt line
 * @line (shared: every handler of the line runs on each interrupt and
 * must check its own device's cause register). The first request routes
 * the line to a new vector on @cpu; later ones join it (and its CPU).
 * Boot, not from interrupt context. Returns the line's vector, or -1.
 */
int irq_request_line(uint8_t line, int cpu, irq_handler_t fn, void *arg);

/* irq_mask_isa - stop delivering legacy ISA interrupt irq (0-15). */
void irq_mask_isa(int irq);

#endif
