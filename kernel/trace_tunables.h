/*
 * Tunables of the event tracer (kernel/trace.c, kernel/trace_json.c),
 * each with its default and the reason for it.
 */
#ifndef KERNEL_TRACE_TUNABLES_H
#define KERNEL_TRACE_TUNABLES_H

/* The largest trace document the writer makes for HTTP or make trace:
 * one block of the buddy allocator's largest order (MAX_ORDER, 4 MiB),
 * the most one allocation can hold. At ~150 bytes an event that is about
 * 28,000 events; what does not fit is left out per CPU, counted. */
#define TRACE_JSON_MAX (4u << 20)

/* Spans open at once on one CPU that the writer follows (an interrupt
 * inside a lock hold inside a poll round inside a drain is 4). A deeper
 * begin is written as an instant event. */
#define TRACE_SPAN_DEPTH 16

/* Bytes of a string value (a cache's name, a drop reason) the writer
 * copies into the document. */
#define TRACE_STR_MAX 48

/* Bytes the writer keeps back in each CPU's share of the room, to close
 * that CPU's open spans (TRACE_SPAN_DEPTH ends of ~110 bytes) and the
 * document. */
#define TRACE_JSON_RESERVE 2048

#endif
