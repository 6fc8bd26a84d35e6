/*
 * The LAPIC timer's mode switches (kernel/lapic_timer.c) against a model
 * of the timer registers with the SDM's rules: a zero initial count stops
 * the count timer, count writes are ignored in TSC-deadline mode, leaving
 * TSC-deadline mode disarms it. The model records every (mode, count) the
 * timer ran with after each register write; a switch into periodic mode
 * must never run periodic with a count the caller did not give (QEMU's
 * TCG live-locked on a 16-clock periodic timer left by a stale one-shot
 * count of 1).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "kernel/lapic_timer.c"

enum run { STOPPED, ONESHOT, PERIODIC, DEADLINE };

static struct {
	uint32_t lvt, init, div, cur;
	uint64_t deadline;
	/* every periodic count the timer ran with, in order */
	uint32_t periodic_counts[16];
	int nperiodic;
	int writes;
} m;

static enum run running(void)
{
	uint32_t mode = m.lvt & LVT_MODE_MASK;

	if (mode == LVT_TSC_DEADLINE)
		return m.deadline && !(m.lvt & LVT_MASKED) ? DEADLINE : STOPPED;
	if (!m.init)
		return STOPPED;
	/* A masked timer still counts (only its interrupt is masked), but
	 * raises nothing: for this test it does not run. */
	if (m.lvt & LVT_MASKED)
		return STOPPED;
	return mode == LVT_PERIODIC ? PERIODIC : ONESHOT;
}

static void record(void)
{
	m.writes++;
	if (running() == PERIODIC &&
	    (m.nperiodic == 0 ||
	     m.periodic_counts[m.nperiodic - 1] != m.init)) {
		assert_true(m.nperiodic < 16);
		m.periodic_counts[m.nperiodic++] = m.init;
	}
}

uint32_t lapic_read(uint32_t reg)
{
	switch (reg) {
	case LAPIC_LVT_TIMER:
		return m.lvt;
	case LAPIC_TIMER_INIT:
		return m.init;
	case LAPIC_TIMER_CUR:
		return m.cur;
	case LAPIC_TIMER_DIV:
		return m.div;
	}
	fail_msg("read of unexpected register 0x%x", reg);
	return 0;
}

void lapic_write(uint32_t reg, uint32_t v)
{
	switch (reg) {
	case LAPIC_LVT_TIMER:
		if ((m.lvt & LVT_MODE_MASK) != (v & LVT_MODE_MASK))
			m.deadline = 0; /* a mode change disarms the deadline */
		m.lvt = v;
		break;
	case LAPIC_TIMER_INIT:
		if ((m.lvt & LVT_MODE_MASK) == LVT_TSC_DEADLINE)
			break; /* ignored in TSC-deadline mode */
		m.init = v;
		m.cur = v;
		break;
	case LAPIC_TIMER_DIV:
		m.div = v;
		break;
	default:
		fail_msg("write of unexpected register 0x%x", reg);
	}
	record();
}

void lapic_write_tsc_deadline(uint64_t tsc)
{
	if ((m.lvt & LVT_MODE_MASK) == LVT_TSC_DEADLINE)
		m.deadline = tsc;
	record();
}

static int reset(void **state)
{
	(void)state;
	memset(&m, 0, sizeof(m));
	m.lvt = LVT_MASKED; /* the power-on value */
	return 0;
}

static void assert_periodic(int vector, uint32_t count)
{
	assert_int_equal(running(), PERIODIC);
	assert_int_equal(m.lvt, (uint32_t)vector | LVT_PERIODIC);
	assert_int_equal(m.init, count);
	assert_int_equal(m.div, LAPIC_DIV_16);
}

/* The tickless idle path's leftover: a one-shot of 1 (deadline passed). */
static void
test_periodic_after_a_oneshot_of_one_never_runs_with_count_one(void **state)
{
	(void)state;
	lapic_timer_oneshot(0xEF, 0); /* 0 becomes 1 */
	assert_int_equal(running(), ONESHOT);
	assert_int_equal(m.init, 1);
	lapic_timer_periodic(0xEF, 625000);
	assert_periodic(0xEF, 625000);
	assert_int_equal(m.nperiodic, 1);
	assert_int_equal(m.periodic_counts[0], 625000);
}

static void test_periodic_counts_seen_are_only_the_ones_asked_for(void **state)
{
	(void)state;
	lapic_timer_periodic(0xEF, 1000);
	lapic_timer_oneshot(0xEF, 5);
	lapic_timer_periodic(0xEF, 2000);
	lapic_timer_oneshot(0xEF, 1);
	lapic_timer_periodic(0xEF, 1000);
	assert_periodic(0xEF, 1000);
	assert_int_equal(m.nperiodic, 3);
	assert_int_equal(m.periodic_counts[0], 1000);
	assert_int_equal(m.periodic_counts[1], 2000);
	assert_int_equal(m.periodic_counts[2], 1000);
}

/* In TSC-deadline mode count writes are ignored: the periodic count must
 * be written after the mode left it, or the tick would never start. */
static void test_periodic_after_tsc_deadline_gets_its_count(void **state)
{
	(void)state;
	lapic_timer_periodic(0xEF, 1000);
	lapic_timer_tsc_deadline(0xEF, 123456789);
	assert_int_equal(running(), DEADLINE);
	assert_int_equal(m.deadline, 123456789);
	lapic_timer_periodic(0xEF, 3000);
	assert_periodic(0xEF, 3000);
	assert_int_equal(m.deadline, 0);
	assert_int_equal(m.nperiodic, 2);
	assert_int_equal(m.periodic_counts[1], 3000);
}

static void test_zero_counts_and_deadlines_become_one(void **state)
{
	(void)state;
	lapic_timer_periodic(0xEF, 0);
	assert_periodic(0xEF, 1);
	lapic_timer_tsc_deadline(0xEF, 0);
	assert_int_equal(m.deadline, 1);
}

static void test_calibration_count_is_masked_and_reads_back(void **state)
{
	(void)state;
	lapic_timer_periodic(0xEF, 1000);
	lapic_timer_start_count();
	assert_int_equal(running(), STOPPED); /* masked: no interrupt */
	assert_int_equal(m.init, 0xFFFFFFFFu);
	m.cur = 0xFFFFFFFFu - 4242;
	assert_int_equal(lapic_timer_elapsed(), 4242);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(
			test_periodic_after_a_oneshot_of_one_never_runs_with_count_one,
			reset),
		cmocka_unit_test_setup(
			test_periodic_counts_seen_are_only_the_ones_asked_for,
			reset),
		cmocka_unit_test_setup(
			test_periodic_after_tsc_deadline_gets_its_count, reset),
		cmocka_unit_test_setup(
			test_zero_counts_and_deadlines_become_one, reset),
		cmocka_unit_test_setup(
			test_calibration_count_is_masked_and_reads_back, reset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
