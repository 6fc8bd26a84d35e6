/*
 * A machine with MM_MAX_NODES nodes, one CPU on each: every per-node
 * array of the allocators (zones and their fallback lists, numastat, the
 * slab's node lists, qmempool's shared queues, page_frag's refill
 * counters) holds the last node as it holds the first, and one node more
 * is refused at boot rather than written past an array's end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm_test.h"
#include "zone.h"

#define NODES MM_MAX_NODES
#define LAST  (NODES - 1)

static int cpu_node[NODES];

/* Every node 4 MiB, CPU n on node n. */
static void boot_full_machine(const int *distance)
{
	struct mm_host_config cfg = {.nr_nodes = NODES,
				     .bytes_per_node = 4u << 20,
				     .nr_cpus = NODES,
				     .cpu_to_node = cpu_node,
				     .distance = distance};

	for (int n = 0; n < NODES; n++)
		cpu_node[n] = n;
	assert_int_equal(mm_host_boot_config(&cfg), 0);
}

static void test_sixteen_nodes_boot_one_more_is_refused(void **state)
{
	(void)state;
	assert_int_equal(NODES, 16);
	assert_int_not_equal(mm_host_boot(NODES + 1, 4u << 20, NODES, NULL), 0);
	boot_full_machine(NULL);
	assert_int_equal(mm_nr_nodes(), NODES);
	assert_int_equal(mm_nr_zones, NODES);
	for (int n = 0; n < NODES; n++)
		assert_true(nr_managed_pages_node(n) > 0);
}

static void alloc_here(void *arg)
{
	int *nid = arg;
	struct page *p = alloc_pages(GFP_KERNEL, 0);

	assert_non_null(p);
	*nid = page_to_nid(p);
	__free_pages(p, 0);
}

static void test_each_cpu_allocates_from_its_own_node(void **state)
{
	(void)state;
	boot_full_machine(NULL);
	for (int cpu = 0; cpu < NODES; cpu++) {
		int nid = -1;

		mm_test_on_cpu(cpu, alloc_here, &nid);
		assert_int_equal(nid, cpu);
	}
	assert_true(numa_stat_read(LAST, NUMA_HIT) > 0);
	assert_true(numa_stat_read(LAST, NUMA_LOCAL) > 0);
}

/* Node 15's nearest is node 7 (11), then node 3 (12); the rest are 20.
 * Exhausting node 15 must send its next pages there, in that order. */
static void test_last_node_falls_back_by_distance(void **state)
{
	static int dist[NODES * NODES];
	int order[NODES];
	size_t n;
	struct page **taken, *p;

	(void)state;
	for (int a = 0; a < NODES; a++)
		for (int b = 0; b < NODES; b++)
			dist[a * NODES + b] = a == b ? 10 : 20;
	dist[LAST * NODES + 7] = dist[7 * NODES + LAST] = 11;
	dist[LAST * NODES + 3] = dist[3 * NODES + LAST] = 12;
	boot_full_machine(dist);
	assert_int_equal(numa_node_order(LAST, order), NODES);
	assert_int_equal(order[0], LAST);
	assert_int_equal(order[1], 7);
	assert_int_equal(order[2], 3);
	assert_int_equal(order[3], 0); /* ties: lowest id first */
	taken = mm_test_take_node(LAST, &n);
	p = alloc_pages_node(LAST, GFP_KERNEL, 0);
	assert_non_null(p);
	assert_int_equal(page_to_nid(p), 7);
	assert_true(numa_stat_read(LAST, NUMA_FOREIGN) > 0);
	assert_true(numa_stat_read(7, NUMA_MISS) > 0);
	__free_pages(p, 0);
	mm_test_give_back(taken, n);
}

static void test_kmalloc_and_slab_serve_the_last_node(void **state)
{
	struct kmem_cache *s;
	void *a, *b;

	(void)state;
	boot_full_machine(NULL);
	a = kmalloc_node(256, GFP_KERNEL, LAST);
	assert_non_null(a);
	assert_int_equal(page_to_nid(virt_to_head_page(a)), LAST);
	s = kmem_cache_create("last-node", 128, 0, 0, NULL);
	assert_non_null(s);
	b = kmem_cache_alloc_node(s, GFP_KERNEL, LAST);
	assert_non_null(b);
	assert_int_equal(page_to_nid(virt_to_head_page(b)), LAST);
	kmem_cache_free(s, b);
	kmem_cache_destroy(s);
	kfree(a);
}

static void frag_here(void *arg)
{
	void *f = napi_alloc_frag(2048);

	(void)arg;
	assert_non_null(f);
	assert_int_equal(page_to_nid(virt_to_head_page(f)), LAST);
	page_frag_free(f);
}

static void test_page_frag_counts_refills_of_the_last_node(void **state)
{
	(void)state;
	boot_full_machine(NULL);
	mm_test_on_cpu(LAST, frag_here, NULL);
	assert_true(page_frag_cpu_refills_node(LAST, LAST) > 0);
	assert_int_equal(page_frag_cpu_refills_node(LAST, 0), 0);
}

#define POOL_OBJS 48 /* three localqs' worth: frees spill to the sharedq */

static void pool_here(void *arg)
{
	struct qmempool *pool = arg;
	void *o[POOL_OBJS];

	for (int i = 0; i < POOL_OBJS; i++) {
		o[i] = qmempool_alloc(pool, GFP_KERNEL);
		assert_non_null(o[i]);
		assert_int_equal(page_to_nid(virt_to_head_page(o[i])), LAST);
	}
	for (int i = 0; i < POOL_OBJS; i++)
		qmempool_free(pool, o[i]);
}

/* qmempool keeps one shared queue per node: what the last node's CPU
 * frees beyond its local queue waits in that node's shared queue. */
static void test_qmempool_has_a_shared_queue_for_the_last_node(void **state)
{
	struct kmem_cache *s;
	struct qmempool *pool;
	struct qmempool_stats st;

	(void)state;
	boot_full_machine(NULL);
	s = kmem_cache_create("pool-objs", 256, 0, 0, NULL);
	assert_non_null(s);
	pool = qmempool_create(16, 64, 0, s, GFP_KERNEL);
	assert_non_null(pool);
	mm_test_on_cpu(LAST, pool_here, pool);
	qmempool_get_stats(pool, &st);
	assert_true(st.in_sharedq[LAST] > 0);
	for (int n = 0; n < LAST; n++)
		assert_int_equal(st.in_sharedq[n], 0);
	qmempool_destroy(pool);
	kmem_cache_destroy(s);
}

/* The text and JSON views list every node, the last one included. */
static void test_statistics_show_the_last_node(void **state)
{
	int (*views[])(char *, size_t) = {numastat_json, zoneinfo_text};
	const char *want[] = {"\"node15\"", "Node 15"};

	(void)state;
	boot_full_machine(NULL);
	for (int i = 0; i < 2; i++) {
		size_t size = (size_t)views[i](NULL, 0) + 1;
		char *buf = malloc(size);

		assert_non_null(buf);
		assert_true((size_t)views[i](buf, size) < size);
		assert_non_null(strstr(buf, want[i]));
		free(buf);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(
			test_sixteen_nodes_boot_one_more_is_refused,
			mm_test_teardown),
		cmocka_unit_test_teardown(
			test_each_cpu_allocates_from_its_own_node,
			mm_test_teardown),
		cmocka_unit_test_teardown(test_last_node_falls_back_by_distance,
					  mm_test_teardown),
		cmocka_unit_test_teardown(
			test_kmalloc_and_slab_serve_the_last_node,
			mm_test_teardown),
		cmocka_unit_test_teardown(
			test_page_frag_counts_refills_of_the_last_node,
			mm_test_teardown),
		cmocka_unit_test_teardown(
			test_qmempool_has_a_shared_queue_for_the_last_node,
			mm_test_teardown),
		cmocka_unit_test_teardown(test_statistics_show_the_last_node,
					  mm_test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
