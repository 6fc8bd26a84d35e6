/*
 * IPv6 address text as the command line's ip6= and gw6= give it
 * (net/ip6_text.c): the RFC 4291 forms accepted, byte for byte, and
 * the typos refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "net/ip6_text.c"

static void assert_parses(const char *text, const uint8_t want[16])
{
	uint8_t got[16];
	const char *end = NULL;

	assert_true(ip6_text_parse(text, got, &end));
	assert_memory_equal(got, want, 16);
	assert_ptr_equal(end, text + strlen(text));
}

static void test_full_form(void **state)
{
	static const uint8_t want[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0x76,
					 0,    0,    0,	   0,	 0, 0, 0, 0x02};

	(void)state;
	assert_parses("2001:db8:0:76:0:0:0:2", want);
	assert_parses("2001:0DB8:0000:0076:0000:0000:0000:0002", want);
}

static void test_double_colon_anywhere(void **state)
{
	static const uint8_t a[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0x76,
				      0,    0,	  0,	0,    0, 0, 0, 0x02};
	static const uint8_t ll[16] = {0xfe, 0x80, 0,	 0,    0,    0,
				       0,    0,	   0x50, 0x54, 0x00, 0xff,
				       0xfe, 0x12, 0x34, 0x56};
	static const uint8_t one[16] = {[15] = 1};
	static const uint8_t zero[16] = {0};
	static const uint8_t tail0[16] = {0x20, 0x01, 0x0d, 0xb8};

	(void)state;
	assert_parses("2001:db8:0:76::2", a);
	assert_parses("fe80::5054:ff:fe12:3456", ll);
	assert_parses("::1", one);
	assert_parses("::", zero);
	assert_parses("2001:db8::", tail0);
}

static void test_stops_at_slash(void **state)
{
	uint8_t got[16];
	const char *end;
	int prefix = 0;

	(void)state;
	assert_true(ip6_text_parse("2001:db8::2/64", got, &end));
	assert_string_equal(end, "/64");
	assert_true(ip6_text_parse_prefix("2001:db8::2/64", got, &prefix));
	assert_int_equal(prefix, 64);
	assert_int_equal(got[15], 2);
}

static void test_typos_are_refused(void **state)
{
	static const char *const bad[] = {
		"",
		":",
		":::",
		"1:2:3:4:5:6:7",     /* 7 groups, no "::" */
		"1:2:3:4:5:6:7:8:9", /* 9 groups */
		"1:2:3:4::5:6:7:8",  /* "::" standing for nothing */
		"1::2::3",	     /* two "::" */
		"12345::1",	     /* a group of five digits */
		"1:",		     /* dangling ':' */
		":1",
		"1:::2",
		"2001:db8::g",
		"fe80::1%eth0", /* a zone: not a host address */
		"10.0.2.15",
	};
	uint8_t got[16];
	const char *end;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		bool ok = ip6_text_parse(bad[i], got, &end) && *end == '\0';

		if (ok)
			fail_msg("'%s' was accepted", bad[i]);
	}
}

static void test_prefix_range(void **state)
{
	uint8_t got[16] = {0};
	int prefix = -1;

	(void)state;
	assert_true(ip6_text_parse_prefix("2001:db8::2/128", got, &prefix));
	assert_int_equal(prefix, 128);
	assert_false(ip6_text_parse_prefix("2001:db8::2/0", got, &prefix));
	assert_false(ip6_text_parse_prefix("2001:db8::2/129", got, &prefix));
	assert_false(ip6_text_parse_prefix("2001:db8::2/", got, &prefix));
	assert_false(ip6_text_parse_prefix("2001:db8::2/64x", got, &prefix));
	assert_false(ip6_text_parse_prefix("2001:db8::2", got, &prefix));
	/* a refused value leaves the outputs alone */
	memset(got, 0xaa, sizeof(got));
	assert_false(ip6_text_parse_prefix("zz::1/64", got, &prefix));
	assert_int_equal(got[0], 0xaa);
	assert_int_equal(prefix, 128);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_form),
		cmocka_unit_test(test_double_colon_anywhere),
		cmocka_unit_test(test_stops_at_slash),
		cmocka_unit_test(test_typos_are_refused),
		cmocka_unit_test(test_prefix_range),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
