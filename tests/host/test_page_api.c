/*
 * The page API around the allocator: zeroing, compound pages and their
 * heads, reference counts, free_pages, and the statistics functions.
 */
#include <stdio.h>
#include <string.h>

#include "mm_test.h"
#include "zone.h"

static void test_gfp_zero_clears_a_reused_page(void **state)
{
	(void)state;
	struct page *p = alloc_pages(GFP_KERNEL, 0);
	memset(page_address(p), 0xff, MM_PAGE_SIZE);
	__free_pages(p, 0);
	struct page *q = alloc_pages(GFP_KERNEL | __GFP_ZERO, 0);
	assert_ptr_equal(q, p); /* the hot page comes back first */
	const unsigned char *a = page_address(q);
	for (size_t i = 0; i < MM_PAGE_SIZE; i++)
		assert_int_equal(a[i], 0);
	__free_pages(q, 0);
}

static void test_gfp_zero_clears_every_page_of_a_block(void **state)
{
	(void)state;
	struct page *p = alloc_pages(GFP_KERNEL, 4);
	memset(page_address(p), 0x5a, 16 * MM_PAGE_SIZE);
	__free_pages(p, 4);
	drain_all_pages();
	/* Order 4 is above the per-CPU lists: the block merged back into the
	 * buddy lists, and the same split hands the same, dirty block out
	 * again. Without this check the test would pass with __GFP_ZERO
	 * ignored, on a block that happened to be clean. */
	struct page *q = alloc_pages(__GFP_ZERO, 4);
	assert_ptr_equal(q, p);
	const unsigned char *a = page_address(q);
	for (size_t i = 0; i < 16 * MM_PAGE_SIZE; i++)
		assert_int_equal(a[i], 0);
	__free_pages(q, 4);
}

static void test_compound_tails_lead_to_the_head(void **state)
{
	(void)state;
	struct page *p = alloc_pages(GFP_KERNEL | __GFP_COMP, 3);
	char *a = page_address(p);
	assert_true(p->flags & PG_head);
	for (int i = 1; i < 8; i++) {
		assert_true(p[i].flags & PG_tail);
		assert_ptr_equal(compound_head(&p[i]), p);
		assert_ptr_equal(virt_to_head_page(a + i * MM_PAGE_SIZE + 100),
				 p);
	}
	assert_ptr_equal(compound_head(p), p);
	__free_pages(p, 3);
}

static void test_non_compound_pages_are_their_own_heads(void **state)
{
	(void)state;
	struct page *p = alloc_pages(GFP_KERNEL, 2);
	assert_ptr_equal(
		virt_to_head_page((char *)page_address(p) + 2 * MM_PAGE_SIZE),
		p + 2);
	__free_pages(p, 2);
}

static void test_put_page_on_a_tail_frees_the_whole_block(void **state)
{
	(void)state;
	unsigned long before = mm_test_drain_and_verify();
	struct page *p = alloc_pages(GFP_KERNEL | __GFP_COMP, 5);
	get_page(&p[7]); /* a reference through a tail counts on the head */
	assert_int_equal(page_ref_count(p), 2);
	put_page(&p[3]);
	assert_int_equal(page_ref_count(p), 1);
	assert_true(p->flags & PG_head);
	put_page(&p[31]);
	assert_int_equal(page_ref_count(p), 0);
	assert_false(p[1].flags & PG_tail);
	assert_int_equal(mm_test_drain_and_verify(), before);
}

static void test_free_pages_by_address_and_null(void **state)
{
	(void)state;
	unsigned long before = mm_test_drain_and_verify();
	struct page *p = alloc_pages(GFP_KERNEL, 6);
	free_pages(page_address(p), 6);
	free_pages(NULL, 6);
	assert_int_equal(mm_test_drain_and_verify(), before);
}

static void test_last_reference_frees_order0_through_pcp(void **state)
{
	(void)state;
	struct page *p = alloc_pages(GFP_KERNEL, 0);
	int listed = pcp_count(0, 0, 0);
	page_ref_add(p, 2);
	put_page(p);
	put_page(p);
	assert_int_equal(pcp_count(0, 0, 0), listed);
	put_page(p);
	assert_int_equal(pcp_count(0, 0, 0), listed + 1);
}

static void test_bad_node_is_refused_with_null(void **state)
{
	(void)state;
	unsigned long before = nr_free_pages();
	assert_null(alloc_pages_node(1, __GFP_NOWARN, 0)); /* 1 node only */
	assert_null(alloc_pages_node(MM_MAX_NODES + 5, __GFP_NOWARN, 0));
	assert_int_equal(nr_free_pages(), before);
}

static void test_failure_is_counted_on_the_preferred_node(void **state)
{
	(void)state;
	unsigned long fails = mm_zones[0].alloc_fail;
	assert_null(alloc_pages(__GFP_NOWARN, MAX_ORDER + 1));
	assert_int_equal(mm_zones[0].alloc_fail, fails + 1);
}

static void test_stats_have_snprintf_semantics(void **state)
{
	(void)state;
	int (*fns[])(char *, size_t) = {buddyinfo_text, buddyinfo_json,
					zoneinfo_text,	zoneinfo_json,
					numastat_text,	numastat_json};
	static char big[16384];
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		int n = fns[i](big, sizeof(big));
		assert_true(n > 0 && (size_t)n < sizeof(big));
		assert_int_equal(strlen(big), n);
		char small[16];
		memset(small, 'x', sizeof(small));
		assert_int_equal(fns[i](small, sizeof(small)), n);
		assert_int_equal(strlen(small), sizeof(small) - 1);
		assert_int_equal(fns[i](NULL, 0), n);
	}
}

static void test_buddyinfo_json_matches_the_free_lists(void **state)
{
	(void)state;
	pcp_set_enabled(false);
	struct page *p = alloc_pages(GFP_KERNEL, 0); /* splits one block */
	char buf[1024], want[64];
	buddyinfo_json(buf, sizeof(buf));
	assert_non_null(strstr(buf, "{\"node0\":{\"free_blocks\":["));
	snprintf(want, sizeof(want), "\"free_pages\":%lu}}", nr_free_pages());
	assert_non_null(strstr(buf, want));
	char text[512];
	buddyinfo_text(text, sizeof(text));
	assert_non_null(strstr(text, "Node 0, zone   Normal"));
	__free_pages(p, 0);
}

static void test_zoneinfo_shows_per_cpu_list_lengths(void **state)
{
	(void)state;
	struct page *p = alloc_pages(GFP_KERNEL, 0);
	char buf[4096], want[64];
	zoneinfo_json(buf, sizeof(buf));
	snprintf(want, sizeof(want), "\"cpu0\":{\"count\":[%d,0,0,0]",
		 pcp_batch(0, 0) - 1);
	assert_non_null(strstr(buf, want));
	assert_non_null(strstr(buf, "\"alloc_miss\":1"));
	__free_pages(p, 0);
}

static void test_numastat_json_counts_pages(void **state)
{
	(void)state;
	struct page *p = alloc_pages(GFP_KERNEL, 2);
	char buf[1024];
	numastat_json(buf, sizeof(buf));
	assert_non_null(strstr(buf,
			       "{\"node0\":{\"numa_hit\":4,\"numa_miss\":0,"
			       "\"numa_foreign\":0,\"local_node\":4,"
			       "\"other_node\":0}}"));
	__free_pages(p, 2);
}

int main(void)
{
#define T(f)                                                    \
	cmocka_unit_test_setup_teardown(f, mm_test_setup_1node, \
					mm_test_teardown)
	const struct CMUnitTest tests[] = {
		T(test_gfp_zero_clears_a_reused_page),
		T(test_gfp_zero_clears_every_page_of_a_block),
		T(test_compound_tails_lead_to_the_head),
		T(test_non_compound_pages_are_their_own_heads),
		T(test_put_page_on_a_tail_frees_the_whole_block),
		T(test_free_pages_by_address_and_null),
		T(test_last_reference_frees_order0_through_pcp),
		T(test_bad_node_is_refused_with_null),
		T(test_failure_is_counted_on_the_preferred_node),
		T(test_stats_have_snprintf_semantics),
		T(test_buddyinfo_json_matches_the_free_lists),
		T(test_zoneinfo_shows_per_cpu_list_lengths),
		T(test_numastat_json_counts_pages),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
