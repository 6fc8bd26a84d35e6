/*
 * Application-processor trampoline. kernel/smp.c copies the bytes between
 * trampoline_start and trampoline_end to TRAMPOLINE_PHYS (below 1 MiB,
 * page aligned), fills in the parameter block at the end, and sends
 * INIT-SIPI-SIPI with vector TRAMPOLINE_PHYS >> 12. The AP wakes in real
 * mode at CS:IP = (vector << 8):0, goes straight to long mode (PE and PG
 * together, which the architecture allows) on the kernel's page tables, and
 * jumps to the C entry point on its own stack.
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
	movq TR(tr_stack), %rsp
	xorq %rbp, %rbp
	movq TR(tr_entry), %rax
	call *%rax
1:	cli
	hlt
	jmp 1b

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
trampoline_end:
