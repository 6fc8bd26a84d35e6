/*
 * ALF queue under real concurrency: P producers and C consumers (1..8
 * each) move tagged pointers through a small ring whose indices start just
 * below the 32-bit wrap. Checked: every pointer is delivered exactly once,
 * and each consumer sees each producer's pointers in the order they were
 * enqueued. Bulk sizes vary 1..16 so full, empty and partial dequeues all
 * happen. Run plain, under TSan (memory ordering) and ASan.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "alf_queue.h"

#define QSIZE	 64
#define MAX_THR	 8
#define MAX_BULK 16
#define SEQ_BITS 24
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define DEFAULT_N 4000 /* pointers per producer, about */
#else
#define DEFAULT_N 20000
#endif
#define START_IDX (UINT32_MAX - 1000u)

struct config {
	int producers, consumers;
	bool sp, sc; /* use the single-producer/consumer functions */
	unsigned long per_producer;
};

static struct alf_queue *q;
static const struct config *cfg;
static atomic_uchar *seen;
static atomic_ulong consumed;
static atomic_int failures;

static void fail(const char *msg, uintptr_t v)
{
	if (atomic_fetch_add(&failures, 1) < 10)
		fprintf(stderr, "stress_alf: %s (value %#lx)\n", msg,
			(unsigned long)v);
}

/* Small per-thread PRNG (xorshift) for bulk sizes. */
static unsigned int next_rand(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static void *producer(void *arg)
{
	uintptr_t id = (uintptr_t)arg;
	uint32_t rnd = (uint32_t)(id * 2654435761u) | 1;
	unsigned long seq = 0;
	void *buf[MAX_BULK];

	while (seq < cfg->per_producer) {
		unsigned int n = next_rand(&rnd) % MAX_BULK + 1, done;

		if (n > cfg->per_producer - seq)
			n = (unsigned int)(cfg->per_producer - seq);
		for (unsigned int i = 0; i < n; i++)
			buf[i] = (void *)(((id << SEQ_BITS) | (seq + i)) + 1);
		done = cfg->sp ? alf_sp_enqueue(q, buf, n)
			       : alf_mp_enqueue(q, buf, n);
		if (done == 0) {
			sched_yield(); /* full: let a consumer run */
			continue;
		}
		if (done != n)
			fail("enqueue moved neither n nor 0", done);
		seq += n;
	}
	return NULL;
}

static void check(uintptr_t v, long *last)
{
	uintptr_t id = (v - 1) >> SEQ_BITS;
	long s = (long)((v - 1) & ((1ul << SEQ_BITS) - 1));

	if (id >= (uintptr_t)cfg->producers ||
	    (unsigned long)s >= cfg->per_producer) {
		fail("pointer that no producer made", v);
		return;
	}
	if (atomic_fetch_add(&seen[id * cfg->per_producer + (size_t)s], 1))
		fail("pointer delivered twice", v);
	if (s <= last[id])
		fail("producer's pointers out of order", v);
	last[id] = s;
}

static void *consumer(void *arg)
{
	uint32_t rnd = (uint32_t)(uintptr_t)arg * 40503u + 7;
	unsigned long total = cfg->per_producer * (unsigned long)cfg->producers;
	long last[MAX_THR];
	void *buf[MAX_BULK];

	for (int i = 0; i < MAX_THR; i++)
		last[i] = -1;
	while (atomic_load(&consumed) < total) {
		unsigned int n = next_rand(&rnd) % MAX_BULK + 1, got;

		got = cfg->sc ? alf_sc_dequeue(q, buf, n)
			      : alf_mc_dequeue(q, buf, n);
		if (got > n)
			fail("dequeue returned more than asked", got);
		if (got == 0) {
			sched_yield();
			continue;
		}
		for (unsigned int i = 0; i < got; i++)
			check((uintptr_t)buf[i], last);
		atomic_fetch_add(&consumed, got);
	}
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int run(const struct config *c)
{
	pthread_t thr[2 * MAX_THR];
	size_t total = c->per_producer * (size_t)c->producers;
	unsigned int flags =
		(c->sp ? ALF_SP_ENQ : 0) | (c->sc ? ALF_SC_DEQ : 0);
	int nt = 0, missing = 0;

	double t0 = now_s();

	cfg = c;
	q = aligned_alloc(MM_CACHE_LINE, alf_queue_bytes(QSIZE));
	seen = calloc(total, 1);
	if (!q || !seen || alf_queue_init(q, QSIZE, flags) ||
	    alf_queue_set_index(q, START_IDX))
		return 1;
	atomic_store(&consumed, 0);
	atomic_store(&failures, 0);
	for (int i = 0; i < c->consumers; i++)
		pthread_create(&thr[nt++], NULL, consumer,
			       (void *)(uintptr_t)i);
	for (int i = 0; i < c->producers; i++)
		pthread_create(&thr[nt++], NULL, producer,
			       (void *)(uintptr_t)i);
	for (int i = 0; i < nt; i++)
		pthread_join(thr[i], NULL);
	for (size_t i = 0; i < total; i++)
		missing += atomic_load(&seen[i]) != 1;
	if (!alf_queue_empty(q))
		fail("queue not empty at the end", alf_queue_count(q));
	printf("%dP%s/%dC%s: %zu pointers in %.2f s, %d not delivered exactly "
	       "once, %d failures\n",
	       c->producers, c->sp ? "(sp)" : "", c->consumers,
	       c->sc ? "(sc)" : "", total, (now_s() - t0), missing,
	       atomic_load(&failures));
	free(seen);
	free(q);
	return missing || atomic_load(&failures);
}

int main(int argc, char **argv)
{
	/* Sized for TSan on 2 shared cores: 16 threads on 2 cores spin while
	 * a preempted producer holds an unpublished reservation, which makes
	 * the oversubscribed configurations slow (seconds), not wrong. */
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : DEFAULT_N;
	const struct config cfgs[] = {
		{1, 1, true, true, n * 2},   {1, 4, true, false, n},
		{4, 1, false, true, n},	     {2, 2, false, false, n},
		{4, 4, false, false, n / 2}, {8, 8, false, false, n / 4},
		{2, 8, false, false, n / 2}, {8, 2, false, false, n / 4},
	};
	int bad = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	alarm(300); /* a lost wake-up or livelock fails instead of hanging */
	int only = argc > 2 ? atoi(argv[2]) : -1; /* run one config */

	for (int i = 0; i < (int)(sizeof(cfgs) / sizeof(cfgs[0])); i++)
		if (only < 0 || only == i)
			bad += run(&cfgs[i]);
	printf("stress_alf_mpmc: %s\n", bad ? "FAILED" : "ok");
	return bad != 0;
}
