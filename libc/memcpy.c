/*
 * memcpy for the freestanding kernel. lwIP's stock mode copies every
 * received frame out of the NIC buffer into PBUF_POOL pbufs, and the
 * frame's payload sits 14 bytes (an Ethernet header) past an aligned
 * buffer start, so source and destination are rarely both 8-byte
 * aligned. The old copy went 8 bytes at a time only when both were, and
 * byte by byte otherwise.
 *
 * Here: fewer than 16 bytes go byte by byte; longer copies first align
 * the destination (a store that straddles two cache lines costs most),
 * then move 32 bytes per loop pass in four unaligned 8-byte loads and
 * aligned stores (x86-64 allows unaligned loads, at no cost within a
 * line), then the tail. `rep movsb` was measured against this under QEMU
 * TCG (docs/net.md, "Offloads"): TCG runs a rep string instruction one
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

/* An 8-byte word at any address; may_alias: it reads any object's bytes. */
typedef uint64_t __attribute__((may_alias, aligned(1))) unaligned_u64;
typedef uint64_t __attribute__((may_alias)) aligned_u64;

void *LIBC_MEMCPY(void *restrict dst, const void *restrict src, size_t n);

void *LIBC_MEMCPY(void *restrict dst, const void *restrict src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if (n >= 16) {
		while ((uintptr_t)d & 7) {
			*d++ = *s++;
			n--;
		}
		for (; n >= 32; n -= 32, d += 32, s += 32) {
			uint64_t a = *(const unaligned_u64 *)(const void *)s;
			uint64_t b =
				*(const unaligned_u64 *)(const void *)(s + 8);
			uint64_t c =
				*(const unaligned_u64 *)(const void *)(s + 16);
			uint64_t e =
				*(const unaligned_u64 *)(const void *)(s + 24);

			((aligned_u64 *)(void *)d)[0] = a;
			((aligned_u64 *)(void *)d)[1] = b;
			((aligned_u64 *)(void *)d)[2] = c;
			((aligned_u64 *)(void *)d)[3] = e;
		}
		for (; n >= 8; n -= 8, d += 8, s += 8)
			*(aligned_u64 *)(void *)d =
				*(const unaligned_u64 *)(const void *)s;
	}
	while (n--)
		*d++ = *s++;
	return dst;
}
