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

#endif
