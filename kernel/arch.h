/*
 * x86_64 instructions the kernel needs, as inline functions: port I/O,
 * MSRs, CPUID, TSC, interrupt flag, control registers.
 */
#ifndef KERNEL_ARCH_H
#define KERNEL_ARCH_H

#include <stdint.h>
#include <stdbool.h>

static inline void outb(uint16_t port, uint8_t v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint8_t inb(uint16_t port)
{
	uint8_t v;
	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline void outw(uint16_t port, uint16_t v)
{
	__asm__ volatile("outw %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint16_t inw(uint16_t port)
{
	uint16_t v;
	__asm__ volatile("inw %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline void outl(uint16_t port, uint32_t v)
{
	__asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint32_t inl(uint16_t port)
{
	uint32_t v;
	__asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;
	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ volatile("wrmsr"
			 :
			 : "c"(msr), "a"((uint32_t)v),
			   "d"((uint32_t)(v >> 32)));
}

static inline void cpuid(uint32_t leaf, uint32_t sub, uint32_t *a, uint32_t *b,
			 uint32_t *c, uint32_t *d)
{
	__asm__ volatile("cpuid"
			 : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d)
			 : "a"(leaf), "c"(sub));
}

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static inline void cpu_relax(void)
{
	__builtin_ia32_pause();
}

static inline void irq_disable(void)
{
	__asm__ volatile("cli" ::: "memory");
}

static inline void irq_enable(void)
{
	__asm__ volatile("sti" ::: "memory");
}

static inline unsigned long irq_save(void)
{
	unsigned long flags;
	__asm__ volatile("pushfq; popq %0; cli" : "=r"(flags) : : "memory");
	return flags;
}

static inline void irq_restore(unsigned long flags)
{
	__asm__ volatile("pushq %0; popfq" : : "r"(flags) : "memory", "cc");
}

static inline bool irq_enabled(void)
{
	unsigned long flags;
	__asm__ volatile("pushfq; popq %0" : "=r"(flags));
	return flags & (1UL << 9);
}

/* Enable interrupts and halt in one step: sti's one-instruction shadow
 * means an interrupt pending at sti wakes the hlt instead of being lost. */
static inline void irq_enable_and_halt(void)
{
	__asm__ volatile("sti; hlt" ::: "memory");
}

__attribute__((noreturn)) static inline void halt_forever(void)
{
	for (;;)
		__asm__ volatile("cli; hlt");
}

static inline uint64_t read_cr2(void)
{
	uint64_t v;
	__asm__ volatile("mov %%cr2, %0" : "=r"(v));
	return v;
}

static inline uint64_t read_cr3(void)
{
	uint64_t v;
	__asm__ volatile("mov %%cr3, %0" : "=r"(v));
	return v;
}

static inline void write_cr3(uint64_t v)
{
	__asm__ volatile("mov %0, %%cr3" : : "r"(v) : "memory");
}

/* Debug status: which debug condition raised the last #DB (bit 14: a
 * single step). The CPU never clears it: the handler does. */
static inline uint64_t read_dr6(void)
{
	uint64_t v;
	__asm__ volatile("mov %%dr6, %0" : "=r"(v));
	return v;
}

static inline void write_dr6(uint64_t v)
{
	__asm__ volatile("mov %0, %%dr6" : : "r"(v));
}

static inline void invlpg(uintptr_t addr)
{
	__asm__ volatile("invlpg (%0)" : : "r"(addr) : "memory");
}

#define MSR_APIC_BASE 0x1B
#define MSR_EFER      0xC0000080
#define MSR_FS_BASE   0xC0000100
#define MSR_GS_BASE   0xC0000101

#endif
