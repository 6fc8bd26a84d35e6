/*
 * memcpy for the freestanding kernel. lwIP's stock mode copies every
 * received frame out of the NIC buffer into PBUF_POOL pbufs, and the
 * frame's payload sits 14 bytes (an Ethernet header) past an aligned
 * buffer start, so source and destination are rarely both 8-byte
 * aligned. The old copy went 8 bytes at a time only when both were, and
 * byte by byte otherwise.
 *
 * Here: fewer than 16 bytes are two overlapping loads and stores of the
 * widest size that fits (8, 4, 2 or 1 bytes: a 12-byte virtio-net header
 * is two 8-byte moves, a 6-byte MAC address two 4-byte ones), with no
 * loop: the byte loop this replaced cost about 5 guest instructions per
 * byte, and the headers and addresses lwIP and the drivers copy are that
 * small. Longer copies store the first 8 bytes unaligned and go on from
 * the next aligned destination (a store that straddles two cache lines
 * costs most), move 32 bytes per loop pass in four unaligned 8-byte loads
 * and aligned stores (x86-64 allows unaligned loads, at no cost within a
 * line), and end with one unaligned 8-byte move of the last 8 bytes,
 * which may rewrite bytes already copied (source and destination do not
 * overlap). `rep movsb` was measured against this under QEMU
 * TCG (docs/offloads.md, "Figures"): TCG runs a rep string instruction one
 * iteration per guest instruction, so it loses there.
 *
 * It has no <string.h>: the host test builds this file under another
 * name beside the C library's own memcpy (tests/host/test_libc_memcpy.c).
 */
#include <stddef.h>
#include <stdint.h>

#ifndef LIBC_MEMCPY
#define LIBC_MEMCPY memcpy
#endif

/* Words at any address; may_alias: they read and write any object's bytes. */
typedef uint64_t __attribute__((may_alias, aligned(1))) unaligned_u64;
typedef uint32_t __attribute__((may_alias, aligned(1))) unaligned_u32;
typedef uint16_t __attribute__((may_alias, aligned(1))) unaligned_u16;
typedef uint64_t __attribute__((may_alias)) aligned_u64;

void *LIBC_MEMCPY(void *restrict dst, const void *restrict src, size_t n);

/* 0..15 bytes: the first and the last word of the widest size that fits
 * (they overlap unless n is twice that size). */
static inline void copy_small(unsigned char *d, const unsigned char *s,
			      size_t n)
{
	if (n >= 8) {
		uint64_t a = *(const unaligned_u64 *)(const void *)s;
		uint64_t b = *(const unaligned_u64 *)(const void *)(s + n - 8);

		*(unaligned_u64 *)(void *)d = a;
		*(unaligned_u64 *)(void *)(d + n - 8) = b;
	} else if (n >= 4) {
		uint32_t a = *(const unaligned_u32 *)(const void *)s;
		uint32_t b = *(const unaligned_u32 *)(const void *)(s + n - 4);

		*(unaligned_u32 *)(void *)d = a;
		*(unaligned_u32 *)(void *)(d + n - 4) = b;
	} else if (n >= 2) {
		uint16_t a = *(const unaligned_u16 *)(const void *)s;
		uint16_t b = *(const unaligned_u16 *)(const void *)(s + n - 2);

		*(unaligned_u16 *)(void *)d = a;
		*(unaligned_u16 *)(void *)(d + n - 2) = b;
	} else if (n) {
		*d = *s;
	}
}

void *LIBC_MEMCPY(void *restrict dst, const void *restrict src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;
	uint64_t last;
	size_t skip;

	if (n < 16) {
		copy_small(d, s, n);
		return dst;
	}
	/* The last 8 bytes, loaded now and stored at the end. */
	last = *(const unaligned_u64 *)(const void *)(s + n - 8);
	skip = (8 - ((uintptr_t)d & 7)) & 7;
	if (skip) { /* 1..7 bytes to the next aligned destination */
		*(unaligned_u64 *)(void *)d =
			*(const unaligned_u64 *)(const void *)s;
		d += skip;
		s += skip;
		n -= skip;
	}
	for (; n >= 32; n -= 32, d += 32, s += 32) {
		uint64_t a = *(const unaligned_u64 *)(const void *)s;
		uint64_t b = *(const unaligned_u64 *)(const void *)(s + 8);
		uint64_t c = *(const unaligned_u64 *)(const void *)(s + 16);
		uint64_t e = *(const unaligned_u64 *)(const void *)(s + 24);

		((aligned_u64 *)(void *)d)[0] = a;
		((aligned_u64 *)(void *)d)[1] = b;
		((aligned_u64 *)(void *)d)[2] = c;
		((aligned_u64 *)(void *)d)[3] = e;
	}
	for (; n >= 8; n -= 8, d += 8, s += 8)
		*(aligned_u64 *)(void *)d =
			*(const unaligned_u64 *)(const void *)s;
	*(unaligned_u64 *)(void *)(d + n - 8) = last; /* n is 0..7 here */
	return dst;
}
