/*
 * The shell's line editor (kernel/shell_line.c), fed byte sequences as a
 * terminal or a script sends them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "kernel/shell_line.c"

static struct shell_line ed;

/* Feeds s; returns the last event that was not SHELL_LINE_NONE (or NONE)
 * and counts the DONE events in *lines. */
static enum shell_line_event feed(const char *s, size_t n, int *lines)
{
	enum shell_line_event last = SHELL_LINE_NONE;

	if (lines)
		*lines = 0;
	for (size_t i = 0; i < n; i++) {
		enum shell_line_event ev = shell_line_feed(&ed, (uint8_t)s[i]);

		if (ev == SHELL_LINE_DONE && lines)
			++*lines;
		if (ev != SHELL_LINE_NONE)
			last = ev;
		if (ev == SHELL_LINE_DONE)
			break;
	}
	return last;
}

#define FEED(lit) feed((lit), sizeof(lit) - 1, NULL)

static int setup(void **state)
{
	(void)state;
	shell_line_init(&ed);
	return 0;
}

static void test_printable_bytes_build_the_line(void **state)
{
	(void)state;
	assert_int_equal(FEED("help"), SHELL_LINE_EDITED);
	assert_string_equal(ed.buf, "help");
	assert_int_equal(FEED("\r"), SHELL_LINE_DONE);
	assert_string_equal(ed.buf, "help");
}

static void test_cr_lf_and_crlf_each_end_one_line(void **state)
{
	int lines;

	(void)state;
	FEED("a");
	assert_int_equal(feed("\r", 1, &lines), SHELL_LINE_DONE);
	shell_line_clear(&ed);
	/* the LF of that CR LF is its pair, not an empty second line */
	assert_int_equal(FEED("\n"), SHELL_LINE_NONE);
	FEED("b");
	assert_int_equal(FEED("\n"), SHELL_LINE_DONE);
	assert_string_equal(ed.buf, "b");
	shell_line_clear(&ed);
	/* a LF on its own after a LF is an (empty) line of its own */
	assert_int_equal(FEED("\n"), SHELL_LINE_DONE);
	assert_string_equal(ed.buf, "");
}

static void test_lf_after_cr_then_text_is_not_swallowed(void **state)
{
	(void)state;
	FEED("x\r");
	shell_line_clear(&ed);
	FEED("y"); /* any byte ends the CR's pairing */
	assert_int_equal(FEED("\n"), SHELL_LINE_DONE);
	assert_string_equal(ed.buf, "y");
}

static void test_both_backspace_codes_delete_the_last_character(void **state)
{
	(void)state;
	FEED("abc\x08");
	assert_string_equal(ed.buf, "ab");
	assert_int_equal(FEED("\x7f"), SHELL_LINE_EDITED);
	assert_string_equal(ed.buf, "a");
	FEED("\x7f\x7f\x7f"); /* past the start: nothing more to delete */
	assert_string_equal(ed.buf, "");
	assert_int_equal(FEED("\x08"), SHELL_LINE_NONE);
}

static void test_ctrl_u_clears_and_ctrl_c_cancels(void **state)
{
	(void)state;
	FEED("buddyinfo");
	assert_int_equal(FEED("\x15"), SHELL_LINE_EDITED);
	assert_string_equal(ed.buf, "");
	FEED("zone");
	assert_int_equal(FEED("\x03"), SHELL_LINE_CANCEL);
	assert_string_equal(ed.buf, "");
	assert_int_equal(FEED("\r"), SHELL_LINE_DONE);
	assert_string_equal(ed.buf, ""); /* nothing of "zone" is left */
}

static void test_arrows_walk_the_history_both_ways(void **state)
{
	(void)state;
	FEED("one\r");
	shell_line_clear(&ed);
	FEED("two\r");
	shell_line_clear(&ed);
	FEED("draft");
	assert_int_equal(FEED("\x1b[A"), SHELL_LINE_EDITED);
	assert_string_equal(ed.buf, "two");
	FEED("\x1b[A");
	assert_string_equal(ed.buf, "one");
	assert_int_equal(FEED("\x1b[A"), SHELL_LINE_NONE); /* oldest */
	assert_string_equal(ed.buf, "one");
	FEED("\x1b[B");
	assert_string_equal(ed.buf, "two");
	FEED("\x1b[B"); /* back to what was being typed */
	assert_string_equal(ed.buf, "draft");
	assert_int_equal(FEED("\x1b[B"), SHELL_LINE_NONE);
}

static void test_application_mode_and_modified_arrows_work_too(void **state)
{
	(void)state;
	FEED("one\r");
	shell_line_clear(&ed);
	FEED("\x1bOA"); /* ESC O A: cursor keys in application mode */
	assert_string_equal(ed.buf, "one");
	shell_line_clear(&ed);
	FEED("\x1b[1;5A"); /* Ctrl-Up: parameters before the final byte */
	assert_string_equal(ed.buf, "one");
}

static void test_a_recalled_line_runs_and_is_not_stored_twice(void **state)
{
	(void)state;
	FEED("netstat\r");
	shell_line_clear(&ed);
	FEED("\x1b[A");
	assert_int_equal(FEED("\r"), SHELL_LINE_DONE);
	assert_string_equal(ed.buf, "netstat");
	assert_int_equal(ed.hist_count, 1);
}

static void test_history_is_bounded_and_drops_the_oldest(void **state)
{
	char line[8];

	(void)state;
	for (int i = 0; i < SHELL_HISTORY + 3; i++) {
		int n = snprintf(line, sizeof(line), "c%d\r", i);

		feed(line, (size_t)n, NULL);
		shell_line_clear(&ed);
	}
	assert_int_equal(ed.hist_count, SHELL_HISTORY);
	for (int i = 0; i < SHELL_HISTORY + 5; i++)
		FEED("\x1b[A");
	snprintf(line, sizeof(line), "c%d", 3); /* c0..c2 are gone */
	assert_string_equal(ed.buf, line);
}

static void test_other_keys_and_control_bytes_are_ignored(void **state)
{
	(void)state;
	/* right arrow, Delete, a bell, a tab, UTF-8 bytes, Alt-x */
	FEED("ab\x1b[C\x1b[3~\x07\t\xc3\xa9\x1bxc");
	assert_string_equal(ed.buf, "abc");
	assert_true(ed.ignored >= 6);
}

static void test_overlong_line_is_refused_whole(void **state)
{
	char long_line[SHELL_LINE_MAX + 10];

	(void)state;
	memset(long_line, 'x', sizeof(long_line));
	feed(long_line, sizeof(long_line), NULL);
	assert_int_equal(ed.len, SHELL_LINE_MAX); /* what fits is shown */
	assert_int_equal(FEED("\r"), SHELL_LINE_TOO_LONG);
	assert_int_equal(ed.len, 0);
	assert_int_equal(ed.hist_count, 0);
}

static void test_backspace_under_the_limit_makes_the_line_valid(void **state)
{
	char long_line[SHELL_LINE_MAX + 2];

	(void)state;
	memset(long_line, 'y', sizeof(long_line));
	feed(long_line, sizeof(long_line), NULL);
	FEED("\x7f\x7f"); /* the two invisible characters go first */
	assert_int_equal(ed.len, SHELL_LINE_MAX);
	assert_int_equal(FEED("\r"), SHELL_LINE_DONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup(f, setup)
		T(test_printable_bytes_build_the_line),
		T(test_cr_lf_and_crlf_each_end_one_line),
		T(test_lf_after_cr_then_text_is_not_swallowed),
		T(test_both_backspace_codes_delete_the_last_character),
		T(test_ctrl_u_clears_and_ctrl_c_cancels),
		T(test_arrows_walk_the_history_both_ways),
		T(test_application_mode_and_modified_arrows_work_too),
		T(test_a_recalled_line_runs_and_is_not_stored_twice),
		T(test_history_is_bounded_and_drops_the_oldest),
		T(test_other_keys_and_control_bytes_are_ignored),
		T(test_overlong_line_is_refused_whole),
		T(test_backspace_under_the_limit_makes_the_line_valid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
