/*
 * Debug reports: one place that prints a detection with the caller's
 * address and counts it, so every allocator reports the same way and tests
 * can assert "one double free was caught" without parsing the console.
 */
#include "debug.h"

atomic_bool mm_debug_flag = MM_DEBUG != 0;
static atomic_bool mm_debug_quiet;
static atomic_ulong mm_debug_counts[MM_DBG_NR_KINDS];
static _Atomic(const void *) mm_debug_caller;

static const char *const mm_debug_names[MM_DBG_NR_KINDS] = {
	[MM_DBG_DOUBLE_FREE] = "double free",
	[MM_DBG_NOT_ALLOCATED] = "free of memory not allocated",
	[MM_DBG_WRONG_ORDER] = "wrong order on free",
	[MM_DBG_WRONG_ZONE] = "wrong zone",
	[MM_DBG_OTHER] = "allocator misuse",
};

void mm_debug_set(bool on)
{
	atomic_store_explicit(&mm_debug_flag, on, memory_order_relaxed);
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
	if (atomic_load_explicit(&mm_debug_quiet, memory_order_relaxed))
		return;

	char msg[160];
	va_list ap;
	va_start(ap, fmt);
	mm_vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	mm_printf("mm: BUG: %s: %s (caller %p, cpu %d)\n", mm_debug_names[kind],
		  msg, caller, mm_this_cpu());
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
}
