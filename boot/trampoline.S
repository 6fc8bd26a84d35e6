/*
 * Application-processor trampoline. kernel/smp.c copies the bytes between
 * trampoline_start and trampoline_end to TRAMPOLINE_PHYS (below 1 MiB,
 * page aligned), fills in the parameter block at the end, and sends
 * INIT-SIPI-SIPI with vector TRAMPOLINE_PHYS >> 12. The AP wakes in real
 * mode at CS:IP = (vector << 8):0, goes straight to long mode (PE and PG
 * together, which the architecture allows) on the kernel's page tables, and
 * jumps to the C entry point on its own stack.
 *
 * One parameter block serves every AP in turn, so an AP must make sure the
 * block is meant for it before it takes the stack in it: an AP that wakes
 * late, after the boot CPU gave up on it and moved on, would otherwise run
 * on the next CPU's stack with the next CPU's id. So, before touching any
 * stack, the AP (1) reads the ticket, non-zero while a start is open, (2)
 * compares its own APIC id (CPUID leaf 0xB, or leaf 1 on CPUs without it)
 * with the one the start is for, (3) reads stack, entry and cpu id, and (4)
 * claims the start by swapping the ticket, still unchanged, for 0 (lock
 * cmpxchg). The boot CPU writes the block only while the ticket is 0 and
 * gives up on an AP by swapping the ticket for 0 itself, and tickets never
 * repeat; so exactly one of them wins, and an AP that claims has read the
 * values of its own start. An AP that fails any step counts itself in
 * tr_parked and halts, with interrupts off, without a stack.
 */
#include "kernel/trampoline.h"

#define TR(sym) (TRAMPOLINE_PHYS + (sym) - trampoline_start)

	.section .rodata
	.code16
	.global trampoline_start, trampoline_end
trampoline_start:
	cli
	cld
	movw %cs, %ax
	movw %ax, %ds
	lgdtl tr_gdt_ptr - trampoline_start
	movl tr_cr3 - trampoline_start, %eax
	movl %eax, %cr3
	movl %cr4, %eax
	orl $((1 << 5) | (1 << 7) | (1 << 9) | (1 << 10)), %eax
	movl %eax, %cr4
	movl $0xC0000080, %ecx
	rdmsr
	orl $(1 << 8), %eax
	wrmsr
	movl %cr0, %eax
	orl $((1 << 31) | (1 << 16) | 1), %eax
	movl %eax, %cr0
	ljmpl $0x08, $TR(tr_long)

	.code64
tr_long:
	movw $0x10, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	/* (1) an open start? (x86 keeps loads in order: the values read
	 * below are at least as new as this ticket) */
	movq TR(tr_ticket), %rsi
	testq %rsi, %rsi
	jz tr_park
	/* (2) our APIC id into r11d: x2APIC id from leaf 0xB when the CPU
	 * has it, else the initial APIC id from leaf 1 */
	xorl %eax, %eax
	cpuid
	cmpl $0xb, %eax
	jb 2f
	movl $0xb, %eax
	xorl %ecx, %ecx
	cpuid
	testl %ebx, %ebx
	jz 2f
	movl %edx, %r11d
	jmp 3f
2:	movl $1, %eax
	cpuid
	shrl $24, %ebx
	movl %ebx, %r11d
3:	cmpl TR(tr_apic_id), %r11d
	jne tr_park
	/* (3) what the start gives us */
	movq TR(tr_stack), %r8
	movq TR(tr_entry), %r9
	movq TR(tr_cpu_id), %rdi
	/* (4) claim it: the ticket must still be the one we read */
	movq %rsi, %rax
	xorl %ecx, %ecx
	lock cmpxchgq %rcx, TR(tr_ticket)
	jne tr_park
	movq %r8, %rsp
	xorq %rbp, %rbp
	call *%r9		/* entry(cpu_id) */
1:	cli
	hlt
	jmp 1b
tr_park:
	lock incl TR(tr_parked)
4:	cli
	hlt
	jmp 4b

	.align 16
tr_gdt:
	.quad 0
	.quad 0x00AF9A000000FFFF
	.quad 0x00CF92000000FFFF
tr_gdt_ptr:
	.word 23
	.long TR(tr_gdt)
	.align 8
	.global trampoline_params
trampoline_params:
tr_cr3:
	.quad 0
tr_stack:
	.quad 0
tr_entry:
	.quad 0
tr_ticket:
	.quad 0
tr_cpu_id:
	.quad 0
tr_apic_id:
	.long 0
tr_parked:
	.long 0
trampoline_end:
