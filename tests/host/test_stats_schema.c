/*
 * mm's /stats.json sections against their descriptions (the stat_schema
 * each writer publishes, libc/stat_table.h): every member the JSON has
 * is described, and every described member is in every object the
 * description places it in. A machine with two nodes and two CPUs, a
 * slab cache, a qmempool, page fragments and an armed fault site, so
 * that every kind of object exists.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_walk.h"
#include "libc/stat_table.h"
#include "mm_test.h"
#include "qmempool.h"
#include "slab_test.h"

#define MAX_MEMBERS 4096

static char json[1 << 17];
static struct json_member members[MAX_MEMBERS];

struct section {
	const char *name;
	int (*json)(char *buf, size_t size);
	const struct stat_schema *schema;
};

static const struct section sections[] = {
	{"buddyinfo", buddyinfo_json, &buddyinfo_schema},
	{"zoneinfo", zoneinfo_json, &zoneinfo_schema},
	{"numastat", numastat_json, &numastat_schema},
	{"slabinfo", slabinfo_json, &slabinfo_schema},
	{"mm_debug", mm_debug_json, &mm_debug_schema},
	{"qmempool", qmempool_stats_json, &qmempool_schema},
	{"page_frag", page_frag_stats_json, &page_frag_schema},
	{"fault_inject", mm_fault_json, &mm_fault_schema},
};

static bool described(const struct stat_schema *s, const struct json_member *m)
{
	for (size_t g = 0; g < s->n; g++)
		for (size_t i = 0; i < s->group[g].n; i++)
			if (json_path_matches(s->group[g].at, m->obj) &&
			    !strcmp(s->group[g].desc[i].name, m->key))
				return true;
	return false;
}

static bool has_member(int n, const char *obj, const char *key)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(members[i].obj, obj) &&
		    (!key || !strcmp(members[i].key, key)))
			return true;
	return false;
}

/* Objects the group's path matches, each checked for every entry. */
static int check_group(const char *name, int n, const struct stat_group *g)
{
	int objects = 0;

	for (int i = 0; i < n; i++) {
		/* each object once: at its first member */
		if (!json_path_matches(g->at, members[i].obj) ||
		    has_member(i, members[i].obj, NULL))
			continue;
		objects++;
		for (size_t d = 0; d < g->n; d++)
			if (!has_member(n, members[i].obj, g->desc[d].name))
				fail_msg("%s: \"%s\" has no %s (described at "
					 "\"%s\")",
					 name, members[i].obj, g->desc[d].name,
					 g->at);
	}
	return objects;
}

static void check_section(const struct section *sec)
{
	int len = sec->json(json, sizeof(json));
	int n;

	assert_true(len > 0 && len < (int)sizeof(json));
	n = json_walk(json, members, MAX_MEMBERS);
	if (n < 0)
		fail_msg("%s: not JSON: %.200s", sec->name, json);
	assert_true(n < MAX_MEMBERS);
	for (int i = 0; i < n; i++)
		if (members[i].leaf && !described(sec->schema, &members[i]))
			fail_msg("%s: \"%s\" member %s is not described",
				 sec->name, members[i].obj, members[i].key);
	for (size_t g = 0; g < sec->schema->n; g++)
		if (!check_group(sec->name, n, &sec->schema->group[g]))
			fail_msg("%s: no object at \"%s\" to check", sec->name,
				 sec->schema->group[g].at);
}

static struct page_frag_cache frag_nc;

static void test_every_mm_section_agrees_with_its_schema(void **state)
{
	struct kmem_cache *s = kmem_cache_create("schema", 128, 0, 0, NULL);
	struct qmempool *pool = qmempool_create(32, 128, 0, s, GFP_KERNEL);
	void *obj = qmempool_alloc(pool, GFP_KERNEL);
	void *frag = page_frag_alloc(&frag_nc, 256, GFP_KERNEL);

	(void)state;
	assert_non_null(obj);
	assert_non_null(frag);
	assert_int_equal(mm_fault_set(MM_FAULT_SLAB, "every:1000"), 0);
	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++)
		check_section(&sections[i]);
	mm_fault_set(MM_FAULT_SLAB, "off");
	page_frag_free(frag);
	page_frag_cache_drain(&frag_nc);
	qmempool_free(pool, obj);
	qmempool_destroy(pool);
	kmem_cache_destroy(s);
}

/* The walker itself: a described-but-missing member and an undescribed
 * one are both found (the test above would pass on a walker that
 * reported nothing). */
static void test_walker_reports_paths_and_leaves(void **state)
{
	int n = json_walk("{\"node0\":{\"a\":[1,2],\"pcp\":{\"cpu1\":"
			  "{\"b\":-3}}},\"q\":[{\"c\":\"x\"}],\"e\":[]}",
			  members, MAX_MEMBERS);

	(void)state;
	assert_int_equal(n, 8);
	assert_string_equal(members[1].obj, "node0");
	assert_string_equal(members[1].key, "a");
	assert_true(members[1].leaf);  /* a list of numbers */
	assert_false(members[2].leaf); /* pcp */
	assert_string_equal(members[4].obj, "node0.pcp.cpu1");
	assert_string_equal(members[4].key, "b");
	assert_false(members[5].leaf); /* a list of objects */
	assert_string_equal(members[6].obj, "q[]");
	assert_true(members[7].leaf); /* an empty list */
	assert_true(json_path_matches("*.pcp.*", "node0.pcp.cpu1"));
	assert_false(json_path_matches("*", ""));
	assert_false(json_path_matches("*.pcp.*", "node0.pcp"));
	assert_true(json_path_matches("netifs.*[]", "netifs.eth0[]"));
	assert_false(json_path_matches("netifs.*[]", "netifs.eth0"));
	assert_false(json_path_matches("*.queues[]", "eth0.queues"));
	assert_int_equal(json_walk("{\"a\":}", members, MAX_MEMBERS), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			test_every_mm_section_agrees_with_its_schema,
			slab_test_boot_two_nodes, slab_test_shutdown),
		cmocka_unit_test(test_walker_reports_paths_and_leaves),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
