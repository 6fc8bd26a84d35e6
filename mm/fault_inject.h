/*
 * Failure injection, as Linux's failslab and fail_page_alloc: make a
 * chosen share of one allocator's allocations fail on purpose, so that
 * every caller's failure path runs (and is seen to drop, count and carry
 * on) without first exhausting memory.
 *
 * One site per allocator, each with the name of its boot option:
 *
 *   fail_page_alloc  alloc_pages*, alloc_pages_bulk (and so every slab
 *                    refill, page_frag refill and large kmalloc above them)
 *   failslab         kmem_cache_alloc*, kmem_cache_alloc_bulk, kmalloc of
 *                    the slab sizes (8 KiB and below)
 *   fail_qmempool    qmempool_alloc, qmempool_alloc_softirq
 *   fail_page_frag   page_frag_alloc*, page_frag_prepare*, and the per-CPU
 *                    napi_alloc_frag / netdev_alloc_frag
 *
 * A site's spec: "every:N" fails every Nth call (N >= 1), "random:P" fails
 * P percent of calls (1..100) by a pseudo-random sequence from "seed:S"
 * (default 1), so a run can be repeated; ",times:T" stops after T
 * failures; "off" disarms. Example: failslab=random:5,seed:42.
 * The sequence is one counter per site shared by every CPU, so which
 * call fails depends on how the CPUs interleave; on one CPU it is exact.
 *
 * An injected failure looks to the caller exactly like an exhausted
 * allocator: NULL (0 for a bulk), counted in the allocator's own failure
 * counter, and in the site's "injected" counter here. It prints nothing
 * (at 5% under traffic a console line each would be the bottleneck).
 *
 * Cost when off: every allocation entry point tests one global word,
 * mm_fault_armed, which is 0 unless some site is armed: one load and one
 * predicted branch. Everything else is out of line.
 *
 * Host world: mm_host_boot() reads MM_FAULT, e.g.
 *   MM_FAULT="failslab=random:5,seed:3 fail_page_alloc=every:100"
 * and arms those sites once the machine is up. Kernel: the boot options
 * of the same names, armed at the end of boot (the set-up of the
 * allocators, the NICs and lwIP is not what is being tested).
 */
#ifndef MM_FAULT_INJECT_H
#define MM_FAULT_INJECT_H

#include <stddef.h>

#include "platform.h"

enum mm_fault_site {
	MM_FAULT_PAGE,
	MM_FAULT_SLAB,
	MM_FAULT_QMEMPOOL,
	MM_FAULT_FRAG,
	MM_FAULT_NR_SITES
};

/* Bit (1 << site) set while that site is armed. */
extern atomic_uint mm_fault_armed;

/* Out of line: does this call of an armed site fail? Counts it. */
bool __mm_fault_should_fail(enum mm_fault_site site);

/*
 * mm_fault_armed_any - is any site armed? For a fast path that sends
 * every call to its out-of-line slow path while one is: the slow path
 * asks mm_fault_should_fail(), and the fast path holds no call. A call
 * there, even one never taken, makes the inline fast path's function
 * save and restore registers around everything: with failslab's test
 * ahead of the slab's fast path, kmem_cache_alloc pushed and popped three
 * registers (and moved the stack pointer) and kmem_cache_alloc+free went from 85 to 95 guest
 * instructions (make bench-kernel); with this test in the fast path's
 * condition, 102 -> 92 on today's path. Any context.
 */
static inline bool mm_fault_armed_any(void)
{
	return atomic_load_explicit(&mm_fault_armed, memory_order_relaxed);
}

/*
 * mm_fault_should_fail - the test at each allocation entry point: true
 * when this call must fail. Any context. Off: one relaxed load, false.
 */
static inline bool mm_fault_should_fail(enum mm_fault_site site)
{
	if (mm_likely(!atomic_load_explicit(&mm_fault_armed,
					    memory_order_relaxed)))
		return false;
	return __mm_fault_should_fail(site);
}

/*
 * mm_fault_set - arm (or, for "off", disarm) a site with a spec (see
 * above). Its counters start again from 0. Any context, but a site being
 * reconfigured while other CPUs allocate may see the old or the new spec
 * for a call or two.
 * Returns 0, or -1 with a console line saying what is wrong, and the
 * site unchanged.
 */
int mm_fault_set(enum mm_fault_site site, const char *spec);

/*
 * mm_fault_set_from - a list of "NAME=SPEC" words separated by blanks
 * (the MM_FAULT variable, or boot options collected by the kernel).
 * Every word is applied or reported; returns how many were refused.
 */
int mm_fault_set_from(const char *list);

/* mm_fault_reset - disarm every site and zero its counters (the host's
 * mm_host_shutdown(), so that the next boot starts clean). */
void mm_fault_reset(void);

/* mm_fault_site_name - "fail_page_alloc", "failslab", "fail_qmempool",
 * "fail_page_frag"; "?" out of range. */
const char *mm_fault_site_name(enum mm_fault_site site);

/* mm_fault_site_by_name - the site with that name (n bytes), or -1. */
int mm_fault_site_by_name(const char *name, size_t n);

/* mm_fault_spec_ok - would mm_fault_set() accept spec? No output. */
bool mm_fault_spec_ok(const char *spec);

/* Counters of a site since it was last set: calls while armed, and how
 * many of those were made to fail. Any context (relaxed reads). */
unsigned long mm_fault_calls(enum mm_fault_site site);
unsigned long mm_fault_injected(enum mm_fault_site site);

/*
 * mm_fault_text / mm_fault_json - every site: its spec ("off" if not
 * armed), calls and injected. Text: one line per site, "NAME SPEC
 * calls=N injected=N". JSON: {"NAME":{"spec":"...","armed":bool,
 * "calls":N,"injected":N},...}. snprintf semantics. mm_fault_schema
 * describes a site's members (libc/stat_table.h).
 */
int mm_fault_text(char *buf, size_t size);
int mm_fault_json(char *buf, size_t size);
struct stat_schema;
extern const struct stat_schema mm_fault_schema;

#endif /* MM_FAULT_INJECT_H */
