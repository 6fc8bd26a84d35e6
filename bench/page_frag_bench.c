/*
 * page_frag benchmark: Lin's page_frag_test push/pop workload and
 * single-thread alloc+free, for our page fragment cache and for malloc
 * peers, every contender built from this one source.
 *
 * The build (mk/bench-frag.mk) makes one binary per contender:
 *   BENCH_FRAG       ours (libmm.a); also the driver that runs the others
 *   BENCH_FRAG_DOWN  ours with downward carving (PAGE_FRAG_CARVE_DOWN=1)
 *   BENCH_FRAG_NOBATCH ours without the free side's batch
 *                    (PAGE_FRAG_FREE_BATCH=0: one atomic per free)
 *   BENCH_KMALLOC    our slab: kmalloc/kfree (libmm.a)
 *   BENCH_MALLOC     malloc/free; linked alone (glibc) or with -lmimalloc,
 *                    -ljemalloc, -ltcmalloc_minimal, which replace malloc
 * "page_frag_bench --run" runs one round of every case the binary supports
 * and prints "case ns_per_op" lines. "--count CASE N [aligned]" runs one
 * single-thread case (single_12, batch_256) or push/pop (pushpop_LEN, e.g.
 * pushpop_12, pushpop_2048) N times, for instruction counts under
 * callgrind.
 * "page_frag_bench --report DIR BIN..." (ours only) runs rounds of every
 * binary in turn, so that all contenders see the same machine noise, and
 * writes DIR/frag.md and DIR/frag.json with min/median/max and same-run
 * ratios.
 *
 * Push/pop: a push thread on core 0 allocates fragments and passes them
 * through a ring to a pop thread on core 1, which frees them. The figure
 * is what Lin's page_frag_test reports: the elapsed wall time of the whole
 * test, from the first allocation to the last free, divided by the number
 * of fragments. The ring is the same code for every contender: single
 * producer, single consumer, 512 slots (page_frag_test's nr_objs), indices
 * published every 32 items, because on this VM one cache-line hand-off
 * between the cores costs 35-200 ns and an unbatched ring would measure
 * only that. Every binary also measures that hand-off itself (the
 * calibration), so each contender's figures sit next to the machine's
 * state when it ran.
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

#if defined(BENCH_FRAG) || defined(BENCH_FRAG_DOWN) || \
	defined(BENCH_FRAG_NOBATCH)
#define OURS 1
#else
#define OURS 0
#endif
#if OURS || defined(BENCH_KMALLOC)
#include "mm.h"
#include "mm_host.h"
#define LIBMM 1
#else
#define LIBMM 0
#endif

/* Scaled from the 51,200,000 fragments of Lin's page_frag_test
 * (docs/references.md) to keep `make bench` short: a million still lasts
 * 20-100 ms per case for ours, many scheduler time slices. The run's
 * length is set by the slowest contenders, though: glibc and jemalloc
 * take 1-4 us per large fragment across CPUs on a quiet machine (one
 * round of every binary ~45 s, glibc's alone 13 s) and 2-10x that under
 * load. Hence two knobs, read from the environment by every binary:
 *  FRAG_BENCH_NR      push/pop fragments per case (default 1,000,000;
 *                     single-thread cases the same, the 75-byte selftest
 *                     case and batch_1500 a quarter of it);
 *  FRAG_BENCH_CASE_S  a wall-time cap per push/pop case in seconds
 *                     (default 0: none): the push side stops at the cap
 *                     and the figure is per fragment actually pushed
 *                     (the report gives the fewest any contender ran).
 * and FRAG_BENCH_ROUNDS in the driver (bench_report). */
#define PUSHPOP_NR_DEFAULT 1000000
static long pushpop_nr = PUSHPOP_NR_DEFAULT;
static uint64_t case_cap_ns; /* 0: no cap */
#define PUSHPOP_NR     pushpop_nr
#define SELFTEST_NR    (pushpop_nr / 4) /* the selftest's 100,000,000 / 400 */
#define SINGLE_NR      pushpop_nr
#define SPIN_LIMIT     256 /* pauses (~10 us) before a wait counts as long */
#define RING_SLOTS     512
#define RING_BATCH     32
#define CACHE_BYTES    64  /* page_frag_test aligns to SMP_CACHE_BYTES */
#define BATCH_N	       256 /* "allocate 256, free 256" pattern */
#define DEFAULT_ROUNDS 5

/*
 * Time. The push/pop figure is wall time (CLOCK_MONOTONIC), as Lin's test
 * reports it. This VM's two cores are shared with other busy processes,
 * so a thread is sometimes descheduled mid-run; wall time then includes
 * the wait, which is why every case runs in several rounds and the report
 * gives min, median and max. Beside it, labelled, is the CPU time of the
 * measuring threads (CLOCK_THREAD_CPUTIME_ID) with long waits left out: a
 * thread that waits for its partner spins up to SPIN_LIMIT pauses
 * (counted, as on a quiet machine, where the faster side spins at the pace
 * of the slower one); a longer wait means the partner lost its core, so
 * the stopwatch stops and the thread sleeps 20 us at a time until the
 * partner is back. That CPU figure, the larger of the two threads' per
 * fragment, is the pipeline's pace on an idle machine, but it hides
 * whatever makes a thread wait, so it is never the headline.
 * Single-thread cases are CPU time.
 */
static uint64_t bench_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A thread's counted CPU time, paused during long waits. */
struct stopwatch {
	uint64_t counted, started;
	unsigned int spins;
	bool running;
};

static void stopwatch_start(struct stopwatch *w)
{
	w->counted = 0;
	w->spins = 0;
	w->started = bench_cpu_ns();
	w->running = true;
}

/* The thing waited for is not there yet: spin, or stop and yield. */
static void stopwatch_wait(struct stopwatch *w)
{
	if (++w->spins < SPIN_LIMIT) {
		__builtin_ia32_pause();
		return;
	}
	if (w->running) {
		w->counted += bench_cpu_ns() - w->started;
		w->running = false;
	}
	/* Sleep rather than yield: a yield loop burns the shared cores. */
	nanosleep(&(struct timespec){0, 20000}, NULL);
}

/* The wait is over: count again from here. */
static void stopwatch_resume(struct stopwatch *w)
{
	w->spins = 0;
	if (!w->running) {
		w->started = bench_cpu_ns();
		w->running = true;
	}
}

static uint64_t stopwatch_stop(struct stopwatch *w)
{
	if (w->running)
		w->counted += bench_cpu_ns() - w->started;
	w->running = false;
	return w->counted;
}

/* ---- the ring, identical for every contender ---- */

struct ring {
	_Atomic size_t head __attribute__((aligned(64))); /* producer */
	_Atomic size_t tail __attribute__((aligned(64))); /* consumer */
	void *slot[RING_SLOTS] __attribute__((aligned(64)));
	/* Producer-private, then consumer-private, each on its own line. */
	size_t p_head __attribute__((aligned(64))), p_pub, p_tail_seen;
	size_t c_tail __attribute__((aligned(64))), c_pub, c_head_seen;
};

static void ring_init(struct ring *r)
{
	memset(r, 0, sizeof(*r));
}

static void ring_push(struct ring *r, void *p, struct stopwatch *w)
{
	while (r->p_head - r->p_tail_seen == RING_SLOTS) {
		atomic_store_explicit(&r->head, r->p_head,
				      memory_order_release);
		r->p_pub = r->p_head;
		r->p_tail_seen =
			atomic_load_explicit(&r->tail, memory_order_acquire);
		if (r->p_head - r->p_tail_seen == RING_SLOTS)
			stopwatch_wait(w);
		else
			stopwatch_resume(w);
	}
	r->slot[r->p_head % RING_SLOTS] = p;
	if (++r->p_head - r->p_pub >= RING_BATCH) {
		atomic_store_explicit(&r->head, r->p_head,
				      memory_order_release);
		r->p_pub = r->p_head;
	}
}

static void ring_flush(struct ring *r)
{
	atomic_store_explicit(&r->head, r->p_head, memory_order_release);
	r->p_pub = r->p_head;
}

static void *ring_pop(struct ring *r)
{
	void *p;

	if (r->c_tail == r->c_head_seen) {
		atomic_store_explicit(&r->tail, r->c_tail,
				      memory_order_release);
		r->c_pub = r->c_tail;
		r->c_head_seen =
			atomic_load_explicit(&r->head, memory_order_acquire);
		if (r->c_tail == r->c_head_seen)
			return NULL;
	}
	p = r->slot[r->c_tail % RING_SLOTS];
	if (++r->c_tail - r->c_pub >= RING_BATCH) {
		atomic_store_explicit(&r->tail, r->c_tail,
				      memory_order_release);
		r->c_pub = r->c_tail;
	}
	return p;
}

/* ---- the allocator under test ---- */

#if LIBMM
static void contender_init(void)
{
	if (mm_host_boot(1, 256u << 20, 2, NULL)) {
		fprintf(stderr, "page_frag_bench: mm_host_boot failed\n");
		exit(1);
	}
}

static void contender_thread(int cpu)
{
	if (mm_host_set_cpu(cpu))
		abort(); /* refused: the message says why */
}
#endif

#if OURS
static struct page_frag_cache bench_nc;

static inline void *bench_alloc(unsigned int len, bool aligned)
{
	return aligned ? page_frag_alloc_align(&bench_nc, len, GFP_KERNEL,
					       CACHE_BYTES)
		       : page_frag_alloc(&bench_nc, len, GFP_KERNEL);
}

static inline void bench_free(void *p)
{
	page_frag_free(p);
}

static void contender_done(void)
{
	page_frag_cache_drain(&bench_nc);
}
#elif defined(BENCH_KMALLOC)
/* kmalloc has no alignment argument: an object of a size that is a
 * multiple of 64 comes from a cache whose objects are 64-byte aligned
 * (checked: a misaligned one stops the run). */
static inline void *bench_alloc(unsigned int len, bool aligned)
{
	void *p = kmalloc(
		aligned ? (len + CACHE_BYTES - 1) & ~(CACHE_BYTES - 1u) : len,
		GFP_KERNEL);

	if (aligned && ((uintptr_t)p & (CACHE_BYTES - 1))) {
		fprintf(stderr, "page_frag_bench: kmalloc(%u) misaligned\n",
			len);
		exit(1);
	}
	return p;
}

static inline void bench_free(void *p)
{
	kfree(p);
}

static void contender_done(void)
{
}
#else
static void contender_init(void)
{
}

static void contender_thread(int cpu)
{
	(void)cpu;
}

static inline void *bench_alloc(unsigned int len, bool aligned)
{
	void *p = NULL;

	if (!aligned)
		return malloc(len);
	return posix_memalign(&p, CACHE_BYTES, len) ? NULL : p;
}

static inline void bench_free(void *p)
{
	free(p);
}

static void contender_done(void)
{
}
#endif

/* ---- push/pop (page_frag_test) ---- */

struct pushpop {
	struct ring ring;
	unsigned int len;
	bool aligned;
	long nr;
	atomic_int ready;
	atomic_long limit; /* fragments the pop side frees: nr, or fewer
			      when the push side hit the case's cap */
	uint64_t t0, t1;   /* wall clock: push starts, pop ends */
	uint64_t cpu_push, cpu_pop; /* each thread's CPU time */
};

struct timing {
	double cpu; /* CPU ns per op (see bench_cpu_ns) */
	double wall;
};

static void *pop_thread(void *arg)
{
	struct pushpop *pp = arg;
	struct stopwatch w;

	bench_pin(1);
	contender_thread(1);
	atomic_fetch_add(&pp->ready, 1);
	stopwatch_start(&w);
	/* The limit is read only when the ring is empty: no cost per item. */
	for (long n = 0, limit = pp->nr; n < limit;) {
		void *p = ring_pop(&pp->ring);

		if (p) {
			stopwatch_resume(&w);
			bench_free(p);
			n++;
		} else {
			limit = atomic_load_explicit(&pp->limit,
						     memory_order_acquire);
			if (n < limit)
				stopwatch_wait(&w);
		}
	}
	pp->cpu_pop = stopwatch_stop(&w);
	pp->t1 = bench_now_ns();
	return NULL;
}

/* The push side's cap: checked every PUSHPOP_CAP_EVERY fragments. */
#define PUSHPOP_CAP_EVERY 4096

/* *nrp: fragments to push; on return, how many were (the cap). */
static struct timing run_pushpop(unsigned int len, bool aligned, long *nrp)
{
	static struct pushpop pp;
	struct stopwatch w;
	long nr = *nrp;
	uint64_t cmax, deadline;
	pthread_t t;

	ring_init(&pp.ring);
	pp.len = len;
	pp.aligned = aligned;
	pp.nr = nr;
	atomic_store(&pp.limit, nr);
	atomic_store(&pp.ready, 0);
	pthread_create(&t, NULL, pop_thread, &pp);
	bench_pin(0);
	contender_thread(0);
	while (atomic_load(&pp.ready) == 0)
		sched_yield();
	pp.t0 = bench_now_ns();
	deadline = case_cap_ns ? pp.t0 + case_cap_ns : UINT64_MAX;
	stopwatch_start(&w);
	for (long n = 0; n < nr; n++) {
		void *p;

		if (n % PUSHPOP_CAP_EVERY == PUSHPOP_CAP_EVERY - 1 &&
		    bench_now_ns() > deadline) {
			nr = n; /* the cap: what was pushed is the case */
			break;
		}
		p = bench_alloc(len, aligned);

		if (!p) {
			fprintf(stderr, "page_frag_bench: allocation failed\n");
			exit(1);
		}
		ring_push(&pp.ring, p, &w);
	}
	atomic_store_explicit(&pp.limit, nr, memory_order_release);
	ring_flush(&pp.ring);
	pp.cpu_push = stopwatch_stop(&w);
	pthread_join(t, NULL);
	cmax = pp.cpu_push > pp.cpu_pop ? pp.cpu_push : pp.cpu_pop;
	*nrp = nr;
	return (struct timing){(double)cmax / (double)nr,
			       (double)(pp.t1 - pp.t0) / (double)nr};
}

/* ---- single thread ---- */

/* Allocate and free at once: the fast path reused every time. */
static double run_single(unsigned int len, bool aligned, long nr)
{
	uint64_t t0;

	bench_pin(0);
	contender_thread(0);
	t0 = bench_cpu_ns();
	for (long n = 0; n < nr; n++) {
		void *p = bench_alloc(len, aligned);

		bench_keep(p);
		bench_free(p);
	}
	return (double)(bench_cpu_ns() - t0) / (double)nr;
}

/* Allocate BATCH_N, then free them: a NIC refilling a ring. */
static double run_batch(unsigned int len, bool aligned, long nr)
{
	void *p[BATCH_N];
	uint64_t t0;

	bench_pin(0);
	contender_thread(0);
	t0 = bench_cpu_ns();
	for (long n = 0; n < nr; n += BATCH_N) {
		for (int i = 0; i < BATCH_N; i++)
			p[i] = bench_alloc(len, aligned);
		for (int i = 0; i < BATCH_N; i++)
			bench_free(p[i]);
	}
	return (double)(bench_cpu_ns() - t0) / (double)nr;
}

/* ---- our own variants: napi vs netdev, order-0 only ---- */

#if defined(BENCH_FRAG)
static double run_percpu(bool napi, unsigned int len, long nr)
{
	void *p[BATCH_N];
	uint64_t t0;

	bench_pin(0);
	contender_thread(0);
	t0 = bench_cpu_ns();
	for (long n = 0; n < nr; n += BATCH_N) {
		for (int i = 0; i < BATCH_N; i++)
			p[i] = napi ? napi_alloc_frag(len)
				    : netdev_alloc_frag(len);
		for (int i = 0; i < BATCH_N; i++)
			page_frag_free(p[i]);
	}
	page_frag_percpu_drain(0);
	return (double)(bench_cpu_ns() - t0) / (double)nr;
}
#endif

/* ---- calibration: one cache line bounced between the two cores ---- */

static _Atomic long pingpong __attribute__((aligned(64)));
/* The ping side stopped early (HANDOFF_BUDGET_NS): the pong side ends. */
#define HANDOFF_STOP	    (-1L)
/* Samples stop after this much wall time (at least HANDOFF_MIN_SAMPLES
 * taken): on a quiet machine 50 samples take ~8 ms, but when the two
 * threads share one core each hand-off waits for a time slice and the
 * full 100,000 took 20 s and more per calibration, two per binary's
 * round. */
#define HANDOFF_BUDGET_NS   300000000ull
#define HANDOFF_MIN_SAMPLES 5

static void *pong_thread(void *arg)
{
	long rounds = (long)(intptr_t)arg;
	struct stopwatch w;

	bench_pin(1);
	stopwatch_start(&w);
	for (long i = 0; i < rounds; i++) {
		long v;

		while ((v = atomic_load_explicit(&pingpong,
						 memory_order_acquire)) !=
		       2 * i + 1) {
			if (v == HANDOFF_STOP)
				return NULL;
			stopwatch_wait(&w);
		}
		stopwatch_resume(&w);
		atomic_store_explicit(&pingpong, 2 * i + 2,
				      memory_order_release);
	}
	return NULL;
}

/*
 * ns for one hand-off of a cache line from one core to the other: the
 * fastest of many short samples, i.e. one where neither thread lost its
 * core (the wall clock is right here, the scheduler is what we avoid).
 */
static double run_handoff(long samples, long per_sample)
{
	double best = 1e18;
	struct stopwatch w;
	uint64_t start;
	pthread_t t;

	atomic_store(&pingpong, 0);
	pthread_create(&t, NULL, pong_thread,
		       (void *)(intptr_t)(samples * per_sample));
	bench_pin(0);
	stopwatch_start(&w);
	start = bench_now_ns();
	for (long s = 0, i = 0; s < samples; s++) {
		uint64_t t0 = bench_now_ns();

		for (long k = 0; k < per_sample; k++, i++) {
			atomic_store_explicit(&pingpong, 2 * i + 1,
					      memory_order_release);
			while (atomic_load_explicit(&pingpong,
						    memory_order_acquire) !=
			       2 * i + 2)
				stopwatch_wait(&w);
			stopwatch_resume(&w);
		}
		double ns = (double)(bench_now_ns() - t0) /
			    (double)(2 * per_sample);
		if (ns < best)
			best = ns;
		if (s + 1 >= HANDOFF_MIN_SAMPLES && s + 1 < samples &&
		    bench_now_ns() - start > HANDOFF_BUDGET_NS) {
			atomic_store_explicit(&pingpong, HANDOFF_STOP,
					      memory_order_release);
			break;
		}
	}
	pthread_join(t, NULL);
	return best;
}

/* ---- one round of every case this binary supports ---- */

static const unsigned int pushpop_lens[] = {12, 64, 256, 1500, 2048};

/*
 * One push/pop case: "NAME wall_ns" (the figure), "cpu_NAME cpu_ns" (beside
 * it), and for ours "atomics_NAME n": locked operations the free side did
 * per fragment freed (page_frag_stats' free_atomics / frees).
 */
static void print_pushpop(const char *name, unsigned int len, bool aligned,
			  long nr)
{
#if OURS
	struct page_frag_stats s0, s1;

	page_frag_stats_read(&s0);
#endif
	struct timing t = run_pushpop(len, aligned, &nr);

	printf("%s %.3f\ncpu_%s %.3f\nnr_%s %ld\n", name, t.wall, name, t.cpu,
	       name, nr);
#if OURS
	page_frag_stats_read(&s1);
	if (s1.frees > s0.frees)
		printf("atomics_%s %.5f\n", name,
		       (double)(s1.free_atomics - s0.free_atomics) /
			       (double)(s1.frees - s0.frees));
#endif
}

static void run_round(void)
{
	char name[64];

	contender_init();
	/* The calibrations, in every binary: before and after its cases,
	 * with the host's load average (other processes share the cores). */
	printf("load %.2f\n", bench_loadavg());
	printf("calib %.3f\n", bench_calibrate(5000000));
	printf("handoff %.3f\n", run_handoff(50, 2000));
	for (int a = 0; a < 2; a++) {
		for (size_t i = 0; i < sizeof(pushpop_lens) / sizeof(int);
		     i++) {
			snprintf(name, sizeof(name), "pushpop_%u_%s",
				 pushpop_lens[i], a ? "aligned" : "unaligned");
			print_pushpop(name, pushpop_lens[i], a, PUSHPOP_NR);
		}
	}
	print_pushpop("selftest_75_unaligned", 75, false, SELFTEST_NR);
	for (int a = 0; a < 2; a++) {
		const char *al = a ? "aligned" : "unaligned";

		printf("single_12_%s %.3f\n", al, run_single(12, a, SINGLE_NR));
		printf("batch_256_%s %.3f\n", al, run_batch(256, a, SINGLE_NR));
		printf("batch_1500_%s %.3f\n", al,
		       run_batch(1500, a, SINGLE_NR / 4));
	}
#if defined(BENCH_FRAG)
	printf("napi_256 %.3f\n", run_percpu(true, 256, SINGLE_NR));
	printf("netdev_256 %.3f\n", run_percpu(false, 256, SINGLE_NR));
	page_frag_cache_drain(&bench_nc);
	page_frag_force_order0(true);
	print_pushpop("order0_pushpop_12_unaligned", 12, false, PUSHPOP_NR);
	print_pushpop("order0_pushpop_1500_unaligned", 1500, false, PUSHPOP_NR);
	printf("order0_batch_1500_unaligned %.3f\n",
	       run_batch(1500, false, SINGLE_NR / 4));
	page_frag_cache_drain(&bench_nc);
	page_frag_force_order0(false);
#endif
	printf("handoff_end %.3f\n", run_handoff(50, 2000));
	printf("calib_end %.3f\n", bench_calibrate(5000000));
	printf("load_end %.2f\n", bench_loadavg());
	contender_done();
}

/* Which library really provides malloc in this binary. */
static const char *malloc_provider(void)
{
	Dl_info info;
	void *fn = (void *)malloc;

	if (dladdr(fn, &info) && info.dli_fname) {
		const char *slash = strrchr(info.dli_fname, '/');
		return slash ? slash + 1 : info.dli_fname;
	}
	return "?";
}

#if defined(BENCH_FRAG)
/* ---- the driver: rounds of every binary, medians, ratios, tables ---- */

#define MAX_BINS   10 /* the 8 contenders and room for a before/after binary */
#define MAX_CASES  96
#define MAX_ROUNDS 15

static const char *bin_name[MAX_BINS];
static char provider[MAX_BINS][64];
static char case_name[MAX_CASES][64];
static double runs[MAX_BINS][MAX_CASES][MAX_ROUNDS];
static int nruns[MAX_BINS][MAX_CASES];
static int nbins, ncases;

static int case_index(const char *name)
{
	for (int i = 0; i < ncases; i++)
		if (!strcmp(case_name[i], name))
			return i;
	if (ncases == MAX_CASES)
		return -1;
	snprintf(case_name[ncases], sizeof(case_name[0]), "%s", name);
	return ncases++;
}

static int bin_index(const char *name)
{
	for (int b = 0; b < nbins; b++)
		if (!strcmp(bin_name[b], name))
			return b;
	return -1;
}

enum pick { PICK_MIN, PICK_MED, PICK_MAX };

/* Min, median or max of one contender on one case over the rounds, or -1
 * if it did not run it. */
static double pick(const char *bin, const char *cname, enum pick which)
{
	int b = bin_index(bin), c = -1;
	double tmp[MAX_ROUNDS];

	for (int i = 0; i < ncases; i++)
		if (!strcmp(case_name[i], cname))
			c = i;
	if (b < 0 || c < 0 || nruns[b][c] == 0)
		return -1;
	memcpy(tmp, runs[b][c], sizeof(double) * (size_t)nruns[b][c]);
	if (which == PICK_MED)
		return bench_median(tmp, nruns[b][c]);
	qsort(tmp, (size_t)nruns[b][c], sizeof(double), bench_cmp_double);
	return which == PICK_MIN ? tmp[0] : tmp[nruns[b][c] - 1];
}

static double med(const char *bin, const char *cname)
{
	return pick(bin, cname, PICK_MED);
}

/* A malloc peer: not one of our own allocators (frag*, kmalloc). */
static bool is_peer(int b)
{
	return strncmp(bin_name[b], "frag", 4) != 0 &&
	       strcmp(bin_name[b], "kmalloc") != 0;
}

/* Fastest malloc peer on a case: its median, and its name in *who. */
static double best_peer(const char *cname, const char **who)
{
	double best = -1;

	*who = "-";
	for (int b = 0; b < nbins; b++) {
		double v = med(bin_name[b], cname);

		if (is_peer(b) && v > 0 && (best < 0 || v < best)) {
			best = v;
			*who = bin_name[b];
		}
	}
	return best;
}

static int run_binary(int b, const char *path)
{
	char cmd[1024], line[256], key[64];
	double v;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "%s --run", path);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "provider %63s", provider[b]) == 1)
			continue;
		if (sscanf(line, "%63s %lf", key, &v) == 2) {
			int c = case_index(key);

			if (c >= 0 && nruns[b][c] < MAX_ROUNDS)
				runs[b][c][nruns[b][c]++] = v;
		}
	}
	return pclose(f) == 0 ? 0 : -1;
}

static void table_header(FILE *md, const char *first)
{
	fprintf(md, "| %s |", first);
	for (int b = 0; b < nbins; b++)
		fprintf(md, " %s |", bin_name[b]);
	fprintf(md, " fastest peer | peer / frag |\n|---|");
	for (int b = 0; b <= nbins + 1; b++)
		fprintf(md, "---:|");
	fprintf(md, "\n");
}

/*
 * One row: every contender's median (with [min-max] over the rounds when
 * ranged) and the fastest malloc peer's ratio to frag, which it returns.
 */
static double table_row(FILE *md, const char *label, const char *cname,
			bool ranged)
{
	const char *who;
	double best = best_peer(cname, &who), ours = med("frag", cname);

	fprintf(md, "| %s |", label);
	for (int b = 0; b < nbins; b++) {
		double v = med(bin_name[b], cname);

		if (v <= 0)
			fprintf(md, " - |");
		else if (ranged)
			fprintf(md, " %.1f [%.1f-%.1f] |", v,
				pick(bin_name[b], cname, PICK_MIN),
				pick(bin_name[b], cname, PICK_MAX));
		else
			fprintf(md, " %.1f |", v);
	}
	fprintf(md, " %s | %.2fx |\n", who,
		ours > 0 && best > 0 ? best / ours : 0);
	return ours > 0 && best > 0 ? best / ours : 0;
}

/* One JSON map {case: {bin: value}}: the median, or with ranged
 * [min, median, max]. */
static void write_json_map(FILE *js, const char *key, bool ranged)
{
	fprintf(js, "\"%s\": {", key);
	for (int c = 0; c < ncases; c++) {
		bool first = true;

		fprintf(js, "%s\n  \"%s\": {", c ? "," : "", case_name[c]);
		for (int b = 0; b < nbins; b++) {
			const char *n = bin_name[b], *cn = case_name[c];

			if (med(n, cn) < 0)
				continue;
			fprintf(js, "%s\"%s\": ", first ? "" : ", ", n);
			if (ranged)
				fprintf(js, "[%.3f, %.3f, %.3f]",
					pick(n, cn, PICK_MIN), med(n, cn),
					pick(n, cn, PICK_MAX));
			else
				fprintf(js, "%.3f", med(n, cn));
			first = false;
		}
		fprintf(js, "}");
	}
	fprintf(js, "\n}");
}

/* ns_median (what the plots read) and ns_min_median_max. */
static void write_json(FILE *js, int rounds)
{
	fprintf(js,
		"{\"rounds\": %d, \"pushpop_nr\": %ld, "
		"\"selftest_nr\": %ld, \"single_nr\": %ld, "
		"\"case_cap_s\": %.1f,\n"
		"\"pushpop_figure\": \"wall ns per fragment\",\n"
		"\"providers\": {",
		rounds, PUSHPOP_NR, SELFTEST_NR, SINGLE_NR,
		(double)case_cap_ns / 1e9);
	for (int b = 0; b < nbins; b++)
		fprintf(js, "%s\"%s\": \"%s\"", b ? ", " : "", bin_name[b],
			provider[b]);
	fprintf(js, "},\n");
	write_json_map(js, "ns_median", false);
	fprintf(js, ",\n");
	write_json_map(js, "ns_min_median_max", true);
	fprintf(js, "}\n");
}

static const char *const aligned_name[] = {"unaligned", "aligned"};

/* The fewest fragments any binary pushed in any push/pop case (its
 * "nr_" lines): less than asked only when the case cap stopped it. */
static long fewest_pushed(void)
{
	double fewest = (double)PUSHPOP_NR;

	for (int c = 0; c < ncases; c++) {
		/* the 75-byte case asks for a quarter: not a cut */
		if (strncmp(case_name[c], "nr_", 3) ||
		    strstr(case_name[c], "selftest"))
			continue;
		for (int b = 0; b < nbins; b++) {
			double v = pick(bin_name[b], case_name[c], PICK_MIN);

			if (v > 0 && v < fewest)
				fewest = v;
		}
	}
	return (long)fewest;
}

/* The wall-time push/pop table, the goal, and Lin's figures. */
static void write_md_pushpop(FILE *md)
{
	char cname[64], label[64];
	int met = 0, rows = 0;

	fprintf(md,
		"### Push/pop (Lin's page_frag_test): wall time, %ld "
		"fragments per run (Lin's runs used 51,200,000)\n\n"
		"Push thread on core 0 allocates, pop thread on core 1 "
		"frees; elapsed wall time from the first allocation to the "
		"last free, per fragment: median [min-max] of the rounds. "
		"The same SPSC ring (512 slots, indices published every 32) "
		"for every contender. Aligned = 64-byte alignment "
		"(SMP_CACHE_BYTES): posix_memalign for the peers, the size "
		"rounded up to 64 for kmalloc. Goal: page_frag at least 3x "
		"faster per fragment than the fastest malloc peer.\n\n",
		PUSHPOP_NR);
	if (case_cap_ns)
		fprintf(md,
			"Each push/pop case capped at %.2f s of wall time "
			"(FRAG_BENCH_CASE_S): the fewest fragments any "
			"contender pushed in one case was %ld.\n\n",
			(double)case_cap_ns / 1e9, fewest_pushed());
	table_header(md, "fragment");
	table_row(md, "host load average (start of the binary's round)", "load",
		  true);
	table_row(md, "host load average (end of the round)", "load_end", true);
	table_row(md,
		  "compute calibration, ns per turn of a fixed loop (start "
		  "of the round)",
		  "calib", true);
	table_row(md, "compute calibration (end of the round)", "calib_end",
		  true);
	table_row(md, "hand-off calibration, ns (start of the binary's round)",
		  "handoff", true);
	table_row(md, "hand-off calibration, ns (end of the round)",
		  "handoff_end", true);
	for (int a = 0; a < 2; a++) {
		for (size_t i = 0; i < sizeof(pushpop_lens) / sizeof(int);
		     i++) {
			snprintf(cname, sizeof(cname), "pushpop_%u_%s",
				 pushpop_lens[i], aligned_name[a]);
			snprintf(label, sizeof(label), "%u B %s",
				 pushpop_lens[i], aligned_name[a]);
			met += table_row(md, label, cname, true) >= 3.0;
			rows++;
		}
	}
	met += table_row(md,
			 "75 B unaligned, 250,000 (selftest's 100,000,000 / "
			 "400)",
			 "selftest_75_unaligned", true) >= 3.0;
	rows++;
	fprintf(md,
		"\nGoal (>= 3x the fastest peer, wall medians) met in %d of "
		"%d push/pop cases.\n\n",
		met, rows);
	fprintf(md,
		"Against Lin's figures, 12-byte fragments: his page_frag_test "
		"took 7.0 s unaligned (137 ns per fragment) and 3.2 s aligned "
		"(63 ns) on a 2.6 GHz server; here frag takes %.1f ns "
		"unaligned and %.1f ns aligned (wall medians; the quietest "
		"rounds %.1f and %.1f).\n\n",
		med("frag", "pushpop_12_unaligned"),
		med("frag", "pushpop_12_aligned"),
		pick("frag", "pushpop_12_unaligned", PICK_MIN),
		pick("frag", "pushpop_12_aligned", PICK_MIN));
	if (bin_index("frag_before") >= 0)
		fprintf(md,
			"Before/after in the same rounds, 12-byte push/pop, "
			"wall median (min): frag_before %.1f (%.1f) unaligned, "
			"%.1f (%.1f) aligned; frag %.1f (%.1f) and %.1f "
			"(%.1f): "
			"frag / frag_before %.2fx and %.2fx.\n\n",
			med("frag_before", "pushpop_12_unaligned"),
			pick("frag_before", "pushpop_12_unaligned", PICK_MIN),
			med("frag_before", "pushpop_12_aligned"),
			pick("frag_before", "pushpop_12_aligned", PICK_MIN),
			med("frag", "pushpop_12_unaligned"),
			pick("frag", "pushpop_12_unaligned", PICK_MIN),
			med("frag", "pushpop_12_aligned"),
			pick("frag", "pushpop_12_aligned", PICK_MIN),
			med("frag", "pushpop_12_unaligned") /
				med("frag_before", "pushpop_12_unaligned"),
			med("frag", "pushpop_12_aligned") /
				med("frag_before", "pushpop_12_aligned"));
	fprintf(md, "Free-side locked operations per fragment freed "
		    "(page_frag_stats free_atomics / frees, median of the "
		    "rounds):\n\n| fragment | frag (batched) | frag_nobatch | "
		    "fewer |\n|---|---:|---:|---:|\n");
	for (int a = 0; a < 2; a++) {
		for (size_t i = 0; i < sizeof(pushpop_lens) / sizeof(int);
		     i++) {
			double x, y;

			snprintf(cname, sizeof(cname), "atomics_pushpop_%u_%s",
				 pushpop_lens[i], aligned_name[a]);
			x = med("frag", cname);
			y = med("frag_nobatch", cname);
			if (x < 0 || y < 0)
				continue;
			fprintf(md, "| %u B %s | %.5f | %.5f | %.0fx |\n",
				pushpop_lens[i], aligned_name[a], x, y,
				x > 0 ? y / x : 0);
		}
	}
	fprintf(md, "\n");
}

/* Beside the wall figure, labelled: the threads' CPU time. */
static void write_md_pushpop_cpu(FILE *md)
{
	char cname[64], label[64];

	fprintf(md,
		"#### Beside it: CPU time of the measuring threads, not "
		"wall time\n\n"
		"The larger of the two threads' CPU time per fragment, long "
		"waits for a descheduled partner left out (the file's "
		"comment says how). It is the pace on an idle machine and "
		"hides whatever makes a thread wait: read the wall table "
		"above.\n\n");
	table_header(md, "fragment (CPU ns)");
	for (int a = 0; a < 2; a++) {
		for (size_t i = 0; i < sizeof(pushpop_lens) / sizeof(int);
		     i++) {
			snprintf(cname, sizeof(cname), "cpu_pushpop_%u_%s",
				 pushpop_lens[i], aligned_name[a]);
			snprintf(label, sizeof(label), "%u B %s",
				 pushpop_lens[i], aligned_name[a]);
			table_row(md, label, cname, false);
		}
	}
	fprintf(md, "\n");
}

static void write_md_single(FILE *md)
{
	static const char *const kinds[] = {"single_12", "batch_256",
					    "batch_1500"};
	char cname[64];

	fprintf(md,
		"### Single thread, %ld fragments\n\n"
		"single = allocate and free at once; batch = allocate 256, "
		"then free them. CPU time of the thread, medians.\n\n",
		SINGLE_NR);
	table_header(md, "case");
	for (int a = 0; a < 2; a++) {
		for (int k = 0; k < 3; k++) {
			snprintf(cname, sizeof(cname), "%s_%s", kinds[k],
				 aligned_name[a]);
			table_row(md, cname, cname, false);
		}
	}
}

/* One "A vs B" row of our own variants. */
static void variant_row(FILE *md, const char *what, const char *a_bin,
			const char *a_case, const char *b_bin,
			const char *b_case)
{
	double a = med(a_bin, a_case), b = med(b_bin, b_case);

	if (a > 0 && b > 0)
		fprintf(md, "| %s | %.2f | %.2f | %.2fx |\n", what, a, b,
			b / a);
}

static void write_md_variants(FILE *md)
{
	static const char *const o[] = {"pushpop_12_unaligned",
					"pushpop_1500_unaligned",
					"batch_1500_unaligned"};
	static const char *const d[] = {
		"pushpop_12_unaligned", "pushpop_12_aligned",
		"single_12_unaligned",	"single_12_aligned",
		"batch_256_unaligned",	"batch_256_aligned"};
	char cname[64], what[128];

	fprintf(md,
		"\n### Our variants (same run)\n\n"
		"| comparison | A ns | B ns | B / A |\n|---|---:|---:|---:|\n");
	for (int a = 0; a < 2; a++) {
		for (size_t i = 0; i < sizeof(pushpop_lens) / sizeof(int);
		     i++) {
			snprintf(cname, sizeof(cname), "pushpop_%u_%s",
				 pushpop_lens[i], aligned_name[a]);
			snprintf(what, sizeof(what),
				 "A batched free, B one atomic per free: %s "
				 "(wall)",
				 cname);
			variant_row(md, what, "frag", cname, "frag_nobatch",
				    cname);
		}
	}
	variant_row(md, "A napi_alloc_frag(256), B netdev_alloc_frag(256)",
		    "frag", "napi_256", "frag", "netdev_256");
	for (int i = 0; i < 3; i++) {
		snprintf(cname, sizeof(cname), "order0_%s", o[i]);
		snprintf(what, sizeof(what),
			 "A order-3 refill, B order-0 only: %s", o[i]);
		variant_row(md, what, "frag", o[i], "frag", cname);
	}
	for (int i = 0; i < 6; i++) {
		snprintf(what, sizeof(what),
			 "A carve upward, B carve downward: %s", d[i]);
		variant_row(md, what, "frag", d[i], "frag_down", d[i]);
	}
	fprintf(md, "\nOn the host the interrupt guard of netdev_alloc_frag is "
		    "a no-op, so napi vs netdev shows only the extra call; the "
		    "~11 ns Duyck measured is an in-kernel (cli/sti) "
		    "figure.\n");
}

static void write_md(FILE *md, int rounds)
{
	fprintf(md,
		"## page_frag: fragment cache vs malloc (mm/page_frag.c)\n\n");
	fprintf(md,
		"%d rounds; every round runs each binary in turn "
		"(`bench/page_frag_bench.c`, one source, one binary per "
		"contender; kmalloc is our slab). ns per fragment (alloc + "
		"free). Malloc providers, as resolved at run time:",
		rounds);
	for (int b = 0; b < nbins; b++)
		fprintf(md, " %s=%s", bin_name[b], provider[b]);
	fprintf(md, ".\n\n");
	write_md_pushpop(md);
	write_md_pushpop_cpu(md);
	write_md_single(md);
	write_md_variants(md);
}

static int bench_report(const char *outdir, int n, char **specs)
{
	const char *env = getenv("FRAG_BENCH_ROUNDS");
	int rounds = env ? atoi(env) : DEFAULT_ROUNDS;
	const char *path[MAX_BINS];
	uint64_t t_start;
	char file[512];
	FILE *md, *js;

	if (rounds < 1 || rounds > MAX_ROUNDS)
		rounds = DEFAULT_ROUNDS;
	for (int i = 0; i < n && nbins < MAX_BINS; i++) {
		char *eq = strchr(specs[i], '=');

		if (!eq)
			return 2;
		*eq = '\0';
		bin_name[nbins] = specs[i];
		path[nbins++] = eq + 1;
	}
	t_start = bench_now_ns();
	for (int r = 0; r < rounds; r++) {
		for (int b = 0; b < nbins; b++) {
			fprintf(stderr,
				"page_frag_bench: round %d/%d: %s (%.0f s "
				"so far)\n",
				r + 1, rounds, bin_name[b],
				(double)(bench_now_ns() - t_start) / 1e9);
			if (run_binary(b, path[b])) {
				fprintf(stderr, "page_frag_bench: %s failed\n",
					path[b]);
				return 1;
			}
		}
	}
	snprintf(file, sizeof(file), "%s/frag.md", outdir);
	md = fopen(file, "w");
	snprintf(file, sizeof(file), "%s/frag.json", outdir);
	js = fopen(file, "w");
	if (!md || !js)
		return 1;
	fprintf(stderr, "page_frag_bench: %d rounds of %d binaries in %.0f s\n",
		rounds, nbins, (double)(bench_now_ns() - t_start) / 1e9);
	write_md(md, rounds);
	write_json(js, rounds);
	fclose(md);
	fclose(js);
	return 0;
}
#endif

/* FRAG_BENCH_NR and FRAG_BENCH_CASE_S (see PUSHPOP_NR_DEFAULT); a bad
 * value is refused with a message, not guessed at. */
static void bench_read_knobs(void)
{
	const char *nr = getenv("FRAG_BENCH_NR");
	const char *cap = getenv("FRAG_BENCH_CASE_S");

	if (nr && *nr) {
		char *end;
		long v = strtol(nr, &end, 10);

		if (*end || v < BATCH_N || v > 100000000) {
			fprintf(stderr,
				"page_frag_bench: FRAG_BENCH_NR=%s: want %d.."
				"100000000\n",
				nr, BATCH_N);
			exit(2);
		}
		pushpop_nr = v;
	}
	if (cap && *cap) {
		char *end;
		double v = strtod(cap, &end);

		if (*end || v < 0 || v > 3600) {
			fprintf(stderr,
				"page_frag_bench: FRAG_BENCH_CASE_S=%s: want "
				"0..3600 seconds\n",
				cap);
			exit(2);
		}
		case_cap_ns = (uint64_t)(v * 1e9);
	}
}

int main(int argc, char **argv)
{
	/* For instruction counts under callgrind: one case, n operations. */
	if (argc >= 4 && !strcmp(argv[1], "--count")) {
		long n = atol(argv[3]);
		bool aligned = argc >= 5 && !strcmp(argv[4], "aligned");

		contender_init();
		if (!strcmp(argv[2], "single_12"))
			run_single(12, aligned, n);
		else if (!strcmp(argv[2], "batch_256"))
			run_batch(256, aligned, n);
		else if (!strncmp(argv[2], "pushpop_", 8) &&
			 atoi(argv[2] + 8) > 0)
			run_pushpop((unsigned int)atoi(argv[2] + 8), aligned,
				    &n);
		else
			return 2;
		contender_done();
		return 0;
	}
	bench_read_knobs();
	if (argc >= 2 && !strcmp(argv[1], "--run")) {
		printf("provider %s\n", LIBMM ? "libmm" : malloc_provider());
		run_round();
		return 0;
	}
#if defined(BENCH_FRAG)
	if (argc >= 4 && !strcmp(argv[1], "--report"))
		return bench_report(argv[2], argc - 3, argv + 3);
#endif
	fprintf(stderr, "usage: %s --run", argv[0]);
#if defined(BENCH_FRAG)
	fprintf(stderr, " | --report OUTDIR NAME=BINARY...");
#endif
	fprintf(stderr, "\n");
	return 2;
}
