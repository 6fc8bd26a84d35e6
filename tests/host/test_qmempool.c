/*
 * qmempool specification: create validation, the refill paths (localq,
 * sharedq, slab), the spill paths (localq -> sharedq -> slab), memory
 * shortage, destroy returning every object, NUMA placement and remote
 * frees, debug refusal of foreign objects, and the statistics.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm_test.h"

#include "qmempool.h"

#define OBJ 256

static struct kmem_cache *cache;

static int boot1(void **state)
{
	mm_test_setup_1node(state);
	cache = kmem_cache_create("qmp_test", OBJ, 0, 0, NULL);
	assert_non_null(cache);
	return 0;
}

/* 2 nodes, CPU 0 on node 0, CPU 1 on node 1. */
static int boot2(void **state)
{
	mm_test_setup_2nodes(state);
	cache = kmem_cache_create("qmp_test", OBJ, 0, 0, NULL);
	assert_non_null(cache);
	return 0;
}

static struct qmempool_stats stats(struct qmempool *p)
{
	struct qmempool_stats st;

	qmempool_get_stats(p, &st);
	return st;
}

static int node_of(void *obj)
{
	return page_to_nid(virt_to_page(obj));
}

/* The cache holds no object outside its slabs: destroy finds none out. */
static void assert_cache_destroys_clean(void)
{
	struct slab_debug_counts before, after;

	slab_debug_counts(&before);
	kmem_cache_destroy(cache);
	slab_debug_counts(&after);
	assert_int_equal(after.destroy_busy, before.destroy_busy);
	cache = NULL;
}

/* ---- create validation ---- */

static void create_refuses_null_cache(void **state)
{
	(void)state;
	assert_null(qmempool_create(32, 128, 0, NULL, GFP_KERNEL));
}

static void create_refuses_localq_smaller_than_bulk(void **state)
{
	(void)state;
	assert_null(qmempool_create(QMEMPOOL_BULK / 2, 128, 0, cache, 0));
	struct qmempool *p = qmempool_create(QMEMPOOL_BULK, 128, 0, cache, 0);

	assert_non_null(p);
	qmempool_destroy(p);
}

static void create_refuses_localq_not_power_of_two(void **state)
{
	(void)state;
	assert_null(qmempool_create(48, 128, 0, cache, GFP_KERNEL));
}

static void
create_refuses_sharedq_smaller_than_bulk_times_multiplier(void **state)
{
	uint32_t min = QMEMPOOL_BULK * QMEMPOOL_REFILL_MULTIPLIER;

	(void)state;
	assert_null(qmempool_create(32, min / 2, 0, cache, GFP_KERNEL));
	struct qmempool *p = qmempool_create(32, min, 0, cache, GFP_KERNEL);

	assert_non_null(p);
	qmempool_destroy(p);
}

static void create_refuses_sharedq_not_power_of_two(void **state)
{
	(void)state;
	assert_null(qmempool_create(32, 96, 0, cache, GFP_KERNEL));
}

static void create_refuses_queues_above_the_limit(void **state)
{
	(void)state;
	assert_null(qmempool_create(QMEMPOOL_MAX_QSZ * 2, 128, 0, cache, 0));
	assert_null(qmempool_create(32, QMEMPOOL_MAX_QSZ * 2, 0, cache, 0));
}

static void create_refuses_prealloc_above_sharedq(void **state)
{
	(void)state;
	assert_null(qmempool_create(32, 128, 129, cache, GFP_KERNEL));
}

/* ---- refill and spill paths ---- */

static void first_alloc_refills_a_bulk_from_the_slab(void **state)
{
	struct qmempool *p = qmempool_create(32, 128, 0, cache, GFP_KERNEL);
	void *obj;
	struct qmempool_stats st;

	(void)state;
	obj = qmempool_alloc(p, GFP_KERNEL);
	assert_non_null(obj);
	st = stats(p);
	assert_int_equal(st.slab_refill, 1);
	assert_int_equal(st.sharedq_refill, 0);
	assert_int_equal(st.in_localq, QMEMPOOL_BULK - 1);
	qmempool_free(p, obj);
	qmempool_destroy(p);
	assert_cache_destroys_clean();
}

static void alloc_refills_from_the_sharedq_before_the_slab(void **state)
{
	struct qmempool *p = qmempool_create(32, 128, 16, cache, GFP_KERNEL);
	void *obj;
	struct qmempool_stats st;

	(void)state;
	assert_int_equal(stats(p).in_sharedq[0], 16);
	obj = qmempool_alloc(p, GFP_KERNEL);
	assert_non_null(obj);
	st = stats(p);
	assert_int_equal(st.sharedq_refill, 1);
	assert_int_equal(st.slab_refill, 0);
	assert_int_equal(st.in_sharedq[0], 0);
	assert_int_equal(st.in_localq, 15);
	qmempool_free(p, obj);
	qmempool_destroy(p);
	assert_cache_destroys_clean();
}

static void alloc_from_a_filled_localq_is_a_hit(void **state)
{
	struct qmempool *p = qmempool_create(32, 128, 0, cache, GFP_KERNEL);
	void *a, *b;

	(void)state;
	a = qmempool_alloc(p, GFP_KERNEL); /* refill */
	b = qmempool_alloc(p, GFP_KERNEL); /* from the localq */
	assert_non_null(b);
	assert_ptr_not_equal(a, b);
	assert_int_equal(stats(p).localq_hit, 1);
	assert_int_equal(stats(p).slab_refill, 1);
	qmempool_free(p, a);
	qmempool_free(p, b);
	qmempool_destroy(p);
}

static void full_localq_spills_its_oldest_bulk_to_the_sharedq(void **state)
{
	struct qmempool *p = qmempool_create(32, 128, 0, cache, GFP_KERNEL);
	void *objs[48];
	struct qmempool_stats st;

	(void)state;
	for (int i = 0; i < 48; i++)
		assert_non_null(objs[i] = qmempool_alloc(p, GFP_KERNEL));
	assert_int_equal(stats(p).in_localq, 0);
	for (int i = 0; i < 48; i++)
		qmempool_free(p, objs[i]);
	/* 32 fill the localq, the 33rd spills 16, 15 more refill it. */
	st = stats(p);
	assert_int_equal(st.sharedq_spill, 1);
	assert_int_equal(st.in_sharedq[0], 16);
	assert_int_equal(st.in_localq, 32);
	assert_int_equal(st.slab_free, 0);
	qmempool_destroy(p);
	assert_cache_destroys_clean();
}

static void alloc_returns_the_most_recently_freed_object(void **state)
{
	struct qmempool *p = qmempool_create(32, 128, 0, cache, GFP_KERNEL);
	void *a = qmempool_alloc(p, GFP_KERNEL);
	void *b = qmempool_alloc_softirq(p, GFP_KERNEL);

	(void)state;
	qmempool_free(p, a);
	qmempool_free_softirq(p, b);
	/* LIFO: the cache-hot object comes back first. */
	assert_ptr_equal(qmempool_alloc(p, GFP_KERNEL), b);
	assert_ptr_equal(qmempool_alloc_softirq(p, GFP_KERNEL), a);
	qmempool_free(p, a);
	qmempool_free(p, b);
	qmempool_destroy(p);
	assert_cache_destroys_clean();
}

/* The spill takes the top of the stack straight out of the array: the
 * 16 freed last go to the sharedq, the older 16 stay, and the LIFO order
 * of what stays holds. */
static void spill_moves_the_top_half_to_the_sharedq(void **state)
{
	struct qmempool *p = qmempool_create(32, 128, 0, cache, GFP_KERNEL);
	void *objs[48], *shared[16];

	(void)state;
	/* Three refills of 16: the localq is empty, 48 objects out. */
	for (int i = 0; i < 48; i++)
		assert_non_null(objs[i] = qmempool_alloc(p, GFP_KERNEL));
	for (int i = 0; i < 33; i++)
		qmempool_free(p, objs[i]);
	assert_int_equal(stats(p).in_localq, 17);
	assert_int_equal(alf_mc_dequeue(p->sharedq[0], shared, 16), 16);
	for (int i = 0; i < 16; i++)
		assert_ptr_equal(shared[i], objs[16 + i]);
	assert_int_equal(alf_mp_enqueue(p->sharedq[0], shared, 16), 16);
	assert_ptr_equal(qmempool_alloc(p, GFP_KERNEL), objs[32]);
	for (int i = 15; i >= 0; i--)
		assert_ptr_equal(qmempool_alloc(p, GFP_KERNEL), objs[i]);
	for (int i = 0; i < 16; i++)
		qmempool_free(p, objs[i]);
	for (int i = 32; i < 48; i++)
		qmempool_free(p, objs[i]);
	qmempool_destroy(p);
	assert_cache_destroys_clean();
}

/* A deep localq moves half of itself at a time: 256 from the slab at
 * once, 256 to the sharedq, and N(256) then never leaves the CPU. */
static void deep_localq_refills_and_spills_half_of_itself(void **state)
{
	struct qmempool *p = qmempool_create(512, 1024, 0, cache, GFP_KERNEL);
	static void *objs[768];
	struct qmempool_stats st;

	(void)state;
	objs[0] = qmempool_alloc(p, GFP_KERNEL);
	assert_int_equal(stats(p).slab_in, 256);
	assert_int_equal(stats(p).in_localq, 255);
	for (int i = 1; i < 768; i++) /* three refills: the localq empty */
		assert_non_null(objs[i] = qmempool_alloc(p, GFP_KERNEL));
	for (int i = 0; i < 513; i++)
		qmempool_free(p, objs[i]);
	st = stats(p);
	assert_int_equal(st.sharedq_spill, 1);
	assert_int_equal(st.in_sharedq[0], 256);
	assert_int_equal(st.in_localq, 257);
	for (int i = 513; i < 768; i++)
		qmempool_free(p, objs[i]);
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < 256; i++)
			objs[i] = qmempool_alloc(p, GFP_KERNEL);
		for (int i = 0; i < 256; i++)
			qmempool_free(p, objs[i]);
	}
	assert_int_equal(stats(p).sharedq_refill, 0);
	assert_int_equal(stats(p).sharedq_spill, st.sharedq_spill);
	qmempool_destroy(p);
	assert_cache_destroys_clean();
}

static void full_sharedq_sends_the_bulk_back_to_the_slab(void **state)
{
	struct qmempool *p = qmempool_create(16, 32, 0, cache, GFP_KERNEL);
	void *objs[96];
	struct qmempool_stats st;

	(void)state;
	for (int i = 0; i < 96; i++)
		assert_non_null(objs[i] = qmempool_alloc(p, GFP_KERNEL));
	for (int i = 0; i < 96; i++)
		qmempool_free(p, objs[i]);
	st = stats(p);
	assert_int_equal(st.in_sharedq[0], 32); /* full */
	assert_true(st.slab_free > 0);
	/* Nothing lost: every object is in a queue or back in the slab. */
	assert_int_equal(st.in_localq + st.in_sharedq[0] + st.slab_free, 96);
	qmempool_destroy(p);
	assert_cache_destroys_clean();
}

static void steady_state_n256_never_touches_the_slab(void **state)
{
	struct qmempool *p = qmempool_create(32, 256, 0, cache, GFP_KERNEL);
	void *objs[256];
	struct qmempool_stats a, b;

	(void)state;
	for (int round = 0; round < 3; round++) {
		if (round == 1)
			a = stats(p);
		for (int i = 0; i < 256; i++)
			assert_non_null(objs[i] = qmempool_alloc(p, 0));
		for (int i = 0; i < 256; i++)
			qmempool_free(p, objs[i]);
	}
	b = stats(p);
	assert_int_equal(b.slab_refill, a.slab_refill);
	assert_int_equal(b.slab_free, 0);
	assert_int_equal(b.in_localq + b.in_sharedq[0], 256);
	qmempool_destroy(p);
	assert_cache_destroys_clean();
}

static void softirq_variants_share_the_same_queues(void **state)
{
	struct qmempool *p = qmempool_create(32, 128, 0, cache, GFP_KERNEL);
	void *a = qmempool_alloc_softirq(p, GFP_KERNEL);
	void *b = qmempool_alloc(p, GFP_KERNEL);

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	qmempool_free_softirq(p, a);
	qmempool_free(p, b);
	assert_int_equal(stats(p).alloc, 2);
	assert_int_equal(stats(p).outstanding, 0);
	assert_int_equal(stats(p).in_localq, 16);
	qmempool_destroy(p);
	assert_cache_destroys_clean();
}

static void outstanding_counts_objects_handed_out(void **state)
{
	struct qmempool *p = qmempool_create(16, 32, 8, cache, GFP_KERNEL);
	void *objs[40];

	(void)state;
	for (int i = 0; i < 40; i++)
		objs[i] = qmempool_alloc(p, GFP_KERNEL);
	assert_int_equal(stats(p).outstanding, 40);
	assert_int_equal(stats(p).alloc, 40);
	for (int i = 0; i < 40; i++)
		qmempool_free(p, objs[i]);
	assert_int_equal(stats(p).outstanding, 0);
	qmempool_destroy(p);
	assert_cache_destroys_clean();
}

static void free_of_null_is_ignored(void **state)
{
	struct qmempool *p = qmempool_create(32, 128, 0, cache, GFP_KERNEL);

	(void)state;
	qmempool_free(p, NULL);
	qmempool_free_softirq(p, NULL);
	assert_int_equal(stats(p).in_localq, 0);
	assert_int_equal(stats(p).outstanding, 0);
	qmempool_destroy(p);
}

/* ---- memory shortage ---- */

/* Take every object the machine can give; returns how many. */
static size_t exhaust(void ***out)
{
	size_t n = 0, cap = 1 << 16;
	void **v = malloc(cap * sizeof(*v));
	void *o;

	while ((o = kmem_cache_alloc(cache, __GFP_NOWARN)) != NULL) {
		if (n == cap) {
			void **bigger = realloc(v, (cap *= 2) * sizeof(*v));

			assert_non_null(bigger);
			v = bigger;
		}
		v[n++] = o;
	}
	*out = v;
	return n;
}

static void short_slab_still_hands_out_a_single_object(void **state)
{
	struct qmempool *p = qmempool_create(32, 128, 0, cache, GFP_KERNEL);
	void **held, *obj;
	size_t n = exhaust(&held);

	(void)state;
	assert_true(n > 1000);
	/* One object free: a bulk of 16 fails, a single one does not. */
	kmem_cache_free(cache, held[--n]);
	obj = qmempool_alloc(p, __GFP_NOWARN);
	assert_non_null(obj);
	assert_int_equal(stats(p).slab_refill, 1);
	assert_int_equal(stats(p).in_localq, 0);
	assert_int_equal(stats(p).alloc_fail, 0);
	qmempool_free(p, obj);
	kmem_cache_free_bulk(cache, n, held);
	free(held);
	qmempool_destroy(p);
	assert_cache_destroys_clean();
}

static void empty_slab_gives_null_and_counts_it(void **state)
{
	struct qmempool *p = qmempool_create(32, 128, 0, cache, GFP_KERNEL);
	void **held;
	size_t n = exhaust(&held);

	(void)state;
	assert_null(qmempool_alloc(p, __GFP_NOWARN));
	assert_null(qmempool_alloc_softirq(p, __GFP_NOWARN));
	assert_int_equal(stats(p).alloc_fail, 2);
	assert_int_equal(stats(p).alloc, 0);
	kmem_cache_free_bulk(cache, n, held);
	free(held);
	/* Memory is back: the pool works again. */
	void *obj = qmempool_alloc(p, GFP_KERNEL);
	assert_non_null(obj);
	qmempool_free(p, obj);
	qmempool_destroy(p);
	assert_cache_destroys_clean();
}

/* ---- destroy ---- */

static void destroy_returns_every_object_to_the_slab(void **state)
{
	struct qmempool *p = qmempool_create(32, 128, 64, cache, GFP_KERNEL);
	void *objs[100];
	unsigned long free_before;

	(void)state;
	for (int i = 0; i < 100; i++)
		objs[i] = qmempool_alloc(p, GFP_KERNEL);
	for (int i = 0; i < 100; i++)
		qmempool_free(p, objs[i]);
	assert_true(stats(p).in_localq + stats(p).in_sharedq[0] >= 100);
	qmempool_destroy(p);
	/* Every slab of the cache is now empty: destroy finds none busy. */
	free_before = nr_free_pages();
	assert_cache_destroys_clean();
	drain_all_pages();
	assert_true(nr_free_pages() > free_before);
}

static void objects_still_out_at_destroy_go_back_through_the_slab(void **state)
{
	struct qmempool *p = qmempool_create(32, 128, 0, cache, GFP_KERNEL);
	void *a = qmempool_alloc(p, GFP_KERNEL);
	void *b = qmempool_alloc(p, GFP_KERNEL);

	(void)state;
	qmempool_free(p, b);
	qmempool_destroy(p); /* reports one object still out */
	kmem_cache_free(cache, a);
	assert_cache_destroys_clean();
}

static void destroy_of_null_is_ignored(void **state)
{
	(void)state;
	qmempool_destroy(NULL);
}

/* ---- NUMA ---- */

struct cpu_job {
	struct qmempool *p;
	void *obj;
	int n;
	void **objs;
};

static void alloc_one(void *arg)
{
	struct cpu_job *j = arg;

	j->obj = qmempool_alloc(j->p, GFP_KERNEL);
}

static void free_one(void *arg)
{
	struct cpu_job *j = arg;

	qmempool_free(j->p, j->obj);
}

static void prealloc_fills_each_node_with_its_own_objects(void **state)
{
	struct qmempool *p = qmempool_create(32, 128, 20, cache, GFP_KERNEL);
	void *objs[20];

	(void)state;
	assert_int_equal(stats(p).in_sharedq[0], 20);
	assert_int_equal(stats(p).in_sharedq[1], 20);
	for (int nid = 0; nid < 2; nid++) {
		assert_int_equal(alf_mc_dequeue(p->sharedq[nid], objs, 20), 20);
		for (int i = 0; i < 20; i++)
			assert_int_equal(node_of(objs[i]), nid);
		assert_int_equal(alf_mp_enqueue(p->sharedq[nid], objs, 20), 20);
	}
	qmempool_destroy(p);
	assert_cache_destroys_clean();
}

static void cpu_gets_objects_of_its_own_node(void **state)
{
	struct qmempool *p = qmempool_create(32, 128, 16, cache, GFP_KERNEL);
	struct cpu_job j = {.p = p};
	void *objs[80];

	(void)state;
	for (int i = 0; i < 40; i++) { /* sharedq refill, then slab */
		mm_test_on_cpu(1, alloc_one, &j);
		assert_non_null(j.obj);
		assert_int_equal(node_of(j.obj), 1);
		objs[2 * i] = j.obj;
		objs[2 * i + 1] = qmempool_alloc(p, GFP_KERNEL); /* CPU 0 */
		assert_int_equal(node_of(objs[2 * i + 1]), 0);
	}
	assert_true(stats(p).sharedq_refill >= 2);
	assert_true(stats(p).slab_refill >= 2);
	qmempool_destroy(p); /* 80 objects out: reported, freed below */
	kmem_cache_free_bulk(cache, 80, objs);
	assert_cache_destroys_clean();
}

/* On a pool of two nodes every free takes the node lookup (the fast
 * path's push limit is 0 there), but a local object still lands in the
 * localq, which spills its top half when full, exactly as on one node. */
static void two_node_local_frees_fill_the_localq_then_spill(void **state)
{
	struct qmempool *p = qmempool_create(32, 128, 0, cache, GFP_KERNEL);
	void *objs[48];
	struct qmempool_stats st;

	(void)state;
	for (int i = 0; i < 48; i++) {
		assert_non_null(objs[i] = qmempool_alloc(p, GFP_KERNEL));
		assert_int_equal(node_of(objs[i]), 0);
	}
	assert_int_equal(stats(p).in_localq, 0);
	for (int i = 0; i < 48; i++)
		qmempool_free(p, objs[i]);
	st = stats(p);
	assert_int_equal(st.alloc, 48);
	assert_int_equal(st.remote_free, 0);
	assert_int_equal(st.sharedq_spill, 1);
	assert_int_equal(st.in_sharedq[0], 16);
	assert_int_equal(st.in_sharedq[1], 0);
	assert_int_equal(st.in_localq, 32);
	assert_int_equal(st.outstanding, 0);
	/* The last object freed is the first one handed out again. */
	assert_ptr_equal(qmempool_alloc_softirq(p, GFP_KERNEL), objs[47]);
	qmempool_free_softirq(p, objs[47]);
	qmempool_destroy(p);
	assert_cache_destroys_clean();
}

static void remote_free_goes_to_the_objects_node_sharedq(void **state)
{
	struct qmempool *p = qmempool_create(32, 128, 0, cache, GFP_KERNEL);
	struct cpu_job j = {.p = p};
	struct qmempool_stats st;

	(void)state;
	mm_test_on_cpu(1, alloc_one, &j);
	assert_int_equal(node_of(j.obj), 1);
	qmempool_free(p, j.obj); /* on CPU 0, node 0 */
	st = stats(p);
	assert_int_equal(st.remote_free, 1);
	assert_int_equal(st.in_sharedq[1], 1);
	assert_int_equal(st.in_sharedq[0], 0);
	assert_int_equal(st.in_localq, 15); /* CPU 1's refill rest only */
	qmempool_destroy(p);
	assert_cache_destroys_clean();
}

static void remote_free_into_a_full_sharedq_goes_to_the_slab(void **state)
{
	struct qmempool *p = qmempool_create(16, 32, 32, cache, GFP_KERNEL);
	struct cpu_job j = {.p = p};
	struct qmempool_stats st;

	(void)state;
	/* CPU 1 takes one (refill 16 from its sharedq: 16 left), then its
	 * sharedq is topped up to full again from CPU 1's side. */
	mm_test_on_cpu(1, alloc_one, &j);
	void *extra[16];
	for (int i = 0; i < 16; i++)
		extra[i] = kmem_cache_alloc_node(cache, 0, 1);
	assert_int_equal(alf_mp_enqueue(p->sharedq[1], extra, 16), 16);
	qmempool_free(p, j.obj);
	st = stats(p);
	assert_int_equal(st.remote_free, 1);
	assert_int_equal(st.slab_free, 1);
	assert_int_equal(st.in_sharedq[1], 32);
	qmempool_destroy(p);
	assert_cache_destroys_clean();
}

static void local_free_of_a_remote_object_never_enters_the_localq(void **state)
{
	struct qmempool *p = qmempool_create(32, 128, 0, cache, GFP_KERNEL);
	struct cpu_job j = {.p = p};

	(void)state;
	j.obj = qmempool_alloc(p, GFP_KERNEL); /* node 0 object */
	unsigned long local_before = stats(p).in_localq;
	mm_test_on_cpu(1, free_one, &j); /* freed on node 1's CPU */
	assert_int_equal(stats(p).in_localq, local_before);
	assert_int_equal(stats(p).in_sharedq[0], 1);
	qmempool_destroy(p);
	assert_cache_destroys_clean();
}

/* Node 0 empty (CPU 0 is on node 0): the pool hands out node-1 objects
 * one at a time and caches none of them in CPU 0's localq, so node 0
 * serves again as soon as it has memory. */
static void localq_never_caches_remote_objects(void **state)
{
	struct qmempool *p = qmempool_create(32, 128, 0, cache, GFP_KERNEL);
	void *objs[20];
	size_t n;
	struct page **held = mm_test_take_node(0, &n);

	(void)state;
	for (int i = 0; i < 20; i++) {
		objs[i] = qmempool_alloc(p, GFP_KERNEL);
		assert_non_null(objs[i]);
		assert_int_equal(node_of(objs[i]), 1);
		assert_int_equal(stats(p).in_localq, 0);
	}
	mm_test_give_back(held, n);
	void *local = qmempool_alloc(p, GFP_KERNEL);
	assert_int_equal(node_of(local), 0);
	assert_int_equal(stats(p).in_localq, QMEMPOOL_BULK - 1);
	qmempool_free(p, local);
	for (int i = 0; i < 20; i++)
		qmempool_free(p, objs[i]); /* home to node 1's sharedq */
	assert_int_equal(stats(p).in_sharedq[1], 20);
	qmempool_destroy(p);
	assert_cache_destroys_clean();
}

/* ---- debug ---- */

static void debug_refuses_an_object_of_another_cache(void **state)
{
	struct kmem_cache *other = kmem_cache_create("other", OBJ, 0, 0, NULL);
	struct qmempool *p = qmempool_create(32, 128, 0, cache, GFP_KERNEL);
	void *foreign = kmem_cache_alloc(other, GFP_KERNEL);
	unsigned long before = mm_debug_count(MM_DBG_OTHER);

	(void)state;
	mm_debug_set_quiet(true);
	mm_debug_set(true);
	qmempool_free(p, foreign);
	mm_debug_set(false);
	assert_int_equal(mm_debug_count(MM_DBG_OTHER), before + 1);
	assert_int_equal(stats(p).in_localq, 0);
	kmem_cache_free(other, foreign);
	kmem_cache_destroy(other);
	qmempool_destroy(p);
}

static void debug_accepts_objects_of_the_pool(void **state)
{
	struct qmempool *p = qmempool_create(32, 128, 0, cache, GFP_KERNEL);
	unsigned long before = mm_debug_count(MM_DBG_OTHER);
	void *obj;

	(void)state;
	mm_debug_set(true);
	obj = qmempool_alloc(p, GFP_KERNEL);
	qmempool_free(p, obj);
	mm_debug_set(false);
	assert_int_equal(mm_debug_count(MM_DBG_OTHER), before);
	assert_int_equal(stats(p).in_localq, QMEMPOOL_BULK);
	assert_int_equal(stats(p).outstanding, 0);
	qmempool_destroy(p);
}

/* ---- statistics ---- */

static void stats_json_has_one_object_per_pool_with_counters(void **state)
{
	struct qmempool *a = qmempool_create(32, 128, 0, cache, GFP_KERNEL);
	struct qmempool *b = qmempool_create(16, 64, 8, cache, GFP_KERNEL);
	char buf[4096], key[32];
	void *obj = qmempool_alloc(a, GFP_KERNEL);
	int len = qmempool_stats_json(buf, sizeof(buf));

	(void)state;
	assert_int_equal(len, (int)strlen(buf));
	assert_int_equal(buf[0], '{');
	snprintf(key, sizeof(key), "\"qmempool%u\":{", a->id);
	assert_non_null(strstr(buf, key));
	snprintf(key, sizeof(key), "\"qmempool%u\":{", b->id);
	assert_non_null(strstr(buf, key));
	assert_non_null(strstr(buf, "\"cache\":\"qmp_test\""));
	assert_non_null(strstr(buf, "\"slab_refill\":1"));
	assert_non_null(strstr(buf, "\"in_sharedq\":[8]"));
	qmempool_free(a, obj);
	qmempool_destroy(a);
	qmempool_destroy(b);
	assert_int_equal(qmempool_stats_json(buf, sizeof(buf)), 2);
	assert_string_equal(buf, "{}");
}

static void stats_text_has_one_line_per_pool(void **state)
{
	struct qmempool *a = qmempool_create(32, 128, 0, cache, GFP_KERNEL);
	char buf[4096];
	int lines = 0;

	(void)state;
	qmempool_stats_text(buf, sizeof(buf));
	for (char *c = buf; *c; c++)
		lines += *c == '\n';
	assert_int_equal(lines, 2); /* header + one pool */
	assert_non_null(strstr(buf, "qmp_test"));
	assert_non_null(strstr(buf, "localq_hit=0"));
	qmempool_destroy(a);
}

static void stats_never_overflow_a_small_buffer(void **state)
{
	struct qmempool *a = qmempool_create(32, 128, 0, cache, GFP_KERNEL);
	char full[4096], small[24];
	int need = qmempool_stats_json(full, sizeof(full));

	(void)state;
	memset(small, 'x', sizeof(small));
	assert_int_equal(qmempool_stats_json(small, 16), need);
	assert_int_equal(small[15], '\0');
	assert_int_equal(small[16], 'x');
	assert_memory_equal(small, full, 15);
	assert_int_equal(qmempool_stats_text(NULL, 0),
			 qmempool_stats_text(full, sizeof(full)));
	qmempool_destroy(a);
}

/* Memory pressure: the objects a pool caches pin their slabs; after
 * qmempool_shrink_all() every one is back in the slab and
 * kmem_cache_shrink() can hand the slabs to the page allocator. */
/* 1 node, 2 CPUs: for the shrink requests to another CPU. */
static int boot1x2(void **state)
{
	(void)state;
	mm_test_boot(1, 16, 2);
	cache = kmem_cache_create("qmp_test", OBJ, 0, 0, NULL);
	assert_non_null(cache);
	return 0;
}

/* Allocate 40 and free them: the CPU's localq ends up holding some. */
static void churn40(void *arg)
{
	struct qmempool *p = arg;
	void *o[40];

	for (int i = 0; i < 40; i++)
		assert_non_null(o[i] = qmempool_alloc(p, GFP_KERNEL));
	for (int i = 0; i < 40; i++)
		qmempool_free(p, o[i]);
}

static unsigned long polled;

static void shrink_poll_here(void *arg)
{
	(void)arg;
	polled = qmempool_shrink_poll();
}

/* Another CPU's localq is its owner's: shrink_all leaves it and asks;
 * the owner gives it back at its next poll, once per request. */
static void shrink_all_asks_every_other_cpu_once(void **state)
{
	struct qmempool *p = qmempool_create(32, 128, 0, cache, GFP_KERNEL);
	unsigned long on1;

	(void)state;
	mm_test_on_cpu(1, churn40, p);
	churn40(p);
	on1 = qmempool_localq_count(&p->cpu[1]);
	assert_true(on1 > 0);
	assert_true(qmempool_localq_count(&p->cpu[0]) > 0);
	qmempool_shrink_all();
	assert_int_equal(qmempool_localq_count(&p->cpu[0]), 0);
	assert_int_equal(qmempool_localq_count(&p->cpu[1]), on1);
	mm_test_on_cpu(1, shrink_poll_here, NULL);
	assert_int_equal(polled, on1);
	assert_int_equal(qmempool_localq_count(&p->cpu[1]), 0);
	assert_int_equal(stats(p).in_localq, 0);
	assert_int_equal(stats(p).outstanding, 0);
	assert_true(kmem_cache_shrink(cache) > 0);
	/* Honoured once: no new request, nothing more; the asking CPU did
	 * its share at once and has nothing pending either. */
	mm_test_on_cpu(1, churn40, p);
	mm_test_on_cpu(1, shrink_poll_here, NULL);
	assert_int_equal(polled, 0);
	assert_true(qmempool_localq_count(&p->cpu[1]) > 0);
	shrink_poll_here(NULL);
	assert_int_equal(polled, 0);
	qmempool_destroy(p);
	assert_cache_destroys_clean();
}

static void shrink_all_gives_cached_objects_back_to_the_slab(void **state)
{
	struct qmempool *a = qmempool_create(64, 128, 32, cache, GFP_KERNEL);
	void *objs[96];

	(void)state;
	assert_non_null(a);
	for (int i = 0; i < 96; i++)
		assert_non_null(objs[i] = qmempool_alloc(a, GFP_KERNEL));
	for (int i = 0; i < 96; i++)
		qmempool_free(a, objs[i]);
	unsigned long cached = qmempool_localq_count(&a->cpu[0]);
	assert_true(cached > 0);
	assert_int_equal(stats(a).outstanding, 0);

	unsigned long freed = qmempool_shrink_all();
	assert_true(freed >= cached);
	assert_int_equal(qmempool_localq_count(&a->cpu[0]), 0);
	assert_int_equal(stats(a).outstanding, 0);
	assert_true(kmem_cache_shrink(cache) > 0);
	/* Still a working pool: the next alloc refills from the slab. */
	unsigned long refills = stats(a).slab_refill;
	void *o = qmempool_alloc(a, GFP_KERNEL);
	assert_non_null(o);
	assert_int_equal(stats(a).slab_refill, refills + 1);
	qmempool_free(a, o);
	qmempool_destroy(a);
	assert_cache_destroys_clean();
}

#define T1(f) cmocka_unit_test_setup_teardown(f, boot1, mm_test_teardown)
#define T2(f) cmocka_unit_test_setup_teardown(f, boot2, mm_test_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T1(create_refuses_null_cache),
		T1(create_refuses_localq_smaller_than_bulk),
		T1(create_refuses_localq_not_power_of_two),
		T1(create_refuses_sharedq_smaller_than_bulk_times_multiplier),
		T1(create_refuses_sharedq_not_power_of_two),
		T1(create_refuses_queues_above_the_limit),
		T1(create_refuses_prealloc_above_sharedq),
		T1(first_alloc_refills_a_bulk_from_the_slab),
		T1(alloc_refills_from_the_sharedq_before_the_slab),
		T1(alloc_from_a_filled_localq_is_a_hit),
		T1(full_localq_spills_its_oldest_bulk_to_the_sharedq),
		T1(alloc_returns_the_most_recently_freed_object),
		T1(spill_moves_the_top_half_to_the_sharedq),
		T1(deep_localq_refills_and_spills_half_of_itself),
		T1(full_sharedq_sends_the_bulk_back_to_the_slab),
		T1(steady_state_n256_never_touches_the_slab),
		T1(softirq_variants_share_the_same_queues),
		T1(outstanding_counts_objects_handed_out),
		T1(free_of_null_is_ignored),
		T1(short_slab_still_hands_out_a_single_object),
		T1(empty_slab_gives_null_and_counts_it),
		T1(destroy_returns_every_object_to_the_slab),
		T1(objects_still_out_at_destroy_go_back_through_the_slab),
		T1(destroy_of_null_is_ignored),
		T1(shrink_all_gives_cached_objects_back_to_the_slab),
		cmocka_unit_test_setup_teardown(
			shrink_all_asks_every_other_cpu_once, boot1x2,
			mm_test_teardown),
		T2(prealloc_fills_each_node_with_its_own_objects),
		T2(cpu_gets_objects_of_its_own_node),
		T2(two_node_local_frees_fill_the_localq_then_spill),
		T2(remote_free_goes_to_the_objects_node_sharedq),
		T2(remote_free_into_a_full_sharedq_goes_to_the_slab),
		T2(local_free_of_a_remote_object_never_enters_the_localq),
		T2(localq_never_caches_remote_objects),
		T1(debug_refuses_an_object_of_another_cache),
		T1(debug_accepts_objects_of_the_pool),
		T1(stats_json_has_one_object_per_pool_with_counters),
		T1(stats_text_has_one_line_per_pool),
		T1(stats_never_overflow_a_small_buffer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
