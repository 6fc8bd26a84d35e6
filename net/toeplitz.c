/*
 * The Toeplitz hash (see toeplitz.h for the input's layout).
 *
 * A 32-bit window slides along the key one bit per input bit: it starts
 * as the key's first 32 bits and, after input bit i, holds key bits
 * i+1 .. i+32. Each set input bit XORs the window into the result. The
 * window is refilled from the key byte 4 ahead of the input byte being
 * read, so a 36-byte input uses exactly the 40-byte key.
 *
 * Bit by bit is slow next to a table per key byte (8 lookups of 256
 * words a byte), but the stack hashes a frame only when checking the
 * device, and a handful of candidate ports per connection it opens:
 * the simple form is the one worth reading.
 */
#include "toeplitz.h"

#include <string.h>

uint32_t toeplitz_hash(const uint8_t key[TOEPLITZ_KEY_LEN], const uint8_t *in,
		       size_t len)
{
	uint32_t window = (uint32_t)key[0] << 24 | (uint32_t)key[1] << 16 |
			  (uint32_t)key[2] << 8 | key[3];
	uint32_t result = 0;

	for (size_t i = 0; i < len && i < TOEPLITZ_INPUT_MAX; i++) {
		uint8_t next = key[i + 4]; /* i + 4 < 40 */

		for (int b = 7; b >= 0; b--) {
			if ((in[i] >> b) & 1)
				result ^= window;
			window = window << 1 | ((next >> b) & 1u);
		}
	}
	return result;
}

uint32_t toeplitz_key_window(const uint8_t key[TOEPLITZ_KEY_LEN],
			     unsigned int bit)
{
	uint32_t w = 0;

	for (unsigned int i = bit; i < bit + 32; i++) {
		unsigned int b = i < TOEPLITZ_KEY_LEN * 8
					 ? (key[i / 8] >> (7 - i % 8)) & 1u
					 : 0;

		w = w << 1 | b;
	}
	return w;
}

/* Port p after the addresses, most significant byte first. */
static void put_port(uint8_t *to, uint16_t p)
{
	to[0] = (uint8_t)(p >> 8);
	to[1] = (uint8_t)p;
}

uint32_t toeplitz_ipv4(const uint8_t key[TOEPLITZ_KEY_LEN],
		       const uint8_t src[4], const uint8_t dst[4])
{
	uint8_t in[8];

	memcpy(in, src, 4);
	memcpy(in + 4, dst, 4);
	return toeplitz_hash(key, in, sizeof(in));
}

uint32_t toeplitz_ipv4_ports(const uint8_t key[TOEPLITZ_KEY_LEN],
			     const uint8_t src[4], const uint8_t dst[4],
			     uint16_t sport, uint16_t dport)
{
	uint8_t in[12];

	memcpy(in, src, 4);
	memcpy(in + 4, dst, 4);
	put_port(in + 8, sport);
	put_port(in + 10, dport);
	return toeplitz_hash(key, in, sizeof(in));
}

uint32_t toeplitz_ipv6(const uint8_t key[TOEPLITZ_KEY_LEN],
		       const uint8_t src[16], const uint8_t dst[16])
{
	uint8_t in[32];

	memcpy(in, src, 16);
	memcpy(in + 16, dst, 16);
	return toeplitz_hash(key, in, sizeof(in));
}

uint32_t toeplitz_ipv6_ports(const uint8_t key[TOEPLITZ_KEY_LEN],
			     const uint8_t src[16], const uint8_t dst[16],
			     uint16_t sport, uint16_t dport)
{
	uint8_t in[36];

	memcpy(in, src, 16);
	memcpy(in + 16, dst, 16);
	put_port(in + 32, sport);
	put_port(in + 34, dport);
	return toeplitz_hash(key, in, sizeof(in));
}
