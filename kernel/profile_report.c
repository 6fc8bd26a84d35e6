/*
 * The profiler's report half: fold the samples of the current session
 * into distinct stacks of function names and write them as text or JSON.
 *
 * Folding names each frame by the function that contains it (the
 * kernel's own symbol table, kernel/ksyms.h) and counts equal stacks in
 * one open-addressing hash table. Buffers only grow within a session, so
 * each report folds just the samples that arrived since the last one; a
 * new session empties the table. A full table counts the samples it
 * cannot take ("unfolded") instead of losing them silently.
 *
 * The text form is the "folded stacks" format flame graph tools read:
 *   cpu0;kmain;poll_loop;net_poller;...;leaf 17
 * root first, one line per distinct stack and CPU, plus "cpuN;(idle) N"
 * for the ticks that found the CPU halted; '#' lines carry the counters.
 */
#include "kernel/profile.h"
#include "kernel/ksyms.h"
#include "kernel/percpu.h"
#include "kernel/profile_internal.h"
#include "mm/mm.h"
#include "libc/strbuf.h"
#include <stdbool.h>
#include <string.h>

/* One distinct stack on one CPU. count 0: a free slot. */
struct fold_slot {
	uint32_t count;
	uint8_t cpu;
	uint8_t flags; /* PROFILE_SAMPLE_TRUNCATED */
	uint16_t depth;
	uint32_t fn[PROFILE_FRAMES]; /* function starts, innermost first */
};

/* What a report says about one CPU. */
struct cpu_counts {
	unsigned int samples;
	unsigned long idle, dropped, truncated, unfolded;
};

static struct {
	struct fold_slot *slots;
	unsigned int nslots, used;
	bool no_memory;
	unsigned int session;	       /* the session folded */
	unsigned int folded[MAX_CPUS]; /* samples folded per CPU */
	struct cpu_counts cpu[MAX_CPUS];
} fold;

/* The table, once, on first use; it lasts as long as the buffers. */
static bool fold_table_ready(void)
{
	size_t bytes = (size_t)PROFILE_FOLD_SLOTS * sizeof(struct fold_slot);
	unsigned int order = 0;
	struct page *pg;

	if (fold.slots || fold.no_memory)
		return fold.slots != NULL;
	while (((size_t)MM_PAGE_SIZE << order) < bytes)
		order++;
	pg = alloc_pages(GFP_KERNEL, order);
	if (!pg) {
		fold.no_memory = true; /* said in every report */
		return false;
	}
	fold.slots = page_address(pg);
	fold.nslots = (unsigned int)((MM_PAGE_SIZE << order) /
				     sizeof(struct fold_slot));
	memset(fold.slots, 0, (size_t)fold.nslots * sizeof(struct fold_slot));
	return true;
}

static void fold_reset(unsigned int session)
{
	if (fold.slots)
		memset(fold.slots, 0,
		       (size_t)fold.nslots * sizeof(struct fold_slot));
	fold.used = 0;
	fold.session = session;
	memset(fold.folded, 0, sizeof(fold.folded));
	memset(fold.cpu, 0, sizeof(fold.cpu));
}

/* The start of the function containing a sampled address (0: none). A
 * return address is looked up one byte back: after a call to a noreturn
 * function it is already the first byte of the next function. */
static uint32_t function_of(uint32_t addr, bool return_address)
{
	uintptr_t off;

	if (!addr)
		return 0;
	addr -= return_address;
	return ksym_lookup(addr, &off) ? (uint32_t)(addr - off) : 0;
}

static uint32_t slot_hash(const struct fold_slot *k)
{
	uint32_t h = 2166136261u ^ k->cpu ^ ((uint32_t)k->flags << 8);

	for (unsigned int i = 0; i < k->depth; i++)
		h = (h ^ k->fn[i]) * 16777619u; /* FNV-1a over the words */
	return h ^ k->depth;
}

static bool slot_same(const struct fold_slot *a, const struct fold_slot *b)
{
	return a->cpu == b->cpu && a->flags == b->flags &&
	       a->depth == b->depth &&
	       !memcmp(a->fn, b->fn, a->depth * sizeof(a->fn[0]));
}

/* Counts one sample of cpu into the table; false when the table is full
 * (kept at 7/8 so a probe always ends soon). */
static bool fold_sample(int cpu, const struct profile_sample *s)
{
	struct fold_slot key = {.count = 1};
	uint32_t i;

	key.cpu = (uint8_t)cpu;
	key.flags = (uint8_t)(s->flags & PROFILE_SAMPLE_TRUNCATED);
	key.depth = s->depth < PROFILE_FRAMES ? s->depth : PROFILE_FRAMES;
	for (unsigned int f = 0; f < key.depth; f++)
		key.fn[f] = function_of(s->pc[f], f > 0);
	for (i = slot_hash(&key) % fold.nslots;; i = (i + 1) % fold.nslots) {
		struct fold_slot *slot = &fold.slots[i];

		if (slot->count && slot_same(slot, &key)) {
			slot->count++;
			return true;
		}
		if (!slot->count)
			break;
	}
	if (fold.used >= fold.nslots / 8 * 7)
		return false;
	fold.slots[i] = key;
	fold.used++;
	return true;
}

/* Brings the table and the counters up to the samples stored now. */
static void fold_update(void)
{
	unsigned int session = atomic_load(&profile_session);
	bool table = fold_table_ready();

	if (session != fold.session)
		fold_reset(session);
	for (int c = 0; c < nr_cpus; c++) {
		struct profile_cpu *p = &profile_cpus[c];
		struct cpu_counts *n = &fold.cpu[c];
		unsigned int head;

		/* a CPU that has not ticked since the start has nothing of
		 * this session yet (its counters are the last session's) */
		if (atomic_load_explicit(&p->session, memory_order_acquire) !=
		    session)
			continue;
		head = atomic_load_explicit(&p->head, memory_order_acquire);
		for (; fold.folded[c] < head; fold.folded[c]++)
			if (!table || !fold_sample(c, &p->buf[fold.folded[c]]))
				n->unfolded++;
		n->samples = head;
		n->idle = atomic_load(&p->idle);
		n->dropped = atomic_load(&p->dropped);
		n->truncated = atomic_load(&p->truncated);
	}
}

static const char *fn_name(uint32_t fn)
{
	uintptr_t off;
	const char *name = fn ? ksym_lookup(fn, &off) : NULL;

	return name ? name : "[unknown]";
}

/* The frames of slot by name, root first, between sep and in quotes. */
static void append_frames(struct strbuf *sb, const struct fold_slot *slot,
			  const char *sep, const char *quote)
{
	for (int f = slot->depth - 1; f >= 0; f--)
		strbuf_printf(sb, "%s%s%s%s", f == slot->depth - 1 ? "" : sep,
			      quote, fn_name(slot->fn[f]), quote);
}

static void header_text(struct strbuf *sb)
{
	strbuf_printf(
		sb,
		"# profile session=%u running=%d hz=%u cpus=%d capacity=%u "
		"frames=%d alloc_failures=%lu fold_table=%s\n",
		fold.session, atomic_load(&profile_hz) != 0, profile_rate,
		nr_cpus, profile_capacity, PROFILE_FRAMES,
		profile_alloc_failures, fold.no_memory ? "no-memory" : "ok");
	for (int c = 0; c < nr_cpus; c++)
		strbuf_printf(
			sb,
			"# cpu%d samples=%u idle=%lu dropped=%lu truncated=%lu "
			"unfolded=%lu\n",
			c, fold.cpu[c].samples, fold.cpu[c].idle,
			fold.cpu[c].dropped, fold.cpu[c].truncated,
			fold.cpu[c].unfolded);
}

int profile_report_text(char *buf, size_t size)
{
	struct strbuf sb;

	strbuf_init(&sb, buf, size);
	spin_lock(&profile_lock);
	fold_update();
	header_text(&sb);
	for (unsigned int i = 0; fold.slots && i < fold.nslots; i++) {
		const struct fold_slot *s = &fold.slots[i];

		if (!s->count)
			continue;
		strbuf_printf(&sb, "cpu%d;%s", s->cpu,
			      s->flags ? "(truncated);" : "");
		append_frames(&sb, s, ";", "");
		strbuf_printf(&sb, " %u\n", s->count);
	}
	for (int c = 0; c < nr_cpus; c++) {
		if (fold.cpu[c].idle)
			strbuf_printf(&sb, "cpu%d;(idle) %lu\n", c,
				      fold.cpu[c].idle);
		if (fold.cpu[c].unfolded)
			strbuf_printf(&sb, "cpu%d;(unfolded) %lu\n", c,
				      fold.cpu[c].unfolded);
	}
	spin_unlock(&profile_lock);
	return strbuf_done(&sb);
}

/* Each CPU's counters, and the rate its timer runs at now (the sampling
 * rate while a session runs, once the CPU has ticked since the start). */
static void cpus_json(struct strbuf *sb)
{
	for (int c = 0; c < nr_cpus; c++)
		strbuf_printf(
			sb,
			"%s{\"cpu\":%d,\"samples\":%u,\"idle\":%lu,"
			"\"dropped\":%lu,\"truncated\":%lu,\"unfolded\":%lu,"
			"\"timer_hz\":%u}",
			c ? "," : "", c, fold.cpu[c].samples, fold.cpu[c].idle,
			fold.cpu[c].dropped, fold.cpu[c].truncated,
			fold.cpu[c].unfolded, cpus[c].timer_hz);
}

int profile_report_json(char *buf, size_t size)
{
	struct strbuf sb;
	bool first = true;

	strbuf_init(&sb, buf, size);
	spin_lock(&profile_lock);
	fold_update();
	strbuf_printf(&sb,
		      "{\"session\":%u,\"running\":%s,\"hz\":%u,\"nr_cpus\":%d,"
		      "\"capacity\":%u,\"frames\":%d,\"alloc_failures\":%lu,"
		      "\"fold_table\":\"%s\",\"cpus\":[",
		      fold.session, atomic_load(&profile_hz) ? "true" : "false",
		      profile_rate, nr_cpus, profile_capacity, PROFILE_FRAMES,
		      profile_alloc_failures,
		      fold.no_memory ? "no-memory" : "ok");
	cpus_json(&sb);
	strbuf_printf(&sb, "],\"stacks\":[");
	for (unsigned int i = 0; fold.slots && i < fold.nslots; i++) {
		const struct fold_slot *s = &fold.slots[i];

		if (!s->count)
			continue;
		strbuf_printf(&sb,
			      "%s{\"cpu\":%d,\"count\":%u,\"truncated\":%s,"
			      "\"frames\":[",
			      first ? "" : ",", s->cpu, s->count,
			      s->flags ? "true" : "false");
		append_frames(&sb, s, ",", "\"");
		strbuf_printf(&sb, "]}");
		first = false;
	}
	strbuf_printf(&sb, "]}");
	spin_unlock(&profile_lock);
	return strbuf_done(&sb);
}
