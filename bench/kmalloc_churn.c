/*
 * kmalloc under cross-CPU churn: every object is allocated on one CPU and
 * freed on another, with mixed sizes, by several threads at once.
 *
 * T threads stand in a ring; thread i allocates objects of sizes 8 B -
 * 4 KiB (the same sequence for every allocator: the size class is uniform
 * over 8, 16, ..., 4096 and the size uniform inside it), writes a tag into
 * the first word and the last byte, and hands each to thread i+1 through a
 * single-producer single-consumer ring of RING slots, published BATCH at
 * a time (so the ring costs little next to the allocator); thread i+1
 * checks the tag and frees it. So each thread both allocates its own objects and
 * frees its neighbour's, as a NIC's RX CPU and the CPU that consumes the
 * packets do. A thread whose output ring is full frees from its input
 * meanwhile (nobody can wait for ever).
 *
 * One source, built once per allocator so the code path is the same
 * (mk/bench-churn.mk): "kmalloc" (our kmalloc/kfree on a simulated 1-node
 * machine with T CPUs, one per thread), and glibc, mimalloc, jemalloc,
 * tcmalloc through malloc/free (their normal API, linked in front of
 * glibc's).
 *
 * Cases: T = 2 (one thread per core) and T = 4 (two per core: threads are
 * preempted while they hold a partly full ring, as on a loaded machine).
 * Each figure comes with its calibration from the same binary: "ring" is
 * the same threads and rings handing off a pointer to a static buffer
 * (the tag still written and checked), no allocation, so alloc + free
 * cost = figure - ring. Both wall time and the threads' CPU time are
 * reported, per object (total over all threads / objects moved), and the
 * time inside the alloc and free calls alone (TSC; see count_call).
 *
 * Output: "RESULT <alloc> <case> <threads> <ns>" lines, read by
 * bench/churn_report.py; case is wall, cpu, calls, or ring_ + one of them
 * for the calibration.
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <x86intrin.h>

#include "bench_util.h"

#define MAX_THREADS 4
#define RING	    512	   /* slots per ring, power of two */
#define BATCH	    32	   /* objects published to the consumer at once */
#define OBJS	    20000L /* allocated by each thread per run */
#define RUNS	    7
#define NR_SIZES    4096 /* the size sequence, shared by all threads */

#ifdef BENCH_KMALLOC
#include "mm.h"
#include "mm_host.h"

static inline void *obj_alloc(size_t n)
{
	return kmalloc(n, GFP_KERNEL);
}
static inline void obj_free(void *p)
{
	kfree(p);
}
#else
static inline void *obj_alloc(size_t n)
{
	return malloc(n);
}
static inline void obj_free(void *p)
{
	free(p);
}
#endif

static const char *alloc_name = BENCH_NAME;
static uint32_t sizes[NR_SIZES];

struct ring {
	_Alignas(64) atomic_long head; /* written by the producer */
	_Alignas(64) atomic_long tail; /* written by the consumer */
	_Alignas(64) void *slot[RING];
};

static struct ring rings[MAX_THREADS]; /* ring i: thread i -> thread i+1 */
static int nr_threads;
static bool use_alloc;
static atomic_int failures;
static pthread_barrier_t start;

struct worker {
	pthread_t tid;
	int id;
	uint64_t cpu_ns;
	uint64_t call_tsc; /* TSC ticks inside the alloc and free calls */
} __attribute__((aligned(64)));

/*
 * Time inside the calls, by TSC around each one: what the allocator costs
 * without the waits for a descheduled partner, which dominate the wall and
 * CPU time of a loaded 2-core machine. A call interrupted by preemption
 * (longer than CALL_CAP ticks) is left out. The calibration times the
 * same pairs of reads around nothing.
 */
#define CALL_CAP 200000
static _Thread_local uint64_t call_tsc;
static double tsc_per_ns;

static inline uint64_t tsc(void)
{
	unsigned int aux;
	return __rdtscp(&aux);
}

static inline void count_call(uint64_t t0)
{
	uint64_t d = tsc() - t0;
	if (d < CALL_CAP)
		call_tsc += d;
}

static uint64_t cpu_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Spin, but let the other threads of this core run after a while. */
static inline void wait_a_bit(unsigned int *spins)
{
	if (++*spins > 64) {
		sched_yield();
		*spins = 0;
	}
}

/* Free everything that waits in ring `in`; returns how many. */
static long drain(struct ring *in, long *seen)
{
	long head = atomic_load_explicit(&in->head, memory_order_acquire);
	long n = head - *seen;

	for (; *seen < head; (*seen)++) {
		uint64_t *p = in->slot[*seen & (RING - 1)];
		uint64_t tag = p[0];
		size_t sz = (size_t)(tag & 0xffff);
		if ((tag >> 16) != (uint64_t)*seen ||
		    (sz > 8 && ((uint8_t *)p)[sz - 1] != (uint8_t)*seen))
			atomic_fetch_add(&failures, 1);
		uint64_t t0 = tsc();
		if (use_alloc)
			obj_free(p);
		count_call(t0);
	}
	atomic_store_explicit(&in->tail, head, memory_order_release);
	return n;
}

static void *worker_main(void *arg)
{
	/* The calibration's buffers: one per slot, as the consumer reads a
	 * slot's tag after the producer has moved on. */
	static uint64_t dummy[MAX_THREADS][RING][4096 / 8];
	struct worker *w = arg;
	struct ring *out = &rings[w->id];
	struct ring *in = &rings[(w->id + nr_threads - 1) % nr_threads];
	long seen = 0, got = 0;
	unsigned int spins = 0;

	bench_pin(w->id % 2);
#ifdef BENCH_KMALLOC
	if (mm_host_set_cpu(w->id))
		abort(); /* refused: the message says why */
#endif
	pthread_barrier_wait(&start);
	call_tsc = 0;
	uint64_t t0 = cpu_now_ns();
	for (long i = 0; i < OBJS; i++) {
		while (i - atomic_load_explicit(&out->tail,
						memory_order_acquire) ==
		       RING) {
			long n = drain(in, &seen);
			got += n;
			if (!n)
				wait_a_bit(&spins);
		}
		size_t sz = sizes[(i + w->id * 997) & (NR_SIZES - 1)];
		uint64_t t0 = tsc();
		uint64_t *p = use_alloc ? obj_alloc(sz)
					: dummy[w->id][i & (RING - 1)];
		count_call(t0);
		if (!p)
			abort();
		p[0] = (uint64_t)i << 16 | sz;
		if (sz > 8)
			((uint8_t *)p)[sz - 1] = (uint8_t)i;
		out->slot[i & (RING - 1)] = p;
		if ((i & (BATCH - 1)) == BATCH - 1 || i == OBJS - 1) {
			atomic_store_explicit(&out->head, i + 1,
					      memory_order_release);
			got += drain(in, &seen);
		}
	}
	while (got < OBJS) {
		long n = drain(in, &seen);
		got += n;
		if (!n)
			wait_a_bit(&spins);
	}
	w->cpu_ns = cpu_now_ns() - t0;
	w->call_tsc = call_tsc;
	return NULL;
}

/* One run of T threads: wall, CPU and in-call ns per object moved. */
static void run_once(int threads, bool alloc, double out[3])
{
	struct worker w[MAX_THREADS];
	uint64_t cpu_sum = 0, call_sum = 0;

	nr_threads = threads;
	use_alloc = alloc;
	for (int i = 0; i < threads; i++) {
		atomic_store(&rings[i].head, 0);
		atomic_store(&rings[i].tail, 0);
	}
	pthread_barrier_init(&start, NULL, (unsigned)threads + 1);
	for (int i = 0; i < threads; i++) {
		w[i].id = i;
		pthread_create(&w[i].tid, NULL, worker_main, &w[i]);
	}
	pthread_barrier_wait(&start);
	uint64_t t0 = bench_now_ns();
	for (int i = 0; i < threads; i++) {
		pthread_join(w[i].tid, NULL);
		cpu_sum += w[i].cpu_ns;
		call_sum += w[i].call_tsc;
	}
	uint64_t t1 = bench_now_ns();
	pthread_barrier_destroy(&start);
	out[0] = (double)(t1 - t0) / (double)(threads * OBJS);
	out[1] = (double)cpu_sum / (double)(threads * OBJS);
	out[2] = (double)call_sum / tsc_per_ns / (double)(threads * OBJS);
}

static void result(const char *cas, int threads, double ns)
{
	printf("RESULT %s %s %d %.3f\n", alloc_name, cas, threads, ns);
	fflush(stdout);
}

/* RUNS runs of each (allocation and calibration alternating); medians. */
static void run_case(int threads)
{
	static const char *const name[3] = {"wall", "cpu", "calls"};
	static const char *const ring_name[3] = {"ring_wall", "ring_cpu",
						 "ring_calls"};
	double m[3][RUNS], ring[3][RUNS], one[3];
	int nr_runs = bench_runs(RUNS);

	run_once(threads, true, one); /* warm-up: caches filled */
	for (int r = 0; r < nr_runs; r++) {
		run_once(threads, false, one);
		for (int k = 0; k < 3; k++)
			ring[k][r] = one[k];
		run_once(threads, true, one);
		for (int k = 0; k < 3; k++)
			m[k][r] = one[k];
	}
	for (int k = 0; k < 3; k++) {
		result(name[k], threads, bench_median(m[k], nr_runs));
		result(ring_name[k], threads, bench_median(ring[k], nr_runs));
	}
}

/* TSC ticks per ns, against the monotonic clock over 50 ms. */
static void calibrate_tsc(void)
{
	uint64_t n0 = bench_now_ns(), t0 = tsc(), n1;

	while ((n1 = bench_now_ns()) - n0 < 50000000)
		;
	tsc_per_ns = (double)(tsc() - t0) / (double)(n1 - n0);
}

/* Size class uniform over 8..4096, size uniform inside the class. */
static void make_sizes(void)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;

	for (int i = 0; i < NR_SIZES; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		unsigned int cls = 3 + (unsigned int)(x % 10); /* 8 .. 4096 */
		uint32_t hi = 1u << cls, lo = hi / 2;
		uint32_t sz = lo + 1 + (uint32_t)((x >> 8) % (hi - lo));
		sizes[i] = sz < 8 ? 8 : sz; /* room for the tag word */
	}
}

int main(void)
{
	make_sizes();
	calibrate_tsc();
#ifdef BENCH_KMALLOC
	if (mm_host_boot(1, 256u << 20, MAX_THREADS, NULL)) {
		fprintf(stderr, "kmalloc_churn: boot failed\n");
		return 1;
	}
	mm_debug_set(false);
#endif
	run_case(2);
	run_case(4);
	if (atomic_load(&failures)) {
		fprintf(stderr, "kmalloc_churn: %d objects came back changed\n",
			atomic_load(&failures));
		return 1;
	}
	return 0;
}
