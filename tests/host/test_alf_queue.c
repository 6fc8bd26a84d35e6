/*
 * ALF queue specification, single-threaded: creation rules, FIFO order,
 * full/empty boundaries, bulk semantics (all-or-nothing enqueue, up-to-n
 * dequeue), 32-bit index wraparound, and debug detection of misuse.
 * Every behaviour runs against both the MP/MC and the SP/SC functions.
 * The queues live in aligned heap memory (alf_queue_init), so these tests
 * need no simulated machine; test_alf_alloc.c covers alf_queue_alloc.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "alf_queue.h"
#include "debug.h"

struct mode {
	const char *name;
	unsigned int flags;
	unsigned int (*enq)(struct alf_queue *, void *const[], unsigned int);
	unsigned int (*deq)(struct alf_queue *, void *[], unsigned int);
};

static unsigned int mp_enq(struct alf_queue *q, void *const p[], unsigned n)
{
	return alf_mp_enqueue(q, p, n);
}
static unsigned int mc_deq(struct alf_queue *q, void *p[], unsigned n)
{
	return alf_mc_dequeue(q, p, n);
}
static unsigned int sp_enq(struct alf_queue *q, void *const p[], unsigned n)
{
	return alf_sp_enqueue(q, p, n);
}
static unsigned int sc_deq(struct alf_queue *q, void *p[], unsigned n)
{
	return alf_sc_dequeue(q, p, n);
}

static struct mode mpmc = {"mpmc", 0, mp_enq, mc_deq};
static struct mode spsc = {"spsc", ALF_SP_ENQ | ALF_SC_DEQ, sp_enq, sc_deq};

/* Fixture: a queue of QSIZE slots in the given mode. */
#define QSIZE 8
struct fix {
	struct mode *m;
	struct alf_queue *q;
};

static struct alf_queue *new_queue(uint32_t size, unsigned int flags)
{
	size_t bytes = alf_queue_bytes(size);
	struct alf_queue *q;

	assert_true(bytes > 0);
	q = aligned_alloc(MM_CACHE_LINE, (bytes + MM_CACHE_LINE - 1) &
						 ~(size_t)(MM_CACHE_LINE - 1));
	assert_non_null(q);
	assert_int_equal(alf_queue_init(q, size, flags), 0);
	return q;
}

static int setup(void **state)
{
	struct fix *f = calloc(1, sizeof(*f));

	f->m = *state;
	f->q = new_queue(QSIZE, f->m->flags);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fix *f = *state;

	free(f->q);
	free(f);
	return 0;
}

/* Distinct non-NULL fake pointers: value v is (void *)(v + 1). */
static void *P(uintptr_t v)
{
	return (void *)(v + 1);
}

static void fill_seq(void **p, unsigned int n, uintptr_t first)
{
	for (unsigned int i = 0; i < n; i++)
		p[i] = P(first + i);
}

/* ---- creation rules (no queue needed) ---- */

static void init_refuses_zero_size(void **state)
{
	struct alf_queue *q = new_queue(1, 0);

	(void)state;
	assert_int_equal(alf_queue_init(q, 0, 0), -1);
	assert_int_equal(alf_queue_bytes(0), 0);
	free(q);
}

static void init_refuses_non_power_of_two(void **state)
{
	struct alf_queue *q = new_queue(16, 0);

	(void)state;
	assert_int_equal(alf_queue_init(q, 12, 0), -1);
	assert_int_equal(alf_queue_bytes(12), 0);
	free(q);
}

static void init_refuses_size_above_limit(void **state)
{
	(void)state;
	assert_int_equal(alf_queue_bytes(ALF_QUEUE_MAX_SIZE * 2), 0);
	assert_true(alf_queue_bytes(ALF_QUEUE_MAX_SIZE) > 0);
}

static void init_refuses_unknown_flags(void **state)
{
	struct alf_queue *q = new_queue(8, 0);

	(void)state;
	assert_int_equal(alf_queue_init(q, 8, 0x80), -1);
	free(q);
}

static void init_refuses_misaligned_memory(void **state)
{
	struct alf_queue *q = new_queue(8, 0);

	(void)state;
	assert_int_equal(
		alf_queue_init((struct alf_queue *)((char *)q + 8), 1, 0), -1);
	free(q);
}

static void alloc_refuses_bad_size_with_null(void **state)
{
	(void)state;
	/* Refused before any memory is asked for: no machine needed. */
	assert_null(alf_queue_alloc(0, 0));
	assert_null(alf_queue_alloc(100, 0));
	assert_null(alf_queue_alloc(ALF_QUEUE_MAX_SIZE << 1, 0));
}

static void producer_and_consumer_indices_on_separate_lines(void **state)
{
	(void)state;
	assert_true(offsetof(struct alf_queue, cons) -
			    offsetof(struct alf_queue, prod) >=
		    MM_CACHE_LINE);
	assert_true(offsetof(struct alf_queue, prod) >= MM_CACHE_LINE);
	assert_true(offsetof(struct alf_queue, ring) -
			    offsetof(struct alf_queue, cons) >=
		    MM_CACHE_LINE);
}

/* ---- behaviour, per mode ---- */

static void new_queue_is_empty(void **state)
{
	struct fix *f = *state;
	void *out[1];

	assert_true(alf_queue_empty(f->q));
	assert_int_equal(alf_queue_count(f->q), 0);
	assert_int_equal(alf_queue_avail_space(f->q), QSIZE);
	assert_int_equal(f->m->deq(f->q, out, 1), 0);
}

static void single_elements_come_out_in_fifo_order(void **state)
{
	struct fix *f = *state;
	void *p, *out;

	for (uintptr_t i = 0; i < 5; i++) {
		p = P(i);
		assert_int_equal(f->m->enq(f->q, &p, 1), 1);
	}
	for (uintptr_t i = 0; i < 5; i++) {
		assert_int_equal(f->m->deq(f->q, &out, 1), 1);
		assert_ptr_equal(out, P(i));
	}
	assert_true(alf_queue_empty(f->q));
}

static void bulks_come_out_in_fifo_order_across_slot_wrap(void **state)
{
	struct fix *f = *state;
	void *in[QSIZE], *out[QSIZE];
	uintptr_t next_in = 0, next_out = 0;

	/* Rounds of 5 in, 5 out on 8 slots: the copy wraps at slot 8. */
	for (int round = 0; round < 20; round++) {
		fill_seq(in, 5, next_in);
		assert_int_equal(f->m->enq(f->q, in, 5), 5);
		next_in += 5;
		assert_int_equal(f->m->deq(f->q, out, 5), 5);
		for (int i = 0; i < 5; i++)
			assert_ptr_equal(out[i], P(next_out + i));
		next_out += 5;
	}
}

static void capacity_is_the_full_size(void **state)
{
	struct fix *f = *state;
	void *in[QSIZE + 1];

	fill_seq(in, QSIZE + 1, 0);
	assert_int_equal(f->m->enq(f->q, in, QSIZE), QSIZE);
	assert_int_equal(alf_queue_count(f->q), QSIZE);
	assert_int_equal(alf_queue_avail_space(f->q), 0);
	assert_false(alf_queue_empty(f->q));
	assert_int_equal(f->m->enq(f->q, &in[QSIZE], 1), 0);
}

/*
 * The producers keep the consumers' tail as they last read it. A full
 * queue leaves that copy saying "full"; room made since must still be
 * found (the copy is only a hint: the real tail is read when it says too
 * little), bit by bit and all at once.
 */
static void room_made_after_the_producer_looked_is_used(void **state)
{
	struct fix *f = *state;
	void *in[QSIZE + 4], *out[QSIZE];

	fill_seq(in, QSIZE + 4, 0);
	assert_int_equal(f->m->enq(f->q, in, QSIZE), QSIZE);
	assert_int_equal(f->m->enq(f->q, &in[QSIZE], 1), 0); /* full */
	assert_int_equal(f->m->deq(f->q, out, 1), 1);
	assert_int_equal(f->m->enq(f->q, &in[QSIZE], 1), 1);
	assert_int_equal(f->m->deq(f->q, out, 3), 3);
	assert_int_equal(f->m->enq(f->q, &in[QSIZE + 1], 3), 3);
	assert_int_equal(f->m->enq(f->q, &in[QSIZE + 1], 1), 0); /* full */
	assert_int_equal(f->m->deq(f->q, out, QSIZE), QSIZE);
	for (int i = 0; i < QSIZE; i++)
		assert_ptr_equal(out[i], P(i + 4));
}

static void enqueue_is_all_or_nothing(void **state)
{
	struct fix *f = *state;
	void *in[QSIZE], *out[QSIZE];

	fill_seq(in, QSIZE, 0);
	assert_int_equal(f->m->enq(f->q, in, 5), 5);
	/* 3 free: a bulk of 4 is refused whole and changes nothing. */
	assert_int_equal(f->m->enq(f->q, &in[5], 4), 0);
	assert_int_equal(alf_queue_count(f->q), 5);
	assert_int_equal(f->m->enq(f->q, &in[5], 3), 3);
	assert_int_equal(f->m->deq(f->q, out, QSIZE), QSIZE);
	for (int i = 0; i < QSIZE; i++)
		assert_ptr_equal(out[i], P(i));
}

static void enqueue_larger_than_queue_is_refused(void **state)
{
	struct fix *f = *state;
	void *in[QSIZE + 1];

	fill_seq(in, QSIZE + 1, 0);
	assert_int_equal(f->m->enq(f->q, in, QSIZE + 1), 0);
	assert_true(alf_queue_empty(f->q));
}

static void dequeue_returns_up_to_n(void **state)
{
	struct fix *f = *state;
	void *in[3], *out[QSIZE] = {0};

	fill_seq(in, 3, 0);
	assert_int_equal(f->m->enq(f->q, in, 3), 3);
	assert_int_equal(f->m->deq(f->q, out, QSIZE), 3);
	assert_ptr_equal(out[2], P(2));
	assert_null(out[3]); /* nothing written past what was returned */
	assert_true(alf_queue_empty(f->q));
}

static void zero_sized_calls_move_nothing(void **state)
{
	struct fix *f = *state;
	void *p = P(0), *out;

	assert_int_equal(f->m->enq(f->q, &p, 0), 0);
	assert_true(alf_queue_empty(f->q));
	assert_int_equal(f->m->enq(f->q, &p, 1), 1);
	assert_int_equal(f->m->deq(f->q, &out, 0), 0);
	assert_int_equal(alf_queue_count(f->q), 1);
}

static void count_and_space_track_every_operation(void **state)
{
	struct fix *f = *state;
	void *in[QSIZE], *out[QSIZE];

	fill_seq(in, QSIZE, 0);
	for (unsigned int n = 1; n <= QSIZE; n++) {
		assert_int_equal(f->m->enq(f->q, in, 1), 1);
		assert_int_equal(alf_queue_count(f->q), n);
		assert_int_equal(alf_queue_avail_space(f->q), QSIZE - n);
	}
	for (unsigned int n = QSIZE; n > 0; n--) {
		assert_int_equal(f->m->deq(f->q, out, 1), 1);
		assert_int_equal(alf_queue_count(f->q), n - 1);
	}
}

/* Start all four indices just below 2^32 and cross the wrap point. */
static void indices_wrap_past_32_bits(void **state)
{
	struct fix *f = *state;
	void *in[QSIZE], *out[QSIZE];
	uintptr_t next_in = 0, next_out = 0;

	assert_int_equal(alf_queue_set_index(f->q, UINT32_MAX - 10), 0);
	for (int round = 0; round < 10; round++) {
		fill_seq(in, 3, next_in);
		assert_int_equal(f->m->enq(f->q, in, 3), 3);
		next_in += 3;
		assert_int_equal(alf_queue_count(f->q), 3);
		assert_int_equal(f->m->deq(f->q, out, QSIZE), 3);
		for (int i = 0; i < 3; i++)
			assert_ptr_equal(out[i], P(next_out + i));
		next_out += 3;
	}
	/* Now past the wrap: full and empty boundaries still hold. */
	assert_true(atomic_load(&f->q->prod.head) < 100);
	fill_seq(in, QSIZE, 0);
	assert_int_equal(f->m->enq(f->q, in, QSIZE), QSIZE);
	assert_int_equal(f->m->enq(f->q, in, 1), 0);
	assert_int_equal(f->m->deq(f->q, out, QSIZE), QSIZE);
	assert_true(alf_queue_empty(f->q));
}

static void full_queue_straddling_the_wrap_refuses_more(void **state)
{
	struct fix *f = *state;
	void *in[QSIZE], *out[QSIZE];

	/* Fill so that prod.head has wrapped but cons.tail has not. */
	assert_int_equal(alf_queue_set_index(f->q, UINT32_MAX - 3), 0);
	fill_seq(in, QSIZE, 0);
	assert_int_equal(f->m->enq(f->q, in, QSIZE), QSIZE);
	assert_int_equal(alf_queue_count(f->q), QSIZE);
	assert_int_equal(f->m->enq(f->q, in, 1), 0);
	assert_int_equal(f->m->deq(f->q, out, 2), 2);
	assert_ptr_equal(out[0], P(0));
	assert_int_equal(f->m->enq(f->q, in, 2), 2);
	assert_int_equal(f->m->enq(f->q, in, 1), 0);
}

static void set_index_refuses_a_non_empty_queue(void **state)
{
	struct fix *f = *state;
	void *p = P(0);

	assert_int_equal(f->m->enq(f->q, &p, 1), 1);
	assert_int_equal(alf_queue_set_index(f->q, 5), -1);
	assert_int_equal(alf_queue_count(f->q), 1);
}

/* ---- mixing modes and debug detection ---- */

static void mp_mc_calls_work_on_a_single_producer_queue(void **state)
{
	struct alf_queue *q = new_queue(4, ALF_SP_ENQ | ALF_SC_DEQ);
	void *in[2] = {P(0), P(1)}, *out[2];

	(void)state;
	assert_int_equal(alf_sp_enqueue(q, in, 1), 1);
	assert_int_equal(alf_mp_enqueue(q, &in[1], 1), 1);
	assert_int_equal(alf_mc_dequeue(q, out, 1), 1);
	assert_int_equal(alf_sc_dequeue(q, &out[1], 1), 1);
	assert_ptr_equal(out[0], P(0));
	assert_ptr_equal(out[1], P(1));
	free(q);
}

static void debug_reports_sp_enqueue_on_mp_queue(void **state)
{
	struct alf_queue *q = new_queue(4, 0);
	unsigned long before = mm_debug_count(MM_DBG_OTHER);
	void *p = P(0);

	(void)state;
	mm_debug_set_quiet(true);
	mm_debug_set(true);
	assert_int_equal(alf_sp_enqueue(q, &p, 1), 1); /* still works */
	mm_debug_set(false);
	mm_debug_set_quiet(false);
	assert_int_equal(mm_debug_count(MM_DBG_OTHER), before + 1);
	free(q);
}

static void debug_reports_sc_dequeue_on_mc_queue(void **state)
{
	struct alf_queue *q = new_queue(4, ALF_SP_ENQ);
	unsigned long before = mm_debug_count(MM_DBG_OTHER);
	void *p = P(0);

	(void)state;
	mm_debug_set_quiet(true);
	mm_debug_set(true);
	assert_int_equal(alf_sp_enqueue(q, &p, 1), 1);
	assert_int_equal(mm_debug_count(MM_DBG_OTHER), before); /* allowed */
	assert_int_equal(alf_sc_dequeue(q, &p, 1), 1);
	mm_debug_set(false);
	mm_debug_set_quiet(false);
	assert_int_equal(mm_debug_count(MM_DBG_OTHER), before + 1);
	free(q);
}

static void debug_reports_two_single_producers_inside_at_once(void **state)
{
	struct alf_queue *q = new_queue(4, ALF_SP_ENQ | ALF_SC_DEQ);
	unsigned long before = mm_debug_count(MM_DBG_OTHER);
	void *p = P(0);

	(void)state;
	mm_debug_set_quiet(true);
	mm_debug_set(true);
	/* Simulate a second producer being inside: what an overlapping
	 * call from another CPU or an interrupt handler looks like. */
	atomic_store(&q->prod.busy, 1);
	assert_int_equal(alf_sp_enqueue(q, &p, 1), 1);
	atomic_store(&q->prod.busy, 0);
	mm_debug_set(false);
	mm_debug_set_quiet(false);
	assert_int_equal(mm_debug_count(MM_DBG_OTHER), before + 1);
	free(q);
}

static void debug_off_reports_nothing(void **state)
{
	struct alf_queue *q = new_queue(4, 0);
	unsigned long before = mm_debug_count(MM_DBG_OTHER);
	void *p = P(0);

	(void)state;
	mm_debug_set(false);
	assert_int_equal(alf_sp_enqueue(q, &p, 1), 1);
	mm_debug_set(false);
	mm_debug_set_quiet(false);
	assert_int_equal(mm_debug_count(MM_DBG_OTHER), before);
	free(q);
}

#define MODE_TEST(f, m)                                  \
	{                                                \
#f " [" #m "]", f, setup, teardown, &(m) \
	}
#define BOTH(f) MODE_TEST(f, mpmc), MODE_TEST(f, spsc)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(init_refuses_zero_size),
		cmocka_unit_test(init_refuses_non_power_of_two),
		cmocka_unit_test(init_refuses_size_above_limit),
		cmocka_unit_test(init_refuses_unknown_flags),
		cmocka_unit_test(init_refuses_misaligned_memory),
		cmocka_unit_test(alloc_refuses_bad_size_with_null),
		cmocka_unit_test(
			producer_and_consumer_indices_on_separate_lines),
		BOTH(new_queue_is_empty),
		BOTH(single_elements_come_out_in_fifo_order),
		BOTH(bulks_come_out_in_fifo_order_across_slot_wrap),
		BOTH(capacity_is_the_full_size),
		BOTH(room_made_after_the_producer_looked_is_used),
		BOTH(enqueue_is_all_or_nothing),
		BOTH(enqueue_larger_than_queue_is_refused),
		BOTH(dequeue_returns_up_to_n),
		BOTH(zero_sized_calls_move_nothing),
		BOTH(count_and_space_track_every_operation),
		BOTH(indices_wrap_past_32_bits),
		BOTH(full_queue_straddling_the_wrap_refuses_more),
		BOTH(set_index_refuses_a_non_empty_queue),
		cmocka_unit_test(mp_mc_calls_work_on_a_single_producer_queue),
		cmocka_unit_test(debug_reports_sp_enqueue_on_mp_queue),
		cmocka_unit_test(debug_reports_sc_dequeue_on_mc_queue),
		cmocka_unit_test(
			debug_reports_two_single_producers_inside_at_once),
		cmocka_unit_test(debug_off_reports_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
