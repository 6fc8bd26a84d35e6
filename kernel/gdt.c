/*
 * Global descriptor table: null, 64-bit code, data, then one 16-byte TSS
 * descriptor per CPU. The kernel runs only in ring 0, so the TSS exists for
 * its interrupt stack table: a double fault (typically a kernel stack
 * overflow) switches to a fresh stack and can still print its report.
 */
#include "kernel/gdt.h"
#include "kernel/config.h"
#include <stdint.h>
#include <string.h>

struct tss {
	uint32_t reserved0;
	uint64_t rsp[3];
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iomap_base;
} __attribute__((packed));

#define GDT_TSS0 3
static uint64_t gdt[GDT_TSS0 + 2 * MAX_CPUS] __attribute__((aligned(16))) = {
	0, 0x00AF9A000000FFFFULL, /* 0x08: code, 64-bit, ring 0 */
	0x00CF92000000FFFFULL,	  /* 0x10: data */
};
static struct tss tss[MAX_CPUS];
/* The boot CPU's IST stacks are in the image: it needs them before any
 * allocator exists. Every other CPU's come with its kernel stack, from its
 * own node's memory (kernel/smp.c). */
static uint8_t boot_ist_stacks[3 * IST_STACK_SIZE] __attribute__((aligned(16)));

static void tss_descriptor(int cpu)
{
	uint64_t base = (uintptr_t)&tss[cpu];
	uint64_t limit = sizeof(struct tss) - 1;

	gdt[GDT_TSS0 + 2 * cpu] = (limit & 0xFFFF) | ((base & 0xFFFFFF) << 16) |
				  (0x89ULL << 40) | /* present, 64-bit TSS */
				  (((limit >> 16) & 0xF) << 48) |
				  (((base >> 24) & 0xFF) << 56);
	gdt[GDT_TSS0 + 2 * cpu + 1] = base >> 32;
}

void gdt_init_cpu(int cpu, uintptr_t ist_base)
{
	struct {
		uint16_t limit;
		uint64_t base;
	} __attribute__((packed)) ptr = {sizeof(gdt) - 1, (uintptr_t)gdt};
	uint16_t sel = (uint16_t)((GDT_TSS0 + 2 * cpu) * 8);

	if (!ist_base)
		ist_base = (uintptr_t)boot_ist_stacks;
	memset(&tss[cpu], 0, sizeof(tss[cpu]));
	for (int i = 0; i < 3; i++)
		tss[cpu].ist[i] =
			ist_base + (uintptr_t)(i + 1) * IST_STACK_SIZE;
	tss[cpu].iomap_base = sizeof(struct tss);
	tss_descriptor(cpu);
	__asm__ volatile("lgdt %0\n\t"
			 "pushq $0x08\n\t"
			 "leaq 1f(%%rip), %%rax\n\t"
			 "pushq %%rax\n\t"
			 "lretq\n"
			 "1:\n\t"
			 "movw $0x10, %%ax\n\t"
			 "movw %%ax, %%ds\n\t"
			 "movw %%ax, %%es\n\t"
			 "movw %%ax, %%ss\n\t"
			 "ltr %1"
			 :
			 : "m"(ptr), "r"(sel)
			 : "rax", "memory");
}
