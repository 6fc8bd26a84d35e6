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
 * irq_msi_message - the MSI/MSI-X address and data that deliver vector to
 * cpu (fixed delivery, edge, physical destination). Returns 0, or -1 for
 * a bad cpu or vector.
 */
int irq_msi_message(int vector, int cpu, uint64_t *addr, uint32_t *data);

/*
 * irq_route_isa - route legacy ISA interrupt irq (0-15) through the
 * IOAPIC to vector on cpu, honouring the MADT's interrupt source
 * overrides (e.g. the PIT's IRQ 0 on GSI 2). Returns 0 or -1.
 */
int irq_route_isa(int irq, int vector, int cpu);

/*
 * irq_route_gsi - route a PCI INTx GSI (level-triggered, active low by
 * default) to vector on cpu. Returns 0, or -1 when no IOAPIC serves gsi.
 */
int irq_route_gsi(uint32_t gsi, int vector, int cpu);

/* irq_mask_isa - stop delivering legacy ISA interrupt irq (0-15). */
void irq_mask_isa(int irq);

#endif
