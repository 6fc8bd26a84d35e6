/*
 * net/chksum.c (lwIP's LWIP_CHKSUM and LWIP_CHKSUM_COPY in the kernel)
 * against lwIP's own routines, compiled from lwIP's core/inet_chksum.c
 * into this file with LWIP_CHKSUM unset (tests/host/net/lwip_ref/
 * lwipopts.h): lwip_standard_chksum is the reference for the sum,
 * lwip_chksum_copy (memcpy, then the sum) for the copy.
 *
 * The contract is exact equality with the reference for every length and
 * every alignment of the start (odd ones included), that the routine
 * reads nothing past the last byte, and that the copy writes exactly the
 * destination bytes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

/* glibc's <endian.h> (through <stdlib.h>) defines BYTE_ORDER as lwIP's
 * port header (net/arch/cc.h) does: let the port's definition stand. */
#undef BYTE_ORDER
#include "net/chksum.c"
#include "third_party/lwip/src/core/inet_chksum.c"

/* lwIP's port hooks (net/arch/cc.h declares them); the checksum code
 * calls none of them, but LWIP_ASSERT could. */
void net_diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

void net_assert_fail(const char *msg, const char *file, int line)
{
	fail_msg("lwIP assert %s at %s:%d", msg, file, line);
}

uint32_t net_rand(void)
{
	return (uint32_t)random();
}

#define MAX_LEN 65535
static unsigned char *buf; /* MAX_LEN + 64 random bytes */

static int setup(void **state)
{
	(void)state;
	srandom(15);
	buf = malloc(MAX_LEN + 64);
	assert_non_null(buf);
	for (size_t i = 0; i < MAX_LEN + 64; i++)
		buf[i] = (unsigned char)random();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(buf);
	return 0;
}

static void assert_same_sum(const void *p, int len)
{
	uint16_t want = lwip_standard_chksum(p, len);
	uint16_t got = net_chksum(p, len);

	if (got != want)
		fail_msg("len %d from address %% 64 = %zu: net_chksum 0x%04x, "
			 "lwIP 0x%04x",
			 len, (size_t)((uintptr_t)p & 63), got, want);
}

static void test_every_length_to_2048_at_every_alignment(void **state)
{
	(void)state;
	for (int off = 0; off < 16; off++)
		for (int len = 0; len <= 2048; len++)
			assert_same_sum(buf + off, len);
}

static void test_random_lengths_and_starts_to_64k(void **state)
{
	(void)state;
	for (int i = 0; i < 3000; i++) {
		int len = (int)(random() % (MAX_LEN + 1));
		size_t off = (size_t)random() % 64;

		assert_same_sum(buf + off, len);
	}
	assert_same_sum(buf, MAX_LEN);
	assert_same_sum(buf + 1, MAX_LEN);
}

/* All ones makes every add carry; all zeros must give 0 (and nothing
 * else may). */
static void test_all_ones_and_all_zeros(void **state)
{
	unsigned char *b = malloc(MAX_LEN + 8);

	(void)state;
	assert_non_null(b);
	memset(b, 0xff, MAX_LEN + 8);
	for (int len = 0; len <= 600; len++)
		for (int off = 0; off < 8; off++)
			assert_same_sum(b + off, len);
	assert_same_sum(b + 3, MAX_LEN);
	memset(b, 0, MAX_LEN + 8);
	for (int len = 0; len <= 600; len++)
		assert_int_equal(net_chksum(b + (len & 7), len), 0);
	b[77] = 1;
	assert_int_equal(net_chksum(b, 78), 0x0100); /* odd byte: high half */
	assert_int_equal(net_chksum(b, 600), 0x0100);
	assert_same_sum(b + 1, 600);
	free(b);
}

static void test_zero_and_negative_length_sum_nothing(void **state)
{
	(void)state;
	assert_int_equal(net_chksum(buf, 0), 0);
	assert_int_equal(net_chksum(buf, -1), lwip_standard_chksum(buf, -1));
	assert_int_equal(net_chksum(NULL, 0), 0);
}

/* The data ends where an inaccessible page begins: a read past the last
 * byte faults. Every length, every start, both routines. */
static void test_reads_nothing_past_the_end(void **state)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *map =
		mmap(NULL, (size_t)page * 3, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned char *end, dst[4096];

	(void)state;
	assert_true(map != MAP_FAILED);
	assert_int_equal(mprotect(map + 2 * page, (size_t)page, PROT_NONE), 0);
	end = map + 2 * page;
	memcpy(end - 2048, buf, 2048);
	for (int len = 0; len <= 2048; len++) {
		assert_same_sum(end - len, len);
		assert_int_equal(net_chksum_copy(dst, end - len, (uint16_t)len),
				 lwip_standard_chksum(end - len, len));
	}
	munmap(map, (size_t)page * 3);
}

static void check_copy(size_t dst_off, size_t src_off, uint16_t len)
{
	static unsigned char dst[MAX_LEN + 128], ref[MAX_LEN + 128];
	const unsigned char *src = buf + src_off;
	uint16_t want, got;

	memset(dst, 0xa5, (size_t)len + dst_off + 64);
	memset(ref, 0xa5, (size_t)len + dst_off + 64);
	want = lwip_chksum_copy(ref + dst_off, src, len);
	got = net_chksum_copy(dst + dst_off, src, len);
	if (got != want)
		fail_msg("copy of %u bytes, dst +%zu, src +%zu: 0x%04x, lwIP "
			 "0x%04x",
			 len, dst_off, src_off, got, want);
	/* the same bytes copied, and none written around them */
	assert_memory_equal(dst, ref, (size_t)len + dst_off + 64);
}

static void test_copy_every_length_and_alignment(void **state)
{
	(void)state;
	for (size_t d = 0; d < 8; d++)
		for (size_t s = 0; s < 8; s++)
			for (uint16_t len = 0; len <= 300; len++)
				check_copy(d, s, len);
	for (uint16_t len = 300; len <= 2048; len++)
		check_copy(len % 8, (len / 8) % 8, len);
}

static void test_copy_random_lengths_to_64k(void **state)
{
	(void)state;
	for (int i = 0; i < 300; i++)
		check_copy((size_t)random() % 64, (size_t)random() % 64,
			   (uint16_t)(random() % (MAX_LEN + 1)));
	check_copy(1, 3, MAX_LEN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_length_to_2048_at_every_alignment),
		cmocka_unit_test(test_random_lengths_and_starts_to_64k),
		cmocka_unit_test(test_all_ones_and_all_zeros),
		cmocka_unit_test(test_zero_and_negative_length_sum_nothing),
		cmocka_unit_test(test_reads_nothing_past_the_end),
		cmocka_unit_test(test_copy_every_length_and_alignment),
		cmocka_unit_test(test_copy_random_lengths_to_64k),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
