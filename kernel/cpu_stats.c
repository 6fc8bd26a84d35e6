/*
 * Per-CPU poll loop counters as text and JSON (kernel/cpu_stats.h). The
 * counters are written only by their own CPU; a reader on another CPU
 * sees a recent value, which is all a statistic needs.
 */
#include "kernel/cpu_stats.h"
#include "kernel/percpu.h"
#include <stdarg.h>
#include <stdio.h>

/* Appends to buf at *len with snprintf semantics: *len keeps counting
 * what the whole output needs, bytes are stored only while they fit. */
__attribute__((format(printf, 4, 5))) static void
append(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
	va_list ap;
	size_t at = *len < size ? *len : size;

	va_start(ap, fmt);
	*len += (size_t)vsnprintf(buf ? buf + at : NULL, size - at, fmt, ap);
	va_end(ap);
}

int cpustat_text(char *buf, size_t size)
{
	size_t len = 0;

	for (int c = 0; c < nr_cpus; c++)
		append(buf, size, &len,
		       "cpu %d: node=%d polls=%llu idle_halts=%llu ticks=%llu "
		       "pollers=%d\n",
		       c, cpus[c].node, (unsigned long long)cpus[c].polls,
		       (unsigned long long)cpus[c].idle_halts,
		       (unsigned long long)cpus[c].ticks,
		       atomic_load(&cpus[c].nr_pollers));
	return (int)len;
}

int cpustat_json(char *buf, size_t size)
{
	size_t len = 0;

	append(buf, size, &len, "{");
	for (int c = 0; c < nr_cpus; c++)
		append(buf, size, &len,
		       "%s\"cpu%d\":{\"node\":%d,\"polls\":%llu,"
		       "\"idle_halts\":%llu,\"ticks\":%llu,\"pollers\":%d,"
		       "\"halted_ns\":%llu,\"timer_reprograms\":%llu}",
		       c ? "," : "", c, cpus[c].node,
		       (unsigned long long)cpus[c].polls,
		       (unsigned long long)cpus[c].idle_halts,
		       (unsigned long long)cpus[c].ticks,
		       atomic_load(&cpus[c].nr_pollers),
		       (unsigned long long)cpus[c].halted_ns,
		       (unsigned long long)cpus[c].timer_reprograms);
	append(buf, size, &len, "}");
	return (int)len;
}
