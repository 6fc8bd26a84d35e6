/*
 * Time: a monotonic clock read from the TSC (calibrated once against the
 * HPET or the PIT), busy-wait delays, and a periodic LAPIC timer tick on
 * every CPU (TIMER_HZ; the profiler's rate while it samples,
 * kernel/profile.h).
 * The clock is computed from the TSC at each call — never a cached tick —
 * so it advances inside long loops (lwIP's sys_now relies on that).
 */
#ifndef KERNEL_TIME_H
#define KERNEL_TIME_H

#include <stdint.h>

/* Boot CPU, once, interrupts off: calibrate the TSC and the LAPIC timer. */
void time_init(void);
/* Every CPU: start its periodic TIMER_HZ tick. Each tick calls
 * profile_tick() with the interrupted frame and runs at the rate it asks
 * for (the hook a tickless timer must keep). */
void timer_start_cpu(void);

/*
 * timer_idle_enter - this CPU is about to halt with nothing to do before
 * deadline_ns (clock_ns() time; UINT64_MAX: none): replace its periodic
 * tick by one timer interrupt then, at most TIMER_IDLE_MAX_MS away (kept
 * periodic while the profiler samples). timer_idle_exit - after the halt:
 * the periodic tick again (nothing if enter left it). Interrupts off,
 * poll loop only.
 */
void timer_idle_enter(uint64_t deadline_ns);
void timer_idle_exit(void);
/* "tsc-deadline" or "lapic one-shot": how idle deadlines are timed. */
const char *timer_idle_mode(void);

/* Milliseconds / microseconds / nanoseconds since time_init. Any context,
 * any CPU. */
uint64_t clock_ms(void);
uint64_t clock_us(void);
uint64_t clock_ns(void);
/* time_mark_entry - remember the TSC now: the boot CPU, first thing in
 * kmain. time_since_entry_ms - milliseconds since then, once time_init
 * has calibrated the TSC (the boot report's "boot: time=", which
 * measures the whole boot, memory set-up included). */
void time_mark_entry(void);
uint64_t time_since_entry_ms(void);
/* Which timer calibrated the TSC: "hpet" or "pit". */
const char *time_calibrated_by(void);
/* TSC frequency in Hz, as calibrated. */
uint64_t tsc_hz(void);
/* Busy-wait at least us microseconds. Any context. */
void delay_us(uint64_t us);

#endif
