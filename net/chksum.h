/*
 * The Internet checksum for lwIP on x86-64: net/lwipopts.h makes these
 * lwIP's LWIP_CHKSUM and LWIP_CHKSUM_COPY. See net/chksum.c.
 *
 * Included by lwipopts.h, so by every lwIP file: only standard types here.
 */
#ifndef NET_CHKSUM_H
#define NET_CHKSUM_H

#include <stddef.h>
#include <stdint.h>

/**
 * net_chksum - the 16-bit ones'-complement sum (RFC 1071) of @len bytes at
 * @data, not inverted: the contract of lwIP's LWIP_CHKSUM.
 * @data: any address; no alignment needed.
 * @len: bytes to sum; 0 or less sums nothing.
 *
 * The bytes are paired from the first one as x86 reads them (data[0] is
 * the low byte of the first 16-bit word, data[1] its high byte), and an
 * odd last byte is the low byte of a word whose high byte is 0, whatever
 * the alignment of @data: this is exactly what lwIP's reference routine
 * (lwip_standard_chksum) returns. The result is 0 only if every byte is 0.
 * Context: any; reads only @data.
 */
uint16_t net_chksum(const void *data, int len);

/**
 * net_chksum_acc - add @len bytes at @data to a running 64-bit
 * ones'-complement sum @sum (carries wrapped around) and return it, not
 * folded: several pieces (a pseudo-header's words, then a segment) make
 * one sum, folded once by net_chksum_fold(). Each piece is paired from its
 * own first byte, as net_chksum pairs them, so a piece must start at an
 * even offset of the checksummed data.
 * Context: any; reads only @data.
 */
uint64_t net_chksum_acc(const void *data, size_t len, uint64_t sum);

/* sum + v with the carry wrapped around (ones'-complement addition). */
static inline uint64_t net_chksum_add64(uint64_t sum, uint64_t v)
{
	__asm__("addq %1, %0\n\t"
		"adcq $0, %0"
		: "+r"(sum)
		: "r"(v)
		: "cc");
	return sum;
}

/* A 64-bit ones'-complement sum folded to 16 bits, every carry wrapped
 * around (2^16 = 1 modulo 2^16 - 1, which divides 2^64 - 1). */
static inline uint16_t net_chksum_fold(uint64_t sum)
{
	uint32_t lo = (uint32_t)sum, hi = (uint32_t)(sum >> 32);

	lo += hi;
	lo += lo < hi; /* the carry out of the 32-bit add */
	lo = (lo & 0xffff) + (lo >> 16);
	lo = (lo & 0xffff) + (lo >> 16);
	return (uint16_t)lo;
}

/**
 * net_chksum_copy - copy @len bytes from @src to @dst (which must not
 * overlap) and return net_chksum(@dst, @len), in one pass over the data:
 * lwIP's LWIP_CHKSUM_COPY, used by tcp_write() with LWIP_CHECKSUM_ON_COPY.
 * Context: any.
 */
uint16_t net_chksum_copy(void *dst, const void *src, uint16_t len);

#endif /* NET_CHKSUM_H */
