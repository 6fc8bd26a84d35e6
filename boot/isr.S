/*
 * Interrupt entry stubs: one 16-byte stub per vector (the IDT points at
 * isr_stubs + 16 * vector). Each pushes a zero error code where the CPU
 * pushes none, then the vector number, and joins isr_common, which saves
 * the general registers into a struct trap_frame (kernel/trap.h) and calls
 * trap_dispatch(frame).
 */
	.text
	.code64
	.global isr_stubs
	.align 16
isr_stubs:
	.set vec, 0
	.rept 256
	.align 16
	.if (vec == 8) || (vec == 10) || (vec == 11) || (vec == 12) || (vec == 13) || (vec == 14) || (vec == 17) || (vec == 21) || (vec == 29) || (vec == 30)
	.else
	pushq $0
	.endif
	pushq $vec
	jmp isr_common
	.set vec, vec + 1
	.endr

isr_common:
	pushq %rax
	pushq %rbx
	pushq %rcx
	pushq %rdx
	pushq %rsi
	pushq %rdi
	pushq %rbp
	pushq %r8
	pushq %r9
	pushq %r10
	pushq %r11
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	cld
	movq %rsp, %rdi
	call trap_dispatch
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %r11
	popq %r10
	popq %r9
	popq %r8
	popq %rbp
	popq %rdi
	popq %rsi
	popq %rdx
	popq %rcx
	popq %rbx
	popq %rax
	addq $16, %rsp
	iretq
