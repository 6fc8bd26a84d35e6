/*
 * What the profiler's sampling half (kernel/profile.c) and its report
 * half (kernel/profile_report.c) share: the sample format and each CPU's
 * buffer and counters.
 */
#ifndef KERNEL_PROFILE_INTERNAL_H
#define KERNEL_PROFILE_INTERNAL_H

#include <stdatomic.h>
#include <stdint.h>
#include "kernel/config.h"
#include "kernel/spinlock.h"

/* The stack walk stopped at PROFILE_FRAMES with frames left. */
#define PROFILE_SAMPLE_TRUNCATED 1u

/*
 * One sample: pc[0] is the interrupted PC, pc[1..depth) the return
 * addresses of its callers, innermost first. The kernel is linked and
 * runs below 4 GiB (identity map), so 32 bits hold any code address and a
 * sample is two cache lines.
 */
struct profile_sample {
	uint16_t depth;
	uint16_t flags;
	uint32_t pc[PROFILE_FRAMES];
};
_Static_assert(sizeof(struct profile_sample) == 128,
	       "a sample is two cache lines");

/*
 * One CPU's samples. Only that CPU writes (from its timer interrupt):
 * buf[0..head) are complete and never change within a session, head is
 * published with release order, so a reader on another CPU that loads
 * head with acquire order may read those samples without a lock. The
 * owner resets the counters at its first tick of a new session, then
 * stores session (release).
 */
struct profile_cpu {
	struct profile_sample *buf; /* capacity samples, on the CPU's node */
	atomic_uint session;	    /* session the fields below belong to */
	atomic_uint head;	    /* samples stored in buf */
	atomic_ulong idle;	    /* ticks that found the CPU halted */
	atomic_ulong dropped;	    /* busy ticks that found buf full */
	atomic_ulong truncated;	    /* stored samples cut at PROFILE_FRAMES */
} __attribute__((aligned(64)));

extern struct profile_cpu profile_cpus[MAX_CPUS];
/* Samples each buffer holds (fixed at the first start). */
extern unsigned int profile_capacity;
/* The current session (0: none yet), the rate it samples at now (0:
 * stopped) and the rate it was started at. */
extern atomic_uint profile_session;
extern atomic_uint profile_hz;
extern unsigned int profile_rate;
/* Serialises starts and reports (never taken by the tick). */
extern spinlock_t profile_lock;
/* Starts refused because a buffer could not be allocated. */
extern unsigned long profile_alloc_failures;

#endif
