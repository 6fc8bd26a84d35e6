/*
 * Slab benchmark: one source, built once per allocator so that every
 * figure comes from the same code path (mk/bench-slab.mk):
 *
 *   slab_bench_slab      our kmem_cache_* on a simulated 1-node machine
 *                        (and a 2-node one for the fast-path cases)
 *   slab_bench_glibc     malloc/free from glibc
 *   slab_bench_mimalloc  the same calls linked with -lmimalloc
 *   slab_bench_jemalloc  ... -ljemalloc
 *   slab_bench_tcmalloc  ... -ltcmalloc_minimal
 *
 * Objects are 256 bytes (the sk_buff size in Brouer's qmempool RFC,
 * docs/references.md).
 * Cases (ns per object, alloc + free, median of BENCH_RUNS short runs):
 *   fastpath   alloc one, free it, repeat
 *   n256       allocate 256, then free all 256 (NIC ring clean-up)
 *   bulk N     allocate N, then free N; ours with kmem_cache_*_bulk, the
 *              peers (which have no bulk API) and "singles" with loops
 *   xthread    thread A allocates, thread B frees, through an SPSC ring;
 *              "ring" is the same hand-off of a constant pointer, the
 *              calibration that cross-thread figures are read against
 *
 * Output: one line per figure, "RESULT <alloc> <case> <n> <ns>", read by
 * bench/slab_report.py.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

#define OBJ_SIZE   256
/* Many short runs (~0.1-0.3 ms each): on this shared machine a run that
 * gets preempted is an outlier the median drops; a long run would absorb
 * every preemption into its figure. */
#define BENCH_RUNS 31
#define MAX_BULK   256

#ifdef BENCH_SLAB
#include "mm.h"
#include "mm_host.h"

static struct kmem_cache *cache;

static inline void *obj_alloc(void)
{
	return kmem_cache_alloc(cache, 0);
}
static inline void obj_free(void *p)
{
	kmem_cache_free(cache, p);
}
static inline size_t obj_alloc_bulk(size_t n, void **p)
{
	return kmem_cache_alloc_bulk(cache, 0, n, p);
}
static inline void obj_free_bulk(size_t n, void **p)
{
	kmem_cache_free_bulk(cache, n, p);
}
#else
static inline void *obj_alloc(void)
{
	return malloc(OBJ_SIZE);
}
static inline void obj_free(void *p)
{
	free(p);
}
/* The peers have no bulk API: the best a caller can do is a loop. */
static inline size_t obj_alloc_bulk(size_t n, void **p)
{
	for (size_t i = 0; i < n; i++)
		p[i] = malloc(OBJ_SIZE);
	return n;
}
static inline void obj_free_bulk(size_t n, void **p)
{
	for (size_t i = 0; i < n; i++)
		free(p[i]);
}
#endif

static const char *alloc_name = BENCH_NAME;

/*
 * Single-thread cases time the thread's own CPU time, not wall time: this
 * machine is shared by several busy agents, and time spent descheduled
 * would otherwise land in whichever run it hit. (Cross-thread cases need
 * both threads at once, so they use wall time, bench_now_ns.)
 */
static uint64_t cpu_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void result(const char *name, const char *cas, int n, double ns)
{
	printf("RESULT %s %s %d %.3f\n", name, cas, n, ns);
	fflush(stdout);
}

/* Median ns per object of fn(objs) over BENCH_RUNS runs (after a warm-up). */
static double measure(double (*fn)(long, int), long objs, int n)
{
	double runs[BENCH_RUNS];

	fn(objs / 4, n);
	for (int r = 0; r < BENCH_RUNS; r++)
		runs[r] = fn(objs, n);
	return bench_median(runs, BENCH_RUNS);
}

static double case_fastpath(long objs, int n)
{
	(void)n;
	uint64_t t0 = cpu_now_ns();
	for (long i = 0; i < objs; i++) {
		void *p = obj_alloc();
		bench_keep(p);
		obj_free(p);
	}
	return (double)(cpu_now_ns() - t0) / (double)objs;
}

/* Allocate n with single calls, then free them: N(256) and "singles". */
static double case_singles(long objs, int n)
{
	void *p[MAX_BULK];
	long rounds = objs / n;
	uint64_t t0 = cpu_now_ns();

	for (long r = 0; r < rounds; r++) {
		for (int i = 0; i < n; i++)
			p[i] = obj_alloc();
		bench_keep(p[0]);
		for (int i = 0; i < n; i++)
			obj_free(p[i]);
	}
	return (double)(cpu_now_ns() - t0) / (double)(rounds * n);
}

static double case_bulk(long objs, int n)
{
	void *p[MAX_BULK];
	long rounds = objs / n;
	uint64_t t0 = cpu_now_ns();

	for (long r = 0; r < rounds; r++) {
		if (obj_alloc_bulk((size_t)n, p) != (size_t)n)
			abort();
		bench_keep(p[0]);
		obj_free_bulk((size_t)n, p);
	}
	return (double)(cpu_now_ns() - t0) / (double)(rounds * n);
}

/* ---- cross-thread: A allocates, B frees, through one SPSC ring ---- */

#define RING 512
static struct {
	_Alignas(64) atomic_long head;
	_Alignas(64) atomic_long tail;
	_Alignas(64) void *slot[RING];
} ring;
static long xt_objs;
static int xt_use_alloc;

/* Spin (the hand-off being measured), but yield after a while so that on
 * an overloaded machine a waiting thread lets its peer run. */
static inline void xt_wait(unsigned int *spins)
{
	if (++*spins > 2000) {
		sched_yield();
		*spins = 0;
	}
}

static void *xt_consumer(void *arg)
{
	(void)arg;
	bench_pin(1);
#ifdef BENCH_SLAB
	if (mm_host_set_cpu(1))
		abort(); /* refused: the message says why */
#endif
	unsigned int spins = 0;
	for (long t = 0; t < xt_objs; t++) {
		while (atomic_load_explicit(&ring.head, memory_order_acquire) ==
		       t)
			xt_wait(&spins);
		void *p = ring.slot[t & (RING - 1)];
		atomic_store_explicit(&ring.tail, t + 1, memory_order_release);
		if (xt_use_alloc)
			obj_free(p);
	}
#ifdef BENCH_SLAB
	kmem_cache_shrink(cache);
#endif
	return NULL;
}

static double case_xthread(long objs, int use_alloc)
{
	static char dummy[OBJ_SIZE];
	pthread_t b;

	atomic_store(&ring.head, 0);
	atomic_store(&ring.tail, 0);
	xt_objs = objs;
	xt_use_alloc = use_alloc;
	bench_pin(0);
	unsigned int spins = 0;
	uint64_t t0 = bench_now_ns();
	pthread_create(&b, NULL, xt_consumer, NULL);
	for (long h = 0; h < objs; h++) {
		void *p = use_alloc ? obj_alloc() : dummy;
		while (h - atomic_load_explicit(&ring.tail,
						memory_order_acquire) ==
		       RING)
			xt_wait(&spins);
		ring.slot[h & (RING - 1)] = p;
		atomic_store_explicit(&ring.head, h + 1, memory_order_release);
	}
	pthread_join(b, NULL);
	return (double)(bench_now_ns() - t0) / (double)objs;
}

static const int bulk_sizes[] = {1,  2,	 3,  4,	 8,   16,  30,
				 32, 34, 48, 64, 128, 158, 250};

static void run_single_thread(const char *name, int full)
{
	bench_pin(0);
	result(name, "fastpath", 1, measure(case_fastpath, 20000, 1));
	result(name, "n256", 256, measure(case_singles, 25600, 256));
	if (!full)
		return;
	for (size_t i = 0; i < sizeof(bulk_sizes) / sizeof(bulk_sizes[0]);
	     i++) {
		int n = bulk_sizes[i];
		result(name, "bulk", n, measure(case_bulk, 16000, n));
#ifdef BENCH_SLAB
		result(name, "singles", n, measure(case_singles, 16000, n));
#endif
	}
}

static void run_cross_thread(const char *name)
{
	double runs[7], cal[7];

	for (int r = 0; r < 7; r++) {
		cal[r] = case_xthread(20000, 0);
		runs[r] = case_xthread(20000, 1);
	}
	result(name, "ring", 1, bench_median(cal, 7));
	result(name, "xthread", 1, bench_median(runs, 7));
}

#ifdef BENCH_SLAB
static void boot(int nodes)
{
	static const int one[2] = {0, 0}, two[2] = {0, 1};
	if (mm_host_boot(nodes, 256u << 20, 2, nodes == 1 ? one : two)) {
		fprintf(stderr, "slab_bench: boot failed\n");
		exit(1);
	}
	mm_debug_set(false);
	cache = kmem_cache_create("bench-256", OBJ_SIZE, 0, 0, NULL);
}

int main(void)
{
	boot(1);
	run_single_thread(alloc_name, 1);
	run_cross_thread(alloc_name);
	mm_host_shutdown();
	/* Two nodes: the free path also checks the object's node. */
	boot(2);
	run_single_thread("slab-2node", 0);
	mm_host_shutdown();
	return 0;
}
#else
int main(void)
{
	run_single_thread(alloc_name, 1);
	run_cross_thread(alloc_name);
	return 0;
}
#endif
