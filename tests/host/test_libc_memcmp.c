/*
 * libc/memcmp.c, the kernel's memcmp, against a byte loop: every
 * alignment 0..15 of both sides and every length 0..80, equal runs and
 * runs that differ at each position either way (the sign of the answer
 * is the first differing byte's, as unsigned chars), and bytes past the
 * length that differ and must not count.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#define LIBC_MEMCMP libc_memcmp
#include "libc/memcmp.c"

#define MAX_LEN	  80
#define MAX_ALIGN 16
#define AREA	  (MAX_ALIGN + MAX_LEN + 8)

static int sign(int v)
{
	return (v > 0) - (v < 0);
}

static int ref_cmp(const unsigned char *x, const unsigned char *y, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

/* a at alignment aa, b at ab, n bytes equal, everything after them not. */
static void check_equal_then_differ(unsigned char *a, unsigned char *b,
				    size_t n)
{
	for (size_t i = 0; i < n; i++)
		a[i] = b[i] = (unsigned char)(i * 37 + 11);
	for (size_t i = n; i < n + 8; i++) {
		a[i] = 0x00;
		b[i] = 0xff;
	}
	if (libc_memcmp(a, b, n) != 0)
		fail_msg("length %zu: equal bytes compared unequal", n);
}

static void test_equal_runs_at_every_alignment(void **state)
{
	static unsigned char a[AREA], b[AREA];

	(void)state;
	for (int aa = 0; aa < MAX_ALIGN; aa++)
		for (int ab = 0; ab < MAX_ALIGN; ab++)
			for (size_t n = 0; n <= MAX_LEN; n++)
				check_equal_then_differ(a + aa, b + ab, n);
}

/* One byte differs at position at: lower in a, then higher in a. */
static void check_difference(unsigned char *a, unsigned char *b, size_t n,
			     size_t at)
{
	for (size_t i = 0; i < n; i++)
		a[i] = b[i] = (unsigned char)(i * 53 + 5);
	/* 0x01 against 0x80: the answer must order them as unsigned. */
	a[at] = 0x01;
	b[at] = 0x80;
	if (at + 1 < n) /* a later byte that differs the other way */
		a[at + 1] = (unsigned char)(b[at + 1] + 1);
	if (sign(libc_memcmp(a, b, n)) != ref_cmp(a, b, n) ||
	    sign(libc_memcmp(b, a, n)) != ref_cmp(b, a, n))
		fail_msg("length %zu, difference at %zu: wrong sign", n, at);
}

static void test_every_difference_position_both_ways(void **state)
{
	static unsigned char a[AREA], b[AREA];

	(void)state;
	for (int aa = 0; aa < MAX_ALIGN; aa++)
		for (int ab = 0; ab < MAX_ALIGN; ab += 3)
			for (size_t n = 1; n <= MAX_LEN; n++)
				for (size_t at = 0; at < n; at++)
					check_difference(a + aa, b + ab, n, at);
}

/* The same object on both sides; a zero length between different
 * bytes. */
static void test_same_buffer_and_zero_length(void **state)
{
	static const unsigned char x[] = "headers", y[] = "HEADERS";

	(void)state;
	assert_int_equal(libc_memcmp(x, x, sizeof(x)), 0);
	assert_int_equal(libc_memcmp(x, y, 0), 0);
	assert_true(libc_memcmp(x, y, sizeof(x)) > 0); /* 'h' > 'H' */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_equal_runs_at_every_alignment),
		cmocka_unit_test(test_every_difference_position_both_ways),
		cmocka_unit_test(test_same_buffer_and_zero_length),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
