/*
 * Local APIC (xAPIC through MMIO, x2APIC through MSRs when the CPU offers
 * it) and the IOAPICs. The legacy 8259 PICs are remapped and masked.
 */
#ifndef KERNEL_APIC_H
#define KERNEL_APIC_H

#include <stdbool.h>
#include <stdint.h>

/* Boot CPU: mask the PICs, pick xAPIC/x2APIC, enable the local APIC,
 * mask every IOAPIC entry. After acpi_init. */
void apic_init_bsp(void);
/* Every other CPU: enable its local APIC in the mode the boot CPU chose. */
void lapic_init_ap(void);

uint32_t lapic_id(void);
bool lapic_x2apic(void);
void lapic_eoi(void);
/* Fixed-delivery IPI of vector to one CPU by APIC id. Any context. */
void lapic_send_ipi(uint32_t apic_id, int vector);
/* Same, to every CPU but this one. */
void lapic_broadcast_ipi(int vector);
/* An NMI to one CPU by APIC id. Any context, NMI handlers too. */
void lapic_send_nmi(uint32_t apic_id);
/* INIT and STARTUP IPIs for SMP bring-up (kernel/smp.c). */
void lapic_send_init(uint32_t apic_id);
void lapic_send_sipi(uint32_t apic_id, uint8_t page);

/* LAPIC timer: periodic, vector, initial count, divide by 16. */
void lapic_timer_periodic(int vector, uint32_t count);
/* LAPIC timer, one interrupt: after count timer counts (divide by 16), or
 * when the TSC reaches tsc (TSC-deadline mode: only where CPUID.1:ECX
 * bit 24 says so). Either replaces the periodic mode. */
void lapic_timer_oneshot(int vector, uint32_t count);
void lapic_timer_tsc_deadline(int vector, uint64_t tsc);
/* One-shot measurement helpers for calibration. */
void lapic_timer_start_count(void);
uint32_t lapic_timer_elapsed(void);

/* IOAPIC redirection: route GSI gsi to vector on the CPU with apic_id.
 * flags are MPS INTI flags (0 = bus default: ISA edge/high). */
int ioapic_route(uint32_t gsi, int vector, uint32_t apic_id, uint16_t flags,
		 bool level_default);
void ioapic_mask(uint32_t gsi);

#endif
