/* GDT with one TSS per CPU, and the IST stacks the TSS points at. */
#ifndef KERNEL_GDT_H
#define KERNEL_GDT_H

#include <stdint.h>

#define KERNEL_CS 0x08
#define KERNEL_DS 0x10

/* IST slots: double fault, NMI and machine check get known-good stacks. */
#define IST_DOUBLE_FAULT 1
#define IST_NMI		 2
#define IST_MCE		 3

/* Loads the kernel GDT and this CPU's TSS. Each CPU calls it once.
 * ist_base: 3 * IST_STACK_SIZE bytes for this CPU's IST stacks (16-byte
 * aligned), or 0 for the boot CPU's, which the image holds. */
void gdt_init_cpu(int cpu, uintptr_t ist_base);

#endif
