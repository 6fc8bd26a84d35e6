/*
 * The per-CPU poll loop: the kernel runs to completion on each CPU, like
 * DPDK lcores or Linux NAPI, and interrupt handlers only acknowledge and
 * wake a poller. Each CPU runs its registered pollers round-robin; when a whole
 * round did no work the CPU halts until an interrupt (the periodic tick, a
 * device interrupt, or a poll_wake IPI), so idle vCPUs cost the host
 * nothing. Pollers run in "poll context": interrupts enabled, never nested
 * in each other, always on their own CPU.
 */
#ifndef KERNEL_POLL_H
#define KERNEL_POLL_H

#include <stdbool.h>
#include <stdint.h>
#include "kernel/percpu.h"

/*
 * poll_register - add fn(arg) to cpu's poll loop. fn returns how much work
 * it did (0 = nothing to do; the CPU may sleep). name shows in reports.
 * Any CPU, not from interrupt context; the poller starts running on the
 * target CPU's next round. Returns 0, or -1 for a bad cpu or a full list
 * (MAX_POLLERS).
 */
int poll_register(int cpu, poll_fn fn, void *arg, const char *name);

/*
 * poll_wake - make cpu run a poll round soon: from an interrupt handler on
 * that CPU this only sets a flag; for another CPU it also sends a wake IPI.
 * Any context.
 */
void poll_wake(int cpu);

/*
 * smp_call_async/smp_call_wait - run fn(arg) once on cpu in poll context
 * (from its poll loop), and wait for it to finish. One call per target
 * CPU at a time: smp_call_async waits for the previous one. Not from
 * interrupt context. On the calling CPU itself fn runs at once.
 */
void smp_call_async(int cpu, void (*fn)(void *), void *arg);
void smp_call_wait(int cpu);

/*
 * smp_call_all - run fn(arg) on every CPU at the same time: posted to each
 * other CPU's poll loop, run here directly, then waited for on all (Linux
 * calls it on_each_cpu). Not from interrupt context.
 */
void smp_call_all(void (*fn)(void *), void *arg);

/*
 * poll_deadline - from a poller: this CPU must run a round again by ns
 * (clock_ns() time) even if no interrupt comes. The earliest request of a
 * round bounds the next idle halt (the CPU is tickless while idle); a
 * poller that waits for time to pass (a timeout, a device without an
 * interrupt) must ask, or it may sleep up to TIMER_IDLE_MAX_MS.
 * Poll context, this CPU.
 */
void poll_deadline(uint64_t ns);

/* Enters this CPU's poll loop. Never returns. */
__attribute__((noreturn)) void poll_loop(void);

#endif
