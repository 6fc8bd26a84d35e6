/*
 * Unit tests of the page fragment cache (mm/page_frag.c): carving,
 * alignment, argument checks, the reference bias, in-place recycling, the
 * order-3 fallback and the counters. Each test boots a fresh machine.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "debug.h"
#include "mm_test.h"
#include "zone.h"

#define NODE_BYTES (16u << 20)
#define BLOCK	   (MM_PAGE_SIZE << PAGE_FRAG_CACHE_MAX_ORDER)

static struct page_frag_stats before;

static int boot(void **state)
{
	static const int cpu_to_node[2] = {0, 0};

	(void)state;
	if (mm_host_boot(1, NODE_BYTES, 2, cpu_to_node))
		return -1;
	assert_int_equal(mm_host_set_cpu(0), 0);
	page_frag_force_order0(false);
	page_frag_stats_read(&before);
	return 0;
}

static int shutdown(void **state)
{
	(void)state;
	page_frag_percpu_drain(0);
	page_frag_percpu_drain(1);
	page_frag_force_order0(false);
	return mm_test_teardown(state);
}

/* Free pages with every per-CPU list flushed, so the count is exact. */
/* Free pages with every per-CPU list flushed and every free list checked. */
static unsigned long free_pages_now(void)
{
	return mm_test_drain_and_verify();
}

static struct page_frag_stats delta(void)
{
	struct page_frag_stats now;

	page_frag_stats_read(&now);
	return (struct page_frag_stats){
		.fragments = now.fragments - before.fragments,
		.refills_order3 = now.refills_order3 - before.refills_order3,
		.refills_order0 = now.refills_order0 - before.refills_order0,
		.order3_fallbacks =
			now.order3_fallbacks - before.order3_fallbacks,
		.refills_remote = now.refills_remote - before.refills_remote,
		.recycles = now.recycles - before.recycles,
		.frees = now.frees - before.frees,
		.blocks_returned = now.blocks_returned - before.blocks_returned,
		.pages_returned = now.pages_returned - before.pages_returned,
		.drains = now.drains - before.drains,
		.err_oversize = now.err_oversize - before.err_oversize,
		.err_bad_align = now.err_bad_align - before.err_bad_align,
		.alloc_failed = now.alloc_failed - before.alloc_failed,
		.tx_misuse = now.tx_misuse - before.tx_misuse,
	};
}

static void test_zeroed_cache_is_ready_and_first_refill_is_order3(void **s)
{
	struct page_frag_cache nc = {0};
	char *p = page_frag_alloc(&nc, 100, GFP_KERNEL);

	(void)s;
	assert_non_null(p);
	assert_int_equal(virt_to_head_page(p)->order, 3);
	assert_int_equal(delta().refills_order3, 1);
	assert_int_equal(delta().fragments, 1);
	page_frag_free(p);
	page_frag_cache_drain(&nc);
}

static void test_fragments_are_carved_upward_back_to_back(void **s)
{
	struct page_frag_cache nc = {0};
	char *a = page_frag_alloc(&nc, 12, GFP_KERNEL);
	char *b = page_frag_alloc(&nc, 12, GFP_KERNEL);
	char *c = page_frag_alloc(&nc, 100, GFP_KERNEL);

	(void)s;
	assert_ptr_equal(a, page_address(virt_to_head_page(a)));
	assert_ptr_equal(b, a + 12);
	assert_ptr_equal(c, b + 12);
	page_frag_free(a);
	page_frag_free(b);
	page_frag_free(c);
	page_frag_cache_drain(&nc);
}

static void test_one_block_serves_32k_of_fragments(void **s)
{
	struct page_frag_cache nc = {0};
	char *p[BLOCK / 1024];

	(void)s;
	for (unsigned int i = 0; i < BLOCK / 1024; i++) {
		p[i] = page_frag_alloc(&nc, 1024, GFP_KERNEL);
		assert_non_null(p[i]);
		memset(p[i], (int)i, 1024);
		assert_ptr_equal(virt_to_head_page(p[i]),
				 virt_to_head_page(p[0]));
	}
	assert_int_equal(delta().refills_order3, 1);
	for (unsigned int i = 0; i < BLOCK / 1024; i++) {
		assert_int_equal((unsigned char)p[i][1023], i & 0xff);
		page_frag_free(p[i]);
	}
	page_frag_cache_drain(&nc);
}

static void test_align_returns_aligned_fragments(void **s)
{
	struct page_frag_cache nc = {0};

	(void)s;
	for (unsigned int align = 1; align <= MM_PAGE_SIZE; align <<= 1) {
		char *odd = page_frag_alloc(&nc, 3, GFP_KERNEL);
		char *p = page_frag_alloc_align(&nc, 5, GFP_KERNEL, align);

		assert_non_null(odd);
		assert_non_null(p);
		assert_int_equal((uintptr_t)p & (align - 1), 0);
		assert_true(p > odd ||
			    virt_to_head_page(p) != virt_to_head_page(odd));
		page_frag_free(odd);
		page_frag_free(p);
	}
	page_frag_cache_drain(&nc);
}

static void test_bad_alignment_is_refused_and_counted(void **s)
{
	static const unsigned int bad[] = {0, 3, 48, 100, 2 * MM_PAGE_SIZE};
	struct page_frag_cache nc = {0};

	(void)s;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_null(page_frag_alloc_align(&nc, 64, GFP_KERNEL, bad[i]));
	assert_int_equal(delta().err_bad_align, 5);
	assert_int_equal(delta().fragments, 0);
	assert_int_equal(nc.encoded_block, 0);
}

static void test_oversize_and_zero_size_are_refused_and_counted(void **s)
{
	struct page_frag_cache nc = {0};
	char *page;

	(void)s;
	assert_null(page_frag_alloc(&nc, MM_PAGE_SIZE + 1, GFP_KERNEL));
	assert_null(page_frag_alloc(&nc, 0, GFP_KERNEL));
	assert_null(page_frag_alloc(&nc, 0xffffffffu, GFP_KERNEL));
	assert_null(page_frag_alloc_align(&nc, 1u << 20, GFP_KERNEL, 64));
	assert_int_equal(delta().err_oversize, 4);
	page = page_frag_alloc(&nc, MM_PAGE_SIZE, GFP_KERNEL);
	assert_non_null(page);
	page_frag_free(page);
	page_frag_cache_drain(&nc);
}

static void test_bias_holds_block_until_last_fragment_is_freed(void **s)
{
	unsigned long free0 = free_pages_now();
	struct page_frag_cache nc = {0};
	char *p[10];

	(void)s;
	for (int i = 0; i < 10; i++)
		p[i] = page_frag_alloc(&nc, 200, GFP_KERNEL);
	page_frag_cache_drain(&nc);
	for (int i = 0; i < 9; i++)
		page_frag_free(p[i]);
	assert_int_equal(free_pages_now(), free0 - 8);
	/* One reference left that this CPU's free batch does not hold: p[9]. */
	assert_int_equal(page_ref_count(virt_to_head_page(p[9])) -
				 (int)page_frag_free_pending(0),
			 1);
	assert_int_equal(delta().blocks_returned, 0);
	page_frag_free(p[9]);
	assert_int_equal(free_pages_now(), free0);
	assert_int_equal(delta().blocks_returned, 1);
	assert_int_equal(delta().pages_returned, 8);
}

static void test_drain_gives_every_page_back(void **s)
{
	unsigned long free0 = free_pages_now();
	struct page_frag_cache nc = {0};
	enum { N = 500 };
	void *p[N];

	(void)s;
	/* 500 x 1500 bytes spans several blocks; some are exhausted. */
	for (int i = 0; i < N; i++)
		assert_non_null(p[i] = page_frag_alloc(&nc, 1500, GFP_KERNEL));
	assert_true(free_pages_now() < free0);
	for (int i = 0; i < N; i++)
		page_frag_free(p[i]);
	page_frag_cache_drain(&nc);
	assert_int_equal(free_pages_now(), free0);
	assert_int_equal(delta().frees, N);
	/* Every block was used up with fragments out: none recycled. */
	assert_int_equal(delta().recycles, 0);
	assert_int_equal(delta().pages_returned, 8 * delta().refills_order3);
}

static void test_drained_cache_with_no_fragments_out_frees_at_once(void **s)
{
	unsigned long free0 = free_pages_now();
	struct page_frag_cache nc = {0};

	(void)s;
	page_frag_free(page_frag_alloc(&nc, 64, GFP_KERNEL));
	assert_int_equal(free_pages_now(), free0 - 8);
	page_frag_cache_drain(&nc);
	assert_int_equal(free_pages_now(), free0);
	assert_int_equal(delta().drains, 1);
	/* A drained cache is empty and usable again. */
	assert_int_equal(nc.encoded_block, 0);
	page_frag_free(page_frag_alloc(&nc, 64, GFP_KERNEL));
	page_frag_cache_drain(&nc);
}

static void test_used_up_block_is_recycled_in_place_when_all_back(void **s)
{
	unsigned long free0 = free_pages_now();
	struct page_frag_cache nc = {0};
	char *first = NULL, *again;

	(void)s;
	for (unsigned int i = 0; i < BLOCK / MM_PAGE_SIZE; i++) {
		char *p = page_frag_alloc(&nc, MM_PAGE_SIZE, GFP_KERNEL);

		if (!first)
			first = p;
		page_frag_free(p);
	}
	again = page_frag_alloc(&nc, 64, GFP_KERNEL);
	assert_ptr_equal(again, first);
	assert_int_equal(delta().recycles, 1);
	assert_int_equal(delta().refills_order3, 1);
	assert_int_equal(delta().blocks_returned, 0);
	/* The recycled block took a full bias again: none lost, none extra. */
	assert_int_equal(page_ref_count(virt_to_head_page(again)),
			 (int)nc.pagecnt_bias + 1);
	page_frag_free(again);
	assert_int_equal(free_pages_now(), free0 - 8);
	page_frag_cache_drain(&nc);
	assert_int_equal(free_pages_now(), free0);
}

static void test_used_up_block_with_fragment_out_is_replaced(void **s)
{
	unsigned long free0 = free_pages_now();
	struct page_frag_cache nc = {0};
	char *kept = page_frag_alloc(&nc, MM_PAGE_SIZE, GFP_KERNEL), *next;

	(void)s;
	for (unsigned int i = 1; i < BLOCK / MM_PAGE_SIZE; i++)
		page_frag_free(page_frag_alloc(&nc, MM_PAGE_SIZE, GFP_KERNEL));
	next = page_frag_alloc(&nc, 64, GFP_KERNEL);
	assert_ptr_not_equal(virt_to_head_page(next), virt_to_head_page(kept));
	assert_int_equal(delta().recycles, 0);
	assert_int_equal(delta().refills_order3, 2);
	/* The old block now lives only through the kept fragment. */
	assert_int_equal(page_ref_count(virt_to_head_page(kept)), 1);
	page_frag_free(kept);
	assert_int_equal(delta().blocks_returned, 1);
	page_frag_free(next);
	page_frag_cache_drain(&nc);
	assert_int_equal(free_pages_now(), free0);
}

/* Fragment memory on purpose: all of it in order-0 pages, every other freed. */
static void **fragment_memory(size_t *n_out)
{
	size_t cap = NODE_BYTES / MM_PAGE_SIZE, n = 0;
	void **pages = calloc(cap, sizeof(*pages));
	struct page *pg;

	assert_non_null(pages);
	while (n < cap && (pg = alloc_pages(GFP_KERNEL | __GFP_NOWARN, 0)))
		pages[n++] = page_address(pg);
	assert_null(alloc_pages(GFP_KERNEL | __GFP_NOWARN, 0));
	for (size_t i = 0; i < n; i++) {
		if (((uintptr_t)pages[i] / MM_PAGE_SIZE) & 1) {
			free_pages(pages[i], 0);
			pages[i] = NULL;
		}
	}
	drain_all_pages();
	*n_out = n;
	return pages;
}

static void unfragment_memory(void **pages, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (pages[i])
			free_pages(pages[i], 0);
	free(pages);
}

static void test_order3_failure_falls_back_to_order0(void **s)
{
	struct page_frag_cache nc = {0};
	size_t n;
	void **held = fragment_memory(&n);
	char *a, *b;

	(void)s;
	assert_null(alloc_pages(GFP_KERNEL | __GFP_NOWARN, 3));
	page_frag_stats_read(&before);
	a = page_frag_alloc(&nc, 3000, GFP_KERNEL);
	b = page_frag_alloc(&nc, 3000, GFP_KERNEL);
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(virt_to_head_page(a)->order, 0);
	assert_ptr_not_equal(virt_to_head_page(a), virt_to_head_page(b));
	assert_int_equal(delta().order3_fallbacks, 2);
	assert_int_equal(delta().refills_order0, 2);
	assert_int_equal(delta().refills_order3, 0);
	page_frag_free(a);
	page_frag_free(b);
	page_frag_cache_drain(&nc);
	unfragment_memory(held, n);
}

static void test_force_order0_skips_the_order3_attempt(void **s)
{
	struct page_frag_cache nc = {0};
	char *p;

	(void)s;
	page_frag_force_order0(true);
	p = page_frag_alloc(&nc, 64, GFP_KERNEL);
	assert_non_null(p);
	assert_int_equal(virt_to_head_page(p)->order, 0);
	assert_int_equal(delta().refills_order0, 1);
	assert_int_equal(delta().order3_fallbacks, 0);
	page_frag_free(p);
	page_frag_cache_drain(&nc);
}

static void test_no_memory_returns_null_and_counts(void **s)
{
	struct page_frag_cache nc = {0};
	size_t cap = NODE_BYTES / MM_PAGE_SIZE, n = 0;
	struct page **pages = calloc(cap, sizeof(*pages));

	(void)s;
	while (n < cap &&
	       (pages[n] = alloc_pages(GFP_KERNEL | __GFP_NOWARN, 0)))
		n++;
	assert_null(page_frag_alloc(&nc, 64, GFP_KERNEL | __GFP_NOWARN));
	assert_int_equal(delta().alloc_failed, 1);
	assert_int_equal(nc.encoded_block, 0);
	for (size_t i = 0; i < n; i++)
		__free_pages(pages[i], 0);
	free(pages);
	assert_non_null(page_frag_alloc(&nc, 64, GFP_KERNEL));
	page_frag_cache_drain(&nc);
}

static void test_stats_text_and_json_show_counters(void **s)
{
	struct page_frag_cache nc = {0};
	char text[1024], json[4096], tiny[8]; /* json: sums + per CPU */
	struct page_frag_stats now;
	char want[64];
	int n;

	(void)s;
	page_frag_free(page_frag_alloc(&nc, 64, GFP_KERNEL));
	page_frag_cache_drain(&nc);
	page_frag_stats_read(&now);
	n = page_frag_stats_text(text, sizeof(text));
	assert_int_equal(n, (int)strlen(text));
	snprintf(want, sizeof(want), "frees             %llu\n",
		 (unsigned long long)now.frees);
	assert_non_null(strstr(text, want));
	n = page_frag_stats_json(json, sizeof(json));
	assert_int_equal(n, (int)strlen(json));
	assert_int_equal(json[0], '{');
	assert_int_equal(json[n - 1], '}');
	snprintf(want, sizeof(want), "\"fragments\":%llu",
		 (unsigned long long)now.fragments);
	assert_non_null(strstr(json, want));
	/* Truncation: never past the buffer, same length reported. */
	memset(tiny, 'x', sizeof(tiny));
	assert_int_equal(page_frag_stats_json(tiny, 5), n);
	assert_string_equal(tiny, "{\"fr");
	assert_int_equal(tiny[5], 'x');
	assert_int_equal(page_frag_stats_json(NULL, 0), n);
}

/*
 * Lu's point: the block's last free goes through the shared free path to
 * the freeing CPU's per-CPU list (order 3 is a PCP order), and the next
 * order-3 refill on that CPU takes the very same block from there.
 */
static void test_freed_block_waits_on_the_freeing_cpus_list(void **s)
{
	struct page_frag_cache nc0 = {0}, nc1 = {0};
	char *p = page_frag_alloc(&nc0, 64, GFP_KERNEL), *q;
	int on_list;

	(void)s;
	page_frag_cache_drain(&nc0);
	assert_int_equal(mm_host_set_cpu(1), 0);
	on_list = pcp_count(0, 1, PAGE_FRAG_CACHE_MAX_ORDER);
	page_frag_free(p);
	assert_int_equal(pcp_count(0, 1, PAGE_FRAG_CACHE_MAX_ORDER),
			 on_list + 1);
	q = page_frag_alloc(&nc1, 64, GFP_KERNEL);
	assert_ptr_equal(q, p);
	assert_int_equal(pcp_count(0, 1, PAGE_FRAG_CACHE_MAX_ORDER), on_list);
	page_frag_free(q);
	page_frag_cache_drain(&nc1);
	assert_int_equal(mm_host_set_cpu(0), 0);
}

static void test_free_of_an_address_outside_memory_is_reported(void **s)
{
	char not_ours[64];

	(void)s;
	mm_debug_set_quiet(true);
	mm_debug_reset_counts();
	page_frag_free(not_ours);
	assert_int_equal(mm_debug_count(MM_DBG_NOT_ALLOCATED), 1);
	assert_int_equal(delta().frees, 0);
}

static void test_free_after_the_block_was_freed_is_caught_in_debug(void **s)
{
	unsigned long free0 = free_pages_now();
	struct page_frag_cache nc = {0};
	char *p = page_frag_alloc(&nc, 64, GFP_KERNEL);

	(void)s;
	page_frag_cache_drain(&nc);
	page_frag_free(p); /* the last reference: the block is freed */
	mm_debug_set(true);
	mm_debug_set_quiet(true);
	mm_debug_reset_counts();
	page_frag_free(p);
	assert_int_equal(mm_debug_count(MM_DBG_DOUBLE_FREE), 1);
	assert_int_equal(free_pages_now(), free0);
}

/* The report came from inside fn (the return address lies in its body). */
static void assert_caller_in(void (*fn)(void **))
{
	uintptr_t c = (uintptr_t)mm_debug_last_caller();

	assert_true(c > (uintptr_t)fn && c < (uintptr_t)fn + 4096);
}

static void debug_on_quiet(void)
{
	mm_debug_set(true);
	mm_debug_set_quiet(true);
	mm_debug_reset_counts();
}

/*
 * Eight fragments fill a block. Freeing f[0] twice and f[2..7] drops as
 * many references as freeing all but f[1]: without a record of which
 * fragment each free belongs to, the next refill recycles the block in
 * place under the live f[1] and hands its bytes out again. With debug
 * checks on, the second free of f[0] is reported with its caller and
 * refused, so the block stays f[1]'s until f[1] itself comes back.
 */
static void
test_double_free_is_caught_and_the_block_kept_for_the_live_one(void **s)
{
	unsigned long free0 = free_pages_now();
	struct page_frag_cache nc = {0};
	char *f[8], *next;

	(void)s;
	debug_on_quiet();
	for (int i = 0; i < 8; i++) {
		f[i] = page_frag_alloc(&nc, MM_PAGE_SIZE, GFP_KERNEL);
		assert_ptr_equal(f[i], f[0] + i * MM_PAGE_SIZE);
	}
	memset(f[1], 0xab, MM_PAGE_SIZE);
	page_frag_free(f[0]);
	page_frag_free(f[0]);
	assert_int_equal(mm_debug_count(MM_DBG_DOUBLE_FREE), 1);
	assert_caller_in(
		test_double_free_is_caught_and_the_block_kept_for_the_live_one);
	for (int i = 2; i < 8; i++)
		page_frag_free(f[i]);
	next = page_frag_alloc(&nc, MM_PAGE_SIZE, GFP_KERNEL);
	assert_ptr_not_equal(virt_to_head_page(next), virt_to_head_page(f[1]));
	assert_int_equal(delta().recycles, 0);
	for (size_t i = 0; i < MM_PAGE_SIZE; i++)
		assert_int_equal((unsigned char)f[1][i], 0xab);
	assert_int_equal(delta().blocks_returned, 0);
	page_frag_free(f[1]); /* the block's real last fragment */
	assert_int_equal(delta().blocks_returned, 1);
	page_frag_free(next);
	page_frag_cache_drain(&nc);
	assert_int_equal(mm_debug_total(), 1);
	/* Blocks and their debug records all went back. */
	assert_int_equal(free_pages_now(), free0);
}

/* A free through a pointer inside the fragment counts for that fragment;
 * a second free through its start is then the double free. */
static void test_debug_free_by_an_inner_pointer_finds_its_fragment(void **s)
{
	struct page_frag_cache nc = {0};
	char *a, *b;

	(void)s;
	debug_on_quiet();
	a = page_frag_alloc(&nc, 100, GFP_KERNEL);
	b = page_frag_alloc(&nc, 100, GFP_KERNEL);
	page_frag_free(b + 99);
	page_frag_free(a + 50);
	assert_int_equal(mm_debug_total(), 0);
	page_frag_free(b);
	assert_int_equal(mm_debug_count(MM_DBG_DOUBLE_FREE), 1);
	page_frag_cache_drain(&nc);
	assert_int_equal(delta().blocks_returned, 1);
}

/* An aborted fragment is no fragment: its reference went back to the
 * cache, so freeing it is caught, and not taken for the one before it. */
static void test_debug_free_of_an_aborted_fragment_is_caught(void **s)
{
	unsigned long free0 = free_pages_now();
	struct page_frag_cache nc = {0};
	char *a, *b, *c;

	(void)s;
	debug_on_quiet();
	a = page_frag_alloc(&nc, 64, GFP_KERNEL);
	b = page_frag_alloc(&nc, 64, GFP_KERNEL);
	assert_true(page_frag_abort(&nc, b, 64));
	page_frag_free(b);
	assert_int_equal(mm_debug_count(MM_DBG_DOUBLE_FREE), 1);
	page_frag_free(a); /* a itself was never touched */
	/* The aborted bytes are handed out again, and tracked again. */
	c = page_frag_alloc(&nc, 64, GFP_KERNEL);
	assert_ptr_equal(c, b);
	page_frag_free(c);
	assert_int_equal(mm_debug_total(), 1);
	page_frag_cache_drain(&nc);
	assert_int_equal(free_pages_now(), free0);
}

/* With every fragment back, a tracked block is still recycled in place,
 * and the new cycle is tracked from scratch. */
static void test_debug_tracked_block_recycles_and_tracks_anew(void **s)
{
	struct page_frag_cache nc = {0};
	char *first = NULL, *again;

	(void)s;
	debug_on_quiet();
	for (unsigned int i = 0; i < BLOCK / MM_PAGE_SIZE; i++) {
		char *p = page_frag_alloc(&nc, MM_PAGE_SIZE, GFP_KERNEL);

		if (!first)
			first = p;
		page_frag_free(p);
	}
	again = page_frag_alloc(&nc, 64, GFP_KERNEL);
	assert_ptr_equal(again, first);
	assert_int_equal(delta().recycles, 1);
	page_frag_free(again);
	assert_int_equal(mm_debug_total(), 0);
	page_frag_free(again);
	assert_int_equal(mm_debug_count(MM_DBG_DOUBLE_FREE), 1);
	page_frag_cache_drain(&nc);
}

/* TX commits are fragments like any other. */
static void test_debug_double_free_of_a_committed_fragment_is_caught(void **s)
{
	struct page_frag_cache nc = {0};
	struct page_frag pf;
	char *va;

	(void)s;
	debug_on_quiet();
	va = page_frag_prepare(&nc, 100, &pf, GFP_KERNEL);
	assert_true(page_frag_commit(&nc, &pf, 100));
	assert_non_null(page_frag_probe(&nc, 10, &pf));
	assert_true(page_frag_commit(&nc, &pf, 10));
	page_frag_free(va);
	page_frag_free(va + 100);
	page_frag_free(va);
	assert_int_equal(mm_debug_count(MM_DBG_DOUBLE_FREE), 1);
	page_frag_cache_drain(&nc);
	assert_int_equal(delta().blocks_returned, 1);
}

/* Turning checks off and on while fragments are out may miss a double free
 * (frees made meanwhile were not recorded) but never reports a good free,
 * and blocks armed while checks were off are not tracked at all. */
static void
test_debug_toggled_while_fragments_are_out_never_misreports(void **s)
{
	unsigned long free0 = free_pages_now();
	struct page_frag_cache nc = {0}, off = {0};
	char *a, *b, *u;

	(void)s;
	u = page_frag_alloc(&off, 64, GFP_KERNEL); /* armed with checks off */
	debug_on_quiet();
	a = page_frag_alloc(&nc, 64, GFP_KERNEL);
	b = page_frag_alloc(&nc, 64, GFP_KERNEL);
	mm_debug_set(false);
	page_frag_free(a);
	mm_debug_set(true);
	page_frag_free(b);
	page_frag_free(u);
	assert_int_equal(mm_debug_total(), 0);
	page_frag_cache_drain(&nc);
	page_frag_cache_drain(&off);
	assert_int_equal(free_pages_now(), free0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, boot, shutdown)
		T(test_zeroed_cache_is_ready_and_first_refill_is_order3),
		T(test_fragments_are_carved_upward_back_to_back),
		T(test_one_block_serves_32k_of_fragments),
		T(test_align_returns_aligned_fragments),
		T(test_bad_alignment_is_refused_and_counted),
		T(test_oversize_and_zero_size_are_refused_and_counted),
		T(test_bias_holds_block_until_last_fragment_is_freed),
		T(test_drain_gives_every_page_back),
		T(test_drained_cache_with_no_fragments_out_frees_at_once),
		T(test_used_up_block_is_recycled_in_place_when_all_back),
		T(test_used_up_block_with_fragment_out_is_replaced),
		T(test_order3_failure_falls_back_to_order0),
		T(test_force_order0_skips_the_order3_attempt),
		T(test_no_memory_returns_null_and_counts),
		T(test_stats_text_and_json_show_counters),
		T(test_freed_block_waits_on_the_freeing_cpus_list),
		T(test_free_of_an_address_outside_memory_is_reported),
		T(test_free_after_the_block_was_freed_is_caught_in_debug),
		T(test_double_free_is_caught_and_the_block_kept_for_the_live_one),
		T(test_debug_free_by_an_inner_pointer_finds_its_fragment),
		T(test_debug_free_of_an_aborted_fragment_is_caught),
		T(test_debug_tracked_block_recycles_and_tracks_anew),
		T(test_debug_double_free_of_a_committed_fragment_is_caught),
		T(test_debug_toggled_while_fragments_are_out_never_misreports),
#undef T
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
