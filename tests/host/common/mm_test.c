/* Shared host-test helpers: see mm_test.h. */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "mm_test.h"
#include "zone.h"

void mm_test_boot(int nodes, size_t mib, int cpus)
{
	assert_int_equal(mm_host_boot(nodes, mib << 20, cpus, NULL), 0);
	mm_debug_set(false);
	mm_debug_set_quiet(false);
	mm_debug_reset_counts();
}

int mm_test_setup_1node(void **state)
{
	(void)state;
	mm_test_boot(1, 16, 1);
	return 0;
}

int mm_test_setup_2nodes(void **state)
{
	(void)state;
	mm_test_boot(2, 16, 2);
	return 0;
}

int mm_test_setup_4nodes(void **state)
{
	(void)state;
	mm_test_boot(4, 8, 4);
	return 0;
}

int mm_test_setup_1node_debug(void **state)
{
	mm_test_setup_1node(state);
	mm_debug_set(true);
	mm_debug_set_quiet(true);
	return 0;
}

const char *mm_test_last_report(void)
{
	static char report[MM_DEBUG_REPORT_MAX];

	mm_debug_last_report(report, sizeof(report));
	return report;
}

void mm_test_assert_report_says(const char *want)
{
	const char *report = mm_test_last_report();

	if (!strstr(report, want))
		fail_msg("report \"%s\" lacks \"%s\"", report, want);
}

void mm_test_assert_caller_in(void (*fn)(void **))
{
	uintptr_t c = (uintptr_t)mm_debug_last_caller();
	uintptr_t f = (uintptr_t)fn;

	assert_true(c > f && c < f + 4096);
}

int mm_test_teardown(void **state)
{
	(void)state;
	mm_debug_set(false);
	mm_debug_set_quiet(false);
	mm_host_shutdown();
	return 0;
}

struct on_cpu {
	int cpu;
	void (*fn)(void *);
	void *arg;
	int set_cpu; /* what mm_host_set_cpu said */
};

static void *on_cpu_thread(void *p)
{
	struct on_cpu *c = p;
	c->set_cpu = mm_host_set_cpu(c->cpu);
	if (c->set_cpu == 0)
		c->fn(c->arg);
	return NULL;
}

void mm_test_on_cpu(int cpu, void (*fn)(void *), void *arg)
{
	struct on_cpu c = {cpu, fn, arg, -1};
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, on_cpu_thread, &c), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(c.set_cpu, 0); /* the machine has that CPU */
}

/* A live CPU's thread: one job slot, handed over under the mutex. */
struct mm_test_cpu {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	void (*fn)(void *); /* the job posted, NULL once it returned */
	void *arg;
	bool stop;
	int cpu, set_cpu;
};

static void *live_cpu_thread(void *p)
{
	struct mm_test_cpu *c = p;

	pthread_mutex_lock(&c->lock);
	c->set_cpu = mm_host_set_cpu(c->cpu);
	pthread_cond_broadcast(&c->cond);
	for (;;) {
		while (!c->fn && !c->stop)
			pthread_cond_wait(&c->cond, &c->lock);
		if (!c->fn)
			break;
		pthread_mutex_unlock(&c->lock);
		c->fn(c->arg);
		pthread_mutex_lock(&c->lock);
		c->fn = NULL;
		pthread_cond_broadcast(&c->cond);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

struct mm_test_cpu *mm_test_cpu_start(int cpu)
{
	struct mm_test_cpu *c = calloc(1, sizeof(*c));

	assert_non_null(c);
	c->cpu = cpu;
	c->set_cpu = 1; /* not yet said */
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->cond, NULL);
	assert_int_equal(pthread_create(&c->thread, NULL, live_cpu_thread, c),
			 0);
	pthread_mutex_lock(&c->lock);
	while (c->set_cpu == 1)
		pthread_cond_wait(&c->cond, &c->lock);
	pthread_mutex_unlock(&c->lock);
	assert_int_equal(c->set_cpu, 0); /* the machine has that CPU */
	return c;
}

void mm_test_cpu_post(struct mm_test_cpu *c, void (*fn)(void *), void *arg)
{
	pthread_mutex_lock(&c->lock);
	assert_null(c->fn); /* one job at a time */
	c->fn = fn;
	c->arg = arg;
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
}

void mm_test_cpu_wait(struct mm_test_cpu *c)
{
	pthread_mutex_lock(&c->lock);
	while (c->fn)
		pthread_cond_wait(&c->cond, &c->lock);
	pthread_mutex_unlock(&c->lock);
}

void mm_test_cpu_run(struct mm_test_cpu *c, void (*fn)(void *), void *arg)
{
	mm_test_cpu_post(c, fn, arg);
	mm_test_cpu_wait(c);
}

void mm_test_cpu_stop(struct mm_test_cpu *c)
{
	pthread_mutex_lock(&c->lock);
	c->stop = true;
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
	assert_int_equal(pthread_join(c->thread, NULL), 0);
	pthread_cond_destroy(&c->cond);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

unsigned long mm_test_free_blocks(int nid, unsigned int order)
{
	struct zone *z = &mm_zones[nid];
	unsigned long flags = mm_spin_lock_irqsave(&z->lock);
	unsigned long n = z->free_area[order].nr_free;
	mm_spin_unlock_irqrestore(&z->lock, flags);
	return n;
}

unsigned long mm_test_node_free(int nid)
{
	return (unsigned long)atomic_load(&mm_zones[nid].free_pages);
}

unsigned long mm_test_drain_and_verify(void)
{
	drain_all_pages();
	long n = mm_verify_free_lists();
	assert_true(n >= 0);
	assert_int_equal((unsigned long)n, nr_free_pages());
	return (unsigned long)n;
}

struct page **mm_test_take_node(int nid, size_t *n_out)
{
	size_t cap = 1024, n = 0;
	struct page **pages = malloc(cap * sizeof(*pages)), *pg;

	assert_non_null(pages);
	while ((pg = alloc_pages_node(nid, __GFP_THISNODE | __GFP_NOWARN, 0))) {
		if (n == cap) {
			struct page **more =
				realloc(pages, 2 * cap * sizeof(*pages));
			assert_non_null(more);
			pages = more;
			cap *= 2;
		}
		pages[n++] = pg;
	}
	*n_out = n;
	return pages;
}

void mm_test_give_back(struct page **pages, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (pages[i])
			__free_pages(pages[i], 0);
	free(pages);
}
