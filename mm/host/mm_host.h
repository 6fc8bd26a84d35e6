/*
 * Booting a simulated machine in a Linux process (host world only).
 *
 * Each NUMA node's "physical memory" is one mmap'd region; each pthread
 * says which simulated CPU it is. After mm_host_boot() every mm API works
 * as in the kernel:
 *
 *	int cpu_node[2] = { 0, 1 };
 *	mm_host_boot(2, 64 << 20, 2, cpu_node);   // 2 nodes of 64 MiB, 2 CPUs
 *	if (mm_host_set_cpu(1))                   // this thread is CPU 1
 *		return -1;
 *	struct page *p = alloc_pages(GFP_KERNEL, 0);   // from node 1
 *	__free_pages(p, 0);
 *	mm_host_shutdown();
 */
#ifndef MM_HOST_H
#define MM_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mm_sample.h" /* sampling the allocators over time */

/* A range of a node's memory not handed to the allocator (a hole). */
struct mm_host_hole {
	int nid;
	size_t offset; /* from the start of the node's region */
	size_t len;
};

/*
 * One range of the machine's memory and the node that owns it, for a
 * layout that one region per node cannot give: ranges of different nodes
 * may interleave (node 0 at [0, 4M) and [8M, 12M), node 1 at [4M, 8M)), as
 * firmware can describe them, and a node may have no range at all (a
 * memoryless node). That interleaved machine, with CPU 1 on node 1:
 *
 *	static const struct mm_host_range r[] = {
 *		{.nid = 0, .offset = 0, .len = 4 << 20},
 *		{.nid = 1, .offset = 4 << 20, .len = 4 << 20},
 *		{.nid = 0, .offset = 8 << 20, .len = 4 << 20},
 *	};
 *	struct mm_host_config c = {.nr_nodes = 2, .nr_cpus = 2,
 *				   .ranges = r, .nr_ranges = 3};
 *	mm_host_boot_config(&c);
 */
struct mm_host_range {
	int nid;
	size_t offset; /* from the start of the machine's memory */
	size_t len;
};

struct mm_host_config {
	int nr_nodes; /* 1..MM_MAX_NODES */
	/* Each node is one region of this size (rounded up to whole pages),
	 * unless ranges is set: then it is not used. */
	size_t bytes_per_node;
	int nr_cpus; /* 1..MM_MAX_CPUS */
	/* cpu_to_node[cpu]; NULL: CPUs split into equal blocks per node. */
	const int *cpu_to_node;
	/* distance[from * nr_nodes + to], SLIT style; NULL: 10 local,
	 * 20 remote (what QEMU reports by default). */
	const int *distance;
	const struct mm_host_hole *holes; /* NULL or nr_holes entries */
	int nr_holes;
	/*
	 * NULL: one region per node (above). Otherwise the machine's memory
	 * is one region, aligned to a MAX_ORDER block, laid out by these
	 * nr_ranges entries (1..MM_MAX_RANGES, in any order, page aligned,
	 * not overlapping); a gap between ranges is a hole. Holes above are
	 * then refused: leave a gap instead.
	 */
	const struct mm_host_range *ranges;
	int nr_ranges;
	/* Keep the nodes' memory mapped at mm_host_shutdown() for the next
	 * boot with nodes of that size or smaller, contents and all (as a real
	 * machine's RAM after a reboot), instead of unmapping it: for
	 * programs that boot thousands of machines (the fuzz harnesses),
	 * which then pay no page faults per boot. A pointer kept across the
	 * shutdown then does not fault: only for programs that keep none. */
	bool keep_memory;
};

/*
 * mm_host_boot - build a machine and run mm_init() on it. cpu_to_node may
 * be NULL (see struct mm_host_config). The calling thread becomes CPU 0.
 * Environment: MM_SAMPLE=FILE samples the allocators (mm_sample.h);
 * MM_FAULT="NAME=SPEC ..." arms failure injection once the machine is up
 * (fault_inject.h; a bad word fails the boot).
 * Returns 0, or -1 with a message (bad arguments, out of memory, already
 * booted, a bad MM_FAULT). Call mm_host_shutdown() before booting again.
 */
int mm_host_boot(int nr_nodes, size_t bytes_per_node, int nr_cpus,
		 const int *cpu_to_node);
/* mm_host_boot_config - the same with distances and holes. */
int mm_host_boot_config(const struct mm_host_config *cfg);

/*
 * mm_host_set_cpu - the calling thread is simulated CPU cpu from now on.
 * One thread per CPU at a time: per-CPU lists and counters assume it.
 * cpu must be one of the booted machine's CPUs, 0..nr_cpus-1: every
 * allocator sizes its per-CPU arrays by nr_cpus (as the kernel does by
 * the CPUs it found), so a CPU outside them would write past their end.
 * Returns 0, or -1 with a message on stderr (no machine booted, or cpu
 * out of range); the thread's CPU is then unchanged. A thread that never
 * calls it is CPU 0. After mm_host_shutdown() and a new boot, each
 * thread but the booting one (CPU 0 again) must call it again.
 * When a thread that called it ends, the page_frag frees its CPU still
 * holds back are applied (page_frag_free_flush), as a kernel CPU applies
 * them when it goes idle, so no block waits for a thread that is gone:
 * end (join) such threads before mm_host_shutdown().
 */
__attribute__((warn_unused_result)) int mm_host_set_cpu(int cpu);

/*
 * mm_host_irqs_masked - true while the calling thread is inside one of the
 * allocators' interrupt guards (mm_irq_save). The host has no interrupts;
 * a test that stands in for one with a POSIX signal must, in its handler,
 * do nothing while this is true, as a CPU holds an interrupt back while
 * interrupts are masked. Async-signal-safe.
 */
bool mm_host_irqs_masked(void);

/*
 * mm_host_trace_hook - where the host world sends the events of mm/'s
 * trace points (mm_trace_emit in mm/platform.h): a test sets it and
 * switches a class on (trace_class_on[TRACE_MM], libc/trace_event.h) to
 * see what the allocators record; NULL (the default) drops them. Called
 * on the thread that made the event, in any allocator context: it must
 * take no lock an allocator takes and allocate nothing from mm/.
 */
struct trace_desc;
typedef void (*mm_host_trace_fn)(const struct trace_desc *ev, int phase,
				 uint64_t a, uint64_t b, uint64_t c,
				 uint32_t d);
extern mm_host_trace_fn mm_host_trace_hook;

/*
 * mm_host_shutdown - unmap every node. Every page, slab and pointer into
 * the machine is gone; no thread may still use it. Safe without a boot.
 * The next boot is a fresh machine: mm_init() forgets every per-CPU
 * fragment cache, slab cache and magazine, pool, list and counter of the
 * old one (nothing needs draining first). Only the debug switches
 * (mm_debug_set, mm_debug_set_quiet) stay as they were.
 */
void mm_host_shutdown(void);

#endif /* MM_HOST_H */
