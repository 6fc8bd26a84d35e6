/*
 * The boot command line (kernel/cmdline.c) with the kernel's own number
 * parser (libc/stdlib.c), on keys declared here with CMDLINE_KEY and
 * gathered as the kernel's linker.ld does (cmdline_keys.ld beside this
 * file): numbers are decimal or 0x hex as cmdline.h says, never octal and
 * never signed; a list's items are all choices, an empty last one too.
 * cmdline_init runs once per boot: each test starts from a fresh state.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#define strtoul kernel_strtoul
#define strtol	kernel_strtol
#define atoi	kernel_atoi
#include "libc/stdlib.c"
#include "kernel/cmdline.c"

CMDLINE_KEY(kernel, smp, "", cmdline_valid_uint, "1-64", "CPUs");
CMDLINE_KEY(net, poll_us, "200", cmdline_valid_uint, "0-1000000", "poll");
CMDLINE_KEY(apps, app, "echo,http,iperf", cmdline_valid_list,
	    "echo|http|iperf|none", "apps");

int kprintf(const char *fmt, ...)
{
	(void)fmt;
	return 0;
}

static int fresh(void **state)
{
	(void)state;
	memset(raw_copy, 0, sizeof(raw_copy));
	errors = 0;
	for (const struct cmdline_key *k = __cmdline_keys_start;
	     k != __cmdline_keys_end; k++)
		*k->value = NULL;
	return 0;
}

static void test_a_leading_zero_is_decimal_not_octal(void **state)
{
	(void)state;
	cmdline_init("smp=010 poll_us=0009");
	assert_int_equal(cmdline_errors(), 0);
	assert_int_equal(cmdline_get_long("smp"), 10);
	assert_int_equal(cmdline_get_long("poll_us"), 9);
}

static void test_hex_needs_its_0x_and_a_digit(void **state)
{
	(void)state;
	cmdline_init("smp=0x20 poll_us=0x");
	assert_int_equal(cmdline_get_long("smp"), 32);
	assert_false(cmdline_given("poll_us"));
	assert_int_equal(cmdline_errors(), 1);
}

static void test_a_sign_or_a_space_is_not_a_number(void **state)
{
	(void)state;
	cmdline_init("smp=+5 poll_us=-1");
	assert_int_equal(cmdline_errors(), 2);
	assert_false(cmdline_given("smp"));
	assert_int_equal(cmdline_get_long("poll_us"), 200);
	assert_false(cmdline_valid_uint(" 5", "1-64"));
}

static void test_every_list_item_must_be_a_choice(void **state)
{
	(void)state;
	assert_true(cmdline_valid_list("echo,http", "echo|http"));
	assert_true(cmdline_valid_list("", "echo|http"));
	assert_false(cmdline_valid_list("echo,", "echo|http"));
	assert_false(cmdline_valid_list(",echo", "echo|http"));
	assert_false(cmdline_valid_list("echo,,http", "echo|http"));
	cmdline_init("app=http,");
	assert_int_equal(cmdline_errors(), 1);
	assert_string_equal(cmdline_get("app"), "echo,http,iperf");
}

static void test_keys_text_length_query_matches_the_text(void **state)
{
	char buf[1024];
	int need = cmdline_keys_text(NULL, 0);

	(void)state;
	assert_true(need > 0 && need < (int)sizeof(buf));
	assert_int_equal(cmdline_keys_text(buf, sizeof(buf)), need);
	assert_int_equal((int)strlen(buf), need);
	assert_int_equal(cmdline_keys_text(buf, 5), need);
	assert_string_equal(buf, "kern");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_a_leading_zero_is_decimal_not_octal,
				       fresh),
		cmocka_unit_test_setup(test_hex_needs_its_0x_and_a_digit,
				       fresh),
		cmocka_unit_test_setup(test_a_sign_or_a_space_is_not_a_number,
				       fresh),
		cmocka_unit_test_setup(test_every_list_item_must_be_a_choice,
				       fresh),
		cmocka_unit_test_setup(
			test_keys_text_length_query_matches_the_text, fresh),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
