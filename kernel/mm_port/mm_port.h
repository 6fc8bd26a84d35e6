/*
 * Kernel world of the mm platform seam (see mm/platform.h): the current CPU
 * comes from the per-CPU area that GS points at, the interrupt guard is
 * pushf/cli ... popf, and spinning uses pause.
 */
#ifndef MM_KERNEL_PORT_H
#define MM_KERNEL_PORT_H

/* Byte offset of the CPU id in struct cpu (kernel/percpu.h checks it). */
#define MM_PORT_CPU_ID_OFFSET 8

static inline int mm_this_cpu(void)
{
	int id;
	__asm__ volatile("movl %%gs:%c1, %0"
			 : "=r"(id)
			 : "i"(MM_PORT_CPU_ID_OFFSET));
	return id;
}

static inline unsigned long mm_irq_save(void)
{
	unsigned long flags;
	__asm__ volatile("pushfq; popq %0; cli" : "=r"(flags) : : "memory");
	return flags;
}

static inline void mm_irq_restore(unsigned long flags)
{
	__asm__ volatile("pushq %0; popfq" : : "r"(flags) : "memory", "cc");
}

static inline void mm_cpu_relax(void)
{
	__builtin_ia32_pause();
}

#endif
