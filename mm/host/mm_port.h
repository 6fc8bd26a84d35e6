/*
 * Host world of the mm platform seam (see mm/platform.h): a pthread is a
 * simulated CPU once it calls mm_host_set_cpu(). There are no interrupts,
 * so the interrupt guard only records, per thread, that the thread is
 * inside one: a test that stands in for an interrupt with a POSIX signal
 * asks mm_host_irqs_masked() and holds its handler back, as the CPU would.
 */
#ifndef MM_HOST_PORT_H
#define MM_HOST_PORT_H

#include <sched.h>

extern _Thread_local int mm_host_cpu;
extern _Thread_local volatile unsigned long mm_host_irq_masked;

/*
 * The simulated machine the seam functions of mm/host/platform.c report:
 * mm_host_boot() (mm/host/boot.c) fills it in, mm_host_shutdown() clears
 * it. (This header is included by mm/platform.h, after the limits and
 * struct mm_range.)
 */
struct mm_host_machine {
	int nr_nodes, nr_cpus;
	int cpu_to_node[MM_MAX_CPUS];
	int distance[MM_MAX_NODES][MM_MAX_NODES];
	struct mm_range ranges[MM_MAX_RANGES];
	int nr_ranges;
};
extern struct mm_host_machine mm_host_machine;

static inline int mm_this_cpu(void)
{
	return mm_host_cpu;
}

/* The signal fences keep the compiler from moving the guarded code out
 * past the flag: a handler on this thread sees the flag in program order. */
static inline unsigned long mm_irq_save(void)
{
	unsigned long flags = mm_host_irq_masked;

	mm_host_irq_masked = 1;
	atomic_signal_fence(memory_order_seq_cst);
	return flags;
}

static inline void mm_irq_restore(unsigned long flags)
{
	atomic_signal_fence(memory_order_seq_cst);
	mm_host_irq_masked = flags;
}

/*
 * No interrupts on the host: the thread that is this CPU is the counter's
 * only writer, so an add that is not atomic cannot lose an update. On
 * x86-64 it is the kernel port's one non-locked "addq" to memory (a
 * relaxed load and store took 4 instructions per counted event under
 * callgrind, the add 1: a qmempool alloc+free pair 3 fewer). Readers load
 * the counter with relaxed atomic loads; an aligned 8-byte store is never
 * seen torn. Elsewhere a relaxed load and store.
 */
static inline void mm_cpu_counter_add(atomic_ulong *c, unsigned long n)
{
#if defined(__x86_64__)
	__asm__ volatile("addq %1, %0"
			 : "+m"(*(volatile unsigned long *)c)
			 : "er"(n));
#else
	atomic_store_explicit(c,
			      atomic_load_explicit(c, memory_order_relaxed) + n,
			      memory_order_relaxed);
#endif
}

/*
 * Spin-wait hint. A kernel CPU spinning on a lock or on another producer's
 * ALF reservation waits for code that runs with interrupts masked and so is
 * never preempted. A host thread can be: with more simulated CPUs than
 * cores, the thread being waited for may sit descheduled for a whole time
 * slice while the waiter spins. So every 64th relax on the host gives the
 * core away. Uncontended paths never get here, so benchmarks of the fast
 * paths are unaffected.
 */
static inline void mm_cpu_relax(void)
{
	static _Thread_local unsigned int spins;

	if ((++spins & 63) == 0) {
		sched_yield();
		return;
	}
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

#endif
