/*
 * Debug reports: one place that prints a detection with the caller's
 * address and counts it, so every allocator reports the same way and tests
 * can assert "one double free was caught" without parsing the console.
 */
#include <string.h>

#include "debug.h"
#include "libc/stat_table.h"

atomic_bool mm_debug_flag = MM_DEBUG != 0;
static atomic_bool mm_debug_quiet;
static atomic_ulong mm_debug_counts[MM_DBG_NR_KINDS];
static _Atomic(const void *) mm_debug_caller;
/* The latest report's text, for tests (quiet or not). */
static char mm_debug_last[MM_DEBUG_REPORT_MAX];
static mm_spinlock_t mm_debug_last_lock = MM_SPINLOCK_INIT;

/*
 * Every kind: its /stats.json key, and as its label the name a report
 * prints. The counts are copied into a snapshot (struct mm_debug_snap),
 * with whether the checks are on.
 */
struct mm_debug_snap {
	unsigned long count[MM_DBG_NR_KINDS];
	bool debug_on;
};
#define MM_DBG_KIND(k, key, l)                                \
	[k] = STAT_NAMED(key, struct mm_debug_snap, count[k], \
			 STAT_KIND_COUNTER, "events", l)
static const struct stat_desc mm_debug_stats[MM_DBG_NR_KINDS + 1] = {
	MM_DBG_KIND(MM_DBG_DOUBLE_FREE, "double_free", "double free"),
	MM_DBG_KIND(MM_DBG_NOT_ALLOCATED, "not_allocated",
		    "free of memory not allocated"),
	MM_DBG_KIND(MM_DBG_WRONG_ORDER, "wrong_order", "wrong order on free"),
	MM_DBG_KIND(MM_DBG_WRONG_ZONE, "wrong_zone", "wrong zone"),
	MM_DBG_KIND(MM_DBG_OTHER, "other", "allocator misuse"),
	MM_DBG_KIND(MM_DBG_INVALID_FREE, "invalid_free",
		    "free of a pointer that is not a block start"),
	MM_DBG_KIND(MM_DBG_WRITE_AFTER_FREE, "write_after_free",
		    "write after free"),
	MM_DBG_KIND(MM_DBG_RED_ZONE, "red_zone", "red zone overwritten"),
	[MM_DBG_NR_KINDS] = STAT_INFO_AT(struct mm_debug_snap, debug_on, "",
					 "the checks are on (mm_debug=1)"),
};
static const struct stat_group mm_debug_groups[] = {
	STAT_GROUP("", mm_debug_stats),
};
const struct stat_schema mm_debug_schema = STAT_SCHEMA(mm_debug_groups);

atomic_uint mm_debug_epoch_now = 1;

void mm_debug_set(bool on)
{
	bool was = atomic_exchange_explicit(&mm_debug_flag, on,
					    memory_order_relaxed);
	if (on && !was) {
		/* 1..255: 0 is "not stamped" in struct page.poison_epoch. */
		unsigned int e = atomic_load_explicit(&mm_debug_epoch_now,
						      memory_order_relaxed);
		atomic_store_explicit(&mm_debug_epoch_now, e % 255 + 1,
				      memory_order_relaxed);
	}
}

void mm_debug_set_quiet(bool quiet)
{
	atomic_store_explicit(&mm_debug_quiet, quiet, memory_order_relaxed);
}

void mm_debug_report(enum mm_debug_kind kind, const void *caller,
		     const char *fmt, ...)
{
	if ((unsigned)kind >= MM_DBG_NR_KINDS)
		kind = MM_DBG_OTHER;
	atomic_fetch_add_explicit(&mm_debug_counts[kind], 1,
				  memory_order_relaxed);
	atomic_store_explicit(&mm_debug_caller, caller, memory_order_relaxed);

	char msg[MM_DEBUG_REPORT_MAX];
	va_list ap;
	va_start(ap, fmt);
	mm_vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	unsigned long flags = mm_spin_lock_irqsave(&mm_debug_last_lock);
	memcpy(mm_debug_last, msg, sizeof(msg));
	mm_spin_unlock_irqrestore(&mm_debug_last_lock, flags);
	if (atomic_load_explicit(&mm_debug_quiet, memory_order_relaxed))
		return;

	char who[64];
	mm_printf("mm: BUG: %s: %s (caller %s, cpu %d)\n",
		  mm_debug_stats[kind].label, msg,
		  mm_symbolize(caller, who, sizeof(who)), mm_this_cpu());
}

void mm_debug_last_report(char *buf, size_t size)
{
	if (!size)
		return;
	unsigned long flags = mm_spin_lock_irqsave(&mm_debug_last_lock);
	size_t n = strlen(mm_debug_last);
	if (n >= size)
		n = size - 1;
	memcpy(buf, mm_debug_last, n);
	buf[n] = 0;
	mm_spin_unlock_irqrestore(&mm_debug_last_lock, flags);
}

unsigned long mm_debug_count(enum mm_debug_kind kind)
{
	if ((unsigned)kind >= MM_DBG_NR_KINDS)
		return 0;
	return atomic_load_explicit(&mm_debug_counts[kind],
				    memory_order_relaxed);
}

const void *mm_debug_last_caller(void)
{
	return atomic_load_explicit(&mm_debug_caller, memory_order_relaxed);
}

unsigned long mm_debug_total(void)
{
	unsigned long sum = 0;
	for (int k = 0; k < MM_DBG_NR_KINDS; k++)
		sum += mm_debug_count((enum mm_debug_kind)k);
	return sum;
}

void mm_debug_reset_counts(void)
{
	for (int k = 0; k < MM_DBG_NR_KINDS; k++)
		atomic_store_explicit(&mm_debug_counts[k], 0,
				      memory_order_relaxed);
	atomic_store_explicit(&mm_debug_caller, NULL, memory_order_relaxed);
	unsigned long flags = mm_spin_lock_irqsave(&mm_debug_last_lock);
	mm_debug_last[0] = 0;
	mm_spin_unlock_irqrestore(&mm_debug_last_lock, flags);
}

int mm_debug_json(char *buf, size_t size)
{
	struct mm_debug_snap o = {.debug_on = mm_debug_on()};
	struct strbuf sb;

	for (int k = 0; k < MM_DBG_NR_KINDS; k++)
		o.count[k] = mm_debug_count((enum mm_debug_kind)k);
	strbuf_init(&sb, buf, size);
	strbuf_printf(&sb, "{");
	stat_json_members(&sb, mm_debug_stats, STAT_TABLE_LEN(mm_debug_stats),
			  &o);
	strbuf_printf(&sb, "}");
	return strbuf_done(&sb);
}
