/* Boot self-tests chosen with selftest=LIST (kernel/cmdline.c). */
#ifndef KERNEL_SELFTEST_H
#define KERNEL_SELFTEST_H

/* Runs the self-tests the command line asks for. Boot CPU, after the
 * boot report. A failing test prints "selftest: NAME FAIL ..." and, under
 * exit_after_boot=1, makes the kernel exit with the failure status. */
void selftests_run(void);

/* A failing self-test calls this so the exit status shows it. */
void selftest_failed(void);

/* selftest=printf (kernel/selftest_printf.c). */
void selftest_printf(void);

#endif
