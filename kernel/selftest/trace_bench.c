/*
 * bench=trace: what a trace point costs, in guest instructions under
 * QEMU -icount shift=0 (as the rest of bench=, kernel/selftest/mm_bench.c):
 *
 *   trace_off  a trace point whose class is off: TRACE_BENCH_POINTS of
 *              them in a loop, less the same loop without them, per point
 *              (libc/trace_event.h: the test is a compare of the class's
 *              byte in memory and a jump, so the figure should be 2)
 *   trace_on   a trace point whose class records: the same, per event
 *              recorded (trace_emit: masking interrupts, the TSC, one
 *              40-byte record, the head published)
 *
 * The on case records the app class, which no trace point of the boot
 * uses, in a session of its own; trace= at boot starts its session
 * after the benchmarks, so a boot trace never holds these events.
 */
#include "kernel/arch.h"
#include "kernel/console.h"
#include "kernel/selftest/tests.h"
#include "kernel/trace.h"

#define TRACE_BENCH_ROUNDS 1000
#define TRACE_BENCH_POINTS 4 /* per round */

TRACE_EVENT(ev_bench, TRACE_APP, "bench", {"round", TRACE_DEC});

/* The loop's own instructions: the rounds with no trace point. */
static uint64_t rounds_bare(void)
{
	uint64_t t0 = rdtsc();

	for (unsigned int i = 0; i < TRACE_BENCH_ROUNDS; i++)
		__asm__ volatile("" ::"r"(i)); /* the loop stays a loop */
	return rdtsc() - t0;
}

static uint64_t rounds_traced(void)
{
	uint64_t t0 = rdtsc();

	for (unsigned int i = 0; i < TRACE_BENCH_ROUNDS; i++) {
		__asm__ volatile("" ::"r"(i));
		trace_point(&ev_bench, i, 0, 0, 0);
		trace_point(&ev_bench, i, 0, 0, 0);
		trace_point(&ev_bench, i, 0, 0, 0);
		trace_point(&ev_bench, i, 0, 0, 0);
	}
	return rdtsc() - t0;
}

/* Per point, in hundredths, of the traced loop over the bare one. */
static void report(const char *name, uint64_t traced, uint64_t bare)
{
	unsigned long ops = TRACE_BENCH_ROUNDS * TRACE_BENCH_POINTS;
	uint64_t extra = traced > bare ? traced - bare : 0;
	uint64_t x100 = extra * 100 / ops;

	kprintf("bench: kernel %s ops=%lu ticks=%llu per_op=%llu.%02llu\n",
		name, ops, (unsigned long long)extra,
		(unsigned long long)(x100 / 100),
		(unsigned long long)(x100 % 100));
}

void bench_trace(void)
{
	uint64_t bare, traced;

	if (trace_classes() & (1u << TRACE_APP))
		return; /* someone records the app class: not ours to time */
	rounds_bare();
	rounds_traced(); /* warm: both loops' code and data in the cache */
	bare = rounds_bare();
	traced = rounds_traced();
	report("trace_off", traced, bare);
	if (trace_start(1u << TRACE_APP) != 0)
		return;	 /* said why */
	rounds_traced(); /* the session's buffer emptied and warm */
	trace_start(1u << TRACE_APP);
	traced = rounds_traced();
	trace_stop();
	report("trace_on", traced, bare);
}
