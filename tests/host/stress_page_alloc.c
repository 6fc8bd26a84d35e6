/*
 * Stress: 2, 4, 8 and 8 simulated CPUs on 1, 2, 4 and MM_MAX_NODES nodes
 * (the most the allocators hold, half of them without a CPU) allocate random
 * orders from random nodes, hand blocks to each other through shared slots
 * (so many frees happen on another CPU than the allocation), allocate in
 * bulk, drain everything and read the statistics now and then. Every block carries a tag at both
 * ends; a block handed out twice shows up as a broken tag. At the end every
 * page must be back and the free lists consistent. Runs plain, under TSan
 * and under ASan (make test-host).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inject.h"
#include "mm.h"
#include "mm_host.h"
#include "zone.h"

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define ITERS 20000
#else
#define ITERS 200000
#endif
#define LOCAL 48
#define SLOTS 64

struct blk {
	struct page *page;
	unsigned int order;
	bool comp;
};

static _Atomic(struct blk *) slots[SLOTS];
static atomic_int failures;

#define CHECK(cond, ...)                                         \
	do {                                                     \
		if (!(cond)) {                                   \
			fprintf(stderr, "stress: " __VA_ARGS__); \
			fputc('\n', stderr);                     \
			atomic_fetch_add(&failures, 1);          \
		}                                                \
	} while (0)

static size_t blk_bytes(const struct blk *b)
{
	return MM_PAGE_SIZE << b->order;
}

static void tag(struct blk *b, uint64_t t)
{
	char *a = page_address(b->page);
	memcpy(a, &t, 8);
	memcpy(a + blk_bytes(b) - 8, &t, 8);
}

static void check_tag(struct blk *b)
{
	const char *a = page_address(b->page);
	uint64_t x, y;
	memcpy(&x, a, 8);
	memcpy(&y, a + blk_bytes(b) - 8, 8);
	CHECK(x == y && x != 0, "block %p order %u tag %#llx/%#llx",
	      (void *)b->page, b->order, (unsigned long long)x,
	      (unsigned long long)y);
}

static void release(struct blk *b)
{
	check_tag(b);
	tag(b, 0); /* a second owner would see the tag gone */
	if (b->comp)
		put_page(b->page + (b->order ? 1 : 0));
	else if (b->order & 1)
		free_pages(page_address(b->page), b->order);
	else
		__free_pages(b->page, b->order);
	free(b);
}

static struct blk *get_block(unsigned int *seed, uint64_t t)
{
	unsigned int r = rand_r(seed);
	unsigned int order = r % 8 == 0 ? r / 8 % 7 : r / 8 % 4;
	int nid = (int)(r >> 12) % (mm_nr_nodes() + 1) - 1;
	gfp_t gfp = __GFP_NOWARN | (r & 0x10000 ? __GFP_COMP : 0) |
		    (r & 0x20000 ? __GFP_ZERO : 0);
	struct page *p = alloc_pages_node(nid, gfp, order);
	if (!p)
		return NULL;
	struct blk *b = malloc(sizeof(*b));
	*b = (struct blk){p, order, (gfp & __GFP_COMP) != 0};
	if (gfp & __GFP_ZERO) {
		const uint64_t *w = page_address(p);
		CHECK(w[0] == 0 && w[blk_bytes(b) / 8 - 1] == 0,
		      "__GFP_ZERO block not zero");
	}
	tag(b, t);
	return b;
}

static void bulk_round(unsigned int *seed)
{
	struct page *pages[16];
	unsigned int want = 1 + rand_r(seed) % 16;
	unsigned int n = alloc_pages_bulk(__GFP_NOWARN, want, pages);
	for (unsigned int i = 0; i < n; i++) {
		CHECK(page_ref_count(pages[i]) == 1, "bulk page refcount");
		memset(page_address(pages[i]), 0x33, 64);
	}
	for (unsigned int i = 0; i < n; i++)
		__free_pages(pages[i], 0);
}

/* The statistics must be readable at any time (and race-free under TSan). */
static void read_stats(void)
{
	static _Thread_local char buf[8192];
	int (*fns[])(char *, size_t) = {buddyinfo_json, zoneinfo_json,
					numastat_json, zoneinfo_text};
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		int n = fns[i](buf, sizeof(buf));
		CHECK(n > 0 && strlen(buf) ==
				       (size_t)(n < (int)sizeof(buf)
							? n
							: (int)sizeof(buf) - 1),
		      "statistics text length");
	}
}

struct worker {
	int cpu;
	pthread_t thread;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	struct blk *mine[LOCAL] = {0};
	int n = 0;
	unsigned int seed = 1234u + (unsigned)w->cpu;
	if (mm_host_set_cpu(w->cpu))
		abort(); /* refused: the message says why */

	for (uint64_t i = 1; i <= ITERS; i++) {
		unsigned int r = rand_r(&seed) % 100;
		if (r < 50) {
			struct blk *b =
				get_block(&seed, ((uint64_t)w->cpu << 48) | i);
			if (b && n == LOCAL) {
				release(mine[0]);
				mine[0] = mine[--n];
			}
			if (b)
				mine[n++] = b;
		} else if (r < 75 && n > 0) {
			int k = (int)(rand_r(&seed) % (unsigned)n);
			release(mine[k]);
			mine[k] = mine[--n];
		} else if (r < 93 && n > 0) {
			int s = (int)(rand_r(&seed) % SLOTS);
			struct blk *got = atomic_exchange(&slots[s], mine[--n]);
			if (got)
				mine[n++] = got;
		} else if (r < 99) {
			bulk_round(&seed);
		} else if (w->cpu == 0) {
			drain_all_pages();
		} else if (w->cpu == 1) {
			read_stats(); /* while the others allocate */
		}
	}
	while (n > 0)
		release(mine[--n]);
	return NULL;
}

static int run(int nodes, int cpus, bool debug)
{
	if (mm_host_boot(nodes, (size_t)(32 / nodes) << 20, cpus, NULL))
		return 1;
	mm_debug_set(debug);
	mm_debug_reset_counts();
	drain_all_pages();
	unsigned long before = nr_free_pages();
	struct worker w[MM_MAX_CPUS];

	for (int c = 0; c < cpus; c++) {
		w[c].cpu = c;
		pthread_create(&w[c].thread, NULL, work, &w[c]);
	}
	for (int c = 0; c < cpus; c++)
		pthread_join(w[c].thread, NULL);
	for (int s = 0; s < SLOTS; s++) {
		struct blk *b = atomic_exchange(&slots[s], NULL);
		if (b)
			release(b);
	}
	drain_all_pages();
	long listed = mm_verify_free_lists();
	CHECK(listed >= 0, "free lists inconsistent");
	CHECK(nr_free_pages() == before && (unsigned long)listed == before,
	      "%lu pages free after the run, %lu before", nr_free_pages(),
	      before);
	CHECK(mm_debug_total() == 0, "%lu debug reports", mm_debug_total());
	printf("stress_page_alloc: %d cpus, %d nodes, debug %d: %lu pages "
	       "all back, lists consistent\n",
	       cpus, nodes, debug, before);
	mm_debug_set(false);
	/* under make test-host-inject: some failures were injected (a NULL
	 * here is 'memory short' either way, so only that is checked) */
	CHECK(mm_test_inject_check("stress_page_alloc") == 0,
	      "injection armed but nothing injected");
	mm_host_shutdown();
	return 0;
}

int main(void)
{
	int rc = run(1, 2, false);
	rc |= run(2, 4, true);
	rc |= run(4, 8, false);
	rc |= run(MM_MAX_NODES, 8, true);
	int f = atomic_load(&failures);
	if (f)
		fprintf(stderr, "stress_page_alloc: %d failures\n", f);
	return rc || f ? 1 : 0;
}
