/*
 * libc/memcpy.c, the kernel's memcpy, against a byte loop: every source
 * and destination alignment 0..15 and every length 0..300, with guard
 * bytes either side that must stay untouched, and the return value.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#define LIBC_MEMCPY libc_memcpy
#include "libc/memcpy.c"

#define MAX_LEN	  300
#define MAX_ALIGN 16
#define GUARD	  32
#define AREA	  (GUARD + MAX_ALIGN + MAX_LEN + GUARD)

static void ref_copy(unsigned char *d, const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		d[i] = s[i];
}

static void test_every_alignment_and_length(void **state)
{
	static unsigned char src[AREA] __attribute__((aligned(64)));
	static unsigned char got[AREA] __attribute__((aligned(64)));
	static unsigned char want[AREA] __attribute__((aligned(64)));

	(void)state;
	for (int i = 0; i < AREA; i++)
		src[i] = (unsigned char)(i * 131 + 7);
	for (int sa = 0; sa < MAX_ALIGN; sa++)
		for (int da = 0; da < MAX_ALIGN; da++)
			for (size_t n = 0; n <= MAX_LEN; n++) {
				unsigned char *d = got + GUARD + da;

				memset(got, 0xa5, sizeof(got));
				memset(want, 0xa5, sizeof(want));
				ref_copy(want + GUARD + da, src + GUARD + sa,
					 n);
				assert_ptr_equal(
					libc_memcpy(d, src + GUARD + sa, n), d);
				if (memcmp(got, want, sizeof(got)) != 0)
					fail_msg("src align %d dst align %d "
						 "len %zu differs",
						 sa, da, n);
			}
}

/* A frame copied out of an RX buffer: the payload 14 bytes in. */
static void test_frame_at_ethernet_offset(void **state)
{
	static unsigned char rx[2048] __attribute__((aligned(64)));
	static unsigned char pool[1600] __attribute__((aligned(64)));

	(void)state;
	for (int i = 0; i < 2048; i++)
		rx[i] = (unsigned char)(i ^ (i >> 8));
	libc_memcpy(pool, rx + 12 + 14, 1500);
	assert_memory_equal(pool, rx + 26, 1500);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_alignment_and_length),
		cmocka_unit_test(test_frame_at_ethernet_offset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
