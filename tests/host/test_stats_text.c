/*
 * The statistics texts keep Linux's layouts, so scripts written for
 * /proc/buddyinfo, /proc/zoneinfo, /proc/slabinfo and numastat read them:
 * each test parses the text the way such a script does and checks the
 * figures against the allocator's own state.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm_test.h"
#include "zone.h"

static char text[1 << 16];

/* /proc/buddyinfo is "Node %d, zone %8s " then "%6lu " per order. */
static void test_buddyinfo_is_linux_byte_for_byte(void **state)
{
	char want[256];
	size_t n;

	(void)state;
	pcp_set_enabled(false);
	n = (size_t)snprintf(want, sizeof(want), "Node 0, zone   Normal ");
	for (unsigned int o = 0; o <= MAX_ORDER; o++)
		n += (size_t)snprintf(want + n, sizeof(want) - n, "%6lu ",
				      mm_test_free_blocks(0, o));
	snprintf(want + n, sizeof(want) - n, "\n");
	buddyinfo_text(text, sizeof(text));
	assert_string_equal(text, want);
}

/* numactl's numastat: a 16-wide label, then one 16-wide column per node,
 * headed node0, node1... */
static void test_numastat_columns_are_sixteen_wide(void **state)
{
	struct page *p;
	char *line, *save;
	int rows = 0;

	(void)state;
	p = alloc_pages_node(1, GFP_KERNEL | __GFP_THISNODE, 1);
	numastat_text(text, sizeof(text));
	line = strtok_r(text, "\n", &save);
	assert_string_equal(line, "                           node0           "
				  "node1");
	while ((line = strtok_r(NULL, "\n", &save))) {
		char name[32];
		unsigned long a, b;

		assert_int_equal(strlen(line), 16 + 2 * 16);
		assert_int_equal(sscanf(line, "%31s %lu %lu", name, &a, &b), 3);
		if (!strcmp(name, "numa_hit"))
			assert_true(b >= 2); /* the order-1 block on node 1 */
		rows++;
	}
	assert_int_equal(rows, 5);
	__free_pages(p, 1);
}

/* The value after "key" on the first line (from *pos) holding it. */
static unsigned long zone_value(const char **pos, const char *key)
{
	const char *p = strstr(*pos, key);

	assert_non_null(p);
	*pos = p + strlen(key);
	return strtoul(*pos, NULL, 10);
}

/* /proc/zoneinfo's lines as a script finds them: "pages free", "managed",
 * "nr_free_pages", the pagesets' "cpu:", "count:", "high:", "batch:",
 * then "start_pfn:". */
static void test_zoneinfo_has_linux_keys_with_our_values(void **state)
{
	struct page *p;
	const char *pos = text;

	(void)state;
	p = alloc_pages(GFP_KERNEL, 0); /* cpu 0's order-0 list refills */
	zoneinfo_text(text, sizeof(text));
	assert_memory_equal(text, "Node 0, zone   Normal\n", 22);
	assert_int_equal(zone_value(&pos, "\n  pages free "),
			 (unsigned long)atomic_load(&mm_zones[0].free_pages));
	assert_int_equal(zone_value(&pos, "\n        managed "),
			 mm_zones[0].managed_pages);
	(void)zone_value(&pos, "\n      nr_free_pages ");
	(void)zone_value(&pos, "\n      numa_hit ");
	(void)zone_value(&pos, "\n  pagesets");
	assert_int_equal(zone_value(&pos, "\n    cpu: "), 0);
	unsigned long pages = 0;
	for (int o = 0; o < NR_PCP_ORDERS; o++)
		pages += (unsigned long)mm_zones[0].pcp[0].count[o] << o;
	assert_int_equal(zone_value(&pos, "\n              count: "), pages);
	assert_int_equal(zone_value(&pos, "\n              high:  "),
			 (unsigned long)mm_zones[0].pcp_high[0]);
	assert_int_equal(zone_value(&pos, "\n              batch: "),
			 (unsigned long)mm_zones[0].pcp_batch[0]);
	assert_int_equal(zone_value(&pos, "\n  start_pfn:           "),
			 mm_zones[0].start_pfn);
	__free_pages(p, 0);
}

/* pcp: one row per node and CPU, each order as count/high/batch. */
static void test_pcp_rows_show_each_lists_length_high_and_batch(void **state)
{
	struct page *p;
	char want[64];
	const char *row;

	(void)state;
	p = alloc_pages(GFP_KERNEL, 1);
	pcp_text(text, sizeof(text));
	row = strstr(text, "\n0    0 ");
	assert_non_null(row);
	snprintf(want, sizeof(want), " %d/%d/%d ", mm_zones[0].pcp[0].count[1],
		 mm_zones[0].pcp_high[1], mm_zones[0].pcp_batch[1]);
	assert_non_null(strstr(row, want));
	assert_true(mm_zones[0].pcp[0].count[1] > 0);
	__free_pages(p, 1);
}

/* slabinfo 2.1 as slabtop reads it: the version line, the header, then
 * "%s %lu %lu %u %u %u : tunables %u %u %u : slabdata %lu %lu %lu". */
static void test_slabinfo_is_version_2_1_with_its_columns(void **state)
{
	struct kmem_cache *c;
	void *obj[3];
	char *line, *save;
	bool seen = false;

	(void)state;
	c = kmem_cache_create("layout-test", 200, 8, 0, NULL);
	for (int i = 0; i < 3; i++)
		obj[i] = kmem_cache_alloc(c, GFP_KERNEL);
	slabinfo_text(text, sizeof(text));
	line = strtok_r(text, "\n", &save);
	assert_string_equal(line, "slabinfo - version: 2.1");
	line = strtok_r(NULL, "\n", &save);
	assert_memory_equal(line,
			    "# name            <active_objs> <num_objs> "
			    "<objsize> <objperslab> <pagesperslab> : tunables "
			    "<limit> <batchcount> <sharedfactor> : slabdata "
			    "<active_slabs> <num_slabs> <sharedavail>",
			    152);
	while ((line = strtok_r(NULL, "\n", &save))) {
		char name[32];
		unsigned long active, total, aslabs, slabs, avail;
		unsigned int size, per, pages, limit, batch, shared, objsz;

		assert_int_equal(sscanf(line,
					"%31s %lu %lu %u %u %u : tunables %u "
					"%u %u : slabdata %lu %lu %lu : stats "
					"%u",
					name, &active, &total, &size, &per,
					&pages, &limit, &batch, &shared,
					&aslabs, &slabs, &avail, &objsz),
				 13);
		if (strcmp(name, "layout-test"))
			continue;
		seen = true;
		assert_int_equal(objsz, 200);
		assert_true(size >= 200); /* the slot, as Linux's s->size */
		assert_true(active >= 3 && total >= active);
		assert_int_equal(total, slabs * per);
		assert_true(limit > 0 && batch > 0 && batch <= limit);
	}
	assert_true(seen);
	for (int i = 0; i < 3; i++)
		kmem_cache_free(c, obj[i]);
	kmem_cache_destroy(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			test_buddyinfo_is_linux_byte_for_byte,
			mm_test_setup_1node, mm_test_teardown),
		cmocka_unit_test_setup_teardown(
			test_numastat_columns_are_sixteen_wide,
			mm_test_setup_2nodes, mm_test_teardown),
		cmocka_unit_test_setup_teardown(
			test_zoneinfo_has_linux_keys_with_our_values,
			mm_test_setup_1node, mm_test_teardown),
		cmocka_unit_test_setup_teardown(
			test_pcp_rows_show_each_lists_length_high_and_batch,
			mm_test_setup_1node, mm_test_teardown),
		cmocka_unit_test_setup_teardown(
			test_slabinfo_is_version_2_1_with_its_columns,
			mm_test_setup_1node, mm_test_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
