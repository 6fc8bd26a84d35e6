/*
 * Failure injection (fault_inject.h): the spec syntax and its refusals,
 * the exact every:N sequence, the repeatable random one, times:, each
 * allocator's site failing the way that allocator fails when exhausted
 * (NULL or 0, its own failure counter), the callers' memory all coming
 * back after a run with injected failures, and MM_FAULT at boot.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm_test.h"

#include "page_frag.h"
#include "qmempool.h"
#include "zone.h"

static void assert_spec_refused(const char *spec)
{
	assert_false(mm_fault_spec_ok(spec));
	assert_int_equal(mm_fault_set(MM_FAULT_PAGE, spec), -1);
}

static void spec_syntax(void **state)
{
	(void)state;
	assert_true(mm_fault_spec_ok("every:1"));
	assert_true(mm_fault_spec_ok("every:100,times:3"));
	assert_true(mm_fault_spec_ok("random:5,seed:42"));
	assert_true(mm_fault_spec_ok("random:100,seed:0,times:7"));
	assert_true(mm_fault_spec_ok("off"));
	assert_spec_refused("");
	assert_spec_refused(NULL);
	assert_spec_refused("every:0");
	assert_spec_refused("every:");
	assert_spec_refused("every:x");
	assert_spec_refused("random:0");
	assert_spec_refused("random:101");
	assert_spec_refused("seed:3");		/* no mode */
	assert_spec_refused("every:2,every:3"); /* one mode */
	assert_spec_refused("off,times:1");
	assert_spec_refused("every:2,bogus:1");
	assert_spec_refused("every:99999999999999999999");
	/* A refused spec leaves the site as it was: still off. */
	assert_int_equal(atomic_load(&mm_fault_armed), 0);
}

static void site_names_round_trip(void **state)
{
	(void)state;
	for (int s = 0; s < MM_FAULT_NR_SITES; s++) {
		const char *n = mm_fault_site_name(s);

		assert_int_equal(mm_fault_site_by_name(n, strlen(n)), s);
	}
	assert_int_equal(mm_fault_site_by_name("failslabx", 9), -1);
	assert_string_equal(mm_fault_site_name(MM_FAULT_NR_SITES), "?");
}

/* every:3 fails calls 3, 6, 9 and no other; the zone counts them. */
static void every_n_is_exact(void **state)
{
	unsigned long fails = mm_zones[0].alloc_fail;
	unsigned long free0 = mm_test_drain_and_verify();
	struct page *pages[9];

	(void)state;
	assert_int_equal(mm_fault_set(MM_FAULT_PAGE, "every:3"), 0);
	for (int i = 0; i < 9; i++) {
		pages[i] = alloc_pages(GFP_KERNEL, 0);
		if ((i + 1) % 3 == 0)
			assert_null(pages[i]);
		else
			assert_non_null(pages[i]);
	}
	assert_int_equal(mm_fault_calls(MM_FAULT_PAGE), 9);
	assert_int_equal(mm_fault_injected(MM_FAULT_PAGE), 3);
	assert_int_equal(mm_zones[0].alloc_fail, fails + 3);
	assert_int_equal(mm_fault_set(MM_FAULT_PAGE, "off"), 0);
	for (int i = 0; i < 9; i++)
		if (pages[i])
			__free_pages(pages[i], 0);
	assert_int_equal(mm_test_drain_and_verify(), free0);
}

/* The failure pattern of n calls under spec, as a bit mask. */
static uint64_t pattern(const char *spec, int n)
{
	uint64_t mask = 0;

	assert_int_equal(mm_fault_set(MM_FAULT_SLAB, spec), 0);
	for (int i = 0; i < n; i++)
		if (__mm_fault_should_fail(MM_FAULT_SLAB))
			mask |= 1ull << i;
	assert_int_equal(mm_fault_set(MM_FAULT_SLAB, "off"), 0);
	return mask;
}

static void random_repeats_by_seed(void **state)
{
	int hits = 0;

	(void)state;
	assert_true(pattern("random:30,seed:7", 64) ==
		    pattern("random:30,seed:7", 64));
	assert_true(pattern("random:30,seed:7", 64) !=
		    pattern("random:30,seed:8", 64));
	assert_true(pattern("random:100", 64) == ~0ull);
	/* The share: 10000 calls at 20% (binomial sd 40) within 5 sd. */
	assert_int_equal(mm_fault_set(MM_FAULT_SLAB, "random:20,seed:3"), 0);
	for (int i = 0; i < 10000; i++)
		hits += __mm_fault_should_fail(MM_FAULT_SLAB);
	assert_int_equal(mm_fault_injected(MM_FAULT_SLAB), hits);
	assert_in_range(hits, 1800, 2200);
}

static void times_limits_failures(void **state)
{
	(void)state;
	assert_true(pattern("every:1,times:5", 20) == 0x1f);
	assert_int_equal(mm_fault_set(MM_FAULT_SLAB, "every:2,times:2"), 0);
	for (int i = 0; i < 10; i++)
		(void)__mm_fault_should_fail(MM_FAULT_SLAB);
	assert_int_equal(mm_fault_calls(MM_FAULT_SLAB), 10);
	assert_int_equal(mm_fault_injected(MM_FAULT_SLAB), 2);
}

/* Only the armed site fails: a page site leaves slab hits alone. */
static void sites_are_independent(void **state)
{
	struct kmem_cache *c = kmem_cache_create("fi_ind", 64, 0, 0, NULL);
	void *obj;

	(void)state;
	assert_non_null(c);
	obj = kmem_cache_alloc(c, GFP_KERNEL); /* the slab now has objects */
	assert_non_null(obj);
	kmem_cache_free(c, obj);
	assert_int_equal(mm_fault_set(MM_FAULT_PAGE, "every:1"), 0);
	obj = kmem_cache_alloc(c, GFP_KERNEL);
	assert_non_null(obj);
	assert_int_equal(mm_fault_calls(MM_FAULT_SLAB), 0);
	assert_null(alloc_pages(GFP_KERNEL, 0));
	mm_fault_reset();
	kmem_cache_free(c, obj);
	kmem_cache_destroy(c);
}

static long cache_fails(const char *name)
{
	char buf[8192], key[96];
	const char *p;

	assert_true(slabinfo_json(buf, sizeof(buf)) < (int)sizeof(buf));
	snprintf(key, sizeof(key), "\"%s\"", name);
	p = strstr(buf, key);
	assert_non_null(p);
	p = strstr(p, "\"alloc_fails\":");
	assert_non_null(p);
	return strtol(p + strlen("\"alloc_fails\":"), NULL, 10);
}

static void failslab_fails_every_entry(void **state)
{
	struct kmem_cache *c = kmem_cache_create("fi_slab", 128, 0, 0, NULL);
	void *objs[8];

	(void)state;
	assert_non_null(c);
	assert_int_equal(mm_fault_set(MM_FAULT_SLAB, "every:1"), 0);
	assert_null(kmem_cache_alloc(c, GFP_KERNEL));
	assert_null(kmem_cache_alloc(c, GFP_KERNEL | __GFP_ZERO));
	assert_null(kmem_cache_alloc_node(c, GFP_KERNEL, 0));
	assert_int_equal(kmem_cache_alloc_bulk(c, GFP_KERNEL, 8, objs), 0);
	assert_null(kmalloc(100, GFP_KERNEL));
	assert_int_equal(cache_fails("fi_slab"), 4);
	/* Above the slab sizes kmalloc takes pages: failslab does not apply. */
	objs[0] = kmalloc(64 * 1024, GFP_KERNEL);
	assert_non_null(objs[0]);
	kfree(objs[0]);
	assert_int_equal(mm_fault_injected(MM_FAULT_SLAB), 5);
	mm_fault_reset();
	kmem_cache_destroy(c);
}

static void fail_qmempool_counts_alloc_fail(void **state)
{
	struct kmem_cache *c = kmem_cache_create("fi_qmp", 256, 0, 0, NULL);
	struct qmempool *p;
	struct qmempool_stats st;
	void *obj, *obj2;

	(void)state;
	assert_non_null(c);
	p = qmempool_create(64, 256, 0, c, GFP_KERNEL);
	assert_non_null(p);
	assert_int_equal(mm_fault_set(MM_FAULT_QMEMPOOL, "every:2"), 0);
	obj = qmempool_alloc(p, GFP_ATOMIC);
	assert_non_null(obj);
	assert_null(qmempool_alloc(p, GFP_ATOMIC));
	obj2 = qmempool_alloc_softirq(p, GFP_ATOMIC);
	assert_non_null(obj2);
	assert_null(qmempool_alloc_softirq(p, GFP_ATOMIC));
	qmempool_get_stats(p, &st);
	assert_int_equal(st.alloc_fail, 2);
	assert_int_equal(mm_fault_injected(MM_FAULT_QMEMPOOL), 2);
	mm_fault_reset();
	qmempool_free(p, obj);
	qmempool_free(p, obj2);
	qmempool_destroy(p);
	kmem_cache_destroy(c);
}

static uint64_t frag_failed(void)
{
	struct page_frag_stats st;

	page_frag_stats_read(&st);
	return st.alloc_failed;
}

static void fail_page_frag_fails_every_entry(void **state)
{
	struct page_frag_cache nc = {0};
	struct page_frag pf;
	uint64_t failed0 = frag_failed();
	unsigned long free0 = mm_test_drain_and_verify();

	(void)state;
	assert_int_equal(mm_fault_set(MM_FAULT_FRAG, "every:1"), 0);
	assert_null(page_frag_alloc(&nc, 256, GFP_ATOMIC));
	assert_null(page_frag_alloc_align(&nc, 256, GFP_ATOMIC, 64));
	assert_null(page_frag_prepare(&nc, 256, &pf, GFP_ATOMIC));
	assert_null(napi_alloc_frag(256));
	assert_null(netdev_alloc_frag(256));
	assert_int_equal(frag_failed(), failed0 + 5);
	assert_int_equal(mm_fault_injected(MM_FAULT_FRAG), 5);
	mm_fault_reset();
	page_frag_cache_drain(&nc);
	page_frag_percpu_drain(0);
	assert_int_equal(mm_test_drain_and_verify(), free0);
}

/*
 * A caller that handles failure (drops and counts) under random page
 * failures beneath the slab: every success is an object it can use and
 * free, every NULL one it counted, and afterwards every page is back.
 */
static void callers_lose_nothing_under_injection(void **state)
{
	enum { N = 3000 };
	static void *objs[N];
	unsigned long free0 = mm_test_drain_and_verify();
	struct kmem_cache *c = kmem_cache_create("fi_use", 512, 0, 0, NULL);
	unsigned long fails0, dropped = 0;

	(void)state;
	assert_non_null(c);
	fails0 = mm_zones[0].alloc_fail;
	assert_int_equal(mm_fault_set(MM_FAULT_PAGE, "random:20,seed:11"), 0);
	for (int i = 0; i < N; i++) {
		objs[i] = kmem_cache_alloc(c, GFP_KERNEL);
		if (!objs[i])
			dropped++;
		else
			memset(objs[i], 0xa5, 512);
	}
	/* A slab refill that fails is a NULL to the caller: some dropped,
	 * each one a failed page allocation the zone counted. */
	assert_true(dropped > 0);
	assert_true(mm_fault_injected(MM_FAULT_PAGE) >= dropped);
	assert_int_equal(mm_zones[0].alloc_fail - fails0,
			 mm_fault_injected(MM_FAULT_PAGE));
	mm_fault_reset();
	for (int i = 0; i < N; i++)
		if (objs[i])
			kmem_cache_free(c, objs[i]);
	kmem_cache_destroy(c);
	assert_int_equal(mm_test_drain_and_verify(), free0);
}

static void bulk_page_alloc_fails_whole(void **state)
{
	struct page *pages[16];

	(void)state;
	assert_int_equal(mm_fault_set(MM_FAULT_PAGE, "every:1"), 0);
	assert_int_equal(alloc_pages_bulk(GFP_KERNEL, 16, pages), 0);
	assert_null(alloc_pages_node(0, GFP_KERNEL, 3));
	assert_int_equal(mm_fault_injected(MM_FAULT_PAGE), 2);
}

static void text_and_json_report_sites(void **state)
{
	char buf[1024];
	int n;

	(void)state;
	assert_int_equal(mm_fault_set(MM_FAULT_SLAB, "every:2,times:9"), 0);
	(void)__mm_fault_should_fail(MM_FAULT_SLAB);
	(void)__mm_fault_should_fail(MM_FAULT_SLAB);
	n = mm_fault_text(buf, sizeof(buf));
	assert_int_equal(n, (int)strlen(buf));
	assert_non_null(strstr(buf, "failslab every:2,times:9 calls=2 "
				    "injected=1\n"));
	assert_non_null(strstr(buf, "fail_page_alloc off calls=0 "
				    "injected=0\n"));
	n = mm_fault_json(buf, sizeof(buf));
	assert_int_equal(n, (int)strlen(buf));
	assert_non_null(strstr(buf, "\"failslab\":{\"spec\":"
				    "\"every:2,times:9\",\"armed\":true,"
				    "\"calls\":2,\"injected\":1}"));
	assert_non_null(strstr(buf, "\"fail_qmempool\":{\"spec\":\"off\","
				    "\"armed\":false"));
	/* snprintf semantics: a short buffer still gets the full length. */
	assert_int_equal(mm_fault_json(buf, 10), n);
	assert_int_equal(strlen(buf), 9);
	assert_int_equal(mm_fault_json(NULL, 0), n);
}

static void set_from_list(void **state)
{
	(void)state;
	assert_int_equal(mm_fault_set_from("failslab=every:4  "
					   "fail_page_frag=random:5,seed:2"),
			 0);
	assert_int_equal(atomic_load(&mm_fault_armed),
			 (1u << MM_FAULT_SLAB) | (1u << MM_FAULT_FRAG));
	assert_int_equal(mm_fault_set_from("failslab=off nosuch=every:1 "
					   "fail_qmempool=every:0 x"),
			 3);
	assert_int_equal(atomic_load(&mm_fault_armed), 1u << MM_FAULT_FRAG);
}

/* MM_FAULT arms sites at boot; a bad word refuses the boot; shutdown
 * disarms, so the next boot starts clean. */
static void mm_fault_env_at_boot(void **state)
{
	(void)state;
	mm_host_shutdown();
	setenv("MM_FAULT", "fail_page_alloc=every:2", 1);
	assert_int_equal(mm_host_boot(1, 16 << 20, 1, NULL), 0);
	unsetenv("MM_FAULT");
	assert_int_equal(atomic_load(&mm_fault_armed), 1u << MM_FAULT_PAGE);
	assert_non_null(alloc_pages(GFP_KERNEL, 0)); /* call 1 */
	assert_null(alloc_pages(GFP_KERNEL, 0));     /* call 2 */
	mm_host_shutdown();
	assert_int_equal(atomic_load(&mm_fault_armed), 0);
	assert_int_equal(mm_fault_calls(MM_FAULT_PAGE), 0);

	setenv("MM_FAULT", "failslab=sometimes", 1);
	assert_int_equal(mm_host_boot(1, 16 << 20, 1, NULL), -1);
	unsetenv("MM_FAULT");
	mm_test_boot(1, 16, 1); /* for the teardown */
}

static int teardown(void **state)
{
	mm_fault_reset();
	return mm_test_teardown(state);
}

#define T(f) cmocka_unit_test_setup_teardown(f, mm_test_setup_1node, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(spec_syntax),
		T(site_names_round_trip),
		T(every_n_is_exact),
		T(random_repeats_by_seed),
		T(times_limits_failures),
		T(sites_are_independent),
		T(failslab_fails_every_entry),
		T(fail_qmempool_counts_alloc_fail),
		T(fail_page_frag_fails_every_entry),
		T(callers_lose_nothing_under_injection),
		T(bulk_page_alloc_fails_whole),
		T(text_and_json_report_sites),
		T(set_from_list),
		T(mm_fault_env_at_boot),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
