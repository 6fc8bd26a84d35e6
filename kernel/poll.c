/*
 * Poll loop, wake-ups and cross-CPU calls. A CPU sleeps only with
 * interrupts disabled between its last check and the hlt ("sti; hlt" is
 * atomic with respect to interrupts), so a wake-up can never be lost.
 * Idle is tickless: the halt lasts until an interrupt or the earliest
 * deadline a poller asked for in the round (poll_deadline), on a
 * one-shot timer; the periodic tick comes back when the CPU wakes.
 * A poller's round that did something is a span of the poll trace class
 * (docs/observe.md), named by the poller; an empty one leaves nothing.
 */
#include "kernel/poll.h"
#include "kernel/apic.h"
#include "kernel/arch.h"
#include "kernel/spinlock.h"
#include "kernel/stall.h"
#include "kernel/time.h"
#include "kernel/trace.h"
#include "kernel/vector.h"
#include "mm/page_frag.h"
#include "mm/qmempool.h"
#include <stddef.h>

static spinlock_t register_lock = SPINLOCK_INIT;

TRACE_EVENT(ev_poll, TRACE_POLL, "poll", {"poller", TRACE_STR});

/* One poller's round; a span only if an event falls inside it. */
static int poller_round(const struct poller *p)
{
	int work;

	if (__builtin_expect(!trace_on(TRACE_POLL), 1))
		return p->fn(p->arg);
	trace_begin_quiet(&ev_poll, (uintptr_t)p->name);
	work = p->fn(p->arg);
	trace_end_quiet(&ev_poll, (uintptr_t)p->name);
	return work;
}

/* One cross-CPU call slot per target CPU. A call is pending while
 * req != ack; the poster (serialised by lock) fills fn/arg and bumps req,
 * the target runs the call and copies req into ack. Sequence numbers, not
 * a "done" flag, so a target can never run a stale function. */
struct call_slot {
	spinlock_t lock;
	void (*fn)(void *);
	void *arg;
	atomic_ulong req, ack;
} __attribute__((aligned(64)));
static struct call_slot calls[MAX_CPUS];

int poll_register(int cpu, poll_fn fn, void *arg, const char *name)
{
	unsigned long f;
	int n;

	if (cpu < 0 || cpu >= nr_cpus || !fn)
		return -1;
	f = spin_lock_irqsave(&register_lock);
	n = atomic_load(&cpus[cpu].nr_pollers);
	if (n == MAX_POLLERS) {
		spin_unlock_irqrestore(&register_lock, f);
		return -1;
	}
	cpus[cpu].pollers[n].fn = fn;
	cpus[cpu].pollers[n].arg = arg;
	cpus[cpu].pollers[n].name = name;
	atomic_store_explicit(&cpus[cpu].nr_pollers, n + 1,
			      memory_order_release);
	spin_unlock_irqrestore(&register_lock, f);
	poll_wake(cpu);
	return 0;
}

void poll_wake(int cpu)
{
	if (cpu < 0 || cpu >= nr_cpus)
		return;
	atomic_store(&cpus[cpu].wake, true);
	if (cpu != this_cpu_id() && atomic_load(&cpus[cpu].online))
		lapic_send_ipi(cpus[cpu].apic_id, VEC_WAKE);
}

void smp_call_wait(int cpu)
{
	struct call_slot *c = &calls[cpu];

	while (atomic_load_explicit(&c->ack, memory_order_acquire) !=
	       atomic_load_explicit(&c->req, memory_order_relaxed))
		cpu_relax();
}

void smp_call_async(int cpu, void (*fn)(void *), void *arg)
{
	struct call_slot *c = &calls[cpu];

	if (cpu == this_cpu_id()) {
		fn(arg);
		return;
	}
	spin_lock(&c->lock);
	smp_call_wait(cpu);
	c->fn = fn;
	c->arg = arg;
	atomic_fetch_add_explicit(&c->req, 1, memory_order_release);
	spin_unlock(&c->lock);
	poll_wake(cpu);
}

void smp_call_all(void (*fn)(void *), void *arg)
{
	for (int c = 0; c < nr_cpus; c++)
		if (c != this_cpu_id())
			smp_call_async(c, fn, arg);
	fn(arg);
	for (int c = 0; c < nr_cpus; c++)
		if (c != this_cpu_id())
			smp_call_wait(c);
}

/* Runs the call posted for this CPU, if any; returns 1 if there was one. */
static int run_call(int cpu)
{
	struct call_slot *c = &calls[cpu];
	unsigned long req = atomic_load_explicit(&c->req, memory_order_acquire);

	if (req == atomic_load_explicit(&c->ack, memory_order_relaxed))
		return 0;
	c->fn(c->arg);
	atomic_store_explicit(&c->ack, req, memory_order_release);
	return 1;
}

void poll_deadline(uint64_t ns)
{
	struct cpu *c = this_cpu();

	if (ns < c->deadline_ns)
		c->deadline_ns = ns;
}

static void wake_ipi(void *arg)
{
	(void)arg; /* the interrupt itself ended the hlt */
}

/* Interrupts off, nothing to do: sleep until an interrupt or the
 * earliest deadline the pollers asked for (tickless, kernel/time.c). */
static void halt_until(struct cpu *c)
{
	uint64_t t0;

	timer_idle_enter(c->deadline_ns);
	t0 = clock_ns();
	irq_enable_and_halt();
	c->halted_ns += clock_ns() - t0;
	irq_disable();
	timer_idle_exit();
	irq_enable();
}

void poll_loop(void)
{
	struct cpu *c = this_cpu();

	vector_set_handler(VEC_WAKE, wake_ipi, NULL);
	/* Pollers run with interrupts enabled: the boot and AP paths arrive
	 * here with them masked, and until the first idle halt nothing else
	 * unmasks them, so a CPU kept busy from boot would take no timer
	 * tick (no profile sample) at all. */
	irq_enable();
	for (;;) {
		int work, n;

		stall_round_begin(c);
		work = run_call(c->id);
		n = atomic_load_explicit(&c->nr_pollers, memory_order_acquire);
		c->polls++;
		c->deadline_ns = UINT64_MAX;
		for (int i = 0; i < n; i++)
			work += poller_round(&c->pollers[i]);
		/* Memory pressure on another CPU asked every CPU to give its
		 * qmempool localqs back (only the owner may): one load and a
		 * compare when nobody asked. */
		qmempool_shrink_poll();
		if (work)
			continue;
		/* Idle: fragment frees this CPU batched reach their blocks
		 * (page_frag_free_flush), so a block whose last fragments
		 * were freed here does not wait for the next busy round. */
		page_frag_free_flush();
		irq_disable();
		if (atomic_exchange(&c->wake, false)) {
			irq_enable();
			continue;
		}
		c->idle_halts++;
		stall_round_idle(c);
		halt_until(c);
	}
}
