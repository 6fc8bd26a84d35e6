/*
 * Boot headers and the 32-bit entry.
 *
 * One ELF64 image serves two loaders:
 *  - QEMU's -kernel reads the multiboot1 header. It cannot load an ELF64 by
 *    itself, so the header carries the "a.out kludge" address fields (flag
 *    bit 16): QEMU copies the file from the header on, to load_addr, and
 *    clears up to bss_end_addr. This only works because linker.ld keeps the
 *    whole image in one contiguous PT_LOAD segment.
 *  - GRUB's multiboot2 command reads the multiboot2 header and loads the
 *    ELF64 by its program headers.
 * Both enter at _start32 in 32-bit protected mode, paging off, with the
 * loader's magic in %eax and its information structure in %ebx.
 *
 * _start32 identity-maps the first 4 GiB with 2 MiB pages (enough for the
 * kernel, low RAM and the usual MMIO window just below 4 GiB; kernel/paging.c
 * maps the rest later), enables long mode and calls kmain(magic, info).
 */
#define MB1_MAGIC 0x1BADB002
#define MB1_FLAGS ((1 << 1) | (1 << 16)) /* memory map, address fields */
#define MB2_MAGIC 0xE85250D6

	.section .multiboot, "a"
	.align 4
mb1_header:
	.long MB1_MAGIC
	.long MB1_FLAGS
	.long -(MB1_MAGIC + MB1_FLAGS)
	.long mb1_header	/* header_addr */
	.long __kernel_start	/* load_addr */
	.long __load_end	/* load_end_addr */
	.long __bss_end		/* bss_end_addr */
	.long _start32		/* entry_addr */

	.align 8
mb2_header:
	.long MB2_MAGIC
	.long 0			/* architecture: i386 protected mode */
	.long mb2_header_end - mb2_header
	.long -(MB2_MAGIC + 0 + (mb2_header_end - mb2_header))
	/* entry address tag */
	.align 8
	.word 3, 0
	.long 12
	.long _start32
	/* framebuffer tag, optional: any mode; GRUB keeps text mode on BIOS
	 * when grub.cfg says gfxpayload=text, and hands over the firmware's
	 * framebuffer on UEFI. */
	.align 8
	.word 5, 1
	.long 20
	.long 0, 0, 32
	/* end tag */
	.align 8
	.word 0, 0
	.long 8
mb2_header_end:

	.section .text.boot, "ax"
	.code32
	.global _start32
_start32:
	cli
	cld
	movl %eax, boot_magic
	movl %ebx, boot_info
	movl $boot_stack_top, %esp

	/* PML4[0] -> PDPT; PDPT[0..3] -> four page directories of 2 MiB pages */
	movl $early_pdpt, %eax
	orl $0x3, %eax
	movl %eax, early_pml4
	xorl %ecx, %ecx
1:	movl %ecx, %eax
	shll $12, %eax
	addl $early_pd, %eax
	orl $0x3, %eax
	movl %eax, early_pdpt(,%ecx,8)
	incl %ecx
	cmpl $4, %ecx
	jne 1b
	/* 2048 entries: entry i maps i * 2 MiB, present|writable|huge */
	xorl %ecx, %ecx
2:	movl %ecx, %eax
	shll $21, %eax
	orl $0x83, %eax
	movl %eax, early_pd(,%ecx,8)
	movl %ecx, %eax
	shrl $11, %eax
	movl %eax, early_pd+4(,%ecx,8)
	incl %ecx
	cmpl $2048, %ecx
	jne 2b

	movl $early_pml4, %eax
	movl %eax, %cr3
	movl %cr4, %eax
	orl $((1 << 5) | (1 << 7) | (1 << 9) | (1 << 10)), %eax /* PAE PGE OSFXSR OSXMMEXCPT */
	movl %eax, %cr4
	movl $0xC0000080, %ecx	/* EFER */
	rdmsr
	orl $(1 << 8), %eax	/* LME */
	wrmsr
	movl %cr0, %eax
	orl $((1 << 31) | (1 << 16) | 1), %eax /* PG WP PE */
	movl %eax, %cr0
	lgdt early_gdt_ptr
	ljmp $0x08, $start64

	.code64
start64:
	movw $0x10, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	xorw %ax, %ax
	movw %ax, %fs
	movw %ax, %gs
	movq $boot_stack_top, %rsp
	xorq %rbp, %rbp
	movl boot_magic(%rip), %edi
	movl boot_info(%rip), %esi
	call kmain
3:	cli
	hlt
	jmp 3b

	.section .data
	.align 16
early_gdt:
	.quad 0
	.quad 0x00AF9A000000FFFF	/* 0x08: 64-bit code */
	.quad 0x00CF92000000FFFF	/* 0x10: data */
early_gdt_ptr:
	.word early_gdt_ptr - early_gdt - 1
	.quad early_gdt
	.global boot_magic, boot_info
boot_magic:
	.long 0
boot_info:
	.long 0

	.section .bss
	.align 4096
	.global early_pml4, early_pdpt, early_pd
early_pml4:
	.skip 4096
early_pdpt:
	.skip 4096
early_pd:
	.skip 4 * 4096
	.align 16
	.global boot_stack, boot_stack_top /* the profiler's stack walk */
boot_stack:
	.skip 16384
boot_stack_top:
