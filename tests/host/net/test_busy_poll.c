/*
 * The adaptive busy-poll window (net/busy_poll.c): a queue spins after a
 * frame only while spinning finds frames, stops (sleeps at once) when
 * its spins run out more often than they find one, and spins again when
 * a sleep turns out short.
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

/* A frame at @t, then a spin that runs out. */
static uint64_t frame_then_miss(struct busy_poll *bp, uint64_t t)
{
	busy_poll_frames(bp, t);
	spin_out(bp, t + ROUND_NS);
	return t;
}

/* A frame at @t found by the spin after the one before @gap earlier. */
static void frame_found_spinning(struct busy_poll *bp, uint64_t t, uint64_t gap)
{
	for (uint64_t r = t - gap + ROUND_NS; r < t; r += ROUND_NS)
		assert_true(busy_poll_spin(bp, r));
	busy_poll_frames(bp, t);
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
	assert_int_equal(bp.credits, BUSY_POLL_CREDITS - 1);
	assert_int_equal(bp.window_ns, MAX_NS);
}

static void test_spins_that_find_nothing_stop_the_spinning(void **state)
{
	struct busy_poll bp;
	uint64_t t = 1000 * US, rounds;

	(void)state;
	busy_poll_init(&bp, MAX_NS, true);
	/* a frame every 10 ms: each spin runs out, each costs a credit */
	for (unsigned i = 0; i < BUSY_POLL_CREDITS; i++, t += 10000 * US)
		frame_then_miss(&bp, t);
	assert_int_equal(bp.misses, BUSY_POLL_CREDITS);
	assert_int_equal(bp.window_ns, 0);
	/* from now on the queue sleeps at once after each frame */
	rounds = bp.spin_rounds;
	for (int i = 0; i < 100; i++, t += 10000 * US) {
		busy_poll_frames(&bp, t);
		assert_false(busy_poll_spin(&bp, t + ROUND_NS));
	}
	assert_int_equal(bp.spin_rounds, rounds);
	assert_int_equal(bp.misses, BUSY_POLL_CREDITS);
	assert_int_equal(bp.long_sleeps, BUSY_POLL_CREDITS - 1 + 100);
	assert_int_equal(bp.short_sleeps, 0);
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

static void test_hits_keep_the_spinning_through_misses(void **state)
{
	struct busy_poll bp;
	uint64_t t = 1000 * US;

	(void)state;
	busy_poll_init(&bp, MAX_NS, true);
	/* a host that answers in 30 us twice, then stalls for 10 ms */
	busy_poll_frames(&bp, t);
	for (int i = 0; i < 100; i++) {
		frame_found_spinning(&bp, t += 30 * US, 30 * US);
		frame_found_spinning(&bp, t += 30 * US, 30 * US);
		spin_out(&bp, t + ROUND_NS);
		busy_poll_frames(&bp, t += 10000 * US);
	}
	assert_int_equal(bp.hits, 200);
	assert_int_equal(bp.misses, 100);
	assert_int_equal(bp.window_ns, MAX_NS);
}

static void test_a_short_sleep_starts_a_stopped_queue_spinning(void **state)
{
	struct busy_poll bp;
	uint64_t t = 1000 * US;

	(void)state;
	busy_poll_init(&bp, MAX_NS, true);
	bp.window_ns = 0; /* stopped */
	bp.credits = 0;
	busy_poll_frames(&bp, t);
	assert_false(busy_poll_spin(&bp, t + ROUND_NS));
	/* the next frame 150 us later: a spin would have found it */
	busy_poll_frames(&bp, t += 150 * US);
	assert_int_equal(bp.short_sleeps, 1);
	assert_int_equal(bp.window_ns, MAX_NS);
	frame_found_spinning(&bp, t += 150 * US, 150 * US);
	assert_int_equal(bp.hits, 1);
	/* with the restart's credits and the hit's, it stops after that many
	 * misses */
	for (unsigned i = 0; i < BUSY_POLL_RESTART_CREDITS + 1; i++)
		frame_then_miss(&bp, t += 10000 * US);
	assert_int_equal(bp.misses, BUSY_POLL_RESTART_CREDITS + 1);
	assert_int_equal(bp.window_ns, 0);
}

static void test_a_long_sleep_leaves_a_stopped_queue_stopped(void **state)
{
	struct busy_poll bp;

	(void)state;
	busy_poll_init(&bp, MAX_NS, true);
	bp.window_ns = 0;
	bp.credits = 0;
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
	for (uint64_t t = 1000 * US; t < 2000 * US; t += ROUND_NS)
		busy_poll_frames(&bp, t);
	assert_int_equal(bp.hits + bp.short_sleeps + bp.long_sleeps, 0);
	assert_int_equal(bp.credits, BUSY_POLL_CREDITS);
}

static void test_poll_adapt_off_keeps_spinning(void **state)
{
	struct busy_poll bp;
	uint64_t t = 1000 * US;

	(void)state;
	busy_poll_init(&bp, MAX_NS, false);
	for (int i = 0; i < 20; i++, t += 10000 * US)
		frame_then_miss(&bp, t);
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
			test_spins_that_find_nothing_stop_the_spinning),
		cmocka_unit_test(test_an_idle_queue_spins_once_then_not_at_all),
		cmocka_unit_test(test_hits_keep_the_spinning_through_misses),
		cmocka_unit_test(
			test_a_short_sleep_starts_a_stopped_queue_spinning),
		cmocka_unit_test(
			test_a_long_sleep_leaves_a_stopped_queue_stopped),
		cmocka_unit_test(
			test_frames_in_round_after_round_are_not_judged),
		cmocka_unit_test(test_poll_adapt_off_keeps_spinning),
		cmocka_unit_test(test_poll_us_0_never_spins),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
