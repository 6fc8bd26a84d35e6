/*
 * The stall detector (kernel/stall.h). The poll loop and the interrupt
 * path leave the TSC of when their current piece of work began; the
 * timer tick compares. Who watches whom:
 *
 *   - each CPU's tick looks at its own poll round: a round that runs on
 *     with interrupts enabled is interrupted by the tick itself, whose
 *     registers say where it is;
 *   - each CPU's tick also looks at the next online CPU (a ring), at its
 *     round and at its interrupt handler: a CPU stuck with interrupts
 *     masked takes no tick, so another must see it. It sends an NMI,
 *     which arrives whatever the CPU does; the NMI handler only copies
 *     the address and the return addresses of its stack into the CPU's
 *     sample, and the watcher prints them. Printing from the NMI could
 *     wait forever on the console's lock, held by the very code it
 *     interrupted.
 *
 * One watcher per CPU keeps the cost flat in the number of CPUs (a tick
 * reads two CPUs' marks, not all of them). An idle watcher's tick can be
 * up to TIMER_IDLE_MAX_MS away (tickless idle), which is how late a stall
 * with interrupts masked may be seen on a quiet machine; one with
 * interrupts enabled is seen within a tick of the bound.
 *
 * Once per stall: a stall is known by the mark it began with, and the
 * report goes to whichever watcher swaps that mark into reported[] first.
 */
#include "kernel/stall.h"
#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/nmi.h"
#include "kernel/backtrace.h"

CMDLINE_KEY(kernel, stall_ms, "500", cmdline_valid_uint, "0-60000",
	    "report a CPU whose poll round or interrupt handler runs longer "
	    "than this many ms (0: off)");

/* How long a watcher waits for the NMI's sample: an NMI is taken within
 * microseconds; a TCG vCPU thread the host did not schedule, later. */
#define SAMPLE_WAIT_MS 100

/* Where a CPU was when its NMI came (written in the NMI handler). */
struct stall_sample {
	atomic_bool ready;
	uint64_t rip;
	int depth;
	uint64_t ret[BACKTRACE_MAX];
};

static uint64_t tsc_per_ms;
static uint64_t bound_tsc; /* stall_ms in TSC cycles; 0: off */
static unsigned int bound_ms;
static atomic_bool held;
static _Atomic uint64_t resumed_tsc;	    /* the end of the last hold */
static _Atomic uint64_t reported[MAX_CPUS]; /* the mark last reported */
static _Atomic uint64_t stalls[MAX_CPUS];
static struct stall_sample samples[MAX_CPUS];

static void sample_frame(struct stall_sample *s, const struct trap_frame *f)
{
	s->rip = f->rip;
	s->depth = backtrace_collect(f->rbp, s->ret, BACKTRACE_MAX);
}

/* NMI_STALL: leave this CPU's whereabouts for its watcher. NMI context. */
static void stall_nmi(struct trap_frame *f)
{
	struct stall_sample *s = &samples[this_cpu_id()];

	sample_frame(s, f);
	atomic_store(&s->ready, true);
}

void stall_init(uint64_t tsc_hz)
{
	tsc_per_ms = tsc_hz / 1000;
	bound_ms = (unsigned int)cmdline_get_long("stall_ms");
	bound_tsc = tsc_per_ms * bound_ms;
	nmi_set_handler(NMI_STALL, stall_nmi);
}

static void report(int cpu, const char *where, uint64_t ms,
		   const struct stall_sample *s)
{
	kprintf("stall: cpu %d in %s for %llu ms (stall_ms=%u, %llu on this "
		"CPU)\n",
		cpu, where, (unsigned long long)ms, bound_ms,
		(unsigned long long)atomic_load(&stalls[cpu]));
	if (!s) {
		kprintf("stall: cpu %d did not answer its NMI within %d ms\n",
			cpu, SAMPLE_WAIT_MS);
		return;
	}
	kprintf("backtrace:\n");
	backtrace_print_frame(0, s->rip, false);
	for (int i = 0; i < s->depth; i++)
		backtrace_print_frame(i + 1, s->ret[i], true);
}

/* The remote CPU's sample, by NMI; NULL when it does not answer. */
static const struct stall_sample *sample_remote(int cpu)
{
	struct stall_sample *s = &samples[cpu];
	uint64_t t0 = rdtsc();

	atomic_store(&s->ready, false);
	nmi_send(cpu, NMI_STALL);
	while (!atomic_load(&s->ready))
		if (rdtsc() - t0 > SAMPLE_WAIT_MS * tsc_per_ms)
			return NULL;
	return s;
}

/* Look at one CPU's marks; self: the tick's frame when cpu is this CPU
 * (whose interrupt mark is the tick's own, not a stall). */
static void check_cpu(int cpu, uint64_t now, const struct trap_frame *self)
{
	struct cpu *c = &cpus[cpu];
	uint64_t irq = self ? 0 : atomic_load(&c->irq_since);
	uint64_t since = irq ? irq : atomic_load(&c->round_since);
	uint64_t from = since, seen, resumed = atomic_load(&resumed_tsc);
	struct stall_sample local;
	const struct stall_sample *s = &local;

	if (!since)
		return;
	if (resumed > from)
		from = resumed; /* the machine was held: count from then */
	if ((int64_t)(now - from) <= (int64_t)bound_tsc)
		return;
	seen = atomic_load(&reported[cpu]);
	if (seen == since ||
	    !atomic_compare_exchange_strong(&reported[cpu], &seen, since))
		return; /* this stall is reported already */
	atomic_fetch_add(&stalls[cpu], 1);
	if (self)
		sample_frame(&local, self);
	else
		s = sample_remote(cpu);
	report(cpu, irq ? "an interrupt handler" : "a poll round",
	       (now - from) / tsc_per_ms, s);
}

void stall_check(const struct trap_frame *f)
{
	int me = this_cpu_id(), next = me;
	uint64_t now;

	if (!bound_tsc || atomic_load(&held))
		return;
	now = rdtsc();
	check_cpu(me, now, f);
	do
		next = (next + 1) % nr_cpus;
	while (next != me && !atomic_load(&cpus[next].online));
	if (next != me)
		check_cpu(next, now, NULL);
}

void stall_hold(bool on)
{
	if (!on)
		atomic_store(&resumed_tsc, rdtsc());
	atomic_store(&held, on);
}

uint64_t stall_count(int cpu)
{
	return atomic_load(&stalls[cpu]);
}

unsigned int stall_bound_ms(void)
{
	return bound_ms;
}
