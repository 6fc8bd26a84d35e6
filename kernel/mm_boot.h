/* The page allocator at boot: mm_init and its report lines. */
#ifndef KERNEL_MM_BOOT_H
#define KERNEL_MM_BOOT_H

/* Boot CPU, after SMP bring-up: mm_debug from the command line, then
 * mm_init() on the ranges of kernel/memmap.c. A failure is reported; the
 * boot goes on without free memory. */
void mm_boot(void);

/* Boot CPU, once the boot is over (NICs up, self-tests run): arm the
 * failure injection the command line asks for (fail_page_alloc=,
 * failslab=, fail_qmempool=, fail_page_frag=), one line per armed site. */
void mm_boot_arm_faults(void);

/* The allocator lines of the boot report (kernel/boot_report.c). */
void mm_boot_report(void);

#endif
