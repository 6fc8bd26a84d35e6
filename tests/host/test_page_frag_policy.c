/*
 * Unit tests of the page_frag refill-node policy (mm/page_frag_policy.c):
 * each policy puts new blocks where it promises, interleave alternates,
 * the per-node refill counters and numastat say where blocks came from,
 * and blocks placed on another node come back whole through the remote
 * free paths. Each test boots a fresh two-node machine, CPU 0 on node 0
 * and CPU 1 on node 1, and puts every policy back to local afterwards.
 * The counters are global to the process (never reset by a boot), so the
 * tests compare them before and after.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "mm_test.h"
#include "zone.h"

/* A page-sized fragment fills an order-3 block in 8 allocations. */
#define FRAGS_PER_BLOCK 8

static int boot(void **state)
{
	mm_test_setup_2nodes(state);
	assert_int_equal(mm_host_set_cpu(0), 0);
	return 0;
}

static int shutdown(void **state)
{
	for (int cpu = 0; cpu < 2; cpu++) {
		page_frag_percpu_set_policy(cpu, PAGE_FRAG_NODE_LOCAL, -1);
		page_frag_percpu_drain(cpu);
	}
	return mm_test_teardown(state);
}

static int node_of(void *va)
{
	return page_to_nid(virt_to_head_page(va));
}

/* Allocate one block's worth of page-sized fragments from CPU 0's NAPI
 * cache into p[0..7], all from one block; returns that block's node. */
static int take_one_block(void **p)
{
	for (int i = 0; i < FRAGS_PER_BLOCK; i++) {
		p[i] = napi_alloc_frag(MM_PAGE_SIZE);
		assert_non_null(p[i]);
		assert_ptr_equal(virt_to_head_page(p[i]),
				 virt_to_head_page(p[0]));
	}
	return node_of(p[0]);
}

/* New blocks CPU cpu took from node nid so far. */
static uint64_t refills(int cpu, int nid)
{
	return page_frag_cpu_refills_node(cpu, nid);
}

static void free_all(void **p, int n)
{
	for (int i = 0; i < n; i++)
		page_frag_free(p[i]);
}

static void test_default_policy_is_local(void **s)
{
	uint64_t r10 = refills(1, 0), r11 = refills(1, 1);
	int node = 7;
	void *a;

	(void)s;
	assert_int_equal(page_frag_percpu_get_policy(0, &node),
			 PAGE_FRAG_NODE_LOCAL);
	assert_int_equal(node, -1);
	assert_int_equal(mm_host_set_cpu(1), 0);
	a = napi_alloc_frag(256);
	assert_int_equal(node_of(a), 1);
	assert_int_equal(refills(1, 1) - r11, 1);
	assert_int_equal(refills(1, 0) - r10, 0);
	page_frag_free(a);
	page_frag_percpu_drain(1);
}

/*
 * node:1 on a CPU of node 0: every new block comes from node 1, which the
 * page allocator counts as a hit on node 1 (it was the preferred node)
 * for a CPU of another node (other_node), and page_frag in its per-node
 * refill counter of CPU 0.
 */
static void test_fixed_node_places_blocks_on_that_node(void **s)
{
	unsigned long hit1 = numa_stat_read(1, NUMA_HIT);
	unsigned long other1 = numa_stat_read(1, NUMA_OTHER);
	unsigned long miss0 = numa_stat_read(0, NUMA_MISS);
	void *p[2 * FRAGS_PER_BLOCK];
	struct page_frag_stats a, b;
	uint64_t r00 = refills(0, 0), r01 = refills(0, 1);
	int node;

	(void)s;
	page_frag_stats_read(&a);
	assert_int_equal(
		page_frag_percpu_set_policy(0, PAGE_FRAG_NODE_FIXED, 1), 0);
	assert_int_equal(page_frag_percpu_get_policy(0, &node),
			 PAGE_FRAG_NODE_FIXED);
	assert_int_equal(node, 1);
	assert_int_equal(take_one_block(p), 1);
	assert_int_equal(take_one_block(p + FRAGS_PER_BLOCK), 1);
	p[0] = (free_all(p, 1), netdev_alloc_frag(64)); /* the other cache */
	assert_int_equal(node_of(p[0]), 1);
	assert_int_equal(refills(0, 1) - r01, 3);
	assert_int_equal(refills(0, 0) - r00, 0);
	page_frag_stats_read(&b);
	assert_int_equal(b.refills_node[1] - a.refills_node[1], 3);
	assert_int_equal(b.refills_remote - a.refills_remote, 0);
	/* 3 order-3 blocks: 24 pages, preferred and found on node 1 */
	assert_int_equal(numa_stat_read(1, NUMA_HIT) - hit1, 24);
	assert_int_equal(numa_stat_read(1, NUMA_OTHER) - other1, 24);
	assert_int_equal(numa_stat_read(0, NUMA_MISS), miss0);
	free_all(p, 2 * FRAGS_PER_BLOCK);
}

static void test_device_policy_uses_the_node_it_is_given(void **s)
{
	int node;
	void *a;

	(void)s;
	assert_int_equal(mm_host_set_cpu(1), 0);
	assert_int_equal(
		page_frag_percpu_set_policy(1, PAGE_FRAG_NODE_DEVICE, 0), 0);
	a = napi_alloc_frag(1500);
	assert_int_equal(node_of(a), 0);
	assert_int_equal(page_frag_percpu_get_policy(1, &node),
			 PAGE_FRAG_NODE_DEVICE);
	assert_int_equal(node, 0);
	assert_string_equal(page_frag_policy_name(PAGE_FRAG_NODE_DEVICE),
			    "device");
	/* CPU 0 was not touched: still local. */
	assert_int_equal(page_frag_percpu_get_policy(0, NULL),
			 PAGE_FRAG_NODE_LOCAL);
	page_frag_free(a);
}

/* Interleave: each new block from the next node, 0, 1, 0, 1, ... */
static void test_interleave_alternates_nodes_per_block(void **s)
{
	void *p[6 * FRAGS_PER_BLOCK];
	uint64_t r00 = refills(0, 0), r01 = refills(0, 1);
	int nodes[6];

	(void)s;
	assert_int_equal(
		page_frag_percpu_set_policy(0, PAGE_FRAG_NODE_INTERLEAVE, -1),
		0);
	for (int b = 0; b < 6; b++)
		nodes[b] = take_one_block(p + b * FRAGS_PER_BLOCK);
	for (int b = 1; b < 6; b++)
		assert_int_equal(nodes[b], !nodes[b - 1]);
	assert_int_equal(refills(0, 0) - r00, 3);
	assert_int_equal(refills(0, 1) - r01, 3);
	free_all(p, 6 * FRAGS_PER_BLOCK);
}

/* A block whose fragments all came back is reused in place: no new
 * block, so no node choice and no step of interleave's cursor. */
static void test_interleave_steps_only_on_new_blocks(void **s)
{
	void *p[FRAGS_PER_BLOCK], *q[FRAGS_PER_BLOCK];
	uint64_t r0 = refills(0, 0) + refills(0, 1);
	int first;

	(void)s;
	page_frag_percpu_set_policy(0, PAGE_FRAG_NODE_INTERLEAVE, -1);
	first = take_one_block(p);
	free_all(p, FRAGS_PER_BLOCK);
	/* recycles the first block in place, then a new one: the next node */
	assert_int_equal(take_one_block(q), first);
	assert_ptr_equal(q[0], p[0]);
	assert_int_equal(refills(0, 0) + refills(0, 1) - r0, 1);
	p[0] = napi_alloc_frag(MM_PAGE_SIZE);
	assert_int_equal(node_of(p[0]), !first);
	free_all(q, FRAGS_PER_BLOCK);
	page_frag_free(p[0]);
}

/* A change applies from the next new block; the current one stays. */
static void test_policy_change_applies_at_the_next_block(void **s)
{
	void *first = napi_alloc_frag(MM_PAGE_SIZE);
	void *rest[FRAGS_PER_BLOCK];

	(void)s;
	assert_int_equal(node_of(first), 0);
	page_frag_percpu_set_policy(0, PAGE_FRAG_NODE_FIXED, 1);
	for (int i = 0; i < FRAGS_PER_BLOCK - 1; i++)
		rest[i] = napi_alloc_frag(MM_PAGE_SIZE);
	assert_int_equal(node_of(rest[FRAGS_PER_BLOCK - 2]), 0);
	rest[FRAGS_PER_BLOCK - 1] = napi_alloc_frag(MM_PAGE_SIZE);
	assert_int_equal(node_of(rest[FRAGS_PER_BLOCK - 1]), 1);
	page_frag_free(first);
	free_all(rest, FRAGS_PER_BLOCK);
}

/*
 * The policy's node has no page at all: the refill falls back to the other
 * node, and both counters say so: refills_remote here, numa_miss on the
 * node the pages came from and numa_foreign on the one that was wanted.
 */
static void test_empty_policy_node_falls_back_counted(void **s)
{
	size_t n;
	struct page **held = mm_test_take_node(1, &n);
	unsigned long miss0 = numa_stat_read(0, NUMA_MISS);
	unsigned long foreign1 = numa_stat_read(1, NUMA_FOREIGN);
	struct page_frag_stats a, b;
	void *p;

	(void)s;
	page_frag_percpu_set_policy(0, PAGE_FRAG_NODE_FIXED, 1);
	page_frag_stats_read(&a);
	p = napi_alloc_frag(1500);
	page_frag_stats_read(&b);
	assert_non_null(p);
	assert_int_equal(node_of(p), 0);
	assert_int_equal(b.refills_remote - a.refills_remote, 1);
	assert_int_equal(b.refills_node[0] - a.refills_node[0], 1);
	assert_int_equal(numa_stat_read(0, NUMA_MISS) - miss0, 1);
	assert_int_equal(numa_stat_read(1, NUMA_FOREIGN) - foreign1, 1);
	page_frag_free(p);
	page_frag_percpu_drain(0);
	mm_test_give_back(held, n);
}

struct free_job {
	void **p;
	int n;
};

static void free_job_run(void *arg)
{
	struct free_job *j = arg;

	free_all(j->p, j->n);
}

static void flush_job_run(void *arg)
{
	(void)arg;
	page_frag_free_flush();
}

/*
 * Blocks of node 1 handed out on CPU 0 (node:1): frees on CPU 0 are remote
 * frees, frees on CPU 1 (a live thread) are not; once every fragment is
 * back, the caches are drained and CPU 1 has flushed its free batch (a
 * block whose last fragments CPU 1 freed waits for that), each node has
 * exactly the free pages it had before.
 */
static void test_remote_blocks_come_back_whole(void **s)
{
	unsigned long free0 = mm_test_drain_and_verify();
	unsigned long node0 = mm_test_node_free(0);
	unsigned long node1 = mm_test_node_free(1);
	struct mm_test_cpu *cpu1 = mm_test_cpu_start(1);
	struct page_frag_stats a, b;
	void *p[40];
	struct free_job on_cpu1 = {p + 20, 20};

	(void)s;
	page_frag_percpu_set_policy(0, PAGE_FRAG_NODE_FIXED, 1);
	page_frag_stats_read(&a);
	for (int i = 0; i < 40; i++) {
		p[i] = napi_alloc_frag(2048);
		assert_non_null(p[i]);
		assert_int_equal(node_of(p[i]), 1);
	}
	free_all(p, 20);			       /* CPU 0: remote */
	mm_test_cpu_run(cpu1, free_job_run, &on_cpu1); /* CPU 1: local */
	page_frag_stats_read(&b);
	assert_int_equal(b.frees - a.frees, 40);
	assert_int_equal(b.remote_frees - a.remote_frees, 20);
	page_frag_percpu_drain(0);
	/* 2048-byte fragments, 16 per block: CPU 1 freed the last 12 of the
	 * second block and all 8 of the third; they wait in its batch. */
	assert_int_equal(page_frag_free_pending(1), 20);
	mm_test_cpu_run(cpu1, flush_job_run, NULL);
	assert_int_equal(page_frag_free_pending(1), 0);
	mm_test_cpu_stop(cpu1);
	assert_int_equal(mm_test_drain_and_verify(), free0);
	assert_int_equal(mm_test_node_free(0), node0);
	assert_int_equal(mm_test_node_free(1), node1);
}

static void test_bad_policy_arguments_are_refused(void **s)
{
	int node;

	(void)s;
	page_frag_percpu_set_policy(0, PAGE_FRAG_NODE_FIXED, 1);
	assert_int_equal(
		page_frag_percpu_set_policy(0, PAGE_FRAG_NODE_FIXED, 2), -1);
	assert_int_equal(
		page_frag_percpu_set_policy(0, PAGE_FRAG_NODE_DEVICE, -1), -1);
	assert_int_equal(
		page_frag_percpu_set_policy(0, PAGE_FRAG_NODE_NR_POLICIES, 0),
		-1);
	assert_int_equal(page_frag_percpu_set_policy(MM_MAX_CPUS,
						     PAGE_FRAG_NODE_LOCAL, -1),
			 -1);
	assert_int_equal(
		page_frag_percpu_set_policy(-1, PAGE_FRAG_NODE_LOCAL, -1), -1);
	/* nothing changed */
	assert_int_equal(page_frag_percpu_get_policy(0, &node),
			 PAGE_FRAG_NODE_FIXED);
	assert_int_equal(node, 1);
	assert_int_equal(page_frag_percpu_get_policy(MM_MAX_CPUS, &node),
			 PAGE_FRAG_NODE_LOCAL);
	assert_int_equal(node, -1);
}

/* A private cache (a TX-side one, say) takes a policy the same way. */
static void test_private_cache_follows_its_policy(void **s)
{
	struct page_frag_cache nc = {0};
	void *a;

	(void)s;
	assert_int_equal(page_frag_cache_get_policy(&nc, NULL),
			 PAGE_FRAG_NODE_LOCAL);
	assert_int_equal(
		page_frag_cache_set_policy(&nc, PAGE_FRAG_NODE_FIXED, 1), 0);
	a = page_frag_alloc(&nc, 100, GFP_KERNEL);
	assert_int_equal(node_of(a), 1);
	page_frag_free(a);
	page_frag_cache_drain(&nc);
}

static void test_stats_json_shows_policy_and_nodes(void **s)
{
	char buf[8192], want[128];
	struct page_frag_stats st;
	void *a;

	(void)s;
	page_frag_percpu_set_policy(0, PAGE_FRAG_NODE_DEVICE, 1);
	a = napi_alloc_frag(64);
	page_frag_stats_read(&st);
	assert_true(page_frag_stats_json(buf, sizeof(buf)) < (int)sizeof(buf));
	snprintf(want, sizeof(want), "\"refills_node\":[%llu,%llu],\"cpu\"",
		 (unsigned long long)st.refills_node[0],
		 (unsigned long long)st.refills_node[1]);
	assert_non_null(strstr(buf, want));
	snprintf(want, sizeof(want),
		 "\"refills_node\":[%llu,%llu],\"refill_policy\":"
		 "\"device\",\"refill_node\":1}",
		 (unsigned long long)refills(0, 0),
		 (unsigned long long)refills(0, 1));
	assert_non_null(strstr(buf, want));
	assert_non_null(strstr(buf, "\"refill_policy\":\"local\","
				    "\"refill_node\":-1}"));
	page_frag_stats_text(buf, sizeof(buf));
	snprintf(want, sizeof(want), "refills_node      %llu %llu\n",
		 (unsigned long long)st.refills_node[0],
		 (unsigned long long)st.refills_node[1]);
	assert_non_null(strstr(buf, want));
	page_frag_free(a);
}

#define T(f) cmocka_unit_test_setup_teardown(f, boot, shutdown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_default_policy_is_local),
		T(test_fixed_node_places_blocks_on_that_node),
		T(test_device_policy_uses_the_node_it_is_given),
		T(test_interleave_alternates_nodes_per_block),
		T(test_interleave_steps_only_on_new_blocks),
		T(test_policy_change_applies_at_the_next_block),
		T(test_empty_policy_node_falls_back_counted),
		T(test_remote_blocks_come_back_whole),
		T(test_bad_policy_arguments_are_refused),
		T(test_private_cache_follows_its_policy),
		T(test_stats_json_shows_policy_and_nodes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
