/*
 * TSC and LAPIC timer calibration against a timer of known frequency: the
 * HPET when ACPI lists one (its period is in its capability register),
 * else PIT channel 2 (1.193182 MHz on every PC and in QEMU). We time a
 * 10 ms interval on it while reading the TSC and the LAPIC timer; the
 * shortest of three runs wins, because interference can only lengthen a
 * run. Under TCG the TSC follows the host clock (no invariant TSC), which
 * is fine for milliseconds.
 */
#include "kernel/time.h"
#include <stdbool.h>
#include "kernel/apic.h"
#include "kernel/arch.h"
#include "kernel/acpi.h"
#include "kernel/config.h"
#include "kernel/console.h"
#include "kernel/paging.h"
#include "kernel/percpu.h"
#include "kernel/profile.h"
#include "kernel/stall.h"
#include "kernel/vector.h"

#define PIT_HZ	     1193182
#define CALIBRATE_MS 10

static uint64_t tsc_freq = 1000000000; /* until calibrated: 1 GHz guess */
static uint64_t tsc_boot;
static uint64_t tsc_entry;     /* at the kernel's entry: time_mark_entry */
static uint64_t lapic_per_sec; /* LAPIC timer counts (divide by 16) */
static const char *calibrated_by = "none";
static bool pit_broken;
static bool tsc_deadline; /* CPUID.1:ECX bit 24: TSC-deadline timer mode */

#define HPET_CAP     0x000
#define HPET_CONFIG  0x010
#define HPET_COUNTER 0x0F0

/* One PIT one-shot of CALIBRATE_MS on channel 2; returns TSC cycles and
 * LAPIC timer counts that passed. */
static uint64_t pit_measure(uint32_t *lapic_counts)
{
	uint16_t count = PIT_HZ / (1000 / CALIBRATE_MS);
	uint8_t gate = (uint8_t)(inb(0x61) & ~0x03); /* speaker off, gate low */
	uint64_t t0, t1;

	outb(0x61, gate);
	outb(0x43, 0xB0); /* channel 2, lo/hi byte, mode 0, binary */
	outb(0x42, (uint8_t)count);
	outb(0x42, (uint8_t)(count >> 8));
	lapic_timer_start_count();
	t0 = rdtsc();
	outb(0x61, gate | 1); /* gate high: counting starts */
	/* OUT2 goes high at terminal count. Bounded: a PC without a working
	 * PIT must not hang the boot (each inb takes about a microsecond). */
	for (long spins = 0; !(inb(0x61) & 0x20); spins++) {
		if (spins > 2000000) {
			pit_broken = true;
			break;
		}
	}
	t1 = rdtsc();
	*lapic_counts = lapic_timer_elapsed();
	return t1 - t0;
}

/* The same with the HPET main counter: count CALIBRATE_MS worth of its
 * ticks (period in femtoseconds from the capability register). */
static uint64_t hpet_measure(volatile uint64_t *hpet, uint32_t *lapic_counts)
{
	uint64_t period_fs = hpet[HPET_CAP / 8] >> 32;
	uint64_t ticks = (uint64_t)CALIBRATE_MS * 1000000000000ULL / period_fs;
	/* a 32-bit main counter (capability bit 13 clear) wraps at 2^32 */
	uint64_t mask =
		(hpet[HPET_CAP / 8] & (1u << 13)) ? ~0ULL : 0xFFFFFFFFULL;
	uint64_t h0, t0, t1;

	hpet[HPET_CONFIG / 8] |= 1; /* main counter on */
	lapic_timer_start_count();
	h0 = hpet[HPET_COUNTER / 8];
	t0 = rdtsc();
	while (((hpet[HPET_COUNTER / 8] - h0) & mask) < ticks)
		cpu_relax();
	t1 = rdtsc();
	*lapic_counts = lapic_timer_elapsed();
	return t1 - t0;
}

/* The HPET if ACPI lists a usable one (period 0.1-100 ns), else NULL. */
static volatile uint64_t *hpet_find(void)
{
	volatile uint64_t *hpet;
	uint64_t period;

	if (!acpi.hpet_base)
		return NULL;
	hpet = map_mmio(acpi.hpet_base, 1024);
	if (!hpet)
		return NULL;
	period = hpet[HPET_CAP / 8] >> 32;
	return (period >= 100000 && period <= 100000000) ? hpet : NULL;
}

const char *time_calibrated_by(void)
{
	return calibrated_by;
}

void time_init(void)
{
	uint64_t best = UINT64_MAX;
	uint32_t best_lapic = 0;
	volatile uint64_t *hpet = hpet_find();

	calibrated_by = hpet ? "hpet" : "pit";
	for (int i = 0; i < 3; i++) {
		uint32_t lc;
		uint64_t c = hpet ? hpet_measure(hpet, &lc) : pit_measure(&lc);

		if (c < best) {
			best = c;
			best_lapic = lc;
		}
	}
	if (pit_broken) {
		kprintf("time: neither HPET nor PIT counts; assuming a 2 GHz "
			"TSC, the clock will be off\n");
		best = 2000000000ULL / (1000 / CALIBRATE_MS);
		best_lapic = 1000000000U / 16 / (1000 / CALIBRATE_MS);
		calibrated_by = "guess";
	}
	tsc_freq = best * (1000 / CALIBRATE_MS);
	lapic_per_sec = (uint64_t)best_lapic * (1000 / CALIBRATE_MS);
	tsc_boot = rdtsc();
	{
		uint32_t a, b, c, d;

		cpuid(1, 0, &a, &b, &c, &d);
		tsc_deadline = (c >> 24) & 1;
	}
}

const char *timer_idle_mode(void)
{
	return tsc_deadline ? "tsc-deadline" : "lapic one-shot";
}

uint64_t tsc_hz(void)
{
	return tsc_freq;
}

/* Split the product so cycles * 1000000 cannot overflow for decades. */
static uint64_t cycles_to(uint64_t cycles, uint64_t per_sec)
{
	return cycles / tsc_freq * per_sec +
	       (cycles % tsc_freq) * per_sec / tsc_freq;
}

/* ns nanoseconds in counts of a per_sec clock, without overflow for the
 * second-scale ns used here. */
static uint64_t cycles_from_ns(uint64_t ns, uint64_t per_sec)
{
	return ns / 1000000000u * per_sec +
	       (ns % 1000000000u) * per_sec / 1000000000u;
}

void time_mark_entry(void)
{
	tsc_entry = rdtsc();
}

uint64_t time_since_entry_ms(void)
{
	return cycles_to(rdtsc() - tsc_entry, 1000);
}

uint64_t clock_ms(void)
{
	return cycles_to(rdtsc() - tsc_boot, 1000);
}

uint64_t clock_us(void)
{
	return cycles_to(rdtsc() - tsc_boot, 1000000);
}

uint64_t clock_ns(void)
{
	return cycles_to(rdtsc() - tsc_boot, 1000000000);
}

void delay_us(uint64_t us)
{
	uint64_t end = rdtsc() + us * (tsc_freq / 1000000);

	while (rdtsc() < end)
		cpu_relax();
}

/* This CPU's periodic LAPIC timer at hz interrupts per second. */
static void timer_set_cpu_hz(unsigned int hz)
{
	uint64_t count = lapic_per_sec / hz;

	this_cpu()->timer_hz = hz;
	lapic_timer_periodic(VEC_TIMER, count ? (uint32_t)count : 1);
}

/* The profiler samples the interrupted code from here and may ask for a
 * faster tick while it does; the tick goes back to TIMER_HZ after. */
static void timer_tick(void *arg)
{
	struct cpu *c = this_cpu();
	unsigned int hz;

	(void)arg;
	c->ticks++;
	stall_check(c->irq_frame);
	hz = profile_tick(c->irq_frame);
	if (!hz)
		hz = TIMER_HZ;
	if (hz != c->timer_hz)
		timer_set_cpu_hz(hz);
}

/*
 * Tickless idle. An idle CPU needs no interrupt until its earliest
 * deadline: the periodic tick is replaced by one interrupt then (at most
 * TIMER_IDLE_MAX_MS away), in TSC-deadline mode where the CPU has it (an
 * absolute TSC value: no conversion error, no count to overflow), else a
 * one-shot count of the LAPIC timer. While the profiler samples, the tick
 * stays (profile_sampling; profile_start wakes every CPU so its tick comes
 * back at once): the samples are the point. timer_idle_exit() puts the tick back
 * once the CPU wakes, for whatever reason.
 */
void timer_idle_enter(uint64_t deadline_ns)
{
	struct cpu *c = this_cpu();
	uint64_t now = clock_ns(), max = (uint64_t)TIMER_IDLE_MAX_MS * 1000000u;
	uint64_t ns = deadline_ns > now ? deadline_ns - now : 0;

	if (c->timer_hz != TIMER_HZ || profile_sampling())
		return;
	if (ns > max)
		ns = max;
	if (tsc_deadline) {
		lapic_timer_tsc_deadline(
			VEC_TIMER, rdtsc() + cycles_from_ns(ns, tsc_freq));
	} else {
		uint64_t count = cycles_from_ns(ns, lapic_per_sec);

		lapic_timer_oneshot(VEC_TIMER, count > 0xFFFFFFFFu
						       ? 0xFFFFFFFFu
						       : (uint32_t)count);
	}
	c->tickless = true;
	c->timer_reprograms++;
}

void timer_idle_exit(void)
{
	struct cpu *c = this_cpu();

	if (!c->tickless)
		return;
	c->tickless = false;
	c->timer_reprograms++;
	/* the rate the tick had, or the profiler's if its tick set one */
	timer_set_cpu_hz(c->timer_hz);
}

void timer_start_cpu(void)
{
	vector_set_handler(VEC_TIMER, timer_tick, NULL);
	timer_set_cpu_hz(TIMER_HZ);
}
