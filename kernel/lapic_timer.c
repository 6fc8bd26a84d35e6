/*
 * Programming the local APIC timer: periodic tick, one-shot count,
 * TSC deadline, and the free-running count used for calibration.
 *
 * Why the periodic switch stops the timer first. A mode switch takes
 * several register writes, and between them the timer runs with whatever
 * the others still hold. The tickless idle path leaves a one-shot count of
 * 1 behind (a deadline that had already passed); selecting periodic mode
 * before replacing that count gives, for the span of one register write, a
 * periodic timer of 16 bus clocks. A real CPU takes a few extra interrupts.
 * QEMU's TCG emulation does not recover: its main loop replays every
 * period of the timer that it missed, each replay costs more host time
 * than the 16 ns period, and the vCPU that would write the real count
 * waits for the lock the main loop holds. Measured: with four virtio
 * queues on four vCPUs, about 1 boot in 10 stopped answering the network
 * for minutes, with QEMU's main thread at 100 % inside the APIC timer's
 * callback and the guest's timer expiry seconds behind the clock.
 *
 * So every switch into periodic mode first masks the timer and writes a
 * zero initial count (which stops it; it also leaves TSC-deadline mode,
 * where count writes are ignored), then sets the divider, the mode, and
 * only then the count. No write sequence here ever has the timer running
 * with a count it was not given for the mode it is in
 * (tests/host/kernel/test_lapic_timer.c checks that on a model of the
 * registers).
 */
#include "kernel/apic.h"
#include "kernel/lapic_regs.h"

/* Masked, one-shot, count 0: the timer is stopped in every mode. */
static void lapic_timer_stop(void)
{
	lapic_write(LAPIC_LVT_TIMER, LVT_MASKED);
	lapic_write(LAPIC_TIMER_INIT, 0);
}

void lapic_timer_periodic(int vector, uint32_t count)
{
	lapic_timer_stop();
	lapic_write(LAPIC_TIMER_DIV, LAPIC_DIV_16);
	lapic_write(LAPIC_LVT_TIMER, (uint32_t)vector | LVT_PERIODIC);
	lapic_write(LAPIC_TIMER_INIT, count ? count : 1);
}

/* From periodic mode the old count may still run in one-shot mode for the
 * span of one write: at most one early interrupt, which the idle loop
 * takes as any other wake-up. */
void lapic_timer_oneshot(int vector, uint32_t count)
{
	lapic_write(LAPIC_TIMER_DIV, LAPIC_DIV_16);
	lapic_write(LAPIC_LVT_TIMER, (uint32_t)vector); /* mode 00: one-shot */
	lapic_write(LAPIC_TIMER_INIT, count ? count : 1);
}

void lapic_timer_tsc_deadline(int vector, uint64_t tsc)
{
	/* Leaving periodic or one-shot mode stops the count timer. */
	lapic_write(LAPIC_LVT_TIMER, (uint32_t)vector | LVT_TSC_DEADLINE);
	lapic_write_tsc_deadline(tsc ? tsc : 1);
}

void lapic_timer_start_count(void)
{
	lapic_write(LAPIC_TIMER_DIV, LAPIC_DIV_16);
	lapic_write(LAPIC_LVT_TIMER, LVT_MASKED);
	lapic_write(LAPIC_TIMER_INIT, 0xFFFFFFFF);
}

uint32_t lapic_timer_elapsed(void)
{
	return 0xFFFFFFFF - lapic_read(LAPIC_TIMER_CUR);
}
