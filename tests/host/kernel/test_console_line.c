/*
 * COM1's line discipline (kernel/console_line.c): log lines always leave
 * whole, right after a '\n', whatever the shell has on the line; the
 * shell's line in progress comes back after them; log text waits behind
 * an open output line, within bounds. The UART is a buffer here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "kernel/console_line.c"

static char wire[65536];
static size_t wire_len;
static size_t uart_room = (size_t)-1; /* bytes serial_write_some takes */

void serial_write(const char *s, size_t n)
{
	assert_true(wire_len + n < sizeof(wire));
	memcpy(wire + wire_len, s, n);
	wire_len += n;
	wire[wire_len] = '\0';
}

size_t serial_write_some(const char *s, size_t n)
{
	if (n > uart_room)
		n = uart_room;
	serial_write(s, n);
	return n;
}

static int setup(void **state)
{
	(void)state;
	line = LINE_START;
	input_len = 0;
	input_on = false;
	held_len = 0;
	memset(&stats, 0, sizeof(stats));
	wire_len = 0;
	wire[0] = '\0';
	uart_room = (size_t)-1;
	return 0;
}

#define LOG(s, t) com1_log((s), strlen(s), (t))
#define OUT(s, t) com1_output((s), strlen(s), (t))
#define INPUT(s)  com1_input_show((s), strlen(s))
#define SEEN(s)	  assert_string_equal(wire, (s))

/* Every occurrence of needle in the wire starts at the beginning or right
 * after a '\n'. */
static void starts_lines(const char *needle)
{
	for (const char *p = strstr(wire, needle); p; p = strstr(p + 1, needle))
		assert_true(p == wire || p[-1] == '\n');
}

static void test_log_alone_goes_straight_out(void **state)
{
	(void)state;
	LOG("net: listening tcp/80\n", 0);
	SEEN("net: listening tcp/80\n");
}

static void test_log_ends_a_half_typed_line_and_redraws_it(void **state)
{
	(void)state;
	INPUT("shell> ");
	INPUT("shell> budd");
	LOG("net: eth0 up\n", 0);
	SEEN("shell> budd\nnet: eth0 up\nshell> budd");
	starts_lines("net: eth0 up");
	assert_int_equal(stats.input_redraws, 1);
	INPUT("shell> buddyinfo"); /* typing goes on after the redraw */
	SEEN("shell> budd\nnet: eth0 up\nshell> buddyinfo");
}

static void test_editing_sends_only_the_difference(void **state)
{
	(void)state;
	INPUT("shell> ab");
	INPUT("shell> a"); /* backspace */
	INPUT("shell> ac");
	SEEN("shell> ab\b \bc");
	INPUT("shell> zoneinfo"); /* a history recall: "ac" goes */
	SEEN("shell> ab\b \bc\b \b\b \bzoneinfo");
}

static void test_log_in_pieces_keeps_the_prompt_away_until_done(void **state)
{
	(void)state;
	INPUT("shell> x");
	LOG("\npanic: ", 0);
	LOG("oops\n", 0);
	SEEN("shell> x\n\npanic: oops\nshell> x");
}

static void test_output_waits_for_an_open_log_line_then_ends_it(void **state)
{
	(void)state;
	LOG("half a line", 1000);
	assert_int_equal(OUT("answer\n", 1000 + CONSOLE_LOG_LINE_WAIT_MS - 1),
			 0);
	SEEN("half a line");
	assert_int_equal(OUT("answer\n", 1000 + CONSOLE_LOG_LINE_WAIT_MS), 7);
	SEEN("half a line\nanswer\n");
	assert_int_equal(stats.log_breaks, 1);
}

static void test_log_is_held_behind_an_open_output_line(void **state)
{
	(void)state;
	OUT("{\"uptime\":", 0);
	LOG("iperf: done\n", 1);
	SEEN("{\"uptime\":"); /* the JSON line is not broken */
	OUT("42}\n", 2);
	SEEN("{\"uptime\":42}\niperf: done\n");
	assert_int_equal(stats.held, 1);
	assert_int_equal(stats.output_breaks, 0);
}

static void test_output_end_lets_held_log_out(void **state)
{
	(void)state;
	OUT("partial", 0);
	LOG("smp: late=0\n", 1);
	com1_output_end(2);
	SEEN("partial\nsmp: late=0\n");
}

static void test_too_much_held_log_breaks_the_output_not_the_log(void **state)
{
	static char big[CONSOLE_HELD_MAX];

	(void)state;
	memset(big, 'l', sizeof(big) - 2);
	memcpy(big, "big:", 4);
	big[sizeof(big) - 2] = '\n';
	OUT("[1,2,", 0);
	LOG(big, 1);	      /* fits exactly */
	LOG("one more\n", 2); /* does not */
	assert_int_equal(stats.output_breaks, 1);
	assert_memory_equal(wire, "[1,2,\n", 6);
	starts_lines("one more");
	starts_lines("big:");
	OUT("3]\n", 3);
	assert_string_equal(wire + wire_len - 3, "3]\n");
}

static void test_held_log_waits_only_so_long(void **state)
{
	(void)state;
	OUT("[", 0);
	LOG("first\n", 0);
	LOG("second\n", CONSOLE_HELD_WAIT_MS);
	SEEN("[\nfirst\nsecond\n");
	assert_int_equal(stats.output_breaks, 1);
}

static void test_a_full_uart_takes_part_of_the_output(void **state)
{
	(void)state;
	uart_room = 3;
	assert_int_equal(OUT("abcdef\n", 0), 3);
	uart_room = 0;
	assert_int_equal(OUT("def\n", 0), 0);
	uart_room = (size_t)-1;
	assert_int_equal(OUT("def\n", 0), 4);
	SEEN("abcdef\n");
}

static void test_prompt_comes_back_after_output_and_ends_on_enter(void **state)
{
	(void)state;
	INPUT("shell> ");
	INPUT("shell> help");
	com1_input_end();
	OUT("commands:\n", 0);
	INPUT("shell> ");
	LOG("net: x\n", 0);
	SEEN("shell> help\ncommands:\nshell> \nnet: x\nshell> ");
	starts_lines("net: x");
}

static void test_flush_after_a_fatal_error_writes_what_was_held(void **state)
{
	(void)state;
	OUT("{", 0);
	LOG("held\n", 0);
	com1_flush();
	SEEN("{\nheld\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup(f, setup)
		T(test_log_alone_goes_straight_out),
		T(test_log_ends_a_half_typed_line_and_redraws_it),
		T(test_editing_sends_only_the_difference),
		T(test_log_in_pieces_keeps_the_prompt_away_until_done),
		T(test_output_waits_for_an_open_log_line_then_ends_it),
		T(test_log_is_held_behind_an_open_output_line),
		T(test_output_end_lets_held_log_out),
		T(test_too_much_held_log_breaks_the_output_not_the_log),
		T(test_held_log_waits_only_so_long),
		T(test_a_full_uart_takes_part_of_the_output),
		T(test_prompt_comes_back_after_output_and_ends_on_enter),
		T(test_flush_after_a_fatal_error_writes_what_was_held),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
