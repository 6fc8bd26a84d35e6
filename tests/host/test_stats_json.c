/*
 * The per-CPU and per-node figures the dashboard draws, as the allocators'
 * JSON writers give them: slab magazine hits and misses and each CPU's
 * magazine, page_frag counters per CPU and frees on another node, and each
 * CPU's qmempool localq. Every test boots two nodes, CPU 0 on node 0 and
 * CPU 1 on node 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm_test.h"
#include "qmempool.h"
#include "slab_test.h"

static char json[1 << 16];

/* The number after "key": in the first object that follows anchor. */
static long json_num(const char *doc, const char *anchor, const char *key)
{
	char pat[96];
	const char *at = strstr(doc, anchor);

	assert_non_null(at);
	snprintf(pat, sizeof(pat), "\"%s\":", key);
	at = strstr(at, pat);
	assert_non_null(at);
	return strtol(at + strlen(pat), NULL, 10);
}

static void test_slab_first_alloc_misses_then_magazine_hits(void **state)
{
	struct kmem_cache *s = kmem_cache_create("mag", 64, 0, 0, NULL);
	void *obj[10];

	(void)state;
	for (int i = 0; i < 10; i++)
		obj[i] = kmem_cache_alloc(s, GFP_KERNEL);
	/* The empty magazine was refilled once; nine pops followed. */
	assert_int_equal(slab_test_field("mag", "magazine_misses"), 1);
	assert_int_equal(slab_test_field("mag", "magazine_hits"), 9);
	assert_true(slab_test_field("mag", "magazine_limit") > 0);
	slabinfo_json(json, sizeof(json));
	char want[64];
	snprintf(want, sizeof(want), "\"magazines\":[%ld,0]",
		 slab_test_field("mag", "cpu_cached"));
	assert_non_null(strstr(strstr(json, "\"mag\":{"), want));
	for (int i = 0; i < 10; i++)
		kmem_cache_free(s, obj[i]);
	kmem_cache_destroy(s);
}

static void test_slab_alloc_for_another_node_is_a_miss(void **state)
{
	struct kmem_cache *s = kmem_cache_create("far", 64, 0, 0, NULL);
	void *obj = kmem_cache_alloc_node(s, GFP_KERNEL, 1);

	(void)state;
	assert_non_null(obj);
	assert_int_equal(slab_test_field("far", "alloc_remote"), 1);
	assert_int_equal(slab_test_field("far", "magazine_misses"), 1);
	assert_int_equal(slab_test_field("far", "magazine_hits"), 0);
	kmem_cache_free(s, obj);
	kmem_cache_destroy(s);
}

static struct page_frag_cache frag_nc;
static void *frag;

static void free_frag(void *arg)
{
	(void)arg;
	page_frag_free(frag);
}

static void alloc_frag(void *arg)
{
	(void)arg;
	frag = page_frag_alloc(&frag_nc, 256, GFP_KERNEL);
}

static void test_frag_free_on_another_nodes_cpu_is_remote(void **state)
{
	long before, after;

	(void)state;
	page_frag_stats_json(json, sizeof(json));
	before = json_num(json, "{", "remote_frees");
	frag = page_frag_alloc(&frag_nc, 256, GFP_KERNEL); /* node 0 */
	assert_int_equal(page_to_nid(virt_to_head_page(frag)), 0);
	mm_test_on_cpu(1, free_frag, NULL); /* CPU 1 is on node 1 */
	page_frag_stats_json(json, sizeof(json));
	after = json_num(json, "{", "remote_frees");
	assert_int_equal(after, before + 1);
	assert_int_equal(json_num(json, "\"cpu1\":{", "remote_frees"), 1);
	/* A free on the block's own node is not remote. */
	frag = page_frag_alloc(&frag_nc, 256, GFP_KERNEL);
	page_frag_free(frag);
	page_frag_stats_json(json, sizeof(json));
	assert_int_equal(json_num(json, "{", "remote_frees"), after);
	page_frag_cache_drain(&frag_nc);
}

static void test_frag_json_counts_per_cpu(void **state)
{
	long cpu0, cpu1, sum;

	(void)state;
	page_frag_stats_json(json, sizeof(json));
	cpu0 = json_num(json, "\"cpu0\":{", "fragments");
	cpu1 = json_num(json, "\"cpu1\":{", "fragments");
	sum = json_num(json, "{", "fragments");
	assert_int_equal(sum, cpu0 + cpu1);
	mm_test_on_cpu(1, alloc_frag, NULL);
	mm_test_on_cpu(1, free_frag, NULL);
	page_frag_stats_json(json, sizeof(json));
	assert_int_equal(json_num(json, "\"cpu0\":{", "fragments"), cpu0);
	assert_int_equal(json_num(json, "\"cpu1\":{", "fragments"), cpu1 + 1);
	assert_int_equal(json_num(json, "{", "fragments"), sum + 1);
	assert_null(strstr(json, "\"cpu2\""));
	/* snprintf semantics with the per-CPU part too. */
	char tiny[8];
	int n = page_frag_stats_json(json, sizeof(json));
	assert_int_equal(n, (int)strlen(json));
	assert_int_equal(page_frag_stats_json(tiny, sizeof(tiny)), n);
	assert_int_equal(json[n - 1], '}');
	page_frag_cache_drain(&frag_nc);
}

static void test_qmempool_json_shows_each_cpus_localq(void **state)
{
	struct kmem_cache *s = kmem_cache_create("qmp_json", 128, 0, 0, NULL);
	struct qmempool *pool = qmempool_create(32, 128, 0, s, GFP_KERNEL);
	void *obj = qmempool_alloc(pool, GFP_KERNEL);
	char want[64];

	(void)state;
	assert_non_null(obj);
	qmempool_stats_json(json, sizeof(json));
	/* One bulk from the slab: one object out, the rest in CPU 0's
	 * localq, none in CPU 1's. */
	snprintf(want, sizeof(want), "\"in_localq_cpu\":[%d,0]",
		 QMEMPOOL_BULK - 1);
	assert_non_null(strstr(json, want));
	qmempool_free(pool, obj);
	qmempool_destroy(pool);
	kmem_cache_destroy(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f)                                                         \
	cmocka_unit_test_setup_teardown(f, slab_test_boot_two_nodes, \
					slab_test_shutdown)
		T(test_slab_first_alloc_misses_then_magazine_hits),
		T(test_slab_alloc_for_another_node_is_a_miss),
		T(test_frag_free_on_another_nodes_cpu_is_remote),
		T(test_frag_json_counts_per_cpu),
		T(test_qmempool_json_shows_each_cpus_localq),
#undef T
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
