/*
 * qmempool under cross-thread load: 4 simulated CPUs on 2 nodes allocate
 * batches, free some on the spot and hand the others to another CPU
 * (often on the other node) through an ALF queue, which frees them there.
 * Small queues make every path run: localq hits, sharedq refills and
 * spills, slab refills and frees, remote frees. CPU 0 also asks for a
 * shrink (qmempool_shrink_all) every 64 rounds while every CPU honours
 * such requests once per round, as its poll loop does.
 *
 * Checked: no object is handed out twice while in use (a flag in each
 * object, set on alloc and cleared on free), every object comes back (the
 * pool accounts for every object it took from the slab, and after qmempool_destroy the
 * slab cache is destroyed with no object outstanding). Run plain, under
 * TSan and ASan.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "inject.h"
#include "mm.h"
#include "mm_host.h"

#define NR_CPUS	  4
#define NR_NODES  2
#define MAX_BATCH 48

/* Rounds per CPU; sanitizers are 5-20x slower on 2 shared cores. */
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define DEFAULT_ROUNDS 400
#else
#define DEFAULT_ROUNDS 3000
#endif

struct obj {
	atomic_int in_use; /* 1 while handed out by the pool */
	int owner;	   /* CPU that allocated it */
	char pad[240];
};

static struct kmem_cache *cache;
static struct qmempool *pool;
static struct alf_queue *inbox[NR_CPUS];
static atomic_int done_threads, failures;
static atomic_int shrink_ready;	       /* CPUs holding objects for the ask */
static atomic_bool shrink_asked;       /* CPU 0 has asked once at the end */
static atomic_ulong shrunk_by_request; /* objects other CPUs gave back */
static unsigned long iterations;

static void fail(const char *msg, void *p)
{
	if (atomic_fetch_add(&failures, 1) < 10)
		fprintf(stderr, "stress_qmempool: %s (%p)\n", msg, p);
}

static void obj_ctor(void *p)
{
	struct obj *o = p;

	atomic_init(&o->in_use, 0);
	o->owner = -1;
}

static unsigned int next_rand(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static void put_back(struct obj *o, bool softirq)
{
	if (atomic_exchange(&o->in_use, 0) != 1)
		fail("freeing an object that was not in use", o);
	if (softirq)
		qmempool_free_softirq(pool, o);
	else
		qmempool_free(pool, o);
}

/* Free whatever other CPUs handed to this one. */
static unsigned int drain_inbox(int cpu)
{
	void *objs[MAX_BATCH];
	unsigned int n, total = 0;

	while ((n = alf_mc_dequeue(inbox[cpu], objs, MAX_BATCH)) != 0) {
		for (unsigned int i = 0; i < n; i++)
			put_back(objs[i], i & 1);
		total += n;
	}
	return total;
}

static void one_round(int cpu, uint32_t *rnd)
{
	struct obj *batch[MAX_BATCH];
	unsigned int n = next_rand(rnd) % MAX_BATCH + 1, got = 0;

	for (unsigned int i = 0; i < n; i++) {
		struct obj *o = (i & 1) ? qmempool_alloc(pool, GFP_KERNEL)
					: qmempool_alloc_softirq(pool, 0);
		if (!o && mm_test_null_ok())
			continue; /* an injected failure: one object fewer */
		if (!o) {
			fail("allocation failed", NULL);
			break;
		}
		if (atomic_exchange(&o->in_use, 1) != 0)
			fail("object handed out twice", o);
		o->owner = cpu;
		batch[got++] = o;
	}
	for (unsigned int i = 0; i < got; i++) {
		int to = (int)(next_rand(rnd) % NR_CPUS);
		void *p = batch[i];

		if (batch[i]->owner != cpu)
			fail("object changed hands while in use", p);
		if (to == cpu || alf_mp_enqueue(inbox[to], &p, 1) != 1)
			put_back(batch[i], i & 1);
	}
	drain_inbox(cpu);
	atomic_fetch_add(&shrunk_by_request, qmempool_shrink_poll());
	if (cpu == 0 && next_rand(rnd) % 64 == 0)
		qmempool_shrink_all();
}

/* Put one object of this CPU's node into its localq (an allocation may
 * be refused under injection, or hand out another node's object, which a
 * free sends to that node's sharedq instead: tried again). */
static bool fill_localq(int cpu)
{
	for (int tries = 0; tries < 1000; tries++) {
		void *o = qmempool_alloc(pool, GFP_KERNEL);

		if (!o && !mm_test_null_ok())
			return false;
		if (o)
			qmempool_free(pool, o);
		if (qmempool_localq_count(&pool->cpu[cpu]))
			return true;
	}
	return false;
}

/*
 * qmempool_shrink_all() on CPU 0 must empty the other CPUs' localqs at
 * their next qmempool_shrink_poll(). The random requests of the rounds do
 * not prove it: on two host cores a CPU can finish its rounds before CPU
 * 0's first request (about 1 round in 64), or have an empty localq each
 * time one arrives, and then the path runs zero times (seen once in about
 * ten runs under injection). So at the end every other CPU holds objects
 * in its localq, CPU 0 asks once, and each must give some back.
 */
static void final_shrink(int cpu)
{
	unsigned long freed;

	if (cpu == 0) {
		while (atomic_load(&shrink_ready) < NR_CPUS - 1)
			sched_yield();
		qmempool_shrink_all();
		atomic_store(&shrink_asked, true);
		return;
	}
	if (!fill_localq(cpu))
		fail("no object of this CPU's node would stay in its localq",
		     NULL);
	atomic_fetch_add(&shrink_ready, 1);
	while (!atomic_load(&shrink_asked))
		sched_yield();
	freed = qmempool_shrink_poll();
	if (!freed || qmempool_localq_count(&pool->cpu[cpu]))
		fail("a shrink request left this CPU's localq as it was", NULL);
	atomic_fetch_add(&shrunk_by_request, freed);
}

static void *worker(void *arg)
{
	int cpu = (int)(intptr_t)arg;
	uint32_t rnd = 2463534242u + (uint32_t)cpu * 7919u;

	if (mm_host_set_cpu(cpu))
		abort(); /* refused: the message says why */
	for (unsigned long it = 0; it < iterations; it++)
		one_round(cpu, &rnd);
	atomic_fetch_add(&done_threads, 1);
	while (atomic_load(&done_threads) < NR_CPUS)
		if (!drain_inbox(cpu))
			sched_yield();
	drain_inbox(cpu);
	final_shrink(cpu);
	return NULL;
}

/* Free pages once every CPU's slab magazines and page lists are given
 * back: what a run must leave as it found it. Main thread, no workers. */
static unsigned long settled_free_pages(void)
{
	for (int c = NR_CPUS - 1; c >= 0; c--) {
		if (mm_host_set_cpu(c))
			abort(); /* refused: the message says why */
		kmem_cache_shrink_all();
	}
	drain_all_pages();
	return nr_free_pages();
}

/* The cache, the pool and the inboxes. Under injection a creation may be
 * refused: then it must have undone its part (checked by the run's page
 * count) and is tried again, a bounded number of times (a pool that
 * preallocates 64 objects per node is refused most times at 5%). */
#define CREATE_TRIES 50

static bool create_all(uint32_t localq, uint32_t sharedq, uint32_t prealloc)
{
	cache = NULL;
	pool = NULL;
	for (int c = 0; c < NR_CPUS; c++)
		inbox[c] = NULL;
	for (int tries = 0; tries < CREATE_TRIES; tries++) {
		cache = kmem_cache_create("stress_obj", sizeof(struct obj), 0,
					  0, obj_ctor);
		pool = cache ? qmempool_create(localq, sharedq, prealloc, cache,
					       GFP_KERNEL)
			     : NULL;
		if (pool)
			break;
		if (cache)
			kmem_cache_destroy(cache);
		cache = NULL;
		if (!mm_test_null_ok())
			return false;
	}
	for (int c = 0; pool && c < NR_CPUS; c++) {
		for (int tries = 0; !inbox[c] && tries < CREATE_TRIES; tries++)
			inbox[c] = alf_queue_alloc_node(256, 0, GFP_KERNEL,
							mm_cpu_to_node(c));
		if (!inbox[c])
			return false;
	}
	return pool != NULL;
}

static void destroy_all(void)
{
	for (int c = 0; c < NR_CPUS; c++)
		alf_queue_free(inbox[c]);
	if (pool)
		qmempool_destroy(pool);
	if (cache)
		kmem_cache_destroy(cache);
}

/* Under injection, creation was refused every time: each refusal must
 * have given back what it took. */
static int refused(uint32_t localq, uint32_t sharedq, uint32_t prealloc,
		   unsigned long free0)
{
	destroy_all();
	if (!mm_test_null_ok())
		return 1;
	printf("pool(%u,%u,%u): creation refused %d times under injection\n",
	       localq, sharedq, prealloc, CREATE_TRIES);
	if (settled_free_pages() == free0)
		return 0;
	fprintf(stderr,
		"pages leaked by refused creations: %lu free, %lu "
		"before\n",
		nr_free_pages(), free0);
	return 1;
}

static int run(uint32_t localq, uint32_t sharedq, uint32_t prealloc, bool tiny)
{
	pthread_t thr[NR_CPUS];
	struct slab_debug_counts dbg;
	struct qmempool_stats st;
	unsigned long free0 = settled_free_pages();

	if (!create_all(localq, sharedq, prealloc))
		return refused(localq, sharedq, prealloc, free0);
	atomic_store(&done_threads, 0);
	atomic_store(&shrink_ready, 0);
	atomic_store(&shrink_asked, false);
	atomic_store(&shrunk_by_request, 0);
	for (int c = 1; c < NR_CPUS; c++)
		pthread_create(&thr[c], NULL, worker, (void *)(intptr_t)c);
	worker((void *)0);
	for (int c = 1; c < NR_CPUS; c++)
		pthread_join(thr[c], NULL);

	qmempool_get_stats(pool, &st);
	if (st.outstanding != 0)
		fail("objects missing from the pool's accounting", NULL);
	printf("pool(%u,%u,%u): alloc %lu outstanding %ld localq_hit %lu "
	       "sharedq_refill %lu slab_refill %lu sharedq_spill %lu "
	       "slab_free %lu remote_free %lu\n",
	       localq, sharedq, prealloc, st.alloc, st.outstanding,
	       st.localq_hit, st.sharedq_refill, st.slab_refill,
	       st.sharedq_spill, st.slab_free, st.remote_free);
	if (!st.remote_free || !st.sharedq_refill || !st.slab_refill ||
	    !st.sharedq_spill || (tiny && !st.slab_free) ||
	    !atomic_load(&shrunk_by_request))
		fail("a path was not exercised", NULL);
	destroy_all();
	slab_debug_counts(&dbg);
	if (dbg.destroy_busy)
		fail("objects lost: slab cache still had objects out", NULL);
	if (settled_free_pages() != free0) {
		fprintf(stderr, "pages leaked: %lu free, %lu before\n",
			nr_free_pages(), free0);
		fail("pages not back", NULL);
	}
	return atomic_load(&failures) != 0;
}

int main(int argc, char **argv)
{
	int bad;

	iterations = argc > 1 ? strtoul(argv[1], NULL, 0) : DEFAULT_ROUNDS;
	setvbuf(stdout, NULL, _IOLBF, 0);
	alarm(300); /* a livelock fails instead of hanging */
	if (mm_host_boot(NR_NODES, 32 << 20, NR_CPUS, NULL))
		return 1;
	/* The kmalloc caches the pool's own structures come from are made
	 * on first use and stay: make them all before the runs count pages
	 * (under injection a first use may be refused: tried again). */
	for (size_t size = 8; size <= 8192; size *= 2) {
		void *p = NULL;

		for (int tries = 0; !p && tries < CREATE_TRIES; tries++)
			p = kmalloc(size, GFP_KERNEL);
		kfree(p);
	}
	bad = run(16, 32, 0, true);	 /* tiny: every overflow path runs */
	bad |= run(32, 128, 16, false);	 /* Brouer's fast-path pool */
	bad |= run(64, 1024, 64, false); /* roomy: mostly queue traffic */
	bad |= mm_test_inject_check("stress_qmempool");
	mm_host_shutdown();
	printf("stress_qmempool: %s\n", bad ? "FAILED" : "ok");
	return bad;
}
