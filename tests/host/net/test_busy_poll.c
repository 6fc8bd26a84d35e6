/*
 * The adaptive busy-poll window (net/busy_poll.c): a queue spins after a
 * frame only while spinning finds frames, backs off to sleeping at once
 * when it does not, and spins again when its sleeps turn out short.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "net/busy_poll.c"

#define US	 1000u
#define MAX_NS	 (200 * US) /* poll_us=200, the default */
#define ROUND_NS (2 * US)   /* one empty poll round */

/* Empty rounds from @t on, ROUND_NS apart, until the window runs out.
 * Returns the time of the round that stopped spinning. */
static uint64_t spin_out(struct busy_poll *bp, uint64_t t)
{
	while (busy_poll_spin(bp, t))
		t += ROUND_NS;
	return t;
}

static void test_a_frame_is_followed_by_a_spin_of_the_window(void **state)
{
	struct busy_poll bp;
	uint64_t end;

	(void)state;
	busy_poll_init(&bp, MAX_NS, true);
	busy_poll_frames(&bp, 1000 * US);
	end = spin_out(&bp, 1000 * US + ROUND_NS);
	assert_true(end >= 1000 * US + MAX_NS);
	assert_true(end < 1000 * US + MAX_NS + ROUND_NS);
	assert_int_equal(bp.spin_rounds, MAX_NS / ROUND_NS - 1);
	assert_int_equal(bp.spin_ns, (MAX_NS / ROUND_NS - 1) * ROUND_NS);
	assert_int_equal(bp.misses, 1);
	/* judged when the next frame comes: 10 ms later, a long sleep */
	assert_int_equal(bp.window_ns, MAX_NS);
	busy_poll_frames(&bp, 11000 * US);
	assert_int_equal(bp.long_sleeps, 1);
	assert_int_equal(bp.window_ns, MAX_NS / 2);
}

static void
test_frames_further_apart_than_poll_us_stop_the_spinning(void **state)
{
	struct busy_poll bp;
	uint64_t t = 1000 * US, rounds;

	(void)state;
	busy_poll_init(&bp, MAX_NS, true);
	/* a frame every 10 ms: each spin runs out, and each next frame
	 * halves the window (200, 100, 50, 25, 12.5 us, then 0) */
	for (int i = 0; i < 6; i++, t += 10000 * US) {
		busy_poll_frames(&bp, t);
		spin_out(&bp, t + ROUND_NS);
	}
	assert_int_equal(bp.misses, 5);
	assert_int_equal(bp.long_sleeps, 5);
	assert_int_equal(bp.window_ns, 0);
	assert_int_equal(bp.short_sleeps, 0);
	/* from now on the queue sleeps at once after each frame */
	rounds = bp.spin_rounds;
	for (int i = 0; i < 100; i++, t += 10000 * US) {
		busy_poll_frames(&bp, t);
		assert_false(busy_poll_spin(&bp, t + ROUND_NS));
	}
	assert_int_equal(bp.spin_rounds, rounds);
	assert_int_equal(bp.misses, 5);
	assert_int_equal(bp.window_ns, 0);
}

static void test_an_idle_queue_spins_once_then_not_at_all(void **state)
{
	struct busy_poll bp;
	uint64_t t;

	(void)state;
	busy_poll_init(&bp, MAX_NS, true);
	busy_poll_frames(&bp, 1000 * US);
	t = spin_out(&bp, 1000 * US + ROUND_NS);
	/* woken for timers, a second of them, with no frame */
	for (int i = 0; i < 1000; i++)
		assert_false(busy_poll_spin(&bp, t += 1000 * US));
	assert_int_equal(bp.spin_rounds, MAX_NS / ROUND_NS - 1);
	assert_int_equal(bp.misses, 1);
}

static void test_a_spin_that_finds_a_frame_keeps_the_window(void **state)
{
	struct busy_poll bp;
	uint64_t t = 1000 * US;

	(void)state;
	busy_poll_init(&bp, MAX_NS, true);
	for (int i = 0; i < 50; i++) {
		busy_poll_frames(&bp, t);
		/* the next frame comes 30 us later, during the spin */
		for (uint64_t r = t + ROUND_NS; r < t + 30 * US; r += ROUND_NS)
			assert_true(busy_poll_spin(&bp, r));
		t += 30 * US;
	}
	assert_int_equal(bp.hits, 49);
	assert_int_equal(bp.misses, 0);
	assert_int_equal(bp.window_ns, MAX_NS);
}

static void test_short_sleeps_grow_the_window_back_up_to_poll_us(void **state)
{
	struct busy_poll bp;
	uint64_t t = 1000 * US;
	uint64_t expect[] = {10 * US, 20 * US, 40 * US, 80 * US, 160 * US};

	(void)state;
	busy_poll_init(&bp, MAX_NS, true);
	bp.window_ns = 0; /* backed off */
	/* frames 150 us apart: past the window while it is smaller, so the
	 * queue sleeps, and within poll_us=, so each sleep was short */
	busy_poll_frames(&bp, t);
	for (size_t i = 0; i < sizeof(expect) / sizeof(expect[0]); i++) {
		spin_out(&bp, t + ROUND_NS);
		t += 150 * US;
		busy_poll_frames(&bp, t);
		assert_int_equal(bp.window_ns, expect[i]);
	}
	assert_int_equal(bp.short_sleeps, 5);
	/* 160 us > 150 us: the next frames are found spinning */
	for (int i = 0; i < 10; i++) {
		for (uint64_t r = t + ROUND_NS; r < t + 150 * US; r += ROUND_NS)
			assert_true(busy_poll_spin(&bp, r));
		t += 150 * US;
		busy_poll_frames(&bp, t);
	}
	assert_int_equal(bp.hits, 10);
	assert_int_equal(bp.window_ns, 160 * US);
}

static void test_the_window_grows_no_further_than_poll_us(void **state)
{
	struct busy_poll bp;
	uint64_t t = 1000 * US;

	(void)state;
	busy_poll_init(&bp, MAX_NS, true);
	bp.window_ns = 160 * US;
	busy_poll_frames(&bp, t);
	spin_out(&bp, t + ROUND_NS);
	busy_poll_frames(&bp, t + 190 * US);
	assert_int_equal(bp.short_sleeps, 1);
	assert_int_equal(bp.window_ns, MAX_NS);
}

static void test_a_long_sleep_never_grows_the_window(void **state)
{
	struct busy_poll bp;

	(void)state;
	busy_poll_init(&bp, MAX_NS, true);
	bp.window_ns = 0;
	busy_poll_frames(&bp, 1000 * US);
	assert_false(busy_poll_spin(&bp, 1000 * US + ROUND_NS));
	busy_poll_frames(&bp, 1000 * US + MAX_NS);
	assert_int_equal(bp.window_ns, 0);
	assert_int_equal(bp.short_sleeps, 0);
	assert_int_equal(bp.long_sleeps, 1);
}

static void test_frames_in_round_after_round_are_not_judged(void **state)
{
	struct busy_poll bp;

	(void)state;
	busy_poll_init(&bp, MAX_NS, true);
	bp.window_ns = 40 * US;
	for (uint64_t t = 1000 * US; t < 2000 * US; t += ROUND_NS)
		busy_poll_frames(&bp, t);
	assert_int_equal(bp.hits + bp.short_sleeps + bp.long_sleeps, 0);
	assert_int_equal(bp.window_ns, 40 * US);
}

static void test_poll_adapt_off_keeps_the_window_at_poll_us(void **state)
{
	struct busy_poll bp;
	uint64_t t = 1000 * US;

	(void)state;
	busy_poll_init(&bp, MAX_NS, false);
	for (int i = 0; i < 20; i++, t += 10000 * US) {
		busy_poll_frames(&bp, t);
		spin_out(&bp, t + ROUND_NS);
	}
	assert_int_equal(bp.misses, 20);
	assert_int_equal(bp.long_sleeps, 19);
	assert_int_equal(bp.window_ns, MAX_NS);
}

static void test_poll_us_0_never_spins(void **state)
{
	struct busy_poll bp;
	uint64_t t = 1000 * US;

	(void)state;
	busy_poll_init(&bp, 0, true);
	for (int i = 0; i < 20; i++, t += 50 * US) {
		busy_poll_frames(&bp, t);
		assert_false(busy_poll_spin(&bp, t + 1));
	}
	assert_int_equal(bp.window_ns, 0);
	assert_int_equal(bp.spin_rounds, 0);
	assert_int_equal(bp.short_sleeps, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
			test_a_frame_is_followed_by_a_spin_of_the_window),
		cmocka_unit_test(
			test_frames_further_apart_than_poll_us_stop_the_spinning),
		cmocka_unit_test(test_an_idle_queue_spins_once_then_not_at_all),
		cmocka_unit_test(
			test_a_spin_that_finds_a_frame_keeps_the_window),
		cmocka_unit_test(
			test_short_sleeps_grow_the_window_back_up_to_poll_us),
		cmocka_unit_test(test_the_window_grows_no_further_than_poll_us),
		cmocka_unit_test(test_a_long_sleep_never_grows_the_window),
		cmocka_unit_test(
			test_frames_in_round_after_round_are_not_judged),
		cmocka_unit_test(
			test_poll_adapt_off_keeps_the_window_at_poll_us),
		cmocka_unit_test(test_poll_us_0_never_spins),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
