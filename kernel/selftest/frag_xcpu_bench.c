/*
 * bench=xcpu: Lin's page_frag_test inside the guest. The boot CPU
 * allocates fragments and passes them through a ring to CPU 1, which frees
 * them (page_frag_free; kfree for the kmalloc case), for every size and
 * alignment the host benchmark runs (bench/page_frag_bench.c).
 *
 * Meant for QEMU with -icount shift=0 and two vCPUs (tools/qemu-run
 * --icount --smp 2). Under -icount QEMU runs the vCPUs in turn on one host
 * thread and the clock advances one tick per guest instruction of
 * whichever vCPU runs, so a span of one CPU's TSC counts its own
 * instructions only while no switch to the other vCPU falls inside it.
 * Hence each side times its work in batches of XCPU_BATCH fragments and
 * reports the median batch per fragment: alloc_per_op (the push side, ring
 * excluded) and free_per_op (the pop side). elapsed_per_op is the whole
 * test's ticks per fragment, both vCPUs together and their spinning while
 * the other runs included: it depends on QEMU's turn length and is shown
 * only beside. atomics_per_free is page_frag_stats' free_atomics / frees
 * over the case (the free side's locked operations), and every case checks
 * that the free page count comes back (leaked=0 on the line).
 */
#include "kernel/selftest/tests.h"
#include "kernel/arch.h"
#include "kernel/console.h"
#include "kernel/percpu.h"
#include "kernel/poll.h"
#include "mm/mm.h"
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define XCPU_NR	   16384 /* fragments per case */
#define XCPU_RING  1024	 /* slots; a power of two */
#define XCPU_BATCH 32	 /* fragments per timed batch and ring publish */
#define XCPU_ALIGN 64	 /* page_frag_test aligns to SMP_CACHE_BYTES */

struct xcpu {
	_Atomic unsigned long head __attribute__((aligned(64)));
	_Atomic unsigned long tail __attribute__((aligned(64)));
	void *slot[XCPU_RING] __attribute__((aligned(64)));
	bool kmalloc_case;
	uint32_t alloc_ticks[XCPU_NR / XCPU_BATCH];
	uint32_t free_ticks[XCPU_NR / XCPU_BATCH];
};

static struct xcpu xcpu;
static struct page_frag_cache xcpu_nc;

static void *xcpu_alloc(unsigned int len, bool aligned)
{
	if (xcpu.kmalloc_case)
		return kmalloc(len, GFP_ATOMIC);
	return aligned ? page_frag_alloc_align(&xcpu_nc, len, GFP_ATOMIC,
					       XCPU_ALIGN)
		       : page_frag_alloc(&xcpu_nc, len, GFP_ATOMIC);
}

/* CPU 1: free batches as they arrive, timing each. */
static void xcpu_pop(void *arg)
{
	struct xcpu *x = arg;
	unsigned long tail = 0;

	(void)arg;
	for (int b = 0; b < XCPU_NR / XCPU_BATCH; b++) {
		uint64_t t0;

		while (atomic_load_explicit(&x->head, memory_order_acquire) -
			       tail <
		       XCPU_BATCH)
			cpu_relax();
		t0 = rdtsc();
		for (int i = 0; i < XCPU_BATCH; i++, tail++) {
			void *p = x->slot[tail % XCPU_RING];

			if (x->kmalloc_case)
				kfree(p);
			else
				page_frag_free(p);
		}
		x->free_ticks[b] = (uint32_t)(rdtsc() - t0);
		atomic_store_explicit(&x->tail, tail, memory_order_release);
	}
	page_frag_free_flush(); /* as its poll loop would, once idle */
}

/* The boot CPU: allocate a batch (timed), then publish it. Returns false
 * on an allocation failure. */
static bool xcpu_push(unsigned int len, bool aligned)
{
	void *batch[XCPU_BATCH];
	unsigned long head = 0;

	for (int b = 0; b < XCPU_NR / XCPU_BATCH; b++) {
		uint64_t t0 = rdtsc();

		for (int i = 0; i < XCPU_BATCH; i++)
			batch[i] = xcpu_alloc(len, aligned);
		xcpu.alloc_ticks[b] = (uint32_t)(rdtsc() - t0);
		while (head + XCPU_BATCH -
			       atomic_load_explicit(&xcpu.tail,
						    memory_order_acquire) >
		       XCPU_RING)
			cpu_relax();
		for (int i = 0; i < XCPU_BATCH; i++) {
			if (!batch[i])
				return false;
			xcpu.slot[(head + (unsigned long)i) % XCPU_RING] =
				batch[i];
		}
		head += XCPU_BATCH;
		atomic_store_explicit(&xcpu.head, head, memory_order_release);
	}
	return true;
}

/* Median of n batch figures, in hundredths of a tick per fragment. */
static uint64_t xcpu_median_x100(uint32_t *v, int n)
{
	for (int i = 1; i < n; i++) /* insertion sort: 512 values */
		for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
			uint32_t t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return (uint64_t)v[n / 2] * 100 / XCPU_BATCH;
}

/* One case; false if an allocation failed (CPU 1 then still waits for
 * the rest, so no further case may start). */
static bool xcpu_case(const char *name, unsigned int len, bool aligned,
		      bool kmalloc_case)
{
	struct page_frag_stats s0, s1;
	unsigned long free0, free1;
	uint64_t t0, elapsed, a, f, atom;
	bool ok;

	xcpu.kmalloc_case = kmalloc_case;
	atomic_store(&xcpu.head, 0);
	atomic_store(&xcpu.tail, 0);
	mm_deferred_init_all(); /* the count must not move but by the test */
	drain_all_pages();
	free0 = nr_free_pages();
	page_frag_stats_read(&s0);
	t0 = rdtsc();
	smp_call_async(1, xcpu_pop, &xcpu);
	ok = xcpu_push(len, aligned);
	if (ok)
		smp_call_wait(1);
	elapsed = rdtsc() - t0;
	if (!ok) {
		kprintf("bench: xcpu %s: allocation failed\n", name);
		return false;
	}
	page_frag_cache_drain(&xcpu_nc);
	page_frag_stats_read(&s1);
	drain_all_pages();
	free1 = nr_free_pages();
	a = xcpu_median_x100(xcpu.alloc_ticks, XCPU_NR / XCPU_BATCH);
	f = xcpu_median_x100(xcpu.free_ticks, XCPU_NR / XCPU_BATCH);
	atom = s1.frees > s0.frees ? (s1.free_atomics - s0.free_atomics) *
					     100000 / (s1.frees - s0.frees)
				   : 0;
	/* kmalloc's caches keep their slabs: a page count says nothing. */
	kprintf("bench: xcpu %s frags=%d alloc_per_op=%llu.%02llu "
		"free_per_op=%llu.%02llu elapsed_per_op=%llu "
		"atomics_per_free=%llu.%05llu leaked=%ld\n",
		name, XCPU_NR, (unsigned long long)(a / 100),
		(unsigned long long)(a % 100), (unsigned long long)(f / 100),
		(unsigned long long)(f % 100),
		(unsigned long long)(elapsed / XCPU_NR),
		(unsigned long long)(atom / 100000),
		(unsigned long long)(atom % 100000),
		kmalloc_case ? 0L : (long)free0 - (long)free1);
	return true;
}

void bench_frag_xcpu(void)
{
	static const unsigned int lens[] = {12, 64, 256, 1500, 2048};
	char name[48];

	if (nr_cpus < 2) {
		kprintf("bench: xcpu skipped: needs 2 CPUs, have %d\n",
			nr_cpus);
		return;
	}
	for (int al = 0; al < 2; al++)
		for (unsigned int i = 0; i < sizeof(lens) / sizeof(lens[0]);
		     i++) {
			snprintf(name, sizeof(name), "frag_%u_%s", lens[i],
				 al ? "aligned" : "unaligned");
			if (!xcpu_case(name, lens[i], al, false))
				return;
		}
	if (xcpu_case("kmalloc_12_unaligned", 12, false, true))
		xcpu_case("kmalloc_1500_unaligned", 1500, false, true);
}
