/*
 * Small helpers shared by the host benchmarks: a monotonic clock, pinning a
 * thread to a core, the median of repeated runs, and the quick run.
 * Header-only so every benchmark binary (ours and the peers') is built
 * from the same code.
 */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline uint64_t bench_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Pin the calling thread to one core (ignored where not allowed). */
static inline void bench_pin(int core)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(core, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Median of runs[0..n); reorders the array. */
static inline double bench_median(double *runs, int n)
{
	qsort(runs, (size_t)n, sizeof(*runs), bench_cmp_double);
	return n % 2 ? runs[n / 2] : (runs[n / 2 - 1] + runs[n / 2]) / 2;
}

/* Keep the compiler from optimising a value away. */
#define bench_keep(x) __asm__ volatile("" : : "r"(x) : "memory")

/* The host's 1-minute load average (/proc/loadavg), or -1: printed with
 * every timed figure, since other processes share this machine's cores. */
static inline double bench_loadavg(void)
{
	FILE *f = fopen("/proc/loadavg", "r");
	double v = -1;

	if (f) {
		if (fscanf(f, "%lf", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/*
 * The calibration: ns per turn of a fixed chain of 4 dependent integer
 * operations (a multiply, an add, a shift, an xor: no memory, no branch
 * but the loop's), timed in the same rounds as the contenders. Its
 * figure moves only with the machine (clock, a lost time slice), so a
 * contender's figure that moves with it is noise, and the ratio of the
 * two is steadier than either.
 */
static __attribute__((noinline, unused)) double bench_calibrate(long turns)
{
	uint64_t x = 1, t0 = bench_now_ns();

	for (long i = 0; i < turns; i++) {
		x = x * 0x9E3779B97F4A7C15ull + (uint64_t)i;
		x ^= x >> 29;
		bench_keep(x);
	}
	return (double)(bench_now_ns() - t0) / (double)turns;
}

/*
 * The quick run: BENCH_QUICK=1 in the environment (`make bench
 * BENCH_QUICK=1`, which make test runs to check that make bench works).
 * Every case is still measured and every table written, but from fewer
 * runs and without the callgrind instruction counts (valgrind alone took
 * most of a minute): seconds instead of minutes, figures not for reading.
 */
static inline bool bench_quick(void)
{
	const char *q = getenv("BENCH_QUICK");

	return q && *q && strcmp(q, "0") != 0;
}

/* How many runs to take the median of: runs, or at most 3 in a quick run. */
static inline int bench_runs(int runs)
{
	return bench_quick() && runs > 3 ? 3 : runs;
}

/* Whether to count instructions under callgrind: valgrind is installed
 * and this is not a quick run. If not, the report md says why. */
static inline bool bench_callgrind(FILE *md)
{
	if (bench_quick()) {
		fprintf(md,
			"(quick run, BENCH_QUICK: no instruction counts)\n\n");
		return false;
	}
	if (system("valgrind --version >/dev/null 2>&1") != 0) {
		fprintf(md,
			"(valgrind not installed: no instruction counts)\n\n");
		return false;
	}
	return true;
}

#endif /* BENCH_UTIL_H */
