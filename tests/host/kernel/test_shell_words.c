/*
 * A shell line cut into words and a count read from a word
 * (kernel/shell_words.c), as the shell and ping use them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "kernel/shell_words.c"

#define MAX 8

static int split(const char *text, char *line, char **argv)
{
	strcpy(line, text);
	return shell_split_words(line, argv, MAX);
}

static void test_words_are_cut_at_any_run_of_spaces(void **state)
{
	char line[80], *argv[MAX];

	(void)state;
	assert_int_equal(split("  ping   10.0.2.2 3  ", line, argv), 3);
	assert_string_equal(argv[0], "ping");
	assert_string_equal(argv[1], "10.0.2.2");
	assert_string_equal(argv[2], "3");
}

static void test_an_empty_or_blank_line_has_no_words(void **state)
{
	char line[80], *argv[MAX];

	(void)state;
	assert_int_equal(split("", line, argv), 0);
	assert_int_equal(split("     ", line, argv), 0);
}

static void test_max_words_fit_and_one_more_is_refused(void **state)
{
	char line[80], *argv[MAX];

	(void)state;
	assert_int_equal(split("a b c d e f g h", line, argv), MAX);
	assert_string_equal(argv[MAX - 1], "h");
	assert_int_equal(split("a b c d e f g h i", line, argv), -1);
	assert_int_equal(split("a b c d e f g h   ", line, argv), MAX);
}

static void test_counts_in_range_are_read(void **state)
{
	long v = -1;

	(void)state;
	assert_true(shell_parse_count("1", 1, 100, &v));
	assert_int_equal(v, 1);
	assert_true(shell_parse_count("100", 1, 100, &v));
	assert_int_equal(v, 100);
	assert_true(shell_parse_count("007", 1, 100, &v));
	assert_int_equal(v, 7);
}

static void test_anything_else_is_not_a_count(void **state)
{
	static const char *const bad[] = {
		"0",
		"101",
		"",
		"-1",
		"+3",
		" 3",
		"3 ",
		"2x",
		"0x5",
		"1e2",
		"999999999999999999999",
		"1234567890",
	};
	long v = 42;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_false(shell_parse_count(bad[i], 1, 100, &v));
		assert_int_equal(v, 42); /* untouched */
	}
	assert_false(shell_parse_count("1234567890", 0, 2000000000L, &v));
	assert_true(shell_parse_count("123456789", 0, 2000000000L, &v));
	assert_int_equal(v, 123456789);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_words_are_cut_at_any_run_of_spaces),
		cmocka_unit_test(test_an_empty_or_blank_line_has_no_words),
		cmocka_unit_test(test_max_words_fit_and_one_more_is_refused),
		cmocka_unit_test(test_counts_in_range_are_read),
		cmocka_unit_test(test_anything_else_is_not_a_count),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
