/*
 * Debug reports: one place that prints a detection with the caller's
 * address and counts it, so every allocator reports the same way and tests
 * can assert "one double free was caught" without parsing the console.
 */
#include <string.h>

#include "debug.h"
#include "libc/strbuf.h"

atomic_bool mm_debug_flag = MM_DEBUG != 0;
static atomic_bool mm_debug_quiet;
static atomic_ulong mm_debug_counts[MM_DBG_NR_KINDS];
static _Atomic(const void *) mm_debug_caller;
/* The latest report's text, for tests (quiet or not). */
static char mm_debug_last[MM_DEBUG_REPORT_MAX];
static mm_spinlock_t mm_debug_last_lock = MM_SPINLOCK_INIT;

static const char *const mm_debug_names[MM_DBG_NR_KINDS] = {
	[MM_DBG_DOUBLE_FREE] = "double free",
	[MM_DBG_NOT_ALLOCATED] = "free of memory not allocated",
	[MM_DBG_WRONG_ORDER] = "wrong order on free",
	[MM_DBG_WRONG_ZONE] = "wrong zone",
	[MM_DBG_OTHER] = "allocator misuse",
	[MM_DBG_INVALID_FREE] = "free of a pointer that is not a block start",
	[MM_DBG_WRITE_AFTER_FREE] = "write after free",
	[MM_DBG_RED_ZONE] = "red zone overwritten",
};

/* The JSON keys of the kinds, in enum order. */
static const char *const mm_debug_keys[MM_DBG_NR_KINDS] = {
	[MM_DBG_DOUBLE_FREE] = "double_free",
	[MM_DBG_NOT_ALLOCATED] = "not_allocated",
	[MM_DBG_WRONG_ORDER] = "wrong_order",
	[MM_DBG_WRONG_ZONE] = "wrong_zone",
	[MM_DBG_OTHER] = "other",
	[MM_DBG_INVALID_FREE] = "invalid_free",
	[MM_DBG_WRITE_AFTER_FREE] = "write_after_free",
	[MM_DBG_RED_ZONE] = "red_zone",
};

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
	mm_printf("mm: BUG: %s: %s (caller %s, cpu %d)\n", mm_debug_names[kind],
		  msg, mm_symbolize(caller, who, sizeof(who)), mm_this_cpu());
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
	struct strbuf sb;

	strbuf_init(&sb, buf, size);
	for (int k = 0; k < MM_DBG_NR_KINDS; k++)
		strbuf_printf(&sb, "%s\"%s\": %lu", k ? ", " : "{",
			      mm_debug_keys[k],
			      mm_debug_count((enum mm_debug_kind)k));
	strbuf_printf(&sb, ", \"debug_on\": %s}",
		      mm_debug_on() ? "true" : "false");
	return strbuf_done(&sb);
}
