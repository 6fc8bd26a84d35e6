/*
 * Kernel tunables, each with its default and the reason for it.
 */
#ifndef KERNEL_CONFIG_H
#define KERNEL_CONFIG_H

#include "mm/platform.h"

/* CPUs the kernel will start; matches the mm seam's limit so every CPU the
 * kernel runs on has its per-CPU page lists. 256 covers a two-socket
 * server of today (2 x 64 cores x 2 threads). A CPU slot costs ~1.5 KiB
 * of .bss (struct cpu, TSS, GDT entries, counters); the stacks of a CPU
 * that exists (KSTACK_SIZE plus three IST_STACK_SIZE) come from its node's
 * memory when it starts (kernel/smp.c).
 * When the firmware lists more, kernel/cpu_pick.c chooses node by node
 * and one line says how many were left out of each node. */
#define MAX_CPUS MM_MAX_CPUS

/* CPUs the firmware tables (MADT, MP table) may list that the kernel keeps
 * to choose from: 8 bytes each (APIC id, node). More are counted and
 * reported, never started. */
#define MAX_FW_CPUS 1024

/* NUMA nodes; the mm seam's limit for the same reason. */
#define MAX_NODES MM_MAX_NODES

/*
 * The RAM ceiling: RAM at or above this physical address is reported and
 * skipped (kernel/direct_map.c; mem_max= lowers it, and so does a CPU
 * with fewer address bits). The direct map is an identity map, so RAM and
 * every device window must lie in the lower canonical half of 4-level
 * paging, 128 TiB; firmware places the 64-bit PCI windows above the top
 * of RAM, so RAM keeps to the lower half of that, 64 TiB (Linux caps
 * 4-level x86_64 at the same 2^46 bytes for its direct map). At the
 * ceiling the struct pages take 1 TiB (1/64 of RAM, each node's carved
 * from its own memory) and the direct map's page tables 512 KiB with
 * 1 GiB pages (128 MiB with 2 MiB pages, below 4 GiB). Tested here up to
 * 256 GiB: QEMU's TCG CPUs have 40 address bits, 1 TiB.
 */
#define RAM_CEILING (64ULL << 40)

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
#define TIMER_HZ	  100
/* Longest an idle CPU sleeps on its one-shot timer when no poller asked
 * for an earlier deadline (kernel/poll.h poll_deadline): a safety net for
 * work that waits for time without saying so. 1 s keeps it to one
 * wake-up a second. */
#define TIMER_IDLE_MAX_MS 1000

/* Profiler (kernel/profile.c): frames kept per sample, the interrupted PC
 * included. 31 makes a sample 128 bytes (two cache lines); the deepest
 * stack make profile saw under iperf and HTTP load was 19 frames (boot
 * entry, poll loop, driver, lwIP's TCP input, the answer's output, the
 * allocators), so the margin covers deeper paths; a deeper stack keeps its
 * innermost 31 frames and is marked truncated. */
#define PROFILE_FRAMES 31

/* Profiler: distinct stacks a report can fold (at least: the table fills
 * its power-of-two block of pages, 1985 slots of 132 bytes in 256 KiB).
 * make profile's ten-second runs under iperf and HTTP folded 107-120
 * distinct stacks each; samples beyond a full table are counted
 * ("unfolded"), not lost silently. */
#define PROFILE_FOLD_SLOTS 1024

/* Pollers per CPU (poll_register). 32: a poller per NIC queue, and
 * with NETDEV_MAX (16) single-queue NICs all polled by the CPU that probed
 * them, that CPU also runs the shell and the stack's own pollers. */
#define MAX_POLLERS 32

/* Memory map entries kept from the boot loader. */
#define MAX_MMAP 128

/* Ranges reserved by the boot (kernel image, boot info, ACPI tables...). */
#define MAX_RESERVED 32

/* COM1's line discipline (kernel/console_line.c). */
/* The shell's line in progress: its prompt and the longest line it takes
 * (SHELL_LINE_MAX), with room to spare. */
#define CONSOLE_INPUT_MAX	 128
/* Log text held while the shell is in the middle of an output line: a
 * burst of boot-report-sized lines (~80 bytes each) from every CPU. More
 * breaks the shell's line rather than a log line. */
#define CONSOLE_HELD_MAX	 4096
/* How long held log text may wait for the shell to end its line. The
 * shell writes a slice every poll round (well under 1 ms idle, a few ms
 * under iperf), so 200 ms means its CPU is stuck: let the log out. */
#define CONSOLE_HELD_WAIT_MS	 200
/* How long shell output waits for a log writer that left its line open
 * (kprintf pieces of one line, as a panic report prints them): the
 * pieces follow at once, so 100 ms means they are not coming. */
#define CONSOLE_LOG_LINE_WAIT_MS 100

#endif
