/*
 * memcmp for the freestanding kernel. Its hot callers ask only "equal?"
 * of a few header bytes: the TX merge (drivers/tcp_merge.c) compares
 * seven runs of 2 to 16 bytes of every TCP segment the stack sends with
 * the batch's first. The byte loop this replaced cost about 5 guest
 * instructions per byte, 299 of the 3,086 guest instructions the stack
 * spent per 1460 bytes the guest's iperf client sent over virtio-net
 * with HOST_TSO4; with this one the figure is 2,591 where it was 2,756
 * (docs/offloads.md, "Instructions per sent byte").
 *
 * Here: 8 bytes per step while the words are equal (unaligned loads,
 * which x86-64 allows), then one 4-byte step, then bytes. The first
 * word that differs is walked byte by byte for the answer's sign:
 * memcmp orders by the first differing byte as an unsigned char, and a
 * little-endian word puts that byte lowest, so comparing whole words
 * would give the wrong order.
 *
 * It has no <string.h>: the host test builds this file under another
 * name beside the C library's own memcmp (tests/host/test_libc_memcmp.c).
 */
#include <stddef.h>
#include <stdint.h>

#ifndef LIBC_MEMCMP
#define LIBC_MEMCMP memcmp
#endif

/* Words at any address; may_alias: they read any object's bytes. */
typedef uint64_t __attribute__((may_alias, aligned(1))) cmp_u64;
typedef uint32_t __attribute__((may_alias, aligned(1))) cmp_u32;

int LIBC_MEMCMP(const void *a, const void *b, size_t n);

int LIBC_MEMCMP(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;

	for (; n >= 8; n -= 8, x += 8, y += 8)
		if (*(const cmp_u64 *)(const void *)x !=
		    *(const cmp_u64 *)(const void *)y)
			break; /* the bytes below find which one differs */
	if (n >= 4 && n < 8 &&
	    *(const cmp_u32 *)(const void *)x ==
		    *(const cmp_u32 *)(const void *)y) {
		x += 4;
		y += 4;
		n -= 4;
	}
	/* At most 8 bytes: a differing word's, or the tail's. */
	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x - *y;
	return 0;
}
