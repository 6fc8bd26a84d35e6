/*
 * Helpers shared by the host tests of mm/: boot a fresh simulated machine
 * for every cmocka test, run a function as another simulated CPU, and read
 * the page allocator's state.
 *
 * Use as cmocka fixtures:
 *	cmocka_unit_test_setup_teardown(test_x, mm_test_setup_1node,
 *					mm_test_teardown)
 * or call mm_test_boot() inside a test for a special machine (teardown
 * shuts down whatever was booted).
 */
#ifndef MM_TEST_H
#define MM_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "mm.h"
#include "mm_host.h"

/* Boot nodes x mib MiB with cpus CPUs split evenly over the nodes; fails
 * the test if the boot fails. Debug off, debug counters zeroed. */
void mm_test_boot(int nodes, size_t mib, int cpus);

/* Fixtures: 1 node of 16 MiB with 1 CPU; 2 nodes of 16 MiB with 2 CPUs
 * (CPU 0 on node 0, CPU 1 on node 1); 4 nodes of 8 MiB, 4 CPUs. */
int mm_test_setup_1node(void **state);
int mm_test_setup_2nodes(void **state);
int mm_test_setup_4nodes(void **state);
/* The same 1-node machine with the debug checks on and their reports
 * quiet (counted and kept, not printed): for tests of what debug
 * reports. */
int mm_test_setup_1node_debug(void **state);
/* Shut the machine down; debug back off. */
int mm_test_teardown(void **state);

/* The text of the latest debug report (mm_debug_last_report), in a
 * buffer the next call overwrites. */
const char *mm_test_last_report(void);
/* Fails the test, quoting the report, unless the latest report contains
 * want. */
void mm_test_assert_report_says(const char *want);
/* Fails the test unless the latest report's caller lies in fn's body
 * (its first 4 KiB): the report named the test's own call. */
void mm_test_assert_caller_in(void (*fn)(void **));

/* Run fn(arg) on a new thread that is simulated CPU cpu; wait for it.
 * The thread then ends, as a thread does (mm_host_set_cpu). */
void mm_test_on_cpu(int cpu, void (*fn)(void *), void *arg);

/*
 * A thread that stays simulated CPU cpu between the functions it is given,
 * as a live CPU that has gone idle: whatever per-CPU state they leave
 * (page_frag_free's batch, the per-CPU lists) stays as left until the
 * next one, or until mm_test_cpu_stop() ends the thread.
 * mm_test_cpu_post() starts fn(arg) on it and returns at once;
 * mm_test_cpu_wait() waits until it returned; mm_test_cpu_run() is both.
 */
struct mm_test_cpu;
struct mm_test_cpu *mm_test_cpu_start(int cpu);
void mm_test_cpu_post(struct mm_test_cpu *c, void (*fn)(void *), void *arg);
void mm_test_cpu_wait(struct mm_test_cpu *c);
void mm_test_cpu_run(struct mm_test_cpu *c, void (*fn)(void *), void *arg);
void mm_test_cpu_stop(struct mm_test_cpu *c);

/* Free blocks of one order on node nid's buddy lists. */
unsigned long mm_test_free_blocks(int nid, unsigned int order);
/* Pages on node nid's buddy lists. */
unsigned long mm_test_node_free(int nid);
/* Drain all per-CPU lists, then check every free list; returns the free
 * pages (fails the test on an inconsistency). */
unsigned long mm_test_drain_and_verify(void);

/* Take every page of node nid (order 0, __GFP_THISNODE, so nothing falls
 * back); *n gets how many. mm_test_give_back() frees those not NULL. */
struct page **mm_test_take_node(int nid, size_t *n);
void mm_test_give_back(struct page **pages, size_t n);

#endif /* MM_TEST_H */
