/*
 * trace_event: what every layer needs to put a trace point in its code,
 * and nothing of how events are stored (kernel/trace.h has the per-CPU
 * rings; mm/ reaches them through its platform seam, mm/platform.h).
 *
 * A trace point names a struct trace_desc, written beside it: the
 * event's name, its class, and the names and formats of up to four
 * values (a, b, c: 64 bits; d: 16 bits). The description is
 * never copied: a recorded event keeps a pointer to it, and the writer
 * of the trace reads the names from there, so a trace point stores four
 * numbers and a pointer, and nothing is registered anywhere.
 *
 * Classes are switched on and off as a whole (trace=mm,net at boot,
 * `trace on CLASSES` in the shell). A trace point costs one byte load
 * and a predicted branch while its class is off: trace_on() is the whole
 * test, and the call that records stays out of the common path.
 */
#ifndef LIBC_TRACE_EVENT_H
#define LIBC_TRACE_EVENT_H

#include <stdatomic.h>
#include <stdbool.h>

/* Classes of trace points, each switched as one. */
enum trace_class {
	TRACE_MM,   /* allocators: pages, per-CPU lists, slab, kmalloc,
		       qmempool, page_frag; remote frees, drains */
	TRACE_NET,  /* the packet path: RX/TX per queue, coalescing, lwIP
		       input and output, drops */
	TRACE_APP,  /* what runs on the stack: an echo, an HTTP request */
	TRACE_IRQ,  /* interrupt handlers */
	TRACE_POLL, /* poll rounds that did work */
	TRACE_LOCK, /* waits for a spinlock of the mm seam (zones, kernel) */
	TRACE_NR_CLASSES
};

/* One byte per class, 1 while it records. Written by the tracer only
 * (kernel/trace.c, or a host test); read by every trace point. */
extern atomic_uchar trace_class_on[TRACE_NR_CLASSES];
/* "mm", "net", ...: the class names the boot key, the shell and the
 * trace's "cat" field use. */
extern const char *const trace_class_names[TRACE_NR_CLASSES];

/*
 * trace_on - does class c record now? A relaxed byte load. On x86-64 it
 * is written as the two instructions it should be, a compare of the byte
 * in memory and a jump: an atomic load in C comes out as three (a load
 * into a register, a test, the jump), and every trace point pays it.
 * The asm is volatile (asm goto always is), so the load is never hoisted
 * out of a loop. (A volatile operand would make GCC put the address in a
 * register first: the plain one is addressed from the instruction.)
 */
static inline bool trace_on(enum trace_class c)
{
#if defined(__x86_64__)
	__asm__ goto("cmpb $0, %0\n\tjne %l[on]"
		     :
		     : "m"(trace_class_on[c])
		     : "cc"
		     : on);
	return false;
on:
	return true;
#else
	return atomic_load_explicit(&trace_class_on[c], memory_order_relaxed);
#endif
}

/* How a value is written in the trace. */
enum trace_fmt {
	TRACE_NONE, /* the slot is unused */
	TRACE_DEC,  /* unsigned decimal */
	TRACE_HEX,  /* "0x..." (addresses of data) */
	TRACE_SYM,  /* a code address, "function+0xoff" where the world
		       has a symbol table */
	TRACE_STR,  /* a pointer to a string that outlives the trace (a
		       cache's name, a drop reason) */
};

/* An event's phase: a point in time, or the start or end of a span
 * (spans on one CPU nest). */
enum trace_phase {
	TRACE_INSTANT = 'i',
	TRACE_BEGIN = 'B',
	TRACE_END = 'E',
};

struct trace_arg {
	const char *name;
	unsigned char fmt; /* enum trace_fmt */
};

struct trace_desc {
	const char *name;
	unsigned char cls;	 /* enum trace_class */
	struct trace_arg arg[4]; /* the values a, b, c, d, in order */
};

/*
 * TRACE_EVENT - define the description @var of event @name in class
 * @cls, with its values' names and formats in the order a, b, c, d:
 *   TRACE_EVENT(ev_rx, TRACE_NET, "rx", {"len", TRACE_DEC});
 * (a static const: each file describes its own events).
 */
#define TRACE_EVENT(var, cls_, name_, ...)     \
	static const struct trace_desc var = { \
		.name = name_, .cls = cls_, .arg = {__VA_ARGS__}}

/*
 * trace_classes_parse - a comma list of class names ("mm,net", "all";
 * "none" or "" for no class) as a bit mask, 1u << class. Returns -1 for
 * a word that names no class.
 */
int trace_classes_parse(const char *list);

#endif /* LIBC_TRACE_EVENT_H */
