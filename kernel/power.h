/*
 * Leaving the kernel: QEMU's isa-debug-exit device (port 0xf4) for tests
 * and scripts, ACPI power-off or reset on real machines.
 *
 * isa-debug-exit turns a written value v into QEMU's exit status
 * (v << 1) | 1, so:
 *   EXIT_SUCCESS_CODE 0 -> QEMU exits with status 1 (boot went fine)
 *   EXIT_FAILURE_CODE 1 -> QEMU exits with status 3 (panic, exception,
 *                          failed self-test)
 * tools/qemu-run maps status 1 back to 0 for its callers.
 */
#ifndef KERNEL_POWER_H
#define KERNEL_POWER_H

#include <stdbool.h>

#define EXIT_SUCCESS_CODE 0
#define EXIT_FAILURE_CODE 1
#define DEBUG_EXIT_PORT	  0xf4

/* Set by exit_after_boot=1: fatal errors end QEMU instead of halting. */
extern bool exit_on_fatal;

/*
 * system_exit - leave with code (EXIT_*): isa-debug-exit under QEMU, else
 * ACPI S5 power-off, else reset, else halt. Any context. Never returns.
 */
__attribute__((noreturn)) void system_exit(int code);

/*
 * system_reboot - reset the machine: the FADT reset register, else the
 * 8042's reset line, else halt. Under QEMU with -no-reboot (tools/qemu-run
 * always adds it) the reset ends QEMU with status 0. Any context. Never
 * returns.
 */
__attribute__((noreturn)) void system_reboot(void);

#endif
