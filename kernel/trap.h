/*
 * Interrupts and exceptions: the IDT, the register frame every entry stub
 * saves (boot/isr.S, kernel/trap_frame.h), the dispatcher and the
 * exception reports. Which handler runs for which vector is
 * kernel/vector.h.
 */
#ifndef KERNEL_TRAP_H
#define KERNEL_TRAP_H

#include "kernel/trap_frame.h"

/* Builds the IDT (boot CPU, once) and loads it (every CPU). */
void idt_init(void);
void idt_load(void);

#endif
