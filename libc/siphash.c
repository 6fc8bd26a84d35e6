/*
 * SipHash-2-4 (see siphash.h). The state is four 64-bit words started
 * from the key; each 8-byte block of the message is mixed in with two
 * rounds of add-rotate-xor ("2"), the last block carries the length in
 * its top byte, and four more rounds ("4") end it.
 */
#include "siphash.h"

static uint64_t rotl(uint64_t x, int b)
{
	return (x << b) | (x >> (64 - b));
}

/* Little-endian load of n (at most 8) bytes. */
static uint64_t load_le(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static void sip_rounds(uint64_t v[4], int n)
{
	while (n--) {
		v[0] += v[1];
		v[1] = rotl(v[1], 13) ^ v[0];
		v[0] = rotl(v[0], 32);
		v[2] += v[3];
		v[3] = rotl(v[3], 16) ^ v[2];
		v[0] += v[3];
		v[3] = rotl(v[3], 21) ^ v[0];
		v[2] += v[1];
		v[1] = rotl(v[1], 17) ^ v[2];
		v[2] = rotl(v[2], 32);
	}
}

static void sip_block(uint64_t v[4], uint64_t m)
{
	v[3] ^= m;
	sip_rounds(v, 2);
	v[0] ^= m;
}

uint64_t siphash24(const uint8_t key[16], const void *msg, size_t len)
{
	const uint8_t *p = msg;
	uint64_t k0 = load_le(key, 8), k1 = load_le(key + 8, 8);
	/* "somepseudorandomlygeneratedbytes", as the design fixes them */
	uint64_t v[4] = {k0 ^ 0x736f6d6570736575ull, k1 ^ 0x646f72616e646f6dull,
			 k0 ^ 0x6c7967656e657261ull,
			 k1 ^ 0x7465646279746573ull};
	size_t full = len & ~(size_t)7;

	for (size_t i = 0; i < full; i += 8)
		sip_block(v, load_le(p + i, 8));
	sip_block(v, load_le(p + full, len - full) | (uint64_t)len << 56);
	v[2] ^= 0xff;
	sip_rounds(v, 4);
	return v[0] ^ v[1] ^ v[2] ^ v[3];
}
