/*
 * The tracer's writer: a session's records as Chrome's trace-event JSON
 * ("JSON Object Format": {"traceEvents":[...], ...}), which Perfetto's
 * UI, chrome://tracing and speedscope open.
 *
 * Each NUMA node is a process (pid) and each CPU a thread (tid) of its
 * node, so a viewer draws one timeline per CPU, grouped by node; "M"
 * metadata events name them. Timestamps are microseconds (with three
 * decimals: nanoseconds) since the session's start, from each CPU's TSC.
 * A CPU's events go out in the order it recorded them, which is time
 * order (kernel/trace.c masks interrupts around a record).
 *
 * Viewers pair a thread's B and E events as a stack, so the writer keeps
 * one: an end whose begin came before the session (say a poll round that
 * was running at the start) is left out, an end that skips inner open
 * spans closes them first, and spans still open after the CPU's last
 * record (stopped mid-span, or a full buffer) are closed there. The
 * document is whole at any size limit: each CPU gets a share of the room
 * and keeps TRACE_JSON_RESERVE of it to close its spans; events past the
 * share are counted in otherData ("left_out").
 */
#include <string.h>

#include "kernel/ksyms.h"
#include "kernel/percpu.h"
#include "kernel/time.h"
#include "kernel/trace.h"
#include "kernel/trace_internal.h"
#include "kernel/trace_tunables.h"
#include "libc/stat_table.h"
#include "libc/strbuf.h"

static const struct trace_desc *record_desc(const struct trace_record *r)
{
	return (const struct trace_desc *)(uintptr_t)r->desc;
}

/* Microseconds with three decimals since the session's first TSC; a CPU
 * whose TSC reads a little behind the starting one's counts from 0. */
static void put_ts(struct strbuf *sb, uint64_t tsc)
{
	uint64_t hz = tsc_hz(), d, ns;

	d = tsc > trace_session_tsc ? tsc - trace_session_tsc : 0;
	ns = d / hz * 1000000000u + d % hz * 1000000000u / hz;
	strbuf_printf(sb, "%llu.%03llu", (unsigned long long)(ns / 1000),
		      (unsigned long long)(ns % 1000));
}

/* A string value: at most TRACE_STR_MAX bytes, escaped for JSON. */
static void put_str(struct strbuf *sb, const char *s)
{
	char copy[TRACE_STR_MAX + 1];
	size_t n = 0;

	for (; s && s[n] && n < TRACE_STR_MAX; n++)
		copy[n] = (s[n] >= 0x20 && s[n] < 0x7f) ? s[n] : '?';
	copy[n] = 0;
	stat_json_string(sb, copy);
}

static void put_value(struct strbuf *sb, unsigned char fmt, uint64_t v)
{
	const char *name;
	uintptr_t off;

	switch (fmt) {
	case TRACE_HEX:
		strbuf_printf(sb, "\"%#llx\"", (unsigned long long)v);
		break;
	case TRACE_SYM:
		name = ksym_lookup((uintptr_t)v, &off);
		if (name)
			strbuf_printf(sb, "\"%s+%#lx\"", name,
				      (unsigned long)off);
		else
			strbuf_printf(sb, "\"%#llx\"", (unsigned long long)v);
		break;
	case TRACE_STR:
		put_str(sb, (const char *)(uintptr_t)v);
		break;
	default:
		strbuf_printf(sb, "%llu", (unsigned long long)v);
	}
}

static void put_args(struct strbuf *sb, const struct trace_record *r)
{
	const uint64_t v[4] = {r->a, r->b, r->c, r->d};
	const struct trace_desc *ev = record_desc(r);
	bool first = true;

	strbuf_printf(sb, ",\"args\":{");
	for (int i = 0; i < 4; i++) {
		if (ev->arg[i].fmt == TRACE_NONE || !ev->arg[i].name)
			continue;
		strbuf_printf(sb, "%s\"%s\":", first ? "" : ",",
			      ev->arg[i].name);
		put_value(sb, ev->arg[i].fmt, v[i]);
		first = false;
	}
	strbuf_printf(sb, "}");
}

/* One event: phase ph of ev at tsc on cpu; r's values unless r is NULL
 * (an end the writer adds to close a span). */
static void put_event(struct strbuf *sb, int cpu, int ph,
		      const struct trace_desc *ev, uint64_t tsc,
		      const struct trace_record *r)
{
	strbuf_printf(sb, ",\n{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"%c\",",
		      ev->name, trace_class_names[ev->cls], ph);
	if (ph == TRACE_INSTANT)
		strbuf_printf(sb, "\"s\":\"t\",");
	strbuf_printf(sb, "\"ts\":");
	put_ts(sb, tsc);
	strbuf_printf(sb, ",\"pid\":%d,\"tid\":%d", cpus[cpu].node, cpu);
	if (r)
		put_args(sb, r);
	strbuf_printf(sb, "}");
}

/* One CPU's stack of open spans. */
struct span_stack {
	const struct trace_desc *open[TRACE_SPAN_DEPTH];
	int depth;
};

/* An end of ev: close the spans above ev's open begin, then it; an end
 * with no begin open is left out. */
static void put_end(struct strbuf *sb, int cpu, struct span_stack *st,
		    const struct trace_record *r)
{
	int i = st->depth - 1;

	while (i >= 0 && st->open[i] != record_desc(r))
		i--;
	if (i < 0)
		return;
	while (st->depth - 1 > i)
		put_event(sb, cpu, TRACE_END, st->open[--st->depth], r->tsc,
			  NULL);
	st->depth--;
	put_event(sb, cpu, TRACE_END, record_desc(r), r->tsc, r);
}

static void put_record(struct strbuf *sb, int cpu, struct span_stack *st,
		       const struct trace_record *r)
{
	int ph = r->phase;

	if (ph == TRACE_END) {
		put_end(sb, cpu, st, r);
		return;
	}
	if (ph == TRACE_BEGIN) {
		if (st->depth == TRACE_SPAN_DEPTH)
			ph = TRACE_INSTANT; /* too deep to follow */
		else
			st->open[st->depth++] = record_desc(r);
	}
	put_event(sb, cpu, ph, record_desc(r), r->tsc, r);
}

/* What the writer found and left out, for otherData. */
struct trace_json_totals {
	unsigned long written, left_out, dropped;
};

/* cpu's records, n of them, within room bytes and *budget events. */
static void put_cpu(struct strbuf *sb, int cpu, unsigned int n, size_t room,
		    unsigned long *budget, struct trace_json_totals *tot)
{
	const struct trace_record *buf = trace_cpus[cpu].buf;
	size_t start = sb->len;
	struct span_stack st = {.depth = 0};
	unsigned int i;

	for (i = 0; i < n && *budget; i++) {
		if (sb->len - start + TRACE_JSON_RESERVE > room)
			break;
		put_record(sb, cpu, &st, &buf[i]);
		(*budget)--;
	}
	tot->written += i;
	tot->left_out += n - i;
	while (st.depth)
		put_event(sb, cpu, TRACE_END, st.open[--st.depth],
			  buf[i - 1].tsc, NULL);
}

/* The metadata naming nodes (processes) and CPUs (threads); the first
 * member of the array, so every event after it starts with a comma. */
static void put_names(struct strbuf *sb)
{
	bool node_named[MAX_NODES] = {false};
	const char *sep = "";

	for (int c = 0; c < nr_cpus; c++) {
		int node = cpus[c].node;

		if (node_named[node])
			continue;
		node_named[node] = true;
		strbuf_printf(sb,
			      "%s\n{\"name\":\"process_name\",\"ph\":\"M\","
			      "\"pid\":%d,\"tid\":0,\"args\":{\"name\":"
			      "\"node %d\"}}",
			      sep, node, node);
		sep = ",";
	}
	for (int c = 0; c < nr_cpus; c++) {
		strbuf_printf(sb,
			      ",\n{\"name\":\"thread_name\",\"ph\":\"M\","
			      "\"pid\":%d,\"tid\":%d,\"args\":{\"name\":"
			      "\"cpu %d\"}}",
			      cpus[c].node, c, c);
		strbuf_printf(sb,
			      ",\n{\"name\":\"thread_sort_index\",\"ph\":\"M\","
			      "\"pid\":%d,\"tid\":%d,\"args\":{"
			      "\"sort_index\":%d}}",
			      cpus[c].node, c, c);
	}
}

static void put_other_data(struct strbuf *sb,
			   const struct trace_json_totals *tot)
{
	strbuf_printf(sb,
		      "\n],\"displayTimeUnit\":\"ns\",\"otherData\":{"
		      "\"source\":\"netkernel trace\",\"session\":\"%u\","
		      "\"classes\":\"",
		      atomic_load(&trace_session));
	for (int c = 0, n = 0; c < TRACE_NR_CLASSES; c++)
		if (trace_session_mask & (1u << c))
			strbuf_printf(sb, "%s%s", n++ ? "," : "",
				      trace_class_names[c]);
	strbuf_printf(sb,
		      "\",\"tsc_hz\":\"%llu\",\"events\":\"%lu\","
		      "\"left_out\":\"%lu\",\"dropped\":\"%lu\"}}\n",
		      (unsigned long long)tsc_hz(), tot->written, tot->left_out,
		      tot->dropped);
}

int trace_json(char *buf, size_t size, size_t limit, unsigned long max_events)
{
	struct trace_json_totals tot = {0, 0, 0};
	unsigned long budget = max_events ? max_events : ~0ul;
	unsigned int n[MAX_CPUS];
	int busy = 0;
	struct strbuf sb;

	spin_lock(&trace_lock);
	for (int c = 0; c < nr_cpus; c++) {
		n[c] = trace_cpu_records(c);
		busy += n[c] > 0;
		if (n[c])
			tot.dropped += atomic_load_explicit(
				&trace_cpus[c].dropped, memory_order_relaxed);
	}
	strbuf_init(&sb, buf, size);
	strbuf_printf(&sb, "{\"traceEvents\":[");
	put_names(&sb);
	for (int c = 0; c < nr_cpus; c++) {
		size_t left = limit > sb.len + 512 ? limit - sb.len - 512 : 0;

		if (!n[c])
			continue;
		put_cpu(&sb, c, n[c], left / (size_t)busy--, &budget, &tot);
	}
	put_other_data(&sb, &tot);
	spin_unlock(&trace_lock);
	return strbuf_done(&sb);
}
