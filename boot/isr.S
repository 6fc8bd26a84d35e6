/*
 * Interrupt entry stubs: one 16-byte stub per vector (the IDT points at
 * isr_stubs + 16 * vector). Each pushes a zero error code where the CPU
 * pushes none, then the vector number, and joins isr_common, which saves
 * the general registers into a struct trap_frame (kernel/trap.h) and calls
 * trap_dispatch(frame).
 *
 * isr_common carries call frame information (the .cfi_ lines, into
 * .debug_frame, which the image does not load) saying where the
 * interrupted rip, rsp and rbp lie in the frame: a debugger attached to
 * the GDB stub then unwinds from a handler into the interrupted code.
 * It is a signal frame: the saved rip is the next instruction to run,
 * not a return address.
 */
	.text
	.code64
	.cfi_sections .debug_frame
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
	/* the CPU's frame (ss, rsp, rflags, cs, rip), the error code and
	 * the vector are on the stack: the CFA is past ss */
	.cfi_startproc simple
	.cfi_signal_frame
	.cfi_def_cfa %rsp, 56
	.cfi_offset %rip, -40
	.cfi_offset %rsp, -16
	pushq %rax
	.cfi_adjust_cfa_offset 8
	pushq %rbx
	.cfi_adjust_cfa_offset 8
	pushq %rcx
	.cfi_adjust_cfa_offset 8
	pushq %rdx
	.cfi_adjust_cfa_offset 8
	pushq %rsi
	.cfi_adjust_cfa_offset 8
	pushq %rdi
	.cfi_adjust_cfa_offset 8
	pushq %rbp
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset %rbp, 0
	pushq %r8
	.cfi_adjust_cfa_offset 8
	pushq %r9
	.cfi_adjust_cfa_offset 8
	pushq %r10
	.cfi_adjust_cfa_offset 8
	pushq %r11
	.cfi_adjust_cfa_offset 8
	pushq %r12
	.cfi_adjust_cfa_offset 8
	pushq %r13
	.cfi_adjust_cfa_offset 8
	pushq %r14
	.cfi_adjust_cfa_offset 8
	pushq %r15
	.cfi_adjust_cfa_offset 8
	cld
	movq %rsp, %rdi
	call trap_dispatch
	popq %r15
	.cfi_adjust_cfa_offset -8
	popq %r14
	.cfi_adjust_cfa_offset -8
	popq %r13
	.cfi_adjust_cfa_offset -8
	popq %r12
	.cfi_adjust_cfa_offset -8
	popq %r11
	.cfi_adjust_cfa_offset -8
	popq %r10
	.cfi_adjust_cfa_offset -8
	popq %r9
	.cfi_adjust_cfa_offset -8
	popq %r8
	.cfi_adjust_cfa_offset -8
	popq %rbp
	.cfi_adjust_cfa_offset -8
	.cfi_restore %rbp
	popq %rdi
	.cfi_adjust_cfa_offset -8
	popq %rsi
	.cfi_adjust_cfa_offset -8
	popq %rdx
	.cfi_adjust_cfa_offset -8
	popq %rcx
	.cfi_adjust_cfa_offset -8
	popq %rbx
	.cfi_adjust_cfa_offset -8
	popq %rax
	.cfi_adjust_cfa_offset -8
	addq $16, %rsp
	.cfi_adjust_cfa_offset -16
	iretq
	.cfi_endproc
