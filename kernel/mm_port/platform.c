/*
 * Kernel world of the mm platform seam (mm/platform.h): topology from ACPI
 * (kernel/acpi.c, kernel/smp.c), memory from kernel/memmap.c, output on
 * the kernel console, trace events into the tracer (kernel/trace.c).
 * The inline half is kernel/mm_port/mm_port.h.
 */
#include "mm/platform.h"
#include "kernel/acpi.h"
#include "kernel/console.h"
#include "kernel/ksyms.h"
#include "kernel/memmap.h"
#include "kernel/percpu.h"
#include "kernel/trace.h"
#include <stdio.h>

int mm_nr_cpus(void)
{
	return nr_cpus;
}

int mm_nr_nodes(void)
{
	return acpi.nr_nodes > 0 ? acpi.nr_nodes : 1;
}

int mm_cpu_to_node(int cpu)
{
	return (cpu >= 0 && cpu < nr_cpus) ? cpus[cpu].node : 0;
}

int mm_node_distance(int from, int to)
{
	if (from < 0 || to < 0 || from >= mm_nr_nodes() || to >= mm_nr_nodes())
		return 255;
	return acpi.distance[from][to];
}

int mm_platform_ranges(struct mm_range *out, int max)
{
	const struct mm_range *r;
	int n = memmap_free_ranges(&r);

	if (n > max)
		n = max;
	for (int i = 0; i < n; i++)
		out[i] = r[i];
	return n;
}

void mm_vprintf(const char *fmt, va_list ap)
{
	kvprintf(fmt, ap);
}

int mm_vsnprintf(char *buf, size_t len, const char *fmt, va_list ap)
{
	return vsnprintf(buf, len, fmt, ap);
}

const char *mm_symbolize(const void *addr, char *buf, size_t len)
{
	uintptr_t off = 0;
	const char *name = ksym_lookup((uintptr_t)addr, &off);

	if (name)
		snprintf(buf, len, "%s+%#lx", name, (unsigned long)off);
	else
		snprintf(buf, len, "%p", addr);
	return buf;
}

void mm_trace_emit(const struct trace_desc *ev, int phase, uint64_t a,
		   uint64_t b, uint64_t c, uint32_t d)
{
	trace_emit(ev, phase, a, b, c, d);
}
