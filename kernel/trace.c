/*
 * The tracer's recording half: sessions, each CPU's buffer, and
 * trace_emit(), the one function every trace point calls while its class
 * records. The writer is kernel/trace_json.c; docs/observe.md shows how
 * to use both and what they cost.
 *
 * Each CPU records into its own buffer (kernel/trace_internal.h), with
 * interrupts masked for the few stores of one record: an interrupt's
 * events never land between a record's slot and its timestamp, so each
 * CPU's records are in time order, the order the writer needs. No lock
 * and no locked instruction on the recording path: the owner is the only
 * writer, and a reader on another CPU trusts only what the owner has
 * published with release order.
 *
 * A buffer fills and then drops (counted) until the next session: a
 * trace keeps its start whole (a span begun is never lost while its end
 * is kept), and a finished trace reads the same every time.
 */
#include "kernel/trace.h"

#include "kernel/arch.h"
#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/percpu.h"
#include "kernel/trace_internal.h"
#include "libc/stat_table.h"
#include "mm/mm.h"

struct trace_cpu trace_cpus[MAX_CPUS];
unsigned int trace_capacity;
atomic_uint trace_session;
unsigned int trace_session_mask;
uint64_t trace_session_tsc;
spinlock_t trace_lock = SPINLOCK_INIT;
unsigned long trace_alloc_failures;

static bool trace_valid(const char *value, const char *allowed)
{
	(void)allowed;
	return trace_classes_parse(value) >= 0;
}

CMDLINE_KEY(kernel, trace, "", trace_valid, "mm|net|app|irq|poll|lock|all|none",
	    "trace these classes from the end of the boot (a comma list; "
	    "docs/observe.md)");
/* 8192 records of 40 bytes: 320 KiB; the block rounds it up (512 KiB,
 * 13,107 records). 65536: 2.5 MiB, a 4 MiB block. */
CMDLINE_KEY(kernel, trace_events, "8192", cmdline_valid_uint, "256-65536",
	    "trace buffer per CPU, in events of 40 bytes (rounded up to a "
	    "block of pages)");

/* Counters written only by their own CPU: one add, no lock prefix. */
static void bump(atomic_ulong *v, unsigned long n)
{
	mm_cpu_counter_add(v, n);
}

/* Empty this CPU's buffer for session s (its owner, interrupts masked). */
static void cpu_session_reset(struct trace_cpu *t, unsigned int s)
{
	atomic_store_explicit(&t->head, 0, memory_order_relaxed);
	atomic_store_explicit(&t->dropped, 0, memory_order_relaxed);
	t->held = NULL;
	t->quiet_open = false;
	atomic_store_explicit(&t->session, s, memory_order_release);
}

/* One record at the head of t's buffer, or a drop. */
static void put(struct trace_cpu *t, uint64_t tsc, const struct trace_desc *ev,
		int phase, uint64_t a, uint64_t b, uint64_t c, uint32_t d)
{
	unsigned int head =
		atomic_load_explicit(&t->head, memory_order_relaxed);
	struct trace_record *r;

	if (head == trace_capacity) {
		bump(&t->dropped, 1);
		bump(&t->dropped_total, 1);
		return;
	}
	r = &t->buf[head];
	r->tsc = tsc;
	r->desc = (uint32_t)(uintptr_t)ev;
	r->a = a;
	r->b = b;
	r->c = c;
	r->d = (uint16_t)d;
	r->phase = (uint8_t)phase;
	atomic_store_explicit(&t->head, head + 1, memory_order_release);
	bump(&t->recorded_total, 1);
}

/* This CPU's buffer, emptied first if a new session began; NULL before
 * the first session. Interrupts masked. */
static struct trace_cpu *this_trace_cpu(void)
{
	unsigned int s =
		atomic_load_explicit(&trace_session, memory_order_acquire);
	struct trace_cpu *t = &trace_cpus[this_cpu_id()];

	if (!s)
		return NULL;
	if (atomic_load_explicit(&t->session, memory_order_relaxed) != s)
		cpu_session_reset(t, s);
	return t;
}

/* A begin held back by trace_begin_quiet goes in first, with its time. */
static void put_held(struct trace_cpu *t)
{
	put(t, t->held_tsc, t->held, TRACE_BEGIN, t->held_a, 0, 0, 0);
	t->held = NULL;
}

void trace_emit(const struct trace_desc *ev, int phase, uint64_t a, uint64_t b,
		uint64_t c, uint32_t d)
{
	unsigned long flags = irq_save();
	struct trace_cpu *t = this_trace_cpu();

	if (t) {
		if (t->held)
			put_held(t);
		put(t, rdtsc(), ev, phase, a, b, c, d);
	}
	irq_restore(flags);
}

void trace_begin_quiet(const struct trace_desc *ev, uint64_t a)
{
	unsigned long flags = irq_save();
	struct trace_cpu *t = this_trace_cpu();

	if (t) {
		t->held = ev;
		t->held_tsc = rdtsc();
		t->held_a = a;
		t->quiet_open = true;
	}
	irq_restore(flags);
}

void trace_end_quiet(const struct trace_desc *ev, uint64_t a)
{
	unsigned long flags = irq_save();
	struct trace_cpu *t = this_trace_cpu();

	if (t && t->quiet_open) {
		t->quiet_open = false;
		if (t->held) /* nothing happened inside: no span at all */
			t->held = NULL;
		else
			put(t, rdtsc(), ev, TRACE_END, a, 0, 0, 0);
	}
	irq_restore(flags);
}

unsigned int trace_cpu_records(int cpu)
{
	struct trace_cpu *t = &trace_cpus[cpu];
	unsigned int s =
		atomic_load_explicit(&trace_session, memory_order_relaxed);

	if (!s || atomic_load_explicit(&t->session, memory_order_acquire) != s)
		return 0;
	return atomic_load_explicit(&t->head, memory_order_acquire);
}

/* Every CPU's buffer, once, on that CPU's node. trace_lock held, every
 * class off. Returns 0 or -1 (reported). */
static int buffers_alloc(void)
{
	size_t want = (size_t)cmdline_get_long("trace_events") *
		      sizeof(struct trace_record);
	unsigned int order = 0;

	if (trace_capacity)
		return 0;
	while (((size_t)MM_PAGE_SIZE << order) < want)
		order++;
	for (int c = 0; c < nr_cpus; c++) {
		struct page *pg;

		if (trace_cpus[c].buf)
			continue;
		pg = alloc_pages_node(cpus[c].node, GFP_KERNEL, order);
		if (!pg) {
			trace_alloc_failures++;
			kprintf("trace: no memory for a %lu KiB buffer on cpu "
				"%d; not started\n",
				(MM_PAGE_SIZE << order) / 1024, c);
			return -1;
		}
		trace_cpus[c].buf = page_address(pg);
	}
	trace_capacity = (unsigned int)((MM_PAGE_SIZE << order) /
					sizeof(struct trace_record));
	return 0;
}

static void classes_set(unsigned int mask)
{
	for (int c = 0; c < TRACE_NR_CLASSES; c++)
		atomic_store_explicit(&trace_class_on[c], (mask >> c) & 1,
				      memory_order_release);
}

int trace_start(unsigned int mask)
{
	int err = 0;

	mask &= (1u << TRACE_NR_CLASSES) - 1;
	if (!mask)
		return -1;
	spin_lock(&trace_lock);
	classes_set(0);
	if (buffers_alloc() == 0) {
		trace_session_mask = mask;
		trace_session_tsc = rdtsc();
		atomic_fetch_add_explicit(&trace_session, 1,
					  memory_order_release);
		classes_set(mask);
	} else {
		err = -2;
	}
	spin_unlock(&trace_lock);
	return err;
}

void trace_stop(void)
{
	classes_set(0);
}

unsigned int trace_classes(void)
{
	unsigned int mask = 0;

	for (int c = 0; c < TRACE_NR_CLASSES; c++)
		if (trace_on((enum trace_class)c))
			mask |= 1u << c;
	return mask;
}

bool trace_running(void)
{
	return trace_classes() != 0;
}

void trace_boot(void)
{
	int mask = trace_classes_parse(cmdline_get("trace"));

	if (mask <= 0)
		return;
	if (trace_start((unsigned int)mask) == 0)
		kprintf("trace: session %u: %s, %u events per cpu\n",
			atomic_load(&trace_session), cmdline_get("trace"),
			trace_capacity);
	else
		kprintf("trace: trace=%s given, but tracing did not start\n",
			cmdline_get("trace"));
}

/* ---- /stats.json: "trace" ---- */

struct trace_snap {
	unsigned int session, capacity;
	bool running;
	char classes[48];
	const char *classes_p;
	unsigned long recorded, dropped, session_records, session_dropped;
	unsigned long alloc_failures;
};

static const struct stat_desc trace_stats[] = {
	STAT_INFO_AT(struct trace_snap, session, "",
		     "the last session started (0: none)"),
	STAT_GAUGE_AT(struct trace_snap, running, "", "a class records now"),
	STAT_NAMED("classes", struct trace_snap, classes_p, STAT_KIND_INFO, "",
		   "the classes the last session records (docs/observe.md)"),
	STAT_INFO_AT(struct trace_snap, capacity, "events",
		     "each CPU's buffer (trace_events=, rounded up)"),
	STAT_COUNTER_AT(struct trace_snap, recorded, "events",
			"events recorded since boot, every CPU"),
	STAT_COUNTER_AT(struct trace_snap, dropped, "events",
			"events dropped since boot: a CPU's buffer was full"),
	STAT_GAUGE_AT(struct trace_snap, session_records, "events",
		      "events the last session holds, every CPU"),
	STAT_GAUGE_AT(struct trace_snap, session_dropped, "events",
		      "events the last session dropped (buffer full)"),
	STAT_COUNTER_AT(struct trace_snap, alloc_failures, "calls",
			"starts refused: no memory for a buffer"),
};
static const struct stat_group trace_groups[] = {
	STAT_GROUP("", trace_stats),
};
const struct stat_schema trace_stats_schema = STAT_SCHEMA(trace_groups);

/* "mm,net" for a class mask ("" for none). */
static void classes_text(unsigned int mask, char *buf, size_t size)
{
	struct strbuf sb;

	strbuf_init(&sb, buf, size);
	for (int c = 0; c < TRACE_NR_CLASSES; c++)
		if (mask & (1u << c))
			strbuf_printf(&sb, "%s%s", sb.len ? "," : "",
				      trace_class_names[c]);
	strbuf_done(&sb);
}

int trace_stats_json(char *buf, size_t size)
{
	struct trace_snap o = {
		.session = atomic_load(&trace_session),
		.capacity = trace_capacity,
		.running = trace_running(),
		.alloc_failures = trace_alloc_failures,
	};
	struct strbuf sb;

	classes_text(trace_session_mask, o.classes, sizeof(o.classes));
	o.classes_p = o.classes;
	for (int c = 0; c < nr_cpus; c++) {
		struct trace_cpu *t = &trace_cpus[c];

		o.recorded += atomic_load_explicit(&t->recorded_total,
						   memory_order_relaxed);
		o.dropped += atomic_load_explicit(&t->dropped_total,
						  memory_order_relaxed);
		o.session_records += trace_cpu_records(c);
		if (trace_cpu_records(c))
			o.session_dropped += atomic_load_explicit(
				&t->dropped, memory_order_relaxed);
	}
	strbuf_init(&sb, buf, size);
	strbuf_printf(&sb, "{");
	stat_json_members(&sb, trace_stats, STAT_TABLE_LEN(trace_stats), &o);
	strbuf_printf(&sb, "}");
	return strbuf_done(&sb);
}
