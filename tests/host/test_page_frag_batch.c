/*
 * Unit tests of page_frag_free's per-CPU batch (mm/page_frag_free.c): one
 * atomic subtract per block instead of one per fragment, the block freed at
 * its last fragment, the flushes (drain, explicit, table pressure, refill,
 * every CPU's from one) and a fragment freed from a signal handler (the
 * host's interrupt) while a batch is pending. Each test boots a fresh
 * machine.
 */
#include <signal.h>
#include <stdint.h>
#include <sys/time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm_test.h"

#define NODE_BYTES (16u << 20)
#define BLOCK	   (MM_PAGE_SIZE << PAGE_FRAG_CACHE_MAX_ORDER)

static struct page_frag_stats before;

static int boot(void **state)
{
	(void)state;
	if (mm_host_boot(1, NODE_BYTES, 2, NULL))
		return -1;
	assert_int_equal(mm_host_set_cpu(0), 0);
	page_frag_stats_read(&before);
	return 0;
}

static int shutdown(void **state)
{
	page_frag_percpu_drain(0);
	return mm_test_teardown(state);
}

static uint64_t atomics(void)
{
	struct page_frag_stats now;

	page_frag_stats_read(&now);
	return now.free_atomics - before.free_atomics;
}

static uint64_t blocks_returned(void)
{
	struct page_frag_stats now;

	page_frag_stats_read(&now);
	return now.blocks_returned - before.blocks_returned;
}

/* 1000 fragments freed while their block is still the cache's: no atomic
 * at all until the drain, then one for the batch (and none early). */
static void test_frees_of_one_block_cost_one_atomic(void **s)
{
	unsigned long free0 = mm_test_drain_and_verify();
	struct page_frag_cache nc = {0};
	void *p[1000];

	(void)s;
	for (int i = 0; i < 1000; i++)
		assert_non_null(p[i] = page_frag_alloc(&nc, 12, GFP_KERNEL));
	for (int i = 0; i < 1000; i++)
		page_frag_free(p[i]);
	assert_int_equal(atomics(), 0);
	assert_int_equal(page_frag_free_pending(0), 1000);
	assert_int_equal(blocks_returned(), 0);
	page_frag_cache_drain(&nc);
	assert_int_equal(atomics(), 1);
	assert_int_equal(page_frag_free_pending(0), 0);
	assert_int_equal(blocks_returned(), 1);
	assert_int_equal(mm_test_drain_and_verify(), free0);
}

/* The batch counts frees when it applies a slot; until then the
 * statistics read them from the table: frees are exact at every moment. */
static void test_pending_frees_are_in_the_statistics(void **s)
{
	struct page_frag_cache nc = {0};
	struct page_frag_stats now;
	void *p[100];

	(void)s;
	for (int i = 0; i < 100; i++)
		assert_non_null(p[i] = page_frag_alloc(&nc, 12, GFP_KERNEL));
	for (int i = 0; i < 60; i++)
		page_frag_free(p[i]);
	page_frag_stats_read(&now);
	assert_int_equal(page_frag_free_pending(0), 60);
	assert_int_equal(now.frees - before.frees, 60);
	assert_int_equal(now.free_atomics - before.free_atomics, 0);
	for (int i = 60; i < 100; i++)
		page_frag_free(p[i]);
	page_frag_cache_drain(&nc); /* applies the slot: counted once */
	page_frag_stats_read(&now);
	assert_int_equal(page_frag_free_pending(0), 0);
	assert_int_equal(now.frees - before.frees, 100);
	assert_int_equal(now.remote_frees - before.remote_frees, 0);
}

/* The cache moved on: the free of the block's last fragment frees it at
 * once (its count equals what the batch holds), not one earlier. */
static void test_last_fragment_frees_the_block_at_once(void **s)
{
	unsigned long free0 = mm_test_drain_and_verify();
	struct page_frag_cache nc = {0};
	void *p[16];

	(void)s;
	for (int i = 0; i < 16; i++)
		assert_non_null(
			p[i] = page_frag_alloc(&nc, BLOCK / 16, GFP_KERNEL));
	page_frag_cache_drain(&nc);
	for (int i = 0; i < 15; i++) {
		page_frag_free(p[i]);
		assert_int_equal(blocks_returned(), 0);
	}
	assert_int_equal(page_frag_free_pending(0), 15);
	page_frag_free(p[15]);
	assert_int_equal(blocks_returned(), 1);
	assert_int_equal(atomics(), 1);
	assert_int_equal(mm_test_drain_and_verify(), free0);
}

/* Fragments of nine blocks freed in turn: the ninth evicts the first
 * slot (one atomic); the rest stay pending until the explicit flush. */
static void test_full_table_applies_one_slot(void **s)
{
	unsigned long free0 = mm_test_drain_and_verify();
	struct page_frag_cache nc[PAGE_FRAG_FREE_BATCH_SLOTS + 1];
	void *p[PAGE_FRAG_FREE_BATCH_SLOTS + 1][2];
	int n = PAGE_FRAG_FREE_BATCH_SLOTS + 1;

	(void)s;
	memset(nc, 0, sizeof(nc));
	for (int i = 0; i < n; i++) {
		p[i][0] = page_frag_alloc(&nc[i], 100, GFP_KERNEL);
		p[i][1] = page_frag_alloc(&nc[i], 100, GFP_KERNEL);
		assert_non_null(p[i][1]);
	}
	for (int i = 0; i < n; i++)
		page_frag_free(p[i][0]);
	assert_int_equal(atomics(), 1);
	assert_int_equal(page_frag_free_pending(0), n - 1);
	page_frag_free_flush();
	assert_int_equal(atomics(), (uint64_t)n);
	assert_int_equal(page_frag_free_pending(0), 0);
	assert_int_equal(blocks_returned(), 0); /* every block has p[i][1] */
	for (int i = 0; i < n; i++) {
		page_frag_free(p[i][1]);
		page_frag_cache_drain(&nc[i]);
	}
	assert_int_equal(blocks_returned(), (uint64_t)n);
	assert_int_equal(mm_test_drain_and_verify(), free0);
}

/* A used-up block whose fragments all came back to this CPU's batch is
 * recycled in place: the refill applies the batch's count first. */
static void test_refill_applies_this_cpus_pending_frees(void **s)
{
	struct page_frag_cache nc = {0};
	struct page_frag_stats a, b;
	void *p[8];

	(void)s;
	for (int i = 0; i < 8; i++)
		assert_non_null(
			p[i] = page_frag_alloc(&nc, BLOCK / 8, GFP_KERNEL));
	for (int i = 0; i < 8; i++)
		page_frag_free(p[i]);
	page_frag_stats_read(&a);
	assert_ptr_equal(page_frag_alloc(&nc, BLOCK / 8, GFP_KERNEL), p[0]);
	page_frag_stats_read(&b);
	assert_int_equal(b.recycles - a.recycles, 1);
	assert_int_equal(b.refills_order3 - a.refills_order3, 0);
	page_frag_free(p[0]);
	page_frag_cache_drain(&nc);
}

/* Frees of one block split between two CPUs: the last one freed on CPU 1
 * (a live thread) cannot know CPU 0 still holds some back; the later of
 * the two CPUs' flushes frees it. */
static void free_one(void *arg)
{
	page_frag_free(arg);
}

static void flush_here(void *arg)
{
	(void)arg;
	page_frag_free_flush();
}

static void test_block_split_between_cpus_waits_for_the_flush(void **s)
{
	unsigned long free0 = mm_test_drain_and_verify();
	struct mm_test_cpu *cpu1 = mm_test_cpu_start(1);
	struct page_frag_cache nc = {0};
	void *p[4];

	(void)s;
	for (int i = 0; i < 4; i++)
		assert_non_null(p[i] = page_frag_alloc(&nc, 1000, GFP_KERNEL));
	page_frag_cache_drain(&nc);
	for (int i = 0; i < 3; i++)
		page_frag_free(p[i]);
	mm_test_cpu_run(cpu1, free_one, p[3]);
	/* CPU 1's own count (1) was the whole rest but for CPU 0's three: it
	 * waits too. Both flushes free the block exactly once. */
	assert_int_equal(blocks_returned(), 0);
	page_frag_free_flush();
	assert_int_equal(blocks_returned(), 0);
	mm_test_cpu_run(cpu1, flush_here, NULL);
	assert_int_equal(blocks_returned(), 1);
	mm_test_cpu_stop(cpu1);
	assert_int_equal(mm_test_drain_and_verify(), free0);
}

/* ---- the last-block entry: a free found by address ---- */

/*
 * One-page blocks side by side (order-0 refills): the last entry's range
 * is its own block's, never its neighbour's. Each cache holds two
 * fragments of its page; one of each is freed in an interleaved order
 * (every free a neighbour of the one before), then the caches let go,
 * then the others are freed: each block must come back exactly at its
 * own last fragment, one at a time, and every page must come back. A
 * range taken as the order-3 block size (or any other wrong size) counts
 * a neighbour's fragment on the wrong page: a block comes back early or
 * never.
 */
#define NEIGHBOURS 12

static void test_last_entry_range_is_its_own_block(void **s)
{
	unsigned long free0 = mm_test_drain_and_verify();
	struct page_frag_cache nc[NEIGHBOURS];
	void *p[NEIGHBOURS][2];
	int adjacent = 0;

	(void)s;
	memset(nc, 0, sizeof(nc));
	page_frag_force_order0(true);
	for (int i = 0; i < NEIGHBOURS; i++)
		for (int k = 0; k < 2; k++)
			assert_non_null(
				p[i][k] = page_frag_alloc(
					&nc[i], MM_PAGE_SIZE / 2, GFP_KERNEL));
	page_frag_force_order0(false);
	for (int i = 1; i < NEIGHBOURS; i++) {
		intptr_t d = (char *)p[i][0] - (char *)p[i - 1][0];

		adjacent += d == (intptr_t)MM_PAGE_SIZE ||
			    d == -(intptr_t)MM_PAGE_SIZE;
	}
	assert_true(adjacent > 0); /* the case under test happened */
	for (int i = 0; i < NEIGHBOURS; i += 2)
		page_frag_free(p[i][0]);
	for (int i = 1; i < NEIGHBOURS; i += 2)
		page_frag_free(p[i][0]);
	for (int i = 0; i < NEIGHBOURS; i++)
		page_frag_cache_drain(&nc[i]);
	assert_int_equal(blocks_returned(), 0);
	for (int i = 0; i < NEIGHBOURS; i++) {
		page_frag_free(p[i][1]);
		assert_int_equal(blocks_returned(), (uint64_t)i + 1);
	}
	assert_int_equal(page_frag_free_pending(0), 0);
	assert_int_equal(mm_test_drain_and_verify(), free0);
}

/*
 * CPU 1 frees every fragment of a block while the cache on CPU 0 still
 * holds it; the cache then moves on (a refill on CPU 0 cannot see CPU 1's
 * count). CPU 1's next free, of another block, moves the first one out of
 * its last entry: its count is then the block's whole count, so it is
 * applied there and the block comes back at once, not at CPU 1's next
 * flush.
 */
static void free_all_eight(void *arg)
{
	void **p = arg;

	for (int i = 0; i < 8; i++)
		page_frag_free(p[i]);
}

static void test_a_block_leaving_the_last_entry_whole_comes_back(void **s)
{
	unsigned long free0 = mm_test_drain_and_verify();
	struct mm_test_cpu *cpu1 = mm_test_cpu_start(1);
	struct page_frag_cache nc = {0};
	void *p[8], *q;

	(void)s;
	for (int i = 0; i < 8; i++)
		assert_non_null(
			p[i] = page_frag_alloc(&nc, BLOCK / 8, GFP_KERNEL));
	mm_test_cpu_run(cpu1, free_all_eight, p);
	assert_int_equal(page_frag_free_pending(1), 8);
	/* The block is full: this refill takes a new one (CPU 1's count
	 * keeps the old one's references). */
	assert_non_null(q = page_frag_alloc(&nc, 64, GFP_KERNEL));
	assert_int_equal(blocks_returned(), 0);
	mm_test_cpu_run(cpu1, free_one, q);
	assert_int_equal(blocks_returned(), 1);
	assert_int_equal(page_frag_free_pending(1), 1);
	page_frag_cache_drain(&nc);
	mm_test_cpu_run(cpu1, flush_here, NULL);
	assert_int_equal(blocks_returned(), 2);
	mm_test_cpu_stop(cpu1);
	assert_int_equal(mm_test_drain_and_verify(), free0);
}

/* ---- a free from the host's interrupt, a signal handler ---- */

static void *irq_frag;
static volatile sig_atomic_t irq_runs;

static void irq_handler(int sig)
{
	(void)sig;
	page_frag_free(irq_frag);
	irq_runs++;
}

/* Frees @frag from a SIGUSR1 handler, as an interrupt would, and checks
 * that the handler ran once. */
static void free_in_handler(void *frag)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = irq_handler;
	assert_int_equal(sigaction(SIGUSR1, &sa, &old), 0);
	irq_frag = frag;
	irq_runs = 0;
	raise(SIGUSR1);
	assert_int_equal(irq_runs, 1);
	sigaction(SIGUSR1, &old, NULL);
}

/* Pending frees in the batch, then a handler frees a fragment of the same
 * block: it joins the batch, and the block comes back exactly once. */
static void test_free_in_a_signal_handler_while_a_batch_is_pending(void **s)
{
	unsigned long free0 = mm_test_drain_and_verify();
	struct page_frag_cache nc = {0};
	void *p[6];

	(void)s;
	for (int i = 0; i < 6; i++)
		assert_non_null(p[i] = page_frag_alloc(&nc, 500, GFP_KERNEL));
	page_frag_cache_drain(&nc);
	for (int i = 0; i < 3; i++)
		page_frag_free(p[i]);
	assert_int_equal(page_frag_free_pending(0), 3);
	free_in_handler(p[3]);
	assert_int_equal(page_frag_free_pending(0), 4);
	page_frag_free(p[4]);
	assert_int_equal(blocks_returned(), 0);
	page_frag_free(p[5]);
	assert_int_equal(blocks_returned(), 1);
	assert_int_equal(atomics(), 1);
	assert_int_equal(mm_test_drain_and_verify(), free0);
}

/*
 * The last entry holds a count for block A when a handler frees a
 * fragment of block B (a miss: A's count moves to the table, B becomes
 * the last entry); this thread then goes on freeing A's fragments. Every
 * count lands on its own block: A comes back exactly at its last
 * fragment, B at its own, each once.
 */
static void
test_handler_free_of_another_block_while_last_holds_a_count(void **s)
{
	unsigned long free0 = mm_test_drain_and_verify();
	struct page_frag_cache a = {0}, b = {0};
	void *pa[6], *pb;

	(void)s;
	for (int i = 0; i < 6; i++)
		assert_non_null(pa[i] = page_frag_alloc(&a, 500, GFP_KERNEL));
	assert_non_null(pb = page_frag_alloc(&b, 500, GFP_KERNEL));
	page_frag_cache_drain(&a);
	page_frag_cache_drain(&b);
	for (int i = 0; i < 3; i++)
		page_frag_free(pa[i]);
	assert_int_equal(page_frag_free_pending(0), 3);
	free_in_handler(pb);
	/* B's only fragment: back at once; A's three still pending. */
	assert_int_equal(blocks_returned(), 1);
	assert_int_equal(page_frag_free_pending(0), 3);
	page_frag_free(pa[3]);
	page_frag_free(pa[4]);
	assert_int_equal(blocks_returned(), 1);
	assert_int_equal(page_frag_free_pending(0), 5);
	page_frag_free(pa[5]);
	assert_int_equal(blocks_returned(), 2);
	assert_int_equal(page_frag_free_pending(0), 0);
	assert_int_equal(atomics(), 2);
	assert_int_equal(mm_test_drain_and_verify(), free0);
}

/* page_frag_free_flush_all (what drain_all_pages calls first) applies
 * the batch of another CPU, a live one. */
static void test_flush_all_applies_every_cpus_batch(void **s)
{
	struct mm_test_cpu *cpu1 = mm_test_cpu_start(1);
	struct page_frag_cache nc = {0};
	void *p = page_frag_alloc(&nc, 64, GFP_KERNEL);

	(void)s;
	page_frag_cache_drain(&nc);
	mm_test_cpu_run(cpu1, free_one, p);
	assert_int_equal(page_frag_free_pending(1), 0); /* it was the last */
	p = page_frag_alloc(&nc, 64, GFP_KERNEL);
	mm_test_cpu_run(cpu1, free_one, p);
	assert_int_equal(page_frag_free_pending(1), 1);
	page_frag_free_flush_all();
	assert_int_equal(page_frag_free_pending(1), 0);
	page_frag_cache_drain(&nc);
	assert_int_equal(blocks_returned(), 2);
	mm_test_cpu_stop(cpu1);
}

/* ---- an interrupt inside the batch code ---- */

#define NEST_CACHES (PAGE_FRAG_FREE_BATCH_SLOTS + 1)
#define NEST_EACH   2000       /* handler fragments per cache */
#define NEST_MAIN   (int)BLOCK /* 1-byte fragments: one block, recycled */
#define NEST_ROUNDS 40

static void *nest_stash[NEST_CACHES * NEST_EACH];
static volatile sig_atomic_t nest_n;

static void nest_handler(int sig)
{
	(void)sig;
	if (nest_n > 0) {
		nest_n = nest_n - 1;
		page_frag_free(nest_stash[nest_n]);
	}
}

static uint64_t nested(void)
{
	struct page_frag_stats now;

	page_frag_stats_read(&now);
	return now.frees_busy - before.frees_busy;
}

/*
 * A timer signal every 20 us frees fragments of nine blocks in turn (each
 * free of the handler needs a slot of its own: it evicts one) while this
 * thread frees fragments of a tenth block. A signal that lands inside the
 * batch code must leave the table alone (an eviction there would move
 * this thread's count to another block); one that lands outside joins the
 * batch. Blocks are held by their caches (this thread's is recycled in
 * place each round), so none may come back before the drains at the end,
 * which must then give back every block exactly once: the counts came out
 * exact.
 */
static void test_signal_inside_the_batch_code_takes_the_direct_path(void **s)
{
	unsigned long free0 = mm_test_drain_and_verify();
	struct page_frag_cache main_nc = {0}, nc[NEST_CACHES];
	struct itimerval tick = {{0, 20}, {0, 20}}, off = {{0, 0}, {0, 0}};
	struct sigaction sa, old;
	static void *p[NEST_MAIN];
	struct page_frag_stats a, b;

	(void)s;
	memset(nc, 0, sizeof(nc));
	for (int i = 0; i < NEST_EACH; i++)
		for (int c = 0; c < NEST_CACHES; c++)
			assert_non_null(
				nest_stash[i * NEST_CACHES + c] =
					page_frag_alloc(&nc[c], 1, GFP_KERNEL));
	nest_n = NEST_CACHES * NEST_EACH;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = nest_handler;
	sa.sa_flags = SA_RESTART;
	assert_int_equal(sigaction(SIGALRM, &sa, &old), 0);
	page_frag_stats_read(&a);
	assert_int_equal(setitimer(ITIMER_REAL, &tick, NULL), 0);
	for (int r = 0; r < NEST_ROUNDS && nest_n > 0; r++) {
		for (int i = 0; i < NEST_MAIN; i++)
			assert_non_null(p[i] = page_frag_alloc(&main_nc, 1,
							       GFP_KERNEL));
		for (int i = 0; i < NEST_MAIN; i++)
			page_frag_free(p[i]);
	}
	setitimer(ITIMER_REAL, &off, NULL);
	sigaction(SIGALRM, &old, NULL);
	page_frag_stats_read(&b);
	printf("# %u handler frees, %llu of them nested\n",
	       (unsigned)(NEST_CACHES * NEST_EACH - nest_n),
	       (unsigned long long)nested());
	assert_int_equal(b.blocks_returned - a.blocks_returned, 0);
	while (nest_n > 0) {
		nest_n = nest_n - 1;
		page_frag_free(nest_stash[nest_n]);
	}
	page_frag_free_flush();
	page_frag_cache_drain(&main_nc);
	for (int c = 0; c < NEST_CACHES; c++)
		page_frag_cache_drain(&nc[c]);
	page_frag_stats_read(&b);
	assert_int_equal(b.blocks_returned - a.blocks_returned,
			 NEST_CACHES + 1);
	assert_int_equal(mm_test_drain_and_verify(), free0);
	assert_true(nested() > 0); /* the path under test ran */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, boot, shutdown)
		T(test_frees_of_one_block_cost_one_atomic),
		T(test_pending_frees_are_in_the_statistics),
		T(test_last_fragment_frees_the_block_at_once),
		T(test_full_table_applies_one_slot),
		T(test_refill_applies_this_cpus_pending_frees),
		T(test_block_split_between_cpus_waits_for_the_flush),
		T(test_free_in_a_signal_handler_while_a_batch_is_pending),
		T(test_flush_all_applies_every_cpus_batch),
		T(test_last_entry_range_is_its_own_block),
		T(test_a_block_leaving_the_last_entry_whole_comes_back),
		T(test_handler_free_of_another_block_while_last_holds_a_count),
		T(test_signal_inside_the_batch_code_takes_the_direct_path),
#undef T
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
