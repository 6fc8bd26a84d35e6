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
 * net_chksum_copy - copy @len bytes from @src to @dst (which must not
 * overlap) and return net_chksum(@dst, @len), in one pass over the data:
 * lwIP's LWIP_CHKSUM_COPY, used by tcp_write() with LWIP_CHECKSUM_ON_COPY.
 * Context: any.
 */
uint16_t net_chksum_copy(void *dst, const void *src, uint16_t len);

#endif /* NET_CHKSUM_H */
