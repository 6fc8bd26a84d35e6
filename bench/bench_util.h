/*
 * Small helpers shared by the host benchmarks: a monotonic clock, pinning a
 * thread to a core, and the median of repeated runs. Header-only so every
 * benchmark binary (ours and the peers') is built from the same code.
 */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
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

#endif /* BENCH_UTIL_H */
