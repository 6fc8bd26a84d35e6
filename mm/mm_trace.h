/*
 * The allocators' trace points: what mm/ records when the mm class (and,
 * for lock waits, the lock class) records, through its platform seam
 * (mm_trace_emit, mm/platform.h): the kernel puts the events into its
 * per-CPU trace buffers, the host hands them to a test.
 *
 * Cost while off. A fast path pays only the class test (one byte load
 * and a predicted branch; libc/trace_event.h) and only where it already
 * branches to its slow path: mm_tracing() joins that condition, so while
 * the mm class records every call takes the out-of-line path, which does
 * the same work and records the event there. The fast paths thus keep no
 * call, and save no registers for one (docs/observe.md has the measured
 * instructions).
 *
 * Each file describes its own events (TRACE_EVENT, beside the trace
 * point); the values' names say what they are. Sizes and counts are
 * decimal, addresses hex, callers a function and offset.
 */
#ifndef MM_TRACE_H
#define MM_TRACE_H

#include "libc/trace_event.h"
#include "platform.h"

/* Does the mm class record? One relaxed byte load. */
static inline bool mm_tracing(void)
{
	return trace_on(TRACE_MM);
}

/* An instant event of ev; the class is tested here (slow paths call it
 * without testing first). */
static inline void mm_trace(const struct trace_desc *ev, uint64_t a, uint64_t b,
			    uint64_t c, uint32_t d)
{
	if (mm_unlikely(trace_on((enum trace_class)ev->cls)))
		mm_trace_emit(ev, TRACE_INSTANT, a, b, c, d);
}

/* The begin and end of a span of ev (a drain) on this CPU. */
static inline void mm_trace_begin(const struct trace_desc *ev, uint64_t a,
				  uint64_t b, uint64_t c, uint32_t d)
{
	if (mm_unlikely(trace_on((enum trace_class)ev->cls)))
		mm_trace_emit(ev, TRACE_BEGIN, a, b, c, d);
}

static inline void mm_trace_end(const struct trace_desc *ev, uint64_t a,
				uint64_t b, uint64_t c, uint32_t d)
{
	if (mm_unlikely(trace_on((enum trace_class)ev->cls)))
		mm_trace_emit(ev, TRACE_END, a, b, c, d);
}

#endif /* MM_TRACE_H */
