/*
 * Header fields read and written where they lie in a received frame: at
 * any alignment (an IPv4 header starts 14 bytes into an Ethernet frame,
 * so its words are never 4-byte aligned), through memcpy, which GCC and
 * clang turn into one load or store on x86-64. The net/ parsers that look
 * at frames before lwIP does (rx_csum.c, rx_gro.c) share these. rx_gro.c's
 * header compares are a few of these loads, not memcmp() calls: as a byte
 * loop they cost 284 guest instructions per frame.
 */
#ifndef NET_WIRE_BYTES_H
#define NET_WIRE_BYTES_H

#include <stdint.h>

/* A big-endian (network order) 16-bit field. */
static inline uint16_t wire_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline void wire_put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* 2, 4 and 8 bytes as they lie in memory (host order: for compares and
 * for checksum sums, which do not care about byte order). */
static inline uint16_t wire_ld16(const uint8_t *p)
{
	uint16_t v;

	__builtin_memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint32_t wire_ld32(const uint8_t *p)
{
	uint32_t v;

	__builtin_memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint64_t wire_ld64(const uint8_t *p)
{
	uint64_t v;

	__builtin_memcpy(&v, p, sizeof(v));
	return v;
}

#endif /* NET_WIRE_BYTES_H */
