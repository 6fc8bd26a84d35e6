/*
 * Boot self-tests. selftest=fault writes to an unmapped address to prove
 * the exception report works; selftest=panic calls panic(). Both end the
 * boot. selftest=mm lives with the allocator boot code (kernel/mm_boot.c).
 */
#include "kernel/selftest.h"
#include "kernel/smp.h"
#include "kernel/arch.h"
#include "kernel/cmdline.h"
#include "kernel/cpu_stats.h"
#include "kernel/irq.h"
#include "kernel/console.h"
#include "kernel/mm_boot.h"
#include "kernel/paging.h"
#include "kernel/power.h"
#include "kernel/trap.h"
#include "kernel/percpu.h"
#include "kernel/poll.h"
#include "kernel/time.h"
#include "mm/slab.h"
#include <stdatomic.h>
#include <stdbool.h>
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

/* The bound for waiting on other CPUs: generous, because under TCG on a
 * loaded host a vCPU thread can go unscheduled for a long while. */
#define SELFTEST_WAIT_MS 5000

static bool all_ticked(const uint64_t *ticks0)
{
	for (int c = 0; c < nr_cpus; c++)
		if (cpus[c].ticks == ticks0[c])
			return false;
	return true;
}

static atomic_int smp_seen[MAX_CPUS];

/* Runs on each CPU: it answers only if it is the CPU its slot says. */
static void smp_note(void *arg)
{
	(void)arg;
	if (smp_check_this_cpu() == 0)
		atomic_store(&smp_seen[this_cpu_id()], 1);
}

/* The TSC clock against the LAPIC tick: from any phase, 10 ticks span at
 * least 9 periods (90 ms at 100 Hz; a late tick only makes it longer), so
 * a clock that advanced less than 80 ms was calibrated too fast. Returns
 * the number of problems. */
static int check_clock_against_timer(void)
{
	uint64_t t0, ticks0, ms;

	ticks0 = this_cpu()->ticks;
	t0 = clock_ms();
	while (this_cpu()->ticks - ticks0 < 10 &&
	       clock_ms() - t0 < SELFTEST_WAIT_MS)
		irq_enable_for_ms(1);
	ms = clock_ms() - t0;
	if (this_cpu()->ticks - ticks0 < 10 || ms < 8 * 1000 / TIMER_HZ) {
		kprintf("selftest: smp: clock_ms advanced %llu ms over %llu "
			"ticks of %d Hz\n",
			(unsigned long long)ms,
			(unsigned long long)(this_cpu()->ticks - ticks0),
			TIMER_HZ);
		return 1;
	}
	return 0;
}

/* The poll loop counters, as the statistics functions give them. */
static void report_cpustat(void)
{
	int n = cpustat_json(NULL, 0);
	/* sized by the text: it grows with the CPUs (64 of them need more
	 * than a page) */
	char *buf = kmalloc((size_t)n + 1, GFP_KERNEL);

	if (!buf || cpustat_json(buf, (size_t)n + 1) != n) {
		kprintf("selftest: smp: cpustat_json length %d mismatch or no "
			"memory\n",
			n);
		kfree(buf);
		selftest_failed();
		return;
	}
	kprintf("selftest: smp cpustat=%s\n", buf);
	kfree(buf);
}

/* Every CPU answers a call from its poll loop, its timer ticks, and the
 * clock moves forward by about the time the ticks say. */
static void selftest_smp(void)
{
	uint64_t t0 = clock_ms(), ticks0[MAX_CPUS] = {0};
	int bad = 0;

	for (int c = 0; c < nr_cpus; c++)
		ticks0[c] = cpus[c].ticks;
	for (int c = 1; c < nr_cpus; c++)
		smp_call_async(c, smp_note, NULL);
	for (int c = 1; c < nr_cpus; c++)
		smp_call_wait(c);
	smp_note(NULL);
	irq_enable_for_ms(50);
	while (!all_ticked(ticks0) && clock_ms() - t0 < SELFTEST_WAIT_MS)
		irq_enable_for_ms(10);
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
	bad += check_clock_against_timer();
	bad += smp_check_late_cpus(SELFTEST_WAIT_MS);
	if (bad) {
		kprintf("selftest: smp FAIL\n");
		selftest_failed();
	} else {
		kprintf("selftest: smp PASS cpus=%d clock=%llums\n", nr_cpus,
			(unsigned long long)(clock_ms() - t0));
		report_cpustat();
	}
}

/* ---- selftest=irq: the IOAPIC path, with the PIT as the device ---- */

static atomic_int irq_count, irq_cpu = -1;

static void pit_irq(void *arg)
{
	(void)arg;
	atomic_fetch_add(&irq_count, 1);
	atomic_store(&irq_cpu, this_cpu_id());
	poll_wake(this_cpu_id());
}

/* Routes ISA IRQ 0 (the PIT; QEMU's MADT overrides it to GSI 2) to a
 * vector from irq_alloc_vector on the last CPU, runs the PIT at 1 kHz until
 * ten interrupts came (or 5 s), and checks they arrived there. */
static void selftest_irq(void)
{
	int target = nr_cpus - 1, vec = irq_alloc_vector(pit_irq, NULL), n;
	uint16_t div = 1193182 / 1000;

	if (vec < 0 || irq_route_isa(0, vec, target) < 0) {
		kprintf("selftest: irq FAIL (no vector or no IOAPIC route)\n");
		selftest_failed();
		return;
	}
	outb(0x43, 0x34); /* channel 0, lo/hi byte, mode 2 (rate generator) */
	outb(0x40, (uint8_t)div);
	outb(0x40, (uint8_t)(div >> 8));
	for (uint64_t t0 = clock_ms(); atomic_load(&irq_count) < 10 &&
				       clock_ms() - t0 < SELFTEST_WAIT_MS;)
		irq_enable_for_ms(10);
	irq_mask_isa(0);
	n = atomic_load(&irq_count);
	irq_free_vector(vec);
	if (n == 0 || atomic_load(&irq_cpu) != target) {
		kprintf("selftest: irq FAIL interrupts=%d on cpu %d (wanted "
			"%d)\n",
			n, atomic_load(&irq_cpu), target);
		selftest_failed();
		return;
	}
	kprintf("selftest: irq PASS vector=0x%x cpu=%d interrupts=%d\n", vec,
		target, n);
}

static void fault_on_ap(void *arg)
{
	(void)arg;
	fault_here();
}

void selftests_run(void)
{
	if (cmdline_has("selftest", "printf"))
		selftest_printf();
	if (cmdline_has("selftest", "irq"))
		selftest_irq();
	if (cmdline_has("selftest", "smp"))
		selftest_smp();
	if (cmdline_has("selftest", "mm"))
		selftest_mm();
	if (cmdline_has("selftest", "slab"))
		selftest_slab();
	if (cmdline_has("selftest", "frag"))
		selftest_frag();
	if (cmdline_has("selftest", "qmempool"))
		selftest_qmempool();
	if (cmdline_has("selftest", "panic"))
		panic("selftest: panic requested on the command line");
	if (cmdline_has("selftest", "fault"))
		fault_here();
	if (cmdline_has("selftest", "fault_ap") && nr_cpus > 1) {
		smp_call_async(nr_cpus - 1, fault_on_ap, NULL);
		irq_enable_for_ms(
			1000); /* the STOP IPI or the exit ends this */
		kprintf("selftest: fault_ap FAIL (cpu %d did not fault)\n",
			nr_cpus - 1);
		selftest_failed();
	}
	if (cmdline_get("bench") && *cmdline_get("bench"))
		mm_bench_run();
	if (failures && exit_on_fatal) {
		kprintf("selftest: %d failed\n", failures);
		system_exit(EXIT_FAILURE_CODE);
	}
}
