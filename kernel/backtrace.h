/*
 * Frame-pointer backtraces named with the kernel's symbols: what panic,
 * the exception reports (kernel/trap.c) and the stall detector
 * (kernel/stall.c) print.
 */
#ifndef KERNEL_BACKTRACE_H
#define KERNEL_BACKTRACE_H

#include <stdbool.h>
#include <stdint.h>

/* Frames a backtrace follows at most. */
#define BACKTRACE_MAX 16

/*
 * Prints a frame-pointer backtrace starting at rbp (at most BACKTRACE_MAX
 * frames, stopping at the first frame pointer outside the kernel's
 * memory).
 */
void backtrace_print(uint64_t rbp);

/*
 * backtrace_collect - the return addresses of the same walk, into out (at
 * most max), for a caller that prints them later or elsewhere (an NMI
 * handler must not take the console's lock: kernel/stall.c). Returns how
 * many. Any context.
 */
int backtrace_collect(uint64_t rbp, uint64_t *out, int max);

/* One line "  #N 0xADDR function+0xOFF" (the function when the symbol
 * table knows it); return_address: addr is one, not an instruction's own
 * address. */
void backtrace_print_frame(int n, uint64_t addr, bool return_address);

#endif
