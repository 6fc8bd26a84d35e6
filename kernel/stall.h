/*
 * The stall detector: a CPU whose poll round (kernel/poll.c) or interrupt
 * handler (kernel/trap.c) has not come back within stall_ms is reported
 * once per stall, with the address it was at and a backtrace, and
 * counted (the `stalls` counter of its CPU in /stats.json). stall_ms=0
 * turns it off. docs/observe.md, "Stalls".
 */
#ifndef KERNEL_STALL_H
#define KERNEL_STALL_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/arch.h"
#include "kernel/percpu.h"
#include "kernel/trap_frame.h"

/* stall_init - read stall_ms, take the NMI reason; tsc_hz: the TSC's
 * rate (kernel/time.c measured it). Boot CPU, before the APs start. */
void stall_init(uint64_t tsc_hz);

/* The marks the watched code leaves: a poll round begins (the loop is
 * busy from now) / the loop goes idle (nothing to watch while it halts);
 * an interrupt handler begins / ends. One store each: the poll loop and
 * the interrupt path pay nothing more. Own CPU, interrupts as they are. */
static inline void stall_round_begin(struct cpu *c)
{
	atomic_store_explicit(&c->round_since, rdtsc(), memory_order_relaxed);
}

static inline void stall_round_idle(struct cpu *c)
{
	atomic_store_explicit(&c->round_since, 0, memory_order_relaxed);
}

static inline void stall_irq_begin(struct cpu *c)
{
	atomic_store_explicit(&c->irq_since, rdtsc(), memory_order_relaxed);
}

static inline void stall_irq_end(struct cpu *c)
{
	atomic_store_explicit(&c->irq_since, 0, memory_order_relaxed);
}

/*
 * stall_check - the watch, from each CPU's timer tick: this CPU's own
 * poll round (f: the registers the tick interrupted) and the next online
 * CPU's round and interrupt handler (by NMI: a CPU stuck with interrupts
 * masked takes no tick of its own). Timer interrupt context.
 */
void stall_check(const struct trap_frame *f);

/*
 * stall_hold - on: the machine is stopped on purpose (the GDB stub), no
 * CPU is watched; off: watching resumes, each CPU's time counted from
 * now. Any context.
 */
void stall_hold(bool on);

/* stall_count - stalls reported for cpu so far. Any context. */
uint64_t stall_count(int cpu);

/* stall_bound_ms - stall_ms as the boot line set it (0: off). */
unsigned int stall_bound_ms(void);

#endif
