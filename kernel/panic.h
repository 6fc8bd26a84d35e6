/*
 * Fatal errors: panic() and what it shares with the exception reports of
 * kernel/trap.c (the backtrace, stopping the machine).
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

/*
 * Prints a frame-pointer backtrace starting at rbp (at most 16 frames,
 * stopping at the first frame pointer outside the kernel's memory).
 */
void backtrace_print(uint64_t rbp);

/* One line "  #N 0xADDR function+0xOFF" (the function when the symbol
 * table knows it); return_address: addr is one, not an instruction's own
 * address. */
void backtrace_print_frame(int n, uint64_t addr, bool return_address);

/* fatal_stop - stop this CPU after a fatal error (its report printed).
 * Any context. Never returns. */
__attribute__((noreturn)) void fatal_stop(void);

#endif
