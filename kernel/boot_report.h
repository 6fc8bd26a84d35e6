/*
 * The boot report: stable, parseable lines on the console (docs/boot.md
 * lists them). Tests and scripts rely on:
 *   cpu N: apic=A node=M
 *   node M: cpus=LIST memory=SMiB
 *   node M: range 0xSTART-0xEND
 *   node M: distance=D0,D1,...
 *   boot: cpus=C nodes=N memory=SMiB
 *   boot: ready
 */
#ifndef KERNEL_BOOT_REPORT_H
#define KERNEL_BOOT_REPORT_H

void boot_report(void);

/* Extra report lines: a subsystem adds a function (mm_boot.c etc.). */
typedef void (*report_fn)(void);

#endif
