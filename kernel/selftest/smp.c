/*
 * selftest=smp: every CPU answers a call from its poll loop, every CPU's
 * timer ticks, and the TSC clock agrees with the tick; then the poll loop
 * counters as cpustat_json gives them.
 */
#include "kernel/selftest/tests.h"
#include "kernel/config.h"
#include "kernel/console.h"
#include "kernel/cpu_stats.h"
#include "kernel/percpu.h"
#include "kernel/poll.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "mm/slab.h"
#include <stdatomic.h>
#include <stdbool.h>

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
static int report_cpustat(void)
{
	int n = cpustat_json(NULL, 0);
	/* Sized by the text: it grows with the CPUs (64 of them need more
	 * than a page). The other CPUs keep counting between the sizing pass
	 * and the writing one, so a number may gain a digit: room for one
	 * more digit in every counter (7 of them, under KVM 256 CPUs grew
	 * the text between the two passes). */
	size_t size = (size_t)n + 8 * (size_t)nr_cpus + 1;
	char *buf = kmalloc(size, GFP_KERNEL);
	int m = buf ? cpustat_json(buf, size) : -1;

	if (m < 0 || (size_t)m >= size) {
		kprintf("selftest: smp: cpustat_json of %d bytes does not fit "
			"%zu, or no memory\n",
			m, size);
		kfree(buf);
		return 1;
	}
	kprintf("selftest: smp cpustat=%s\n", buf);
	kfree(buf);
	return 0;
}

/* Every CPU answers a call from its poll loop, its timer ticks, and the
 * clock moves forward by about the time the ticks say. */
int selftest_smp(void)
{
	uint64_t t0 = clock_ms(), ticks0[MAX_CPUS] = {0};
	int bad = 0;

	for (int c = 0; c < nr_cpus; c++) {
		ticks0[c] = cpus[c].ticks;
		atomic_store(&smp_seen[c], 0); /* again after boot: afresh */
	}
	smp_call_all(smp_note, NULL);
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
		return bad;
	}
	kprintf("selftest: smp PASS cpus=%d clock=%llums\n", nr_cpus,
		(unsigned long long)(clock_ms() - t0));
	return report_cpustat();
}
