/* The interrupt vector registry (kernel/vector.h): one slot per vector.
 * Each handler's run is a span of the irq trace class (docs/observe.md),
 * named by its vector and handler. */
#include "kernel/vector.h"
#include "kernel/trace.h"
#include <stddef.h>

TRACE_EVENT(ev_irq, TRACE_IRQ, "irq", {"vector", TRACE_DEC},
	    {"handler", TRACE_SYM});

static struct {
	irq_handler_t fn;
	void *arg;
} handlers[256];

void vector_set_handler(int vector, irq_handler_t fn, void *arg)
{
	handlers[vector].arg = arg;
	handlers[vector].fn = fn;
}

void vector_call(int vector)
{
	irq_handler_t fn = handlers[vector].fn;

	if (!fn)
		return;
	trace_begin(&ev_irq, (uint64_t)vector, (uintptr_t)fn, 0, 0);
	fn(handlers[vector].arg);
	trace_end(&ev_irq, (uint64_t)vector, (uintptr_t)fn, 0, 0);
}
