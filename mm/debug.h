/*
 * Debug checks of the allocators, switchable at run time.
 *
 * The flag starts from the compile-time MM_DEBUG (make MM_DEBUG=1) and can be
 * flipped by tests (mm_debug_set) and by the kernel command line (mm_debug=1).
 * With it on, the page allocator checks every free (double free, page not
 * allocated, wrong order, wrong zone), poisons freed pages and checks the
 * poison when they are handed out again (page_debug.c); slab caches get
 * red zones and poison (slab_debug.c), kmalloc's large blocks red zones
 * (kmalloc_guard.c). Some checks run in every build (a slab double free
 * of the object freed last, a free of a pointer that is not an object
 * start, single or bulk): they report the same way. A detection is
 * printed with the caller (mm_symbolize: a function name in the kernel)
 * and counted, and the bad free is refused, so the system keeps running
 * and a test can assert on the counters.
 */
#ifndef MM_DEBUG_H
#define MM_DEBUG_H

#include <stdbool.h>

#include "platform.h"

#ifndef MM_DEBUG
#define MM_DEBUG 0
#endif

enum mm_debug_kind {
	MM_DBG_DOUBLE_FREE,	 /* freeing a block that is already free */
	MM_DBG_NOT_ALLOCATED,	 /* freeing a page/address never handed out */
	MM_DBG_WRONG_ORDER,	 /* order on free differs from the allocation */
	MM_DBG_WRONG_ZONE,	 /* page not in its zone's mem_map / bad node */
	MM_DBG_OTHER,		 /* any other allocator's detection */
	MM_DBG_INVALID_FREE,	 /* a pointer inside a block, not its start */
	MM_DBG_WRITE_AFTER_FREE, /* a free block's poison found changed */
	MM_DBG_RED_ZONE,	 /* a write before or past a block */
	MM_DBG_NR_KINDS
};

extern atomic_bool mm_debug_flag;

/* mm_debug_on - is debug checking on? Cheap (one relaxed load). */
static inline bool mm_debug_on(void)
{
	return atomic_load_explicit(&mm_debug_flag, memory_order_relaxed);
}

/* mm_debug_set - switch debug checks on or off. Any context. */
void mm_debug_set(bool on);

/*
 * mm_debug_epoch - 1..255, advanced each time the checks are switched on.
 * A page freed with the checks on is poisoned and stamped with the epoch
 * (struct page.poison_epoch); it is checked when handed out again only
 * if its stamp is the current epoch, so a page freed while the checks
 * were off (not poisoned), or stamped in an earlier on-period and used
 * unchecked since, is never reported. Any context.
 */
static inline uint8_t mm_debug_epoch(void)
{
	extern atomic_uint mm_debug_epoch_now;
	return (uint8_t)atomic_load_explicit(&mm_debug_epoch_now,
					     memory_order_relaxed);
}

/*
 * mm_debug_report - print one detection with the caller's address and count
 * it under @kind. @caller is __builtin_return_address(0) of the public entry
 * point the user called. Any context. Never stops the system.
 */
__attribute__((format(printf, 3, 4))) void
mm_debug_report(enum mm_debug_kind kind, const void *caller, const char *fmt,
		...);

/* mm_debug_count - detections of @kind since boot or the last reset. */
unsigned long mm_debug_count(enum mm_debug_kind kind);
/* mm_debug_total - detections of every kind. */
unsigned long mm_debug_total(void);
/* mm_debug_last_caller - caller address of the latest report (tests). */
const void *mm_debug_last_caller(void);
/* The longest report text kept (longer ones are cut). */
#define MM_DEBUG_REPORT_MAX 224
/* mm_debug_last_report - the text of the latest report (without the
 * kind and caller), "" if none since the last reset; for tests, which
 * check what a report says (pfn, offset, who freed). Any context. */
void mm_debug_last_report(char *buf, size_t size);
/* mm_debug_reset_counts - zero the counters (tests do it per case). */
void mm_debug_reset_counts(void);
/* mm_debug_set_quiet - count without printing (tests that expect reports). */
void mm_debug_set_quiet(bool quiet);

/*
 * mm_debug_json - the detections of every kind since boot, one JSON
 * object keyed by kind ("double_free", "not_allocated", ...), for
 * /stats.json and the boot report. snprintf semantics. Any context.
 * mm_debug_schema describes its members (libc/stat_table.h).
 */
int mm_debug_json(char *buf, size_t size);
struct stat_schema;
extern const struct stat_schema mm_debug_schema;

#endif /* MM_DEBUG_H */
