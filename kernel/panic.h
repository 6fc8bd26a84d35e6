/*
 * Fatal errors: panic() and what it shares with the exception reports of
 * kernel/trap.c (stopping the machine).
 */
#ifndef KERNEL_PANIC_H
#define KERNEL_PANIC_H

#include <stdbool.h>
#include <stdint.h>

/*
 * panic - print "panic: " and the message, the CPU and a backtrace, stop
 * the other CPUs, then halt (or exit QEMU with the failure status when
 * exit_after_boot=1). Any context. Never returns.
 */
__attribute__((noreturn, format(printf, 1, 2))) void panic(const char *fmt,
							   ...);

/* fatal_stop - stop this CPU after a fatal error (its report printed).
 * Any context. Never returns. */
__attribute__((noreturn)) void fatal_stop(void);

#endif
