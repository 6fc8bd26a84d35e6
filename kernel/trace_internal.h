/*
 * What the tracer's recording half (kernel/trace.c) and its writer
 * (kernel/trace_json.c) share: each CPU's buffer and the session.
 */
#ifndef KERNEL_TRACE_INTERNAL_H
#define KERNEL_TRACE_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "kernel/config.h"
#include "kernel/spinlock.h"
#include "kernel/trace.h"

/*
 * One CPU's buffer. Only that CPU writes it, with interrupts masked:
 * buf[0..head) are complete records of the session named by session and
 * never change within it; head is published with release order, so a
 * writer on another CPU that loads session and head with acquire order
 * reads only finished records, without a lock. The owner empties it at
 * its first event of a new session (then stores session, release). Full,
 * it drops new events (counted): a trace keeps its beginning whole.
 */
struct trace_cpu {
	struct trace_record *buf; /* trace_capacity records, CPU's node */
	atomic_uint session;	  /* the session buf holds (0: none) */
	atomic_uint head;	  /* records stored in buf */
	atomic_ulong dropped; /* events of this session that found it full */
	atomic_ulong recorded_total, dropped_total; /* since boot */
	/* trace_begin_quiet: the begin held back, and whether one is open */
	const struct trace_desc *held;
	uint64_t held_tsc, held_a;
	bool quiet_open;
} __attribute__((aligned(64)));

extern struct trace_cpu trace_cpus[MAX_CPUS];
/* Records each buffer holds (fixed at the first start). */
extern unsigned int trace_capacity;
/* The current session (0: none yet), its classes, its first TSC. */
extern atomic_uint trace_session;
extern unsigned int trace_session_mask;
extern uint64_t trace_session_tsc;
/* Serialises starts and the writer (never taken by trace_emit). */
extern spinlock_t trace_lock;
/* Starts refused because a buffer could not be allocated. */
extern unsigned long trace_alloc_failures;

/* Records of the current session cpu's buffer holds: 0 when the CPU has
 * recorded nothing since the start. Acquire order: those records are
 * complete. Any CPU. */
unsigned int trace_cpu_records(int cpu);

#endif
