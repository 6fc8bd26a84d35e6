/*
 * libc/strbuf.c, the accumulator behind every text and JSON writer: the
 * whole text is counted whatever the buffer's size, what fits is stored
 * and terminated, and the result is what one snprintf of the whole text
 * would have given.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "libc/strbuf.h"

/* "alpha 1, beta 22, gamma 333" in three appends; returns done(). */
static int three_pieces(char *buf, size_t size)
{
	struct strbuf sb;

	strbuf_init(&sb, buf, size);
	strbuf_printf(&sb, "alpha %d", 1);
	strbuf_printf(&sb, ", beta %d", 22);
	strbuf_printf(&sb, ", gamma %s", "333");
	return strbuf_done(&sb);
}

static const char whole[] = "alpha 1, beta 22, gamma 333";

static void test_text_that_fits_is_stored_and_counted(void **state)
{
	char buf[64];

	(void)state;
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(three_pieces(buf, sizeof(buf)), strlen(whole));
	assert_string_equal(buf, whole);
}

static void test_every_size_gives_snprintfs_count_and_prefix(void **state)
{
	char buf[64], want[64];

	(void)state;
	for (size_t size = 1; size <= sizeof(whole) + 2; size++) {
		memset(buf, 'x', sizeof(buf));
		int n = three_pieces(buf, size);
		int ref = snprintf(want, size, "%s", whole);

		assert_int_equal(n, ref);
		assert_string_equal(buf, want); /* the prefix, terminated */
		if (size < sizeof(buf))
			assert_int_equal(buf[size],
					 'x'); /* not one byte past */
	}
}

static void test_size_zero_counts_and_touches_nothing(void **state)
{
	char buf[4] = "abc";

	(void)state;
	assert_int_equal(three_pieces(NULL, 0), strlen(whole));
	assert_int_equal(three_pieces(buf, 0), strlen(whole));
	assert_string_equal(buf, "abc");
}

static void test_empty_text_is_terminated(void **state)
{
	char buf[8] = "junk";
	struct strbuf sb;

	(void)state;
	strbuf_init(&sb, buf, sizeof(buf));
	assert_int_equal(strbuf_done(&sb), 0);
	assert_string_equal(buf, "");
}

/* A nested writer with snprintf semantics, as the stats sections are. */
static int nested(char *buf, size_t size)
{
	return snprintf(buf, size, "[%s]", "inner");
}

static void test_nested_writer_continues_the_same_text(void **state)
{
	char buf[64], small[6];
	struct strbuf sb;

	(void)state;
	strbuf_init(&sb, buf, sizeof(buf));
	strbuf_printf(&sb, "a");
	strbuf_skip(&sb, (size_t)nested(strbuf_tail(&sb), strbuf_room(&sb)));
	strbuf_printf(&sb, "z");
	assert_int_equal(strbuf_done(&sb), 9);
	assert_string_equal(buf, "a[inner]z");

	/* Past the end, the nested writer gets no room, and the count goes on. */
	strbuf_init(&sb, small, sizeof(small));
	strbuf_printf(&sb, "abcdefgh");
	assert_null(strbuf_tail(&sb));
	assert_int_equal(strbuf_room(&sb), 0);
	strbuf_skip(&sb, (size_t)nested(strbuf_tail(&sb), strbuf_room(&sb)));
	assert_int_equal(strbuf_done(&sb), 15);
	assert_string_equal(small, "abcde");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_that_fits_is_stored_and_counted),
		cmocka_unit_test(
			test_every_size_gives_snprintfs_count_and_prefix),
		cmocka_unit_test(test_size_zero_counts_and_touches_nothing),
		cmocka_unit_test(test_empty_text_is_terminated),
		cmocka_unit_test(test_nested_writer_continues_the_same_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
