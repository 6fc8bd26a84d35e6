/*
 * Per-CPU poll loop counters as text and JSON (kernel/cpu_stats.h). The
 * counters are written only by their own CPU; a reader on another CPU
 * sees a recent value, which is all a statistic needs.
 */
#include "kernel/cpu_stats.h"
#include "kernel/percpu.h"
#include "libc/strbuf.h"

int cpustat_text(char *buf, size_t size)
{
	struct strbuf sb;

	strbuf_init(&sb, buf, size);
	for (int c = 0; c < nr_cpus; c++)
		strbuf_printf(
			&sb,
			"cpu %d: node=%d polls=%llu idle_halts=%llu ticks=%llu "
			"pollers=%d\n",
			c, cpus[c].node, (unsigned long long)cpus[c].polls,
			(unsigned long long)cpus[c].idle_halts,
			(unsigned long long)cpus[c].ticks,
			atomic_load(&cpus[c].nr_pollers));
	return strbuf_done(&sb);
}

int cpustat_json(char *buf, size_t size)
{
	struct strbuf sb;

	strbuf_init(&sb, buf, size);

	strbuf_printf(&sb, "{");
	for (int c = 0; c < nr_cpus; c++)
		strbuf_printf(
			&sb,
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
	strbuf_printf(&sb, "}");
	return strbuf_done(&sb);
}
