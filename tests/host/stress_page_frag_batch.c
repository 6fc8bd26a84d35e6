/*
 * Stress of page_frag_free's per-CPU batch (mm/page_frag_free.c) with 2,
 * 4 and 8 simulated CPUs: each allocates stamped fragments of random size
 * from its napi cache and its private cache and sends each to a random
 * other CPU through a ring (one ring per sender and receiver); the
 * receiver checks the stamp and frees it, so every block's fragments are
 * freed on several CPUs and wait in several batches. One more CPU calls
 * drain_all_pages() all the while, which applies every CPU's batch under
 * its lock while its owner frees: a free that finds its batch held takes
 * the unbatched path, and no count may be lost or applied twice. (Frees
 * from an interrupt are test_page_frag_batch.c's: on the host a signal
 * handler that gave a block back could re-enter the page allocator's
 * per-CPU lists, which the kernel guards by masking interrupts and the
 * host cannot.)
 *
 * Exact accounting at the end of each phase: every fragment freed once
 * (frees == fragments), no stamp changed (a block freed early would be
 * reused under a live fragment), and after each CPU's final flush and
 * drain every block is back: blocks given back == new blocks taken, and
 * the free page count is what it was. Runs plain, under ThreadSanitizer
 * and under AddressSanitizer.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mm.h"
#include "mm_host.h"

#if defined(__SANITIZE_THREAD__)
#define PER_THREAD 10000
#elif defined(__SANITIZE_ADDRESS__)
#define PER_THREAD 30000
#else
#define PER_THREAD 60000
#endif
#define MAX_CPUS 8

#include "frag_ring.h"

static struct ring rings[MAX_CPUS][MAX_CPUS]; /* [from][to] */
static atomic_int failures, running;
static int nr_threads;
static long drains;

static void check_and_free(struct item it)
{
	if (!item_check_and_free(it))
		atomic_fetch_add(&failures, 1);
}

/* Free what every sender has put in cpu's rings; returns how many. */
static long receive(int cpu)
{
	struct item it;
	long n = 0;

	for (int from = 0; from < nr_threads; from++)
		while (ring_pop(&rings[from][cpu], &it)) {
			check_and_free(it);
			n++;
		}
	return n;
}

static void send(int cpu, int to, struct item it, long *received)
{
	while (!ring_push(&rings[cpu][to], it)) {
		if (atomic_load(&failures))
			return;
		*received += receive(cpu);
	}
}

static void *cpu_thread(void *arg)
{
	int cpu = (int)(intptr_t)arg;
	struct page_frag_cache nc = {0};
	uint64_t seed = 0x9e3779b97f4a7c15ull * (unsigned)(cpu + 1);
	long received = 0;

	if (mm_host_set_cpu(cpu))
		abort(); /* refused: the message says why */
	for (long n = 0; n < PER_THREAD && !atomic_load(&failures); n++) {
		uint64_t r = next_rand(&seed);
		unsigned int len = 1 + (unsigned int)(r >> 20) % 2048;
		int to = (cpu + 1 +
			  (int)((r >> 12) % (unsigned)(nr_threads - 1))) %
			 nr_threads;
		struct item it = {
			(r & 1) ? napi_alloc_frag(len)
				: page_frag_alloc(&nc, len, GFP_KERNEL),
			len, (unsigned char)(r >> 40)};

		if (!it.va) {
			fprintf(stderr, "cpu %d: allocation failed\n", cpu);
			atomic_fetch_add(&failures, 1);
			break;
		}
		memset(it.va, it.stamp, len);
		send(cpu, to, it, &received);
		if ((n & 7) == 0)
			received += receive(cpu);
	}
	page_frag_cache_drain(&nc);
	/* Everyone has sent all: receive the rest. */
	atomic_fetch_sub(&running, 1);
	while (atomic_load(&running) > 0 && !atomic_load(&failures))
		received += receive(cpu);
	received += receive(cpu);
	/* The CPU goes idle: its batch is applied, as the kernel's poll
	 * loop does before it halts. */
	page_frag_free_flush();
	page_frag_percpu_drain(cpu);
	return NULL;
}

/* The extra CPU (MAX_CPUS): drains every CPU's batch and per-CPU lists
 * until the others are done. */
static void *drainer_thread(void *arg)
{
	(void)arg;
	if (mm_host_set_cpu(MAX_CPUS))
		abort();
	drains = 0;
	while (atomic_load(&running) > 0 && !atomic_load(&failures)) {
		struct timespec pause = {0, 20000}; /* 20 us: the others run */

		drain_all_pages();
		drains++;
		nanosleep(&pause, NULL);
	}
	return NULL;
}

static void run_phase(int n)
{
	struct page_frag_stats a, b;
	unsigned long free0;
	uint64_t taken, given;
	pthread_t t[MAX_CPUS], drainer;

	nr_threads = n;
	drain_all_pages();
	free0 = nr_free_pages();
	page_frag_stats_read(&a);
	/* Every thread counts itself in before any can count out. */
	atomic_store(&running, n);
	memset(rings, 0, sizeof(rings));
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, cpu_thread, (void *)(intptr_t)i);
	pthread_create(&drainer, NULL, drainer_thread, NULL);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	pthread_join(drainer, NULL);
	drain_all_pages();
	page_frag_stats_read(&b);
	taken = b.refills_order3 - a.refills_order3 + b.refills_order0 -
		a.refills_order0;
	given = b.blocks_returned - a.blocks_returned;
	if (b.frees - a.frees != b.fragments - a.fragments ||
	    b.frees - a.frees != (uint64_t)n * PER_THREAD) {
		fprintf(stderr, "counted %llu fragments, %llu frees\n",
			(unsigned long long)(b.fragments - a.fragments),
			(unsigned long long)(b.frees - a.frees));
		atomic_fetch_add(&failures, 1);
	}
	if (taken != given || nr_free_pages() != free0) {
		fprintf(stderr,
			"%d cpus: %llu blocks taken, %llu given back; %lu "
			"pages free, %lu before\n",
			n, (unsigned long long)taken, (unsigned long long)given,
			nr_free_pages(), free0);
		atomic_fetch_add(&failures, 1);
	}
	for (int c = 0; c < n; c++)
		if (page_frag_free_pending(c)) {
			fprintf(stderr, "cpu %d: %u frees still pending\n", c,
				page_frag_free_pending(c));
			atomic_fetch_add(&failures, 1);
		}
	printf("stress_page_frag_batch: %d cpus: %llu fragments, %llu free "
	       "atomics (%.4f per free), %llu blocks, %ld drains, %llu frees "
	       "found their batch busy, %d failures\n",
	       n, (unsigned long long)(b.frees - a.frees),
	       (unsigned long long)(b.free_atomics - a.free_atomics),
	       (double)(b.free_atomics - a.free_atomics) /
		       (double)(b.frees - a.frees),
	       (unsigned long long)taken, drains,
	       (unsigned long long)(b.frees_busy - a.frees_busy),
	       atomic_load(&failures));
}

int main(void)
{
	if (mm_host_boot(1, 64u << 20, MAX_CPUS + 1, NULL)) {
		fprintf(stderr, "boot failed\n");
		return 1;
	}
	for (int n = 2; n <= MAX_CPUS && !atomic_load(&failures); n *= 2)
		run_phase(n);
	mm_host_shutdown();
	return atomic_load(&failures) ? 1 : 0;
}
