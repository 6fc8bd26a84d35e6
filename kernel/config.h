/*
 * Kernel tunables, each with its default and the reason for it.
 */
#ifndef KERNEL_CONFIG_H
#define KERNEL_CONFIG_H

#include "mm/platform.h"

/* CPUs the kernel will start; matches the mm seam's limit so every CPU the
 * kernel runs on has its per-CPU page lists. Extra MADT entries are
 * reported and left asleep. */
#define MAX_CPUS MM_MAX_CPUS

/* NUMA nodes; the mm seam's limit for the same reason. */
#define MAX_NODES MM_MAX_NODES

/* Kernel stack per CPU. 16 KiB: lwIP's deepest call chains plus an
 * exception report fit with room to spare; a page fault on overflow is
 * caught on the IST stack below. */
#define KSTACK_SIZE 16384

/* Stack for double faults and NMIs (IST), so a blown kernel stack still
 * gets its report printed. */
#define IST_STACK_SIZE 8192

/* Periodic LAPIC timer per CPU, in Hz. 100 Hz keeps idle vCPUs cheap under
 * TCG on a 2-core host; time itself comes from the TSC (clock_ms), so the
 * tick only bounds how long an idle CPU sleeps before re-polling. */
#define TIMER_HZ 100

/* Profiler (kernel/profile.c): frames kept per sample, the interrupted PC
 * included. 31 makes a sample 128 bytes (two cache lines) and holds the
 * deepest path the packet code takes (poll loop, driver, lwIP's TCP input
 * and output, the allocators: about 25 frames); a deeper stack keeps its
 * innermost 31 frames and is marked truncated. */
#define PROFILE_FRAMES 31

/* Profiler: distinct stacks a report can fold. Measured under iperf and
 * HTTP load: a few hundred per CPU; samples beyond a full table are
 * counted ("unfolded"), not lost silently. */
#define PROFILE_FOLD_SLOTS 4096

/* Pollers per CPU (poll_register). */
#define MAX_POLLERS 16

/* Memory map entries kept from the boot loader. */
#define MAX_MMAP 128

/* Ranges reserved by the boot (kernel image, boot info, ACPI tables...). */
#define MAX_RESERVED 32

#endif
