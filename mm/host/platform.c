/*
 * Host world of the mm platform seam (mm/platform.h): topology and memory
 * are whatever mm_host_boot() (mm/host/boot.c) put into mm_host_machine;
 * output goes to stderr; trace events to the test's hook
 * (mm_host_trace_hook). The inline half is mm/host/mm_port.h.
 */
#include <stdio.h>
#include <string.h>

#include "mm_host.h"
#include "platform.h"

_Thread_local int mm_host_cpu;
_Thread_local volatile unsigned long mm_host_irq_masked;
struct mm_host_machine mm_host_machine;
mm_host_trace_fn mm_host_trace_hook;

void mm_vprintf(const char *fmt, va_list ap)
{
	vfprintf(stderr, fmt, ap);
}

int mm_vsnprintf(char *buf, size_t len, const char *fmt, va_list ap)
{
	return vsnprintf(buf, len, fmt, ap);
}

/* The host's test binaries keep no symbol table for static functions:
 * the address, which a debugger or addr2line resolves. */
const char *mm_symbolize(const void *addr, char *buf, size_t len)
{
	snprintf(buf, len, "%p", addr);
	return buf;
}

int mm_nr_cpus(void)
{
	return mm_host_machine.nr_cpus;
}

int mm_nr_nodes(void)
{
	return mm_host_machine.nr_nodes;
}

int mm_cpu_to_node(int cpu)
{
	return (unsigned)cpu < MM_MAX_CPUS ? mm_host_machine.cpu_to_node[cpu]
					   : 0;
}

int mm_node_distance(int from, int to)
{
	if ((unsigned)from >= MM_MAX_NODES || (unsigned)to >= MM_MAX_NODES)
		return 255;
	return mm_host_machine.distance[from][to];
}

int mm_platform_ranges(struct mm_range *out, int max)
{
	int n = mm_host_machine.nr_ranges < max ? mm_host_machine.nr_ranges
						: max;
	memcpy(out, mm_host_machine.ranges, (size_t)n * sizeof(*out));
	return n;
}

bool mm_host_irqs_masked(void)
{
	return mm_host_irq_masked != 0;
}

void mm_trace_emit(const struct trace_desc *ev, int phase, uint64_t a,
		   uint64_t b, uint64_t c, uint32_t d)
{
	mm_host_trace_fn hook = mm_host_trace_hook;

	if (hook)
		hook(ev, phase, a, b, c, d);
}
