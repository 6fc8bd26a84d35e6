/*
 * Stress: deferred struct page initialisation while the machine works.
 * Four simulated CPUs on two nodes whose boot part is 4 MiB each:
 * every CPU allocates random orders from random nodes (which grows the
 * zones on demand), frees its own and others' blocks, and now and then
 * initialises a chunk of its node in the background, as the kernel's
 * pollers do. Every block carries a tag at both ends, so a block handed
 * out twice (or built from struct pages initialised twice) shows up. At
 * the end every usable page must be free exactly once and the free lists
 * consistent. Runs plain, under TSan and under ASan (make test-host).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm.h"
#include "mm_host.h"
#include "zone.h"

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define ITERS 20000
#else
#define ITERS 100000
#endif
#define CPUS  4
#define LOCAL 64
#define SLOTS 32

struct blk {
	struct page *page;
	unsigned int order;
	uint64_t tag;
};

static _Atomic(struct blk *) slots[SLOTS];
static atomic_int failures;
static atomic_ulong blocks, grown_in_background;

#define CHECK(cond, ...)                                         \
	do {                                                     \
		if (!(cond)) {                                   \
			fprintf(stderr, "stress: " __VA_ARGS__); \
			fputc('\n', stderr);                     \
			atomic_fetch_add(&failures, 1);          \
		}                                                \
	} while (0)

static uint64_t *block_end(const struct blk *b)
{
	return (uint64_t *)((char *)page_address(b->page) +
			    (MM_PAGE_SIZE << b->order)) -
	       1;
}

static void release(struct blk *b)
{
	uint64_t *head = page_address(b->page);

	CHECK(*head == b->tag && *block_end(b) == b->tag,
	      "block %p order %u lost its tag", (void *)b->page, b->order);
	*head = 0;
	__free_pages(b->page, b->order);
	free(b);
}

static struct blk *get_block(unsigned int *seed, uint64_t tag)
{
	unsigned int r = rand_r(seed);
	unsigned int order =
		r % 16 == 0 ? r / 16 % (MAX_ORDER + 1) : r / 16 % 4;
	int nid = (int)(r >> 20) % 3 - 1;
	struct page *p = alloc_pages_node(nid, __GFP_NOWARN, order);
	struct blk *b;

	if (!p)
		return NULL;
	CHECK(page_ref_count(p) == 1 && p->flags == 0,
	      "block handed out with refcount %d flags %#x", page_ref_count(p),
	      p->flags);
	atomic_fetch_add(&blocks, 1);
	b = malloc(sizeof(*b));
	*b = (struct blk){p, order, tag};
	*(uint64_t *)page_address(p) = tag;
	*block_end(b) = tag;
	return b;
}

struct worker {
	int cpu;
	pthread_t thread;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	struct blk *mine[LOCAL];
	int n = 0;
	unsigned int seed = 4321u + (unsigned)w->cpu;

	if (mm_host_set_cpu(w->cpu))
		abort();
	for (uint64_t i = 1; i <= ITERS; i++) {
		unsigned int r = rand_r(&seed) % 100;

		if (r < 5) {
			atomic_fetch_add(
				&grown_in_background,
				mm_deferred_init_work(mm_cpu_to_node(w->cpu),
						      MM_DEFERRED_CHUNK_PAGES));
		} else if (r < 55) {
			struct blk *b =
				get_block(&seed, ((uint64_t)w->cpu << 48) | i);

			if (b && n == LOCAL) {
				release(mine[0]);
				mine[0] = mine[--n];
			}
			if (b)
				mine[n++] = b;
		} else if (r < 80 && n > 0) {
			int k = (int)(rand_r(&seed) % (unsigned)n);

			release(mine[k]);
			mine[k] = mine[--n];
		} else if (n > 0) {
			int s = (int)(rand_r(&seed) % SLOTS);
			struct blk *got = atomic_exchange(&slots[s], mine[--n]);

			if (got)
				mine[n++] = got;
		}
	}
	while (n > 0)
		release(mine[--n]);
	return NULL;
}

int main(void)
{
	struct worker w[CPUS];
	unsigned long managed = 0;
	long listed;

	mm_set_boot_init_pages(1024);
	if (mm_host_boot(2, 64 << 20, CPUS, NULL))
		return 1;
	for (int c = 0; c < CPUS; c++) {
		w[c].cpu = c;
		pthread_create(&w[c].thread, NULL, work, &w[c]);
	}
	for (int c = 0; c < CPUS; c++)
		pthread_join(w[c].thread, NULL);
	for (int s = 0; s < SLOTS; s++) {
		struct blk *b = atomic_exchange(&slots[s], NULL);

		if (b)
			release(b);
	}
	mm_deferred_init_all();
	drain_all_pages();
	for (int nid = 0; nid < 2; nid++)
		managed += nr_managed_pages_node(nid);
	listed = mm_verify_free_lists();
	CHECK(mm_deferred_pages(-1) == 0, "%lu pages still deferred",
	      mm_deferred_pages(-1));
	CHECK(listed >= 0 && (unsigned long)listed == managed,
	      "%ld pages on the free lists, %lu managed", listed, managed);
	CHECK(nr_free_pages() == managed, "%lu free, %lu managed",
	      nr_free_pages(), managed);
	mm_host_shutdown();
	/* Both ways of growing must have happened, or the test tested less
	 * than it says. */
	CHECK(atomic_load(&grown_in_background) > 0 &&
		      atomic_load(&grown_in_background) < 2 * managed,
	      "%lu pages initialised in the background",
	      atomic_load(&grown_in_background));
	printf("stress_page_init: %d CPUs, 2 nodes, %lu blocks, %lu pages "
	       "grown in the background, %lu managed: %s\n",
	       CPUS, atomic_load(&blocks), atomic_load(&grown_in_background),
	       managed, atomic_load(&failures) ? "FAIL" : "ok");
	return atomic_load(&failures) != 0;
}
