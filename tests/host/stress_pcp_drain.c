/*
 * Stress of the per-CPU page lists' locking (mm/pcp.c): the list's own CPU
 * takes its lock with one exchange and never waits, everyone else spins
 * with interrupts masked.
 *
 * Part 1, remote drains: four CPUs on two nodes allocate and free orders
 * 0-3 in tight loops (alloc_pages, alloc_pages_node of either node,
 * alloc_pages_bulk), and hand blocks to each other so that many frees land
 * on another CPU's list, while a fifth CPU drains every list and reads the
 * statistics without pause. Every block carries a tag at both ends (a
 * block handed out twice breaks it); at the end every page is back, the
 * free lists are consistent and numastat adds up to exactly the pages
 * the workers got.
 *
 * Part 2, an interrupt on the list's own CPU: a POSIX signal stands in for
 * it. One CPU allocates and frees in a loop; another thread signals it as
 * fast as it can; the handler, unless the CPU is inside an interrupt guard
 * (mm_host_irqs_masked), allocates, frees and drains on the same CPU. A
 * handler that lands while the interrupted code holds its list's lock
 * must go to the buddy lists (and drain_all_pages must skip that list),
 * never wait: a spin there would never end. The test runs until enough
 * handlers landed inside a held list, and fails if none did.
 *
 * Runs plain, under TSan and under ASan (make test-host).
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "inject.h"
#include "mm.h"
#include "mm_host.h"
#include "zone.h"

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define ITERS 40000
#else
#define ITERS 400000
#endif
#define WORKERS 4
#define DRAINER WORKERS /* the fifth CPU */
#define LOCAL	32
#define SLOTS	32

static atomic_int failures;
static atomic_bool workers_done;
static pthread_barrier_t start; /* workers and drainer begin together */
static atomic_ulong drains;
static atomic_ulong pages_got; /* pages the workers were handed */

#define CHECK(cond, ...)                                         \
	do {                                                     \
		if (!(cond)) {                                   \
			fprintf(stderr, "stress: " __VA_ARGS__); \
			fputc('\n', stderr);                     \
			atomic_fetch_add(&failures, 1);          \
		}                                                \
	} while (0)

/* A block's tag lives in its first and last 8 bytes; the order in the
 * low bits of the pointer slot would be a trick, so blocks travel as
 * (page, order) pairs packed in a word: order in the top byte. */
typedef uintptr_t blk_t;

static blk_t blk_make(struct page *p, unsigned int order)
{
	return (uintptr_t)p | ((uintptr_t)order << 56);
}

static struct page *blk_page(blk_t b)
{
	return (struct page *)(b & ((1ULL << 56) - 1));
}

static unsigned int blk_order(blk_t b)
{
	return (unsigned int)(b >> 56);
}

static void tag(struct page *p, unsigned int order, uint64_t t)
{
	volatile uint64_t *a = page_address(p);
	a[0] = t;
	a[(MM_PAGE_SIZE << order) / 8 - 1] = t;
}

static bool tag_ok(struct page *p, unsigned int order)
{
	volatile uint64_t *a = page_address(p);
	return a[0] != 0 && a[0] == a[(MM_PAGE_SIZE << order) / 8 - 1];
}

static void release(blk_t b)
{
	struct page *p = blk_page(b);
	unsigned int order = blk_order(b);
	CHECK(tag_ok(p, order), "block %p order %u: tag broken", (void *)p,
	      order);
	tag(p, order, 0);
	__free_pages(p, order);
}

/* ---- part 1: remote drains while four CPUs allocate and free ---- */

static _Atomic blk_t slots[SLOTS];

static blk_t get_block(unsigned int *seed, uint64_t t)
{
	unsigned int r = rand_r(seed);
	unsigned int order = r % 4;
	int nid = (int)((r >> 4) % 3) - 1; /* -1, 0 or 1 */
	struct page *p = nid < 0 ? alloc_pages(__GFP_NOWARN, order)
				 : alloc_pages_node(nid, __GFP_NOWARN, order);
	if (!p)
		return 0;
	atomic_fetch_add(&pages_got, 1UL << order);
	tag(p, order, t);
	return blk_make(p, order);
}

static void bulk_round(unsigned int *seed)
{
	struct page *pages[16];
	unsigned int n = alloc_pages_bulk(
		__GFP_NOWARN, 1 + (unsigned)rand_r(seed) % 16, pages);
	atomic_fetch_add(&pages_got, n);
	for (unsigned int i = 0; i < n; i++)
		tag(pages[i], 0, 0x5eed);
	for (unsigned int i = 0; i < n; i++)
		release(blk_make(pages[i], 0));
}

static void *worker(void *arg)
{
	int cpu = (int)(intptr_t)arg;
	blk_t mine[LOCAL];
	int n = 0;
	unsigned int seed = 99u + (unsigned)cpu;

	CHECK(mm_host_set_cpu(cpu) == 0, "set cpu");
	pthread_barrier_wait(&start);
	/* ITERS operations, and on until the drainer has been at work. */
	for (uint64_t i = 1; i <= ITERS || atomic_load(&drains) < 100; i++) {
		unsigned int r = (unsigned)rand_r(&seed) % 100;
		if (r < 45 && n < LOCAL) {
			blk_t b = get_block(&seed, ((uint64_t)cpu << 40) | i);
			if (b)
				mine[n++] = b;
		} else if (r < 75 && n > 0) {
			release(mine[--n]);
		} else if (r < 97 && n > 0) {
			blk_t got = atomic_exchange(
				&slots[(unsigned)rand_r(&seed) % SLOTS],
				mine[--n]);
			if (got)
				mine[n++] = got;
		} else {
			bulk_round(&seed);
		}
	}
	while (n > 0)
		release(mine[--n]);
	return NULL;
}

static void *drainer(void *arg)
{
	static char buf[16384];

	(void)arg;
	CHECK(mm_host_set_cpu(DRAINER) == 0, "set cpu");
	pthread_barrier_wait(&start);
	while (!atomic_load(&workers_done)) {
		drain_all_pages();
		if (atomic_fetch_add(&drains, 1) % 8 == 0) {
			CHECK(zoneinfo_json(buf, sizeof(buf)) > 0, "zoneinfo");
			CHECK(numastat_json(buf, sizeof(buf)) > 0, "numastat");
		}
	}
	return NULL;
}

static unsigned long numa_total(enum numa_stat a, enum numa_stat b)
{
	unsigned long sum = 0;
	for (int nid = 0; nid < mm_nr_nodes(); nid++)
		sum += numa_stat_read(nid, a) + numa_stat_read(nid, b);
	return sum;
}

static unsigned long busy_total(void)
{
	unsigned long sum = 0;
	for (int nid = 0; nid < mm_nr_nodes(); nid++)
		for (int cpu = 0; cpu < MM_MAX_CPUS; cpu++)
			sum += mm_stat_read(&mm_zones[nid].pcp[cpu].stats.busy);
	return sum;
}

static int part1_remote_drains(void)
{
	static const int cpu_node[WORKERS + 1] = {0, 0, 1, 1, 0};
	pthread_t w[WORKERS], d;

	if (mm_host_boot(2, 16 << 20, WORKERS + 1, cpu_node))
		return 1;
	drain_all_pages();
	unsigned long before = nr_free_pages();
	atomic_store(&pages_got, 0);
	atomic_store(&drains, 0);
	atomic_store(&workers_done, false);
	pthread_barrier_init(&start, NULL, WORKERS + 1);
	pthread_create(&d, NULL, drainer, NULL);
	for (int c = 0; c < WORKERS; c++)
		pthread_create(&w[c], NULL, worker, (void *)(intptr_t)c);
	for (int c = 0; c < WORKERS; c++)
		pthread_join(w[c], NULL);
	atomic_store(&workers_done, true);
	pthread_join(d, NULL);
	pthread_barrier_destroy(&start);
	for (int s = 0; s < SLOTS; s++) {
		blk_t b = atomic_exchange(&slots[s], 0);
		if (b)
			release(b);
	}
	drain_all_pages();
	long listed = mm_verify_free_lists();
	CHECK(listed >= 0, "free lists inconsistent");
	CHECK(nr_free_pages() == before && (unsigned long)listed == before,
	      "%lu pages free after the run, %lu before", nr_free_pages(),
	      before);
	for (int nid = 0; nid < 2; nid++)
		for (int cpu = 0; cpu <= WORKERS; cpu++)
			for (unsigned int o = 0; o <= PCP_MAX_ORDER; o++)
				CHECK(pcp_count(nid, cpu, o) == 0,
				      "node %d cpu %d order %u: %d left", nid,
				      cpu, o, pcp_count(nid, cpu, o));
	/* Every page handed out was counted once as hit or miss, once as
	 * local or other, whichever path (fast, general, bulk) served it. */
	unsigned long got = atomic_load(&pages_got);
	CHECK(numa_total(NUMA_HIT, NUMA_MISS) == got,
	      "numa_hit + numa_miss = %lu, workers got %lu pages",
	      numa_total(NUMA_HIT, NUMA_MISS), got);
	CHECK(numa_total(NUMA_LOCAL, NUMA_OTHER) == got,
	      "local_node + other_node = %lu, workers got %lu pages",
	      numa_total(NUMA_LOCAL, NUMA_OTHER), got);
	printf("stress_pcp_drain: %d cpus, %lu pages handed out, %lu drains "
	       "of every list meanwhile, %lu list operations found their "
	       "list busy, %lu pages all back\n",
	       WORKERS, got, atomic_load(&drains), busy_total(), before);
	/* under make test-host-inject: some failures were injected (a NULL
	 * here is 'memory short' either way, so only that is checked) */
	CHECK(mm_test_inject_check("stress_pcp_drain") == 0,
	      "injection armed but nothing injected");
	mm_host_shutdown();
	return 0;
}

/* ---- part 2: an interrupt on the list's own CPU ---- */

static pthread_t victim;
static atomic_bool stop_signals;
static volatile sig_atomic_t handled, deferred, inside_held;
static blk_t handler_stash[8];
static unsigned int handler_seed = 7;

/* The "interrupt handler": what a NIC interrupt's refill or a TX
 * completion would do, on the CPU it interrupted. Async-signal-safe: only
 * the allocator, no libc but rand_r. */
static void on_interrupt(int sig)
{
	(void)sig;
	if (mm_host_irqs_masked()) {
		deferred = deferred + 1;
		return;
	}
	struct per_cpu_pages *pcp = mm_cpu_pcp[mm_this_cpu()];
	if (atomic_load_explicit(&pcp->lock.locked, memory_order_relaxed))
		inside_held = inside_held + 1;
	unsigned int r = (unsigned)rand_r(&handler_seed);
	unsigned int k = r % 8, order = (r >> 3) % 4;
	if (handler_stash[k]) {
		release(handler_stash[k]);
		handler_stash[k] = 0;
	} else {
		struct page *p =
			(r & 0x100) ? alloc_pages_node(1, __GFP_NOWARN, order)
				    : alloc_pages(__GFP_NOWARN, order);
		if (p) {
			tag(p, order, 0xfeed0000u | k);
			handler_stash[k] = blk_make(p, order);
		}
	}
	if ((r & 0x3f00) == 0)
		drain_all_pages();
	handled = handled + 1;
}

static void *interrupter(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop_signals)) {
		pthread_kill(victim, SIGUSR1);
		sched_yield();
	}
	return NULL;
}

static int part2_interrupts(void)
{
	struct sigaction sa;
	pthread_t t;
	blk_t mine[LOCAL] = {0};
	unsigned int seed = 3;
	time_t end;
	unsigned long ops = 0;

	if (mm_host_boot(2, 16 << 20, 2, NULL))
		return 1;
	drain_all_pages();
	unsigned long before = nr_free_pages();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_interrupt;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	victim = pthread_self();
	atomic_store(&stop_signals, false);
	pthread_create(&t, NULL, interrupter, NULL);
	/* Until 200 handlers landed inside a held list (and at least
	 * ITERS operations), at most 60 s on a busy machine. */
	end = time(NULL) + 60;
	while ((inside_held < 200 || ops < ITERS) && time(NULL) < end) {
		for (int i = 0; i < 1000; i++, ops++) {
			unsigned int r = (unsigned)rand_r(&seed);
			unsigned int k = r % LOCAL, order = (r >> 5) % 4;
			if (mine[k]) {
				release(mine[k]);
				mine[k] = 0;
				continue;
			}
			struct page *p = alloc_pages(__GFP_NOWARN, order);
			if (p) {
				tag(p, order, 0xabc00000u | k);
				mine[k] = blk_make(p, order);
			}
		}
	}
	atomic_store(&stop_signals, true);
	pthread_join(t, NULL);
	signal(SIGUSR1, SIG_IGN);
	for (int k = 0; k < LOCAL; k++)
		if (mine[k])
			release(mine[k]);
	for (int k = 0; k < 8; k++)
		if (handler_stash[k])
			release(handler_stash[k]);
	drain_all_pages();
	long listed = mm_verify_free_lists();
	CHECK(listed >= 0, "free lists inconsistent");
	CHECK(nr_free_pages() == before && (unsigned long)listed == before,
	      "%lu pages free after the run, %lu before", nr_free_pages(),
	      before);
	CHECK(inside_held > 0,
	      "no handler landed while the list was held (%d handled): "
	      "the test did not test",
	      (int)handled);
	printf("stress_pcp_drain: %lu operations, %d interrupts handled, %d "
	       "inside a held list, %d held back by the guard, %lu busy\n",
	       ops, (int)handled, (int)inside_held, (int)deferred,
	       busy_total());
	mm_host_shutdown();
	return 0;
}

int main(void)
{
	int rc = part1_remote_drains();
	rc |= part2_interrupts();
	int f = atomic_load(&failures);
	if (f)
		fprintf(stderr, "stress_pcp_drain: %d failures\n", f);
	return rc || f ? 1 : 0;
}
