/*
 * Kernel world of the mm platform seam (see mm/platform.h): the current CPU
 * comes from the per-CPU area that GS points at, the interrupt guard is
 * pushf/cli ... popf, and spinning uses pause.
 */
#ifndef MM_KERNEL_PORT_H
#define MM_KERNEL_PORT_H

/* Byte offset of the CPU id in struct cpu (kernel/percpu.h checks it). */
#define MM_PORT_CPU_ID_OFFSET 8

/*
 * A 32-bit load into a 64-bit variable (movl zero-extends the register)
 * with its range stated (0..INT_MAX): an index by the CPU then needs no
 * instruction to widen it. Guest instructions per alloc+free (make
 * bench-kernel): alloc_pages/__free_pages 100 -> 99, kmem_cache 86 -> 84,
 * kmalloc(256) 102 -> 100, napi_alloc_frag 70.6 -> 67.6.
 */
static inline int mm_this_cpu(void)
{
	unsigned long id;
	__asm__ volatile("movl %%gs:%c1, %k0"
			 : "=r"(id)
			 : "i"(MM_PORT_CPU_ID_OFFSET));
	if (id > 0x7fffffffUL) /* an int, and never negative */
		__builtin_unreachable();
	return (int)id;
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

/*
 * One add instruction on the counter's memory: an interrupt arrives before
 * or after it, never between a load and a store, so a handler counting on
 * the same per-CPU counter cannot lose an update. No lock prefix: only this
 * CPU writes the counter, other CPUs read it (an aligned 8-byte store is
 * never seen torn). The same as Linux's this_cpu_add() on x86, and one
 * instruction shorter than a load, add and store.
 */
static inline void mm_cpu_counter_add(atomic_ulong *c, unsigned long n)
{
	__asm__ volatile("addq %1, %0"
			 : "+m"(*(volatile unsigned long *)c)
			 : "er"(n));
}

#endif
