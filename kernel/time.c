/*
 * TSC and LAPIC timer calibration against the PIT. PIT channel 2 counts
 * down a known interval (its input clock is 1.193182 MHz on every PC and
 * in QEMU) while we read the TSC and the LAPIC timer; the shortest of a
 * few runs wins, because a run can only be lengthened by interference.
 * Under TCG the TSC follows the host clock (no invariant TSC), which is
 * fine for milliseconds.
 */
#include "kernel/time.h"
#include "kernel/apic.h"
#include "kernel/arch.h"
#include "kernel/config.h"
#include "kernel/console.h"
#include "kernel/percpu.h"
#include "kernel/trap.h"

#define PIT_HZ	     1193182
#define CALIBRATE_MS 10

static uint64_t tsc_freq = 1000000000; /* until calibrated: 1 GHz guess */
static uint64_t tsc_boot;
static uint32_t lapic_per_tick;

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
	while (!(inb(0x61) & 0x20))
		; /* OUT2 goes high at terminal count */
	t1 = rdtsc();
	*lapic_counts = lapic_timer_elapsed();
	return t1 - t0;
}

void time_init(void)
{
	uint64_t best = UINT64_MAX;
	uint32_t best_lapic = 0;

	for (int i = 0; i < 3; i++) {
		uint32_t lc;
		uint64_t c = pit_measure(&lc);

		if (c < best) {
			best = c;
			best_lapic = lc;
		}
	}
	tsc_freq = best * (1000 / CALIBRATE_MS);
	lapic_per_tick = (uint32_t)((uint64_t)best_lapic *
				    (1000 / CALIBRATE_MS) / TIMER_HZ);
	if (lapic_per_tick == 0)
		lapic_per_tick = 1;
	tsc_boot = rdtsc();
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

static void timer_tick(void *arg)
{
	(void)arg;
	this_cpu()->ticks++;
}

void timer_start_cpu(void)
{
	trap_set_handler(VEC_TIMER, timer_tick, NULL);
	lapic_timer_periodic(VEC_TIMER, lapic_per_tick);
}
