/*
 * selftest=stall: the stall detector (kernel/stall.c) sees a CPU that
 * spins on purpose, once per stall, in each place it watches: a poll
 * round with interrupts enabled (the CPU's own tick sees it), a poll
 * round with interrupts masked and an interrupt handler (no tick of its
 * own: its watcher sends an NMI). CPU 1 spins; the boot CPU waits with
 * interrupts let in, so its tick watches CPU 1 (the next CPU in the
 * ring). Each spin lasts until its stall is counted and then two bounds
 * more, in which no second report may come.
 *
 * Boot only: run from the shell, the waiting CPU would be inside a poll
 * round of its own, and a stall itself.
 */
#include "kernel/selftest/tests.h"
#include "kernel/console.h"
#include "kernel/irq.h"
#include "kernel/apic.h"
#include "kernel/percpu.h"
#include "kernel/poll.h"
#include "kernel/stall.h"
#include "kernel/time.h"
#include <stdatomic.h>

#define SPIN_CPU 1

struct spin_case {
	const char *name;
	bool masked;	  /* spin with interrupts masked */
	uint64_t seen_ms; /* from the spin's start to its stall counted */
	uint64_t counted; /* stalls counted over the whole spin */
	atomic_bool done;
};

/* The spin the reports' backtraces name. */
static __attribute__((noinline)) void stall_spin(struct spin_case *sc)
{
	int me = this_cpu_id();
	uint64_t before = stall_count(me), t0 = clock_ms();

	while (stall_count(me) == before && clock_ms() - t0 < SELFTEST_WAIT_MS)
		cpu_relax();
	sc->seen_ms = clock_ms() - t0;
	t0 = clock_ms();
	while (clock_ms() - t0 < 2 * (uint64_t)stall_bound_ms())
		cpu_relax();
	sc->counted = stall_count(me) - before;
	atomic_store(&sc->done, true);
}

/* From CPU 1's poll loop (smp_call_async) or its interrupt handler. */
static void spin_call(void *arg)
{
	struct spin_case *sc = arg;
	unsigned long flags = sc->masked ? irq_save() : 0;

	stall_spin(sc);
	if (sc->masked)
		irq_restore(flags);
}

/* Wait for the case with interrupts let in: this CPU's tick watches. */
static int run_case(struct spin_case *sc, int vector)
{
	uint64_t t0 = clock_ms();

	if (vector >= 0)
		lapic_send_ipi(cpus[SPIN_CPU].apic_id, vector);
	else
		smp_call_async(SPIN_CPU, spin_call, sc);
	while (!atomic_load(&sc->done) &&
	       clock_ms() - t0 < 2 * SELFTEST_WAIT_MS)
		irq_enable_for_ms(1);
	if (vector < 0 && atomic_load(&sc->done))
		smp_call_wait(SPIN_CPU);
	if (atomic_load(&sc->done) && sc->counted == 1 &&
	    sc->seen_ms < SELFTEST_WAIT_MS)
		return 0;
	kprintf("selftest: stall FAIL %s: done=%d counted=%llu "
		"seen_ms=%llu stall_ms=%u\n",
		sc->name, (int)atomic_load(&sc->done),
		(unsigned long long)sc->counted,
		(unsigned long long)sc->seen_ms, stall_bound_ms());
	return 1;
}

int selftest_stall(void)
{
	static struct spin_case cases[] = {
		{.name = "poll round"},
		{.name = "masked poll round", .masked = true},
		{.name = "interrupt handler"},
	};
	int failed = 0, vector;

	if (!stall_bound_ms() || nr_cpus <= SPIN_CPU ||
	    !atomic_load(&cpus[SPIN_CPU].online)) {
		kprintf("selftest: stall SKIP (needs stall_ms>0 and 2 CPUs)\n");
		return 0;
	}
	failed += run_case(&cases[0], -1);
	failed += run_case(&cases[1], -1);
	vector = irq_alloc_vector(spin_call, &cases[2]);
	failed += vector < 0 ? 1 : run_case(&cases[2], vector);
	if (vector >= 0)
		irq_free_vector(vector);
	if (!failed)
		kprintf("selftest: stall PASS cases=3 stall_ms=%u seen_ms=%llu,"
			"%llu,%llu\n",
			stall_bound_ms(), (unsigned long long)cases[0].seen_ms,
			(unsigned long long)cases[1].seen_ms,
			(unsigned long long)cases[2].seen_ms);
	return failed;
}
