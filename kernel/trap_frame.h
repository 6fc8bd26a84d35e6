/*
 * The registers every interrupt entry stub saves (boot/isr.S), in the
 * order they lie on the stack: what trap_dispatch (kernel/trap.c), the
 * exception reports and the profiler's sample (kernel/profile.c) read.
 */
#ifndef KERNEL_TRAP_FRAME_H
#define KERNEL_TRAP_FRAME_H

#include <stdint.h>

struct trap_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error;
	uint64_t rip, cs, rflags, rsp, ss; /* pushed by the CPU */
};

#endif
