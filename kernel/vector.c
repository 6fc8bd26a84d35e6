/* The interrupt vector registry (kernel/vector.h): one slot per vector. */
#include "kernel/vector.h"
#include <stddef.h>

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
	if (handlers[vector].fn)
		handlers[vector].fn(handlers[vector].arg);
}
