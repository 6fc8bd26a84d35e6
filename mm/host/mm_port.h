/*
 * Host world of the mm platform seam (see mm/platform.h): a pthread is a
 * simulated CPU once it calls mm_host_set_cpu(); there are no interrupts, so
 * the interrupt guard only records nesting for debug checks.
 */
#ifndef MM_HOST_PORT_H
#define MM_HOST_PORT_H

extern _Thread_local int mm_host_cpu;

static inline int mm_this_cpu(void)
{
	return mm_host_cpu;
}

static inline unsigned long mm_irq_save(void)
{
	return 0;
}

static inline void mm_irq_restore(unsigned long flags)
{
	(void)flags;
}

static inline void mm_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

#endif
