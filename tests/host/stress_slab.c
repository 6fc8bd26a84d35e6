/*
 * Slab stress (plain, TSan, ASan): one simulated CPU allocates, another
 * frees what it receives through a ring, with single and bulk calls; then
 * every page must be back in the page allocator. Run on one node (frees
 * land in the freeing CPU's magazine) and on two (every free is remote and
 * goes home to its node). A third scenario hammers two CPUs while a reader
 * takes slabinfo snapshots. Exit status 0 on success.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inject.h"
#include "mm.h"
#include "mm_host.h"

#define OBJECTS	  200000
#define RING_SIZE 1024 /* power of two */
#define OBJ_SIZE  256

static atomic_int failures;
#define CHECK(cond)                                                            \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, \
				__LINE__, #cond);                              \
			failures++;                                            \
		}                                                              \
	} while (0)

/* Single-producer single-consumer ring of object pointers. */
struct ring {
	_Alignas(64) atomic_size_t head; /* written by the producer */
	_Alignas(64) atomic_size_t tail; /* written by the consumer */
	void *slot[RING_SIZE];
};

static void ring_push(struct ring *r, void *p)
{
	size_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
	while (h - atomic_load_explicit(&r->tail, memory_order_acquire) ==
	       RING_SIZE)
		sched_yield();
	r->slot[h & (RING_SIZE - 1)] = p;
	atomic_store_explicit(&r->head, h + 1, memory_order_release);
}

static void *ring_pop(struct ring *r)
{
	size_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
	while (atomic_load_explicit(&r->head, memory_order_acquire) == t)
		sched_yield();
	void *p = r->slot[t & (RING_SIZE - 1)];
	atomic_store_explicit(&r->tail, t + 1, memory_order_release);
	return p;
}

struct pc {
	struct kmem_cache *s;
	struct ring ring;
	int producer_cpu, consumer_cpu;
	int expect_nid; /* node the consumer should see, or -1 */
};

static void stamp(void *p, uint64_t id)
{
	uint64_t *w = p;
	for (size_t i = 0; i < OBJ_SIZE / 8; i++)
		w[i] = id ^ i;
}

static int stamp_ok(const void *p, uint64_t id)
{
	const uint64_t *w = p;
	for (size_t i = 0; i < OBJ_SIZE / 8; i++)
		if (w[i] != (id ^ i))
			return 0;
	return 1;
}

static void *producer(void *arg)
{
	struct pc *pc = arg;
	void *batch[16];

	if (mm_host_set_cpu(pc->producer_cpu))
		abort(); /* refused: the message says why */
	for (uint64_t id = 0; id < OBJECTS;) {
		if (id % 5 == 0 && id + 16 <= OBJECTS) {
			size_t n = kmem_cache_alloc_bulk(pc->s, 0, 16, batch);
			if (n == 0 && mm_test_null_ok())
				continue; /* injected: all or nothing, again */
			if (n != 16)
				abort();
			for (size_t i = 0; i < n; i++) {
				stamp(batch[i], id);
				ring_push(&pc->ring, batch[i]);
				id++;
			}
			continue;
		}
		void *p = kmem_cache_alloc(pc->s, 0);
		if (!p && mm_test_null_ok())
			continue; /* injected: try this id again */
		if (!p) /* the consumer would wait forever: stop here */
			abort();
		stamp(p, id);
		ring_push(&pc->ring, p);
		id++;
	}
	kmem_cache_shrink(pc->s); /* this CPU's magazine back to the nodes */
	return NULL;
}

static void *consumer(void *arg)
{
	struct pc *pc = arg;
	void *batch[16];
	size_t nb = 0;

	if (mm_host_set_cpu(pc->consumer_cpu))
		abort(); /* refused: the message says why */
	for (uint64_t id = 0; id < OBJECTS; id++) {
		void *p = ring_pop(&pc->ring);
		CHECK(stamp_ok(p, id));
		if (pc->expect_nid >= 0)
			CHECK(page_to_nid(virt_to_page(p)) == pc->expect_nid);
		if (id & 1) {
			kmem_cache_free(pc->s, p);
			continue;
		}
		batch[nb++] = p;
		if (nb == 16) {
			kmem_cache_free_bulk(pc->s, nb, batch);
			nb = 0;
		}
	}
	kmem_cache_free_bulk(pc->s, nb, batch);
	kmem_cache_shrink(pc->s);
	return NULL;
}

/* kmem_cache_create, tried again while injected failures refuse it. */
static struct kmem_cache *create_cache(const char *name, size_t size)
{
	struct kmem_cache *s;

	do
		s = kmem_cache_create(name, size, 0, 0, NULL);
	while (!s && mm_test_null_ok());
	CHECK(s != NULL);
	return s;
}

static unsigned long settled_free_pages(void)
{
	drain_all_pages();
	return nr_free_pages();
}

/* Producer on CPU 0, consumer on CPU 1; all pages back at the end. */
static void producer_consumer(int nr_nodes)
{
	static const int cpu_node_1[2] = {0, 0}, cpu_node_2[2] = {0, 1};
	struct slab_debug_counts dc;
	pthread_t a, b;

	CHECK(mm_host_boot(nr_nodes, 32u << 20, 2,
			   nr_nodes == 1 ? cpu_node_1 : cpu_node_2) == 0);
	unsigned long baseline = settled_free_pages();
	struct pc *pc = calloc(1, sizeof(*pc));
	pc->s = create_cache("stress", OBJ_SIZE);
	pc->producer_cpu = 0;
	pc->consumer_cpu = 1;
	pc->expect_nid = 0;
	pthread_create(&a, NULL, producer, pc);
	pthread_create(&b, NULL, consumer, pc);
	pthread_join(a, NULL);
	pthread_join(b, NULL);

	char buf[4096];
	slabinfo_text(buf, sizeof(buf));
	CHECK(strstr(buf, "stress") != NULL);
	kmem_cache_destroy(pc->s);
	slab_debug_counts(&dc);
	CHECK(dc.destroy_busy == 0);
	unsigned long end = settled_free_pages();
	if (end != baseline)
		fprintf(stderr, "pages: baseline %lu, end %lu\n", baseline,
			end);
	CHECK(end == baseline);
	free(pc);
	CHECK(mm_test_inject_check("stress_slab") == 0);
	mm_host_shutdown();
	printf("stress_slab: producer/consumer on %d node(s): %d objects, "
	       "every page back\n",
	       nr_nodes, OBJECTS);
}

struct churn {
	struct kmem_cache *s;
	int cpu;
	atomic_int *stop;
};

static void *churn(void *arg)
{
	struct churn *ch = arg;
	void *held[300];

	if (mm_host_set_cpu(ch->cpu))
		abort(); /* refused: the message says why */
	for (int round = 0; round < 400; round++) {
		int n = 1 + (round * 37) % 300;
		for (int i = 0; i < n; i++) {
			held[i] = (round & 1) ? kmem_cache_alloc(ch->s, 0)
					      : kmalloc(8 + (i * 13) % 3000, 0);
			if (!held[i] && mm_test_null_ok())
				continue; /* injected: one object fewer */
			CHECK(held[i] != NULL);
			memset(held[i], ch->cpu, 8);
		}
		for (int i = 0; i < n; i++) {
			if (!held[i])
				continue;
			if (round & 1)
				kmem_cache_free(ch->s, held[i]);
			else
				kfree(held[i]);
		}
	}
	kmem_cache_shrink(ch->s);
	return NULL;
}

static void *reader(void *arg)
{
	struct churn *ch = arg;
	static char buf[1 << 16];

	if (mm_host_set_cpu(ch->cpu))
		abort(); /* refused: the message says why */
	while (!atomic_load(ch->stop)) {
		CHECK(slabinfo_json(buf, sizeof(buf)) < (int)sizeof(buf));
		CHECK(slabinfo_text(buf, sizeof(buf)) < (int)sizeof(buf));
	}
	return NULL;
}

/* Two CPUs churn (cache and kmalloc) while a third reads slabinfo. */
static void churn_with_reader(void)
{
	static const int cpu_node[3] = {0, 1, 0};
	atomic_int stop = 0;
	pthread_t t[3];
	struct churn ch[3];

	CHECK(mm_host_boot(2, 32u << 20, 3, cpu_node) == 0);
	unsigned long baseline = settled_free_pages();
	struct kmem_cache *s = create_cache("churn", 192);
	for (int i = 0; i < 3; i++)
		ch[i] = (struct churn){s, i, &stop};
	pthread_create(&t[2], NULL, reader, &ch[2]);
	pthread_create(&t[0], NULL, churn, &ch[0]);
	pthread_create(&t[1], NULL, churn, &ch[1]);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	atomic_store(&stop, 1);
	pthread_join(t[2], NULL);
	struct slab_debug_counts dc;
	kmem_cache_destroy(s);
	slab_debug_counts(&dc);
	CHECK(dc.destroy_busy == 0);
	/* kmalloc classes keep their slabs, but no object is in use */
	static char buf[1 << 16];
	slabinfo_json(buf, sizeof(buf));
	long active = 0;
	for (char *p = strstr(buf, "\"active_objs\":"); p;
	     p = strstr(p + 1, "\"active_objs\":"))
		active += strtol(p + 14, NULL, 10);
	CHECK(active == 0);
	CHECK(settled_free_pages() < baseline);
	CHECK(mm_test_inject_check("stress_slab") == 0);
	mm_host_shutdown();
	printf("stress_slab: churn with slabinfo reader: ok\n");
}

int main(void)
{
	producer_consumer(1);
	producer_consumer(2);
	churn_with_reader();
	if (failures)
		fprintf(stderr, "stress_slab: %d checks failed\n", failures);
	return failures ? 1 : 0;
}
