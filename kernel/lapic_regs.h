/*
 * The local APIC's timer registers and its register accessors, shared by
 * kernel/apic.c (which owns the xAPIC/x2APIC choice) and
 * kernel/lapic_timer.c (which programs the timer).
 */
#ifndef KERNEL_LAPIC_REGS_H
#define KERNEL_LAPIC_REGS_H

#include <stdint.h>

#define LAPIC_LVT_TIMER	 0x320
#define LAPIC_TIMER_INIT 0x380
#define LAPIC_TIMER_CUR	 0x390
#define LAPIC_TIMER_DIV	 0x3E0
#define LVT_MASKED	 (1u << 16)
#define LVT_PERIODIC	 (1u << 17)
#define LVT_TSC_DEADLINE (2u << 17)
#define LVT_MODE_MASK	 (3u << 17)
#define LAPIC_DIV_16	 0x3
#define MSR_TSC_DEADLINE 0x6E0

/* Register reg (an xAPIC offset) of this CPU's local APIC, through MMIO or
 * the x2APIC MSR (0x800 + reg / 16), whichever the boot CPU chose. */
uint32_t lapic_read(uint32_t reg);
void lapic_write(uint32_t reg, uint32_t v);
/* The TSC-deadline MSR of this CPU. */
void lapic_write_tsc_deadline(uint64_t tsc);

#endif
