/*
 * Interrupts and exceptions: the IDT, the register frame every entry stub
 * saves (boot/isr.S), exception reports, and the vector table drivers
 * register interrupt handlers in.
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

/* Fixed vectors. Device vectors come from irq_alloc_vector (kernel/irq.h). */
#define VEC_TIMER	 0x20
#define VEC_WAKE	 0x21 /* IPI: leave hlt and poll again */
#define VEC_CALL	 0x22 /* IPI: run the queued smp_call function */
#define VEC_STOP	 0x23 /* IPI: another CPU panicked; stop here */
#define VEC_DEVICE_FIRST 0x30
#define VEC_DEVICE_LAST	 0xDF
#define VEC_PIC_BASE	 0xE0 /* the masked 8259s, remapped out of the way */
#define VEC_SPURIOUS	 0xFF

typedef void (*irq_handler_t)(void *arg);

/* Builds the IDT (boot CPU, once) and loads it (every CPU). */
void idt_init(void);
void idt_load(void);

/* Installs fn for vector; the dispatcher sends the LAPIC EOI afterwards.
 * Boot code only (no lock): drivers use irq_alloc_vector. */
void trap_set_handler(int vector, irq_handler_t fn, void *arg);

/*
 * Prints a frame-pointer backtrace starting at rbp (at most 16 frames,
 * stopping at the first frame pointer outside the kernel's memory).
 */
void backtrace_print(uint64_t rbp);

/*
 * panic - print "panic: " and the message, the CPU and a backtrace, stop
 * the other CPUs, then halt (or exit QEMU with the failure status when
 * exit_after_boot=1). Any context. Never returns.
 */
__attribute__((noreturn, format(printf, 1, 2))) void panic(const char *fmt,
							   ...);

#endif
