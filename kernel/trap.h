/*
 * Interrupts and exceptions: the IDT, the register frame every entry stub
 * saves (boot/isr.S), the dispatcher and the exception reports. Which
 * handler runs for which vector is kernel/vector.h.
 */
#ifndef KERNEL_TRAP_H
#define KERNEL_TRAP_H

#include <stdint.h>

struct trap_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error;
	uint64_t rip, cs, rflags, rsp, ss; /* pushed by the CPU */
};

/* Builds the IDT (boot CPU, once) and loads it (every CPU). */
void idt_init(void);
void idt_load(void);

#endif
