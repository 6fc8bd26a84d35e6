/*
 * Poll loop, wake-ups and cross-CPU calls. A CPU sleeps only with
 * interrupts disabled between its last check and the hlt ("sti; hlt" is
 * atomic with respect to interrupts), so a wake-up can never be lost.
 */
#include "kernel/poll.h"
#include "kernel/apic.h"
#include "kernel/arch.h"
#include "kernel/spinlock.h"
#include "kernel/trap.h"
#include <stddef.h>

static spinlock_t register_lock = SPINLOCK_INIT;

struct call_slot {
	void (*_Atomic fn)(void *);
	void *arg;
	atomic_bool done;
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
	while (atomic_load(&calls[cpu].fn) && !atomic_load(&calls[cpu].done))
		cpu_relax();
}

void smp_call_async(int cpu, void (*fn)(void *), void *arg)
{
	if (cpu == this_cpu_id()) {
		fn(arg);
		return;
	}
	smp_call_wait(cpu);
	atomic_store(&calls[cpu].done, false);
	calls[cpu].arg = arg;
	atomic_store(&calls[cpu].fn, fn);
	poll_wake(cpu);
}

/* Runs a call posted for this CPU; returns 1 if there was one. */
static int run_call(int cpu)
{
	void (*fn)(void *) = atomic_load(&calls[cpu].fn);

	if (!fn || atomic_load(&calls[cpu].done))
		return 0;
	fn(calls[cpu].arg);
	atomic_store(&calls[cpu].done, true);
	return 1;
}

static void wake_ipi(void *arg)
{
	(void)arg; /* the interrupt itself ended the hlt */
}

void poll_loop(void)
{
	struct cpu *c = this_cpu();

	trap_set_handler(VEC_WAKE, wake_ipi, NULL);
	for (;;) {
		int work = run_call(c->id);
		int n = atomic_load_explicit(&c->nr_pollers,
					     memory_order_acquire);

		c->polls++;
		for (int i = 0; i < n; i++)
			work += c->pollers[i].fn(c->pollers[i].arg);
		if (work)
			continue;
		irq_disable();
		if (atomic_exchange(&c->wake, false)) {
			irq_enable();
			continue;
		}
		c->idle_halts++;
		irq_enable_and_halt();
	}
}
