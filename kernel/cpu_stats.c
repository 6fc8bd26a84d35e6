/*
 * Per-CPU poll loop counters as text and JSON (kernel/cpu_stats.h). The
 * counters are written only by their own CPU; a reader on another CPU
 * sees a recent value, which is all a statistic needs. cpu_stats below
 * describes every member of a CPU's object and every pair of its line.
 */
#include "kernel/cpu_stats.h"
#include "kernel/percpu.h"
#include "kernel/stall.h"
#include "libc/stat_table.h"

struct cpu_snap {
	int node;
	uint64_t polls, idle_halts, ticks;
	int pollers;
	uint64_t halted_ns, timer_reprograms, stalls;
};

static const struct stat_desc cpu_stats[] = {
	STAT_INFO_AT(struct cpu_snap, node, "", "the CPU's NUMA node"),
	STAT_COUNTER_AT(struct cpu_snap, polls, "events", "poll loop rounds"),
	STAT_COUNTER_AT(struct cpu_snap, idle_halts, "events",
			"times the poll loop halted"),
	STAT_COUNTER_AT(struct cpu_snap, ticks, "events",
			"LAPIC timer interrupts taken"),
	STAT_GAUGE_AT(struct cpu_snap, pollers, "", "pollers registered"),
	STAT_COUNTER_AT(struct cpu_snap, halted_ns, "ns",
			"time halted in the poll loop"),
	STAT_COUNTER_AT(struct cpu_snap, timer_reprograms, "events",
			"switches between the tick and one-shot timer"),
	STAT_COUNTER_AT(struct cpu_snap, stalls, "events",
			"poll rounds and interrupt handlers that ran past "
			"stall_ms (kernel/stall.c)"),
};
static const struct stat_group cpu_groups[] = {
	STAT_GROUP("*", cpu_stats),
};
const struct stat_schema cpustat_schema = STAT_SCHEMA(cpu_groups);

static void snap_cpu(int c, struct cpu_snap *o)
{
	*o = (struct cpu_snap){
		.node = cpus[c].node,
		.polls = cpus[c].polls,
		.idle_halts = cpus[c].idle_halts,
		.ticks = cpus[c].ticks,
		.pollers = atomic_load(&cpus[c].nr_pollers),
		.halted_ns = cpus[c].halted_ns,
		.timer_reprograms = cpus[c].timer_reprograms,
		.stalls = stall_count(c),
	};
}

int cpustat_text(char *buf, size_t size)
{
	struct cpu_snap o;
	struct strbuf sb;

	strbuf_init(&sb, buf, size);
	for (int c = 0; c < nr_cpus; c++) {
		snap_cpu(c, &o);
		strbuf_printf(&sb, "cpu %d:", c);
		stat_text_pairs(&sb, cpu_stats, STAT_TABLE_LEN(cpu_stats), &o);
		strbuf_printf(&sb, "\n");
	}
	return strbuf_done(&sb);
}

int cpustat_json(char *buf, size_t size)
{
	struct cpu_snap o;
	struct strbuf sb;

	strbuf_init(&sb, buf, size);
	strbuf_printf(&sb, "{");
	for (int c = 0; c < nr_cpus; c++) {
		snap_cpu(c, &o);
		strbuf_printf(&sb, "%s\"cpu%d\":{", c ? "," : "", c);
		stat_json_members(&sb, cpu_stats, STAT_TABLE_LEN(cpu_stats),
				  &o);
		strbuf_printf(&sb, "}");
	}
	strbuf_printf(&sb, "}");
	return strbuf_done(&sb);
}
