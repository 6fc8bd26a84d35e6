/*
 * The self-tests of the runner's table (selftest.c), one file each, and
 * what they share. Each test prints "selftest: NAME PASS ..." or
 * "selftest: NAME FAIL ..." and returns its failure count: 0 when it
 * passed.
 */
#ifndef KERNEL_SELFTEST_TESTS_H
#define KERNEL_SELFTEST_TESTS_H

#include <stdint.h>

int selftest_printf(void);   /* printf.c */
int selftest_irq(void);	     /* irq.c */
int selftest_smp(void);	     /* smp.c */
int selftest_mm(void);	     /* page_alloc.c */
int selftest_slab(void);     /* slab.c */
int selftest_frag(void);     /* frag.c */
int selftest_qmempool(void); /* qmempool.c */
int selftest_misuse(void);   /* misuse.c (needs mm_debug=1) */
int selftest_stall(void);    /* stall.c (boot only) */
/* fault.c: these end the boot (an exception report or a panic). */
int fault_here(void);
int panic_here(void);
int selftest_fault_ap(void);

/* bench=pages,slab,frag,qmempool,alfq,all (mm_bench.c): per-operation
 * figures of the allocators' fast paths on the boot CPU. */
void mm_bench_run(void);
/* bench=xcpu (frag_xcpu_bench.c): page_frag allocated on the boot CPU,
 * freed on CPU 1, per fragment; needs two CPUs. */
void bench_frag_xcpu(void);
/* bench=trace (trace_bench.c): a trace point's cost, class off and on. */
void bench_trace(void);

/* wait.c: lets interrupts in on the boot CPU for ms milliseconds (the
 * boot runs with them masked until the poll loop). */
void irq_enable_for_ms(uint64_t ms);

/* The bound for waiting on other CPUs: generous, because under TCG on a
 * loaded host a vCPU thread can go unscheduled for a long while. */
#define SELFTEST_WAIT_MS 5000

#endif
