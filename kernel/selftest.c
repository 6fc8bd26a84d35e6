/*
 * Boot self-tests. selftest=fault writes to an unmapped address to prove
 * the exception report works; selftest=panic calls panic(). Both end the
 * boot. selftest=mm lives with the allocator boot code (kernel/mm_boot.c).
 */
#include "kernel/selftest.h"
#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/mm_boot.h"
#include "kernel/paging.h"
#include "kernel/power.h"
#include "kernel/trap.h"
#include "kernel/percpu.h"
#include "kernel/poll.h"
#include "kernel/time.h"
#include <stdatomic.h>
#include <stdint.h>

static int failures;

void selftest_failed(void)
{
	failures++;
}

static __attribute__((noinline)) void fault_here(void)
{
	/* 512 GiB: beyond anything the identity map covers */
	volatile uint64_t *p = phys_ptr(512ULL << 30);

	kprintf("selftest: fault: writing to %p\n", (void *)p);
	*p = 0xdead;
}

/* Lets interrupts in on the boot CPU for ms milliseconds (the boot runs
 * with them masked until the poll loop). */
static void irq_enable_for_ms(uint64_t ms)
{
	uint64_t end = clock_ms() + ms;

	__asm__ volatile("sti");
	while (clock_ms() < end)
		__asm__ volatile("hlt");
	__asm__ volatile("cli");
}

static atomic_int smp_seen[MAX_CPUS];

static void smp_note(void *arg)
{
	(void)arg;
	atomic_store(&smp_seen[this_cpu_id()], 1);
}

/* Every CPU answers a call from its poll loop, its timer ticks, and the
 * clock moves forward by about the time the ticks say. */
static void selftest_smp(void)
{
	uint64_t t0 = clock_ms(), ticks0[MAX_CPUS];
	int bad = 0;

	for (int c = 0; c < nr_cpus; c++)
		ticks0[c] = cpus[c].ticks;
	for (int c = 1; c < nr_cpus; c++)
		smp_call_async(c, smp_note, NULL);
	for (int c = 1; c < nr_cpus; c++)
		smp_call_wait(c);
	smp_note(NULL);
	irq_enable_for_ms(50);
	for (int c = 0; c < nr_cpus; c++) {
		if (!atomic_load(&smp_seen[c])) {
			kprintf("selftest: smp: cpu %d did not run its call\n",
				c);
			bad++;
		}
		if (cpus[c].ticks == ticks0[c]) {
			kprintf("selftest: smp: cpu %d timer did not tick\n",
				c);
			bad++;
		}
	}
	if (clock_ms() - t0 < 50) {
		kprintf("selftest: smp: clock did not advance\n");
		bad++;
	}
	if (bad) {
		kprintf("selftest: smp FAIL\n");
		selftest_failed();
	} else {
		kprintf("selftest: smp PASS cpus=%d clock=%llums\n", nr_cpus,
			(unsigned long long)(clock_ms() - t0));
	}
}

void selftests_run(void)
{
	if (cmdline_has("selftest", "smp"))
		selftest_smp();
	if (cmdline_has("selftest", "mm"))
		selftest_mm();
	if (cmdline_has("selftest", "panic"))
		panic("selftest: panic requested on the command line");
	if (cmdline_has("selftest", "fault"))
		fault_here();
	if (failures && exit_on_fatal) {
		kprintf("selftest: %d failed\n", failures);
		system_exit(EXIT_FAILURE_CODE);
	}
}
