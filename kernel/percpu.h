/*
 * Per-CPU area. Each CPU's GS base points at its struct cpu, so this_cpu()
 * and the mm seam's mm_this_cpu() are one instruction. Fields after the
 * first two are private to the kernel.
 */
#ifndef KERNEL_PERCPU_H
#define KERNEL_PERCPU_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "kernel/config.h"

typedef int (*poll_fn)(void *arg);
struct trap_frame;

struct poller {
	poll_fn fn;
	void *arg;
	const char *name;
};

struct cpu {
	struct cpu *self; /* offset 0: %gs:0 gives the area's address */
	int id;		  /* offset 8: MM_PORT_CPU_ID_OFFSET */
	int node;
	uint32_t apic_id;
	atomic_bool online;
	uintptr_t stack_top;
	/* poll loop (kernel/poll.c) */
	struct poller pollers[MAX_POLLERS];
	atomic_int nr_pollers;
	atomic_bool wake;  /* set by poll_wake(): poll again before halting */
	uint64_t ticks;	   /* LAPIC timer interrupts taken */
	uint32_t timer_hz; /* the LAPIC timer's rate now (kernel/time.c) */
	/* the registers of the interrupt this CPU is handling (kernel/trap.c;
	 * interrupts do not nest, so one pointer is enough) */
	struct trap_frame *irq_frame;
	uint64_t idle_halts; /* times the poll loop halted */
	uint64_t polls;	     /* poll loop rounds */
	/* tickless idle (kernel/poll.c, kernel/time.c) */
	uint64_t deadline_ns; /* earliest poll_deadline() of this round */
	bool tickless;	      /* one-shot timer armed instead of the tick */
	uint64_t halted_ns;   /* time spent halted in the poll loop */
	uint64_t timer_reprograms; /* switches tick <-> one-shot */
	/* the stall detector's marks (kernel/stall.h): the TSC when the
	 * current poll round / interrupt handler began, 0 when none runs */
	_Atomic uint64_t round_since;
	_Atomic uint64_t irq_since;
	/* where the TLS block this CPU's FS base points into starts
	 * (kernel/tls.h): a __thread variable is at its offset in the
	 * template from here; for debuggers (tools/gdb_tls.py) */
	uintptr_t tls_block;
} __attribute__((aligned(64)));

extern struct cpu cpus[MAX_CPUS];
extern int nr_cpus;

static inline struct cpu *this_cpu(void)
{
	struct cpu *c;
	__asm__ volatile("movq %%gs:0, %0" : "=r"(c));
	return c;
}

static inline int this_cpu_id(void)
{
	int id;
	__asm__ volatile("movl %%gs:8, %0" : "=r"(id));
	return id;
}

/* Points GS at cpus[id] on the calling CPU. */
void percpu_init(int id);

#endif
