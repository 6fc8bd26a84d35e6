/*
 * Frees that page_frag_free's per-CPU batches hold back are never lost:
 * drain_all_pages(), and with it the allocation slow path that drains
 * when memory runs out, applies every CPU's batch, also the batch of a
 * CPU that is alive and idle, without confusing that CPU's later frees;
 * and a host thread that ends applies its own. Each test boots a fresh
 * machine: one node of 16 MiB, two CPUs; this thread is CPU 0 and a live
 * thread (mm_test_cpu) is CPU 1.
 */
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mm_test.h"

#define BLOCK (MM_PAGE_SIZE << PAGE_FRAG_CACHE_MAX_ORDER)

static struct mm_test_cpu *cpu1;

static int boot(void **state)
{
	(void)state;
	mm_test_boot(1, 16, 2);
	cpu1 = mm_test_cpu_start(1);
	return 0;
}

static int shutdown(void **state)
{
	mm_test_cpu_stop(cpu1);
	return mm_test_teardown(state);
}

static uint64_t blocks_returned(void)
{
	struct page_frag_stats s;

	page_frag_stats_read(&s);
	return s.blocks_returned;
}

/* ---- push/pop between two live CPUs ---- */

#define FRAG_RING_SLOTS 512
#include "frag_ring.h"

#define PUSHPOP_FRAGS 200000

static struct ring ring;
static atomic_int stamps_changed;

/* CPU 1's side of the push/pop: free what CPU 0 sends, then go idle
 * without a flush. (Not a cmocka assert: this is not the test's thread.) */
static void pop_all(void *arg)
{
	struct item it;
	long n = 0;

	(void)arg;
	while (n < PUSHPOP_FRAGS) {
		if (!ring_pop(&ring, &it)) {
			sched_yield();
			continue;
		}
		if (!item_check_and_free(it))
			atomic_fetch_add(&stamps_changed, 1);
		n++;
	}
}

/*
 * Lin's push/pop: CPU 0 allocates 12-byte fragments, CPU 1 frees them.
 * CPU 1 then idles, its batch holding the count of the last block (the
 * cache still held it at CPU 1's last free, so that free could not be
 * the block's last). Once the cache lets go, drain_all_pages() must take
 * that count from CPU 1's batch: every page comes back.
 */
static void test_drain_all_pages_applies_an_idle_cpus_batch(void **s)
{
	unsigned long free0 = mm_test_drain_and_verify();
	struct page_frag_cache nc = {0};

	(void)s;
	memset(&ring, 0, sizeof(ring));
	mm_test_cpu_post(cpu1, pop_all, NULL);
	for (long n = 0; n < PUSHPOP_FRAGS; n++) {
		struct item it = {page_frag_alloc(&nc, 12, GFP_KERNEL), 12,
				  (unsigned char)n};

		assert_non_null(it.va);
		memset(it.va, it.stamp, it.len);
		while (!ring_push(&ring, it))
			sched_yield();
	}
	mm_test_cpu_wait(cpu1);
	assert_int_equal(atomic_load(&stamps_changed), 0);
	page_frag_cache_drain(&nc);
	assert_true(page_frag_free_pending(1) > 0); /* the case under test */
	assert_int_equal(mm_test_drain_and_verify(), free0);
	assert_int_equal(page_frag_free_pending(1), 0);
}

/* ---- one block, its fragments freed on CPU 1 ---- */

static void *frags[8];

static void free_the_eight(void *arg)
{
	(void)arg;
	for (int i = 0; i < 8; i++)
		page_frag_free(frags[i]);
}

/* Fill one block with eight fragments; its cache still holds it. */
static char *fill_one_block(struct page_frag_cache *nc)
{
	for (int i = 0; i < 8; i++)
		assert_non_null(
			frags[i] = page_frag_alloc(nc, BLOCK / 8, GFP_KERNEL));
	return frags[0];
}

/*
 * A thread that is CPU 1 frees a whole block's fragments while the cache
 * on CPU 0 still holds the block, and ends without page_frag_free_flush():
 * its count is applied as it ends, so the cache's drain gives the block
 * back at once, with no drain_all_pages() and no later thread on CPU 1.
 */
static void test_a_thread_that_ends_applies_its_batch(void **s)
{
	struct page_frag_cache nc = {0};
	uint64_t back0 = blocks_returned();

	(void)s;
	fill_one_block(&nc);
	mm_test_on_cpu(1, free_the_eight, NULL);
	assert_int_equal(page_frag_free_pending(1), 0);
	page_frag_cache_drain(&nc);
	assert_int_equal(blocks_returned() - back0, 1);
}

/* ---- the allocation slow path ---- */

/*
 * CPU 1 frees a whole block's fragments while the cache on CPU 0 still
 * holds the block, so it holds the only references left once the cache
 * lets go; and every other page of the machine is taken. An order-3
 * allocation finds nothing, drains, and must get that very block: the
 * drain applied CPU 1's count.
 */
static void
test_an_allocation_that_finds_no_page_reclaims_pending_frees(void **s)
{
	struct page_frag_cache nc = {0};
	struct page **taken;
	struct page *page;
	size_t n = 0, max = 8192;
	char *block;

	(void)s;
	block = fill_one_block(&nc);
	drain_all_pages(); /* no page left on a per-CPU list */
	mm_test_cpu_run(cpu1, free_the_eight, NULL);
	page_frag_cache_drain(&nc);
	assert_int_equal(page_frag_free_pending(1), 8);
	/* Every free page, without the slow path's drain (NORETRY). */
	taken = calloc(max, sizeof(*taken));
	assert_non_null(taken);
	while (n < max &&
	       (taken[n] = alloc_pages(
			GFP_KERNEL | __GFP_NORETRY | __GFP_NOWARN, 0)) != NULL)
		n++;
	assert_true(n > 0 && n < max);
	assert_int_equal(nr_free_pages(), 0);
	page = alloc_pages(GFP_KERNEL | __GFP_NOWARN, 3);
	assert_non_null(page);
	assert_ptr_equal(page_address(page), block);
	assert_int_equal(page_frag_free_pending(1), 0);
	__free_pages(page, 3);
	mm_test_give_back(taken, n); /* and the array */
}

/* ---- a drained entry is closed ---- */

static void free_one(void *arg)
{
	page_frag_free(arg);
}

static void flush_here(void *arg)
{
	(void)arg;
	page_frag_free_flush();
}

/*
 * A drain takes CPU 1's count for block P while CPU 1's last entry still
 * covers P's addresses. P then goes back and its second page comes back
 * as a one-page block Q of another cache. CPU 1's free of a fragment of Q
 * must be counted for Q: the drain closed the entry, so the free looks
 * its block up. Counted for P, it would free P's first page (held here)
 * at CPU 1's flush, and Q would never come back.
 */
static void test_a_drained_last_entry_no_longer_takes_its_old_range(void **s)
{
	unsigned long free0 = mm_test_drain_and_verify();
	uint64_t back0 = blocks_returned();
	struct page_frag_cache nc = {0}, nc1 = {0};
	struct page **taken, *p_pages[8] = {0};
	size_t n;
	char *block, *f;

	(void)s;
	block = fill_one_block(&nc);
	mm_test_cpu_run(cpu1, free_one, frags[0]);
	drain_all_pages(); /* takes CPU 1's count, P still its last entry */
	for (int i = 1; i < 8; i++)
		page_frag_free(frags[i]);
	page_frag_cache_drain(&nc);
	assert_int_equal(blocks_returned() - back0, 1); /* P is back */
	/* Every page: P's eight are among them. Keep those, but give back
	 * its second one last, so that the next one-page refill takes it. */
	taken = mm_test_take_node(0, &n);
	for (size_t i = 0; i < n; i++) {
		uintptr_t off =
			(uintptr_t)page_address(taken[i]) - (uintptr_t)block;

		if (off < BLOCK) {
			p_pages[off / MM_PAGE_SIZE] = taken[i];
			taken[i] = NULL;
		}
	}
	for (int i = 0; i < 8; i++)
		assert_non_null(p_pages[i]);
	mm_test_give_back(taken, n);
	__free_pages(p_pages[1], 0);
	page_frag_force_order0(true);
	f = page_frag_alloc(&nc1, 64, GFP_KERNEL);
	page_frag_force_order0(false);
	assert_ptr_equal(f, block + MM_PAGE_SIZE); /* Q is P's second page */
	mm_test_cpu_run(cpu1, free_one, f);
	page_frag_cache_drain(&nc1);
	mm_test_cpu_run(cpu1, flush_here, NULL);
	assert_int_equal(blocks_returned() - back0, 2); /* Q is back */
	for (int i = 0; i < 8; i++) {
		if (i == 1)
			continue;
		assert_int_equal(page_ref_count(p_pages[i]), 1);
		__free_pages(p_pages[i], 0);
	}
	assert_int_equal(mm_test_drain_and_verify(), free0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			test_drain_all_pages_applies_an_idle_cpus_batch, boot,
			shutdown),
		cmocka_unit_test_setup_teardown(
			test_a_thread_that_ends_applies_its_batch, boot,
			shutdown),
		cmocka_unit_test_setup_teardown(
			test_an_allocation_that_finds_no_page_reclaims_pending_frees,
			boot, shutdown),
		cmocka_unit_test_setup_teardown(
			test_a_drained_last_entry_no_longer_takes_its_old_range,
			boot, shutdown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
