/*
 * selftest=printf: the kernel's snprintf against known answers, in the
 * kernel build itself (freestanding flags, our libc). One line per
 * mismatch, then "selftest: printf PASS n=N" or "FAIL".
 */
#include "kernel/selftest/tests.h"
#include "kernel/console.h"
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int checked, failed;
/* volatile: hidden from gcc's compile-time format checks on purpose */
static const char *volatile null_string;
static const char *volatile bad_format = "%q";

static void expect(const char *want, int want_len, const char *got, int len)
{
	checked++;
	if (strcmp(want, got) != 0 || len != want_len) {
		failed++;
		kprintf("selftest: printf: got \"%s\" (%d), want \"%s\" (%d)\n",
			got, len, want, want_len);
	}
}

#define CHECK(want, ...)                                            \
	do {                                                        \
		char buf_[64];                                      \
		int n_ = snprintf(buf_, sizeof(buf_), __VA_ARGS__); \
		expect(want, (int)strlen(want), buf_, n_);          \
	} while (0)

static void check_integers(void)
{
	CHECK("42", "%d", 42);
	CHECK("-42", "%i", -42);
	CHECK("-2147483648", "%d", INT_MIN);
	CHECK("4294967295", "%u", UINT_MAX);
	CHECK("ff FF", "%x %X", 255, 255);
	CHECK("0x1f", "%#x", 31);
	CHECK("17", "%o", 15);
	CHECK("18446744073709551615", "%lu", ULONG_MAX);
	CHECK("-9223372036854775808", "%lld", LLONG_MIN);
	CHECK("123456789abcdef0", "%llx", 0x123456789abcdef0ULL);
	CHECK("4096", "%zu", (size_t)4096);
	CHECK("-1", "%hhd", (signed char)-1);
	CHECK("65535", "%hu", (unsigned short)65535);
}

static void check_padding(void)
{
	CHECK("   42", "%5d", 42);
	CHECK("42   |", "%-5d|", 42);
	CHECK("00042", "%05d", 42);
	CHECK("-0042", "%05d", -42);
	CHECK("0000beef", "%08x", 0xbeef);
	CHECK("+7", "%+d", 7);
	CHECK("  007", "%5.3d", 7);
	CHECK("   ab", "%*s", 5, "ab");
	CHECK("ab   |", "%-*s|", 5, "ab");
	CHECK("abc", "%.3s", "abcdef");
	CHECK("x", "%c", 'x');
	CHECK("  x", "%3c", 'x');
	CHECK("(null)", "%s", null_string);
	CHECK("100%", "%d%%", 100);
	CHECK("0xdeadbeef", "%p", (void *)(uintptr_t)0xdeadbeef);
}

/* Truncation keeps C99's return value and always terminates. */
static void check_truncation(void)
{
	char small[4];
	int n = snprintf(small, sizeof(small), "%s", "abcdef");

	expect("abc", 6, small, n);
	n = snprintf(NULL, 0, "%d", 12345);
	expect("", 5, "", n);
	n = snprintf(small, sizeof(small), bad_format, 0);
	expect("%q", 2, small, n); /* unknown conversion printed as is */
}

int selftest_printf(void)
{
	checked = failed = 0;
	check_integers();
	check_padding();
	check_truncation();
	if (failed)
		kprintf("selftest: printf FAIL %d of %d\n", failed, checked);
	else
		kprintf("selftest: printf PASS n=%d\n", checked);
	return failed;
}
