/*
 * The allocators' trace points (mm/mm_trace.h), seen through the host
 * world's hook (mm_host_trace_hook): nothing is recorded while the mm
 * class is off; on, each allocator's alloc and free record what they
 * handed out, to whom (the caller) and from where (order, node, cache),
 * a free of another node's object is a remote free, and a drain is a
 * balanced span.
 */
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "mm_test.h"

#include "libc/trace_event.h"
#include "page_frag.h"
#include "qmempool.h"

#define MAX_SEEN 4096

struct seen {
	const struct trace_desc *ev;
	int phase;
	uint64_t v[4];
};

/* What the hook recorded; the simulated CPUs write it one at a time
 * (mm_test_on_cpu waits for its thread), the lock keeps TSan's view
 * simple. */
static struct seen seen[MAX_SEEN];
static int nr_seen;
static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;

static void hook(const struct trace_desc *ev, int phase, uint64_t a, uint64_t b,
		 uint64_t c, uint32_t d)
{
	pthread_mutex_lock(&seen_lock);
	if (nr_seen < MAX_SEEN)
		seen[nr_seen++] = (struct seen){ev, phase, {a, b, c, d}};
	pthread_mutex_unlock(&seen_lock);
}

/* Events seen so far, read while another simulated CPU may add some. */
static int seen_so_far(void)
{
	int n;

	pthread_mutex_lock(&seen_lock);
	n = nr_seen;
	pthread_mutex_unlock(&seen_lock);
	return n;
}

/* The mm class on (what was seen is forgotten) or off (it is kept). */
static void trace_mm(bool on)
{
	if (on)
		nr_seen = 0;
	atomic_store(&trace_class_on[TRACE_MM], on);
}

static int setup(void **state)
{
	int err = mm_test_setup_2nodes(state);

	mm_host_trace_hook = hook;
	nr_seen = 0;
	return err;
}

static int teardown(void **state)
{
	atomic_store(&trace_class_on[TRACE_MM], 0);
	mm_host_trace_hook = NULL;
	return mm_test_teardown(state);
}

/* The first event named name at or after *from (then past it), or NULL. */
static const struct seen *find(const char *name, int *from)
{
	for (int i = *from; i < nr_seen; i++) {
		if (!strcmp(seen[i].ev->name, name)) {
			*from = i + 1;
			return &seen[i];
		}
	}
	return NULL;
}

static const struct seen *find_first(const char *name)
{
	int from = 0;

	return find(name, &from);
}

/* Events named name recorded since the class went on. */
static int count(const char *name)
{
	int n = 0;

	for (int i = 0; i < nr_seen; i++)
		n += !strcmp(seen[i].ev->name, name);
	return n;
}

/* The value the description names arg, of event s. */
static uint64_t arg(const struct seen *s, const char *name)
{
	for (int i = 0; i < 4; i++)
		if (s->ev->arg[i].name && !strcmp(s->ev->arg[i].name, name))
			return s->v[i];
	fail_msg("event %s has no value %s", s->ev->name, name);
	return 0;
}

/* The caller value of s lies in fn's body (its first 4 KiB). */
static void assert_caller_in(const struct seen *s, void (*fn)(void **))
{
	uintptr_t c = (uintptr_t)arg(s, "caller"), f = (uintptr_t)fn;

	assert_true(c > f && c < f + 4096);
}

static void test_nothing_is_recorded_while_the_class_is_off(void **state)
{
	struct kmem_cache *s = kmem_cache_create("off", 64, 0, 0, NULL);
	struct page *pg = alloc_pages(GFP_KERNEL, 0);
	void *k = kmalloc(100, GFP_KERNEL),
	     *big = kmalloc(3 * 4096, GFP_KERNEL);
	void *o = kmem_cache_alloc(s, GFP_KERNEL);

	(void)state;
	kmem_cache_free(s, o);
	kfree(big);
	kfree(k);
	__free_pages(pg, 0);
	drain_all_pages();
	kmem_cache_destroy(s);
	assert_int_equal(nr_seen, 0);
}

static void
test_page_alloc_and_free_record_block_caller_order_node(void **state)
{
	struct page *pg;
	const struct seen *a, *f;

	(void)state;
	trace_mm(true);
	pg = alloc_pages_node(1, GFP_KERNEL, 2);
	assert_non_null(pg);
	__free_pages(pg, 2);
	trace_mm(false);

	a = find_first("page_alloc");
	f = find_first("page_free");
	assert_non_null(a);
	assert_non_null(f);
	assert_int_equal(a->phase, TRACE_INSTANT);
	assert_int_equal(arg(a, "page"), (uintptr_t)page_address(pg));
	assert_int_equal(arg(a, "order"), 2);
	assert_int_equal(arg(a, "node"), 1);
	assert_caller_in(
		a, test_page_alloc_and_free_record_block_caller_order_node);
	assert_int_equal(arg(f, "page"), (uintptr_t)page_address(pg));
	assert_int_equal(arg(f, "order"), 2);
	assert_int_equal(arg(f, "node"), 1);
	assert_caller_in(
		f, test_page_alloc_and_free_record_block_caller_order_node);
}

/* Order 0 on this CPU's node is the per-CPU lists' fast path: traced, it
 * takes the general path and is recorded all the same. */
static void test_the_fast_path_is_recorded_too(void **state)
{
	struct page *pg[8];

	(void)state;
	trace_mm(true);
	for (int i = 0; i < 8; i++)
		pg[i] = alloc_pages(GFP_KERNEL, 0);
	for (int i = 0; i < 8; i++)
		__free_pages(pg[i], 0);
	trace_mm(false);
	assert_int_equal(count("page_alloc"), 8);
	assert_int_equal(count("page_free"), 8);
}

static void test_slab_alloc_and_free_name_the_cache(void **state)
{
	struct kmem_cache *s = kmem_cache_create("traced", 200, 0, 0, NULL);
	const struct seen *a, *f;
	void *obj;

	(void)state;
	trace_mm(true);
	obj = kmem_cache_alloc(s, GFP_KERNEL);
	kmem_cache_free(s, obj);
	trace_mm(false);
	kmem_cache_destroy(s);

	a = find_first("slab_alloc");
	f = find_first("slab_free");
	assert_non_null(a);
	assert_non_null(f);
	assert_int_equal(arg(a, "obj"), (uintptr_t)obj);
	assert_string_equal((const char *)arg(a, "cache"), "traced");
	assert_int_equal(arg(a, "size"), 200);
	assert_caller_in(a, test_slab_alloc_and_free_name_the_cache);
	assert_int_equal(arg(f, "obj"), (uintptr_t)obj);
	assert_caller_in(f, test_slab_alloc_and_free_name_the_cache);
	/* The first allocation of a new cache filled the magazine. */
	assert_non_null(find_first("slab_refill"));
}

static void test_kmalloc_small_is_its_cache_and_large_its_own(void **state)
{
	const struct seen *a, *l, *f;
	void *small, *large;

	(void)state;
	trace_mm(true);
	small = kmalloc(50, GFP_KERNEL);
	large = kmalloc(5 * 4096, GFP_KERNEL);
	kfree(large);
	kfree(small);
	trace_mm(false);

	a = find_first("slab_alloc");
	assert_non_null(a);
	assert_int_equal(arg(a, "obj"), (uintptr_t)small);
	assert_string_equal((const char *)arg(a, "cache"), "kmalloc-64");
	l = find_first("kmalloc_large");
	f = find_first("kfree_large");
	assert_non_null(l);
	assert_non_null(f);
	assert_int_equal(arg(l, "ptr"), (uintptr_t)large);
	assert_int_equal(arg(l, "size"), 5 * 4096);
	assert_int_equal(arg(l, "order"), 3);
	assert_caller_in(l, test_kmalloc_small_is_its_cache_and_large_its_own);
	assert_int_equal(arg(f, "ptr"), (uintptr_t)large);
}

struct remote {
	struct kmem_cache *s;
	void *obj;
};

static void free_there(void *p)
{
	struct remote *r = p;

	kmem_cache_free(r->s, r->obj);
}

/* CPU 0 (node 0) frees an object of node 1: a remote free, naming it. */
static void test_a_free_of_another_nodes_object_is_a_remote_free(void **state)
{
	struct remote r = {kmem_cache_create("far", 64, 0, 0, NULL), NULL};
	const struct seen *f;

	(void)state;
	r.obj = kmem_cache_alloc_node(r.s, GFP_KERNEL, 1);
	assert_non_null(r.obj);
	trace_mm(true);
	mm_test_on_cpu(0, free_there, &r);
	trace_mm(false);
	kmem_cache_destroy(r.s);

	f = find_first("slab_remote_free");
	assert_non_null(f);
	assert_int_equal(arg(f, "obj"), (uintptr_t)r.obj);
	assert_int_equal(arg(f, "node"), 1);
	assert_int_equal(count("slab_free"), 0);
}

/* drain_all_pages is a span: begin first, end last, the per-CPU lists'
 * drains inside. */
static void test_drain_all_pages_is_a_balanced_span(void **state)
{
	struct page *pg[4];
	const struct seen *b, *e;
	int from = 0;

	(void)state;
	for (int i = 0; i < 4; i++)
		pg[i] = alloc_pages(GFP_KERNEL, 0);
	for (int i = 0; i < 4; i++)
		__free_pages(pg[i], 0); /* onto CPU 0's list */
	trace_mm(true);
	drain_all_pages();
	trace_mm(false);

	b = find("drain_all_pages", &from);
	assert_non_null(b);
	assert_int_equal(b->phase, TRACE_BEGIN);
	assert_non_null(find("pcp_drain", &from));
	e = find("drain_all_pages", &from);
	assert_non_null(e);
	assert_int_equal(e->phase, TRACE_END);
	assert_ptr_equal(&seen[nr_seen - 1], e);
}

static void test_page_frag_and_qmempool_record_alloc_and_free(void **state)
{
	struct page_frag_cache nc = {0};
	struct kmem_cache *s = kmem_cache_create("qmp", 128, 0, 0, NULL);
	struct qmempool *pool = qmempool_create(QMEMPOOL_BULK, 128, 0, s, 0);
	const struct seen *a, *f;
	void *frag, *obj;

	(void)state;
	assert_non_null(pool);
	trace_mm(true);
	frag = page_frag_alloc(&nc, 300, GFP_KERNEL);
	page_frag_free(frag);
	obj = qmempool_alloc(pool, GFP_KERNEL);
	qmempool_free(pool, obj);
	trace_mm(false);
	page_frag_cache_drain(&nc);
	qmempool_destroy(pool);
	kmem_cache_destroy(s);

	a = find_first("page_frag_alloc");
	f = find_first("page_frag_free");
	assert_non_null(a);
	assert_non_null(f);
	assert_int_equal(arg(a, "addr"), (uintptr_t)frag);
	assert_int_equal(arg(a, "size"), 300);
	assert_int_equal(arg(f, "addr"), (uintptr_t)frag);
	assert_non_null(find_first("page_frag_refill"));
	a = find_first("qmempool_alloc");
	f = find_first("qmempool_free");
	assert_non_null(a);
	assert_non_null(f);
	assert_int_equal(arg(a, "obj"), (uintptr_t)obj);
	assert_string_equal((const char *)arg(a, "cache"), "qmp");
	assert_int_equal(arg(f, "obj"), (uintptr_t)obj);
	assert_non_null(find_first("qmempool_refill"));
}

static mm_spinlock_t contended = MM_SPINLOCK_INIT;

static void take_contended(void *arg)
{
	(void)arg;
	mm_spin_lock(&contended);
	mm_spin_unlock(&contended);
}

/* The lock class: a wait for a held spinlock is a span on the waiting
 * CPU, naming the lock; a lock taken at once records nothing. */
static void test_a_spinlock_wait_is_a_span_of_the_lock_class(void **state)
{
	struct mm_test_cpu *cpu1 = mm_test_cpu_start(1);
	const struct timespec ms = {0, 1000000};
	const struct seen *b, *e;
	int from = 0;

	(void)state;
	nr_seen = 0;
	atomic_store(&trace_class_on[TRACE_LOCK], 1);
	take_contended(NULL); /* free: no wait */
	assert_int_equal(nr_seen, 0);
	mm_spin_lock(&contended);
	mm_test_cpu_post(cpu1, take_contended, NULL);
	/* CPU 1 finds it held and begins waiting (at most 5 s) */
	for (int i = 0; i < 5000 && seen_so_far() == 0; i++)
		nanosleep(&ms, NULL);
	mm_spin_unlock(&contended);
	mm_test_cpu_wait(cpu1);
	mm_test_cpu_stop(cpu1);
	atomic_store(&trace_class_on[TRACE_LOCK], 0);

	b = find("spin_wait", &from);
	e = find("spin_wait", &from);
	assert_non_null(b);
	assert_non_null(e);
	assert_int_equal(b->phase, TRACE_BEGIN);
	assert_int_equal(e->phase, TRACE_END);
	assert_int_equal(arg(b, "lock"), (uintptr_t)&contended);
	assert_int_equal(nr_seen, 2);
}

static void test_class_names_parse_to_masks(void **state)
{
	(void)state;
	assert_int_equal(trace_classes_parse("mm"), 1 << TRACE_MM);
	assert_int_equal(trace_classes_parse("mm,net"),
			 (1 << TRACE_MM) | (1 << TRACE_NET));
	assert_int_equal(trace_classes_parse("all"),
			 (1 << TRACE_NR_CLASSES) - 1);
	assert_int_equal(trace_classes_parse("none"), 0);
	assert_int_equal(trace_classes_parse(""), 0);
	assert_int_equal(trace_classes_parse("mmm"), -1);
	assert_int_equal(trace_classes_parse("mm,"), -1);
	assert_int_equal(trace_classes_parse("mm,,net"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(test_nothing_is_recorded_while_the_class_is_off),
		T(test_page_alloc_and_free_record_block_caller_order_node),
		T(test_the_fast_path_is_recorded_too),
		T(test_slab_alloc_and_free_name_the_cache),
		T(test_kmalloc_small_is_its_cache_and_large_its_own),
		T(test_a_free_of_another_nodes_object_is_a_remote_free),
		T(test_drain_all_pages_is_a_balanced_span),
		T(test_page_frag_and_qmempool_record_alloc_and_free),
		T(test_a_spinlock_wait_is_a_span_of_the_lock_class),
		T(test_class_names_parse_to_masks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
