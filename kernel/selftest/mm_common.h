/*
 * What the allocator self-tests (page_alloc.c, slab.c, frag.c,
 * qmempool.c) share, on real CPUs.
 *
 * The tests above the page allocator have the same shape, which is what
 * makes "every page came back" checkable on a machine that also uses these
 * allocators for itself:
 *
 *   1. quiesce: every CPU empties its own per-CPU caches (slab magazines,
 *      fragment caches) from its poll loop, then drain_all_pages();
 *      baseline = nr_free_pages().
 *   2. every CPU allocates at the same time (smp_call_all), stamps each
 *      object with its CPU and index, and checks size, alignment and node;
 *   3. every CPU checks and frees the objects of the next CPU (cross-CPU
 *      and, with two nodes, cross-node frees);
 *   4. quiesce again; nr_free_pages() must equal the baseline.
 *
 * The bookkeeping itself (the per-CPU pointer tables) is kmalloc'd on the
 * CPU's node before the baseline and freed after the comparison, so the
 * tests use kmalloc as the rest of the kernel does.
 */
#ifndef KERNEL_SELFTEST_MM_COMMON_H
#define KERNEL_SELFTEST_MM_COMMON_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include "kernel/config.h"
#include "kernel/console.h"

struct kmem_cache;

/* Problems found by the running test; reset at its start. */
extern atomic_int st_errors;

/* Reports the first few problems; all are counted. */
#define st_err(fmt, ...)                                               \
	do {                                                           \
		if (atomic_fetch_add(&st_errors, 1) < 8)               \
			kprintf("selftest: " fmt "\n", ##__VA_ARGS__); \
	} while (0)

/*
 * st_begin - step 0 of a test above the page allocator: reset st_errors,
 * find the kmalloc caches and allocate per-CPU tables of table_size
 * bytes. On failure prints "selftest: TEST FAIL (no allocator or no
 * memory)" and returns -1 (nothing left allocated); else 0.
 */
int st_begin(const char *test, size_t table_size);

/*
 * st_end - the verdict after step 4: the failures found (st_errors, the
 * free pages not back at the baseline, no object allocated at all), with
 * one "selftest: TEST FAIL cpus=N WHAT=OBJS free=F baseline=B errors=E"
 * line when there are any. Returns 0 when the test passed: the caller
 * prints its own PASS line.
 */
int st_end(const char *test, const char *what, unsigned long objs,
	   unsigned long base, unsigned long after);

/* Stamps the first and last 8 bytes (or the only bytes) of an object
 * with its CPU and index; st_stamp_ok checks them. */
void st_stamp(void *p, size_t size, int cpu, int i);
int st_stamp_ok(const void *p, size_t size, int cpu, int i);

/* The kmalloc classes, and their caches once st_find_kmalloc_caches()
 * found them (one object of each class tells its cache). Returns 0, or
 * -1 when kmalloc fails. */
#define ST_NR_CLASSES 13
extern const size_t st_class_sizes[ST_NR_CLASSES];
int st_find_kmalloc_caches(void);

/* Step 1 and 4: every CPU shrinks its magazines of the kmalloc caches
 * (and of extra, if not NULL) and drains its fragment caches; then
 * drain_all_pages(). Returns nr_free_pages(). */
unsigned long st_quiesce(struct kmem_cache *extra);

/* One zeroed table of size bytes per CPU, kmalloc'd on that CPU's node.
 * Returns 0, or -1 (free what was allocated with st_free_tables). */
extern void *st_tables[MAX_CPUS];
int st_alloc_tables(size_t size);
void st_free_tables(void);

/* The CPU whose objects this CPU frees: the next one, round. */
int st_next_cpu(int cpu);

/* Counts an error when p is not on the node of the CPU that allocated
 * it. */
void st_check_node(const char *test, const void *p, int cpu);

#endif
