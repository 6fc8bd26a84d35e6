/*
 * The event tracer: every CPU records its trace points' events into its
 * own buffer, and a writer turns a finished trace into Chrome's
 * trace-event JSON (docs/observe.md), which Perfetto's UI, chrome://tracing
 * and speedscope open: one timeline per CPU, grouped by NUMA node.
 *
 * A trace point (libc/trace_event.h) costs one byte load and a predicted
 * branch while its class is off; on, trace_emit() stores one 40-byte
 * record: the TSC, the event's description and its four values.
 *
 * Sessions: trace_start() opens a new one for a set of classes (each
 * CPU's buffer empties at that CPU's next event), trace_stop() switches
 * every class off and keeps the records for the writer until the next
 * start. Started at boot by trace=CLASSES, in the shell by `trace on`,
 * over HTTP by POST /trace/start (apps/http_trace.c).
 */
#ifndef KERNEL_TRACE_H
#define KERNEL_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libc/trace_event.h"

/*
 * One recorded event. desc is the address of the trace point's
 * description (static storage, never copied; the values' meaning is
 * there too): the kernel is linked and runs below 4 GiB (identity map,
 * -mcmodel=small), so 32 bits hold it and the record stays 40 bytes.
 */
struct trace_record {
	uint64_t tsc;  /* this CPU's TSC when it was recorded */
	uint32_t desc; /* const struct trace_desc * */
	uint16_t d;
	uint8_t phase; /* enum trace_phase */
	uint8_t unused;
	uint64_t a, b, c;
};
_Static_assert(sizeof(struct trace_record) == 40, "a record is 40 bytes");

/*
 * trace_emit - record one event on this CPU: the out-of-line half of the
 * trace points below, called only while ev's class is on. Interrupts are
 * masked for the few stores it takes, so an interrupt's own events never
 * interleave with it. A full buffer drops the event (counted). Any
 * context, any CPU; takes no lock.
 */
void trace_emit(const struct trace_desc *ev, int phase, uint64_t a, uint64_t b,
		uint64_t c, uint32_t d);

/* trace_point - an instant event of ev, if its class records. */
static inline void trace_point(const struct trace_desc *ev, uint64_t a,
			       uint64_t b, uint64_t c, uint32_t d)
{
	if (__builtin_expect(trace_on(ev->cls), 0))
		trace_emit(ev, TRACE_INSTANT, a, b, c, d);
}

/* trace_begin / trace_end - a span of ev on this CPU (spans nest: end
 * the inner one first). The values of the end are added to the span's. */
static inline void trace_begin(const struct trace_desc *ev, uint64_t a,
			       uint64_t b, uint64_t c, uint32_t d)
{
	if (__builtin_expect(trace_on(ev->cls), 0))
		trace_emit(ev, TRACE_BEGIN, a, b, c, d);
}

static inline void trace_end(const struct trace_desc *ev, uint64_t a,
			     uint64_t b, uint64_t c, uint32_t d)
{
	if (__builtin_expect(trace_on(ev->cls), 0))
		trace_emit(ev, TRACE_END, a, b, c, d);
}

/*
 * trace_begin_quiet / trace_end_quiet - a span that is recorded only if
 * some other event of this CPU falls inside it: the begin is held back
 * (with its time) and written just before that event; an end that finds
 * it still held drops it. A poll round that found nothing thus costs no
 * room. One such span open per CPU at a time; no other span may begin
 * inside it before the held one is written. Poll loop only (interrupts
 * may come: they write it first). Out of line: the caller tests the
 * class (trace_on).
 */
void trace_begin_quiet(const struct trace_desc *ev, uint64_t a);
void trace_end_quiet(const struct trace_desc *ev, uint64_t a);

/*
 * trace_start - a new session recording the classes in mask (1u <<
 * enum trace_class). The per-CPU buffers are allocated at the first
 * start (trace_events= each, on each CPU's node) and kept. Context: poll
 * context or boot, not concurrently with the writer. Returns 0; -1 for
 * an empty mask (nothing changes); -2 when a buffer cannot be allocated
 * (reported; nothing records).
 */
int trace_start(unsigned int mask);

/* trace_stop - every class off; the records stay for the writer until
 * the next start. Any context. */
void trace_stop(void);

/* The classes recording now (a mask), and whether any does. */
unsigned int trace_classes(void);
bool trace_running(void);

/* trace_boot - trace=CLASSES at the end of the boot (after the
 * self-tests): start a session. Boot CPU, once. */
void trace_boot(void);

/*
 * trace_json - the last session's records as one Chrome trace-event JSON
 * document (docs/observe.md): metadata naming each node (process) and
 * CPU (thread), then each CPU's events in the order it recorded them,
 * spans balanced (an end whose begin came before the session is left
 * out; a span still open is closed at the CPU's last event), timestamps
 * in microseconds from the session's start. At most max_events events in
 * all (0: no limit), and at most limit bytes: a CPU's share of the room
 * ends its events early (counted in otherData), the document stays
 * whole. snprintf semantics against size (buf may be NULL with size 0);
 * while a session records, two calls may differ. Poll context, any CPU;
 * never from an interrupt handler.
 */
int trace_json(char *buf, size_t size, size_t limit, unsigned long max_events);

/* The "trace" object of /stats.json (snprintf semantics) and its
 * description (libc/stat_table.h). Any context. */
int trace_stats_json(char *buf, size_t size);
struct stat_schema;
extern const struct stat_schema trace_stats_schema;

#endif /* KERNEL_TRACE_H */
