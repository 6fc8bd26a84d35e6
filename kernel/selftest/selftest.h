/*
 * Boot self-tests, chosen with selftest=LIST (kernel/cmdline.c), and the
 * in-kernel benchmark, chosen with bench=LIST. The tests themselves are
 * listed in kernel/selftest/tests.h.
 */
#ifndef KERNEL_SELFTEST_H
#define KERNEL_SELFTEST_H

/* Runs the self-tests the command line asks for, then the benchmark.
 * Boot CPU, after the boot report. Under exit_after_boot=1 a failed test
 * makes the kernel exit with the failure status. */
void selftests_run(void);

#include <stdbool.h>
#include <stddef.h>

#define SELFTEST_UNKNOWN   (-1) /* no test of that name */
#define SELFTEST_BOOT_ONLY (-2) /* it ends the system: selftest= only */

/*
 * selftest_run_named - run one test after boot (the shell's `selftest
 * NAME`), with interrupts masked as at boot except where the test lets
 * them in; it holds the calling CPU for the test's duration (printf and
 * irq: milliseconds; smp about 0.2 s; the allocator tests compare free
 * page counts before and after, so traffic at the same time can fail
 * them). Poll context. Returns the failures (0: passed; the test prints
 * its PASS or FAIL line), SELFTEST_UNKNOWN or SELFTEST_BOOT_ONLY.
 */
int selftest_run_named(const char *name);

/*
 * selftest_register - add a test from a layer above kernel/ (net/ adds its
 * own: kernel/ may not call into net/). @name as in selftest=LIST, @fn
 * returns its failures; @after_boot as for the table's tests. The names
 * are kept by pointer (static storage). Boot CPU, before selftests_run.
 * Returns 0, or -1 when the slots are full (SELFTEST_MAX_EXTRA).
 */
#define SELFTEST_MAX_EXTRA 4
int selftest_register(const char *name, int (*fn)(void), bool after_boot);

/* The test names, space-separated, that may (after_boot) or may not run
 * after boot. snprintf semantics. */
int selftest_names(char *buf, size_t size, bool after_boot);

#endif
