/*
 * net/toeplitz.c and net/rss_check.c: the Toeplitz hash of RSS against
 * the verification table Microsoft publishes with its RSS specification
 * (the key below, five IPv4 and three IPv6 flows, each hashed over the
 * addresses only and over addresses and TCP ports), and the frame parser
 * that feeds it: the fields it takes from real frame layouts, the frames
 * it refuses, and no read past a frame's end.
 */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "net/rss_check.c"
#include "net/toeplitz.c"

static const uint8_t key[TOEPLITZ_KEY_LEN] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67,
	0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb,
	0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30,
	0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

/* One row of the published table: the frame's destination and source,
 * the hash over the addresses, and over addresses and ports. */
struct vector {
	const char *dst;
	uint16_t dport;
	const char *src;
	uint16_t sport;
	uint32_t addrs, with_ports;
};

static const struct vector v4[] = {
	{"161.142.100.80", 1766, "66.9.149.187", 2794, 0x323e8fc2, 0x51ccc178},
	{"65.69.140.83", 4739, "199.92.111.2", 14230, 0xd718262a, 0xc626b0ea},
	{"12.22.207.184", 38024, "24.19.198.95", 12898, 0xd2d0a5de, 0x5c2b394a},
	{"209.142.163.6", 2217, "38.27.205.30", 48228, 0x82989176, 0xafc7327f},
	{"202.188.127.2", 1303, "153.39.163.191", 44251, 0x5d1809c5,
	 0x10e828a2},
};

static const struct vector v6[] = {
	{"3ffe:2501:200:3::1", 1766, "3ffe:2501:200:1fff::7", 2794, 0x2cc18cd5,
	 0x40207d3d},
	{"ff02::1", 4739, "3ffe:501:8::260:97ff:fe40:efab", 14230, 0x0f0c461c,
	 0xdde51bbf},
	{"fe80::200:f8ff:fe21:67cf", 38024,
	 "3ffe:1900:4545:3:200:f8ff:fe21:67cf", 44251, 0x4b61e985, 0x02d1feef},
};

#define NV4 (sizeof(v4) / sizeof(v4[0]))
#define NV6 (sizeof(v6) / sizeof(v6[0]))

static void addr(int family, const char *text, uint8_t *out)
{
	assert_int_equal(inet_pton(family, text, out), 1);
}

static void ipv4_vectors(void **state)
{
	(void)state;
	for (size_t i = 0; i < NV4; i++) {
		uint8_t s[4], d[4];

		addr(AF_INET, v4[i].src, s);
		addr(AF_INET, v4[i].dst, d);
		assert_int_equal(toeplitz_ipv4(key, s, d), v4[i].addrs);
		assert_int_equal(toeplitz_ipv4_ports(key, s, d, v4[i].sport,
						     v4[i].dport),
				 v4[i].with_ports);
	}
}

static void ipv6_vectors(void **state)
{
	(void)state;
	for (size_t i = 0; i < NV6; i++) {
		uint8_t s[16], d[16];

		addr(AF_INET6, v6[i].src, s);
		addr(AF_INET6, v6[i].dst, d);
		assert_int_equal(toeplitz_ipv6(key, s, d), v6[i].addrs);
		assert_int_equal(toeplitz_ipv6_ports(key, s, d, v6[i].sport,
						     v6[i].dport),
				 v6[i].with_ports);
	}
}

/* Every key byte counts for a 36-byte input: changing any one changes
 * the hash of some IPv6 row (a window that never reached the key's end
 * would still pass the shorter IPv4 rows). One row alone would not do:
 * its zero runs (the "::") leave some key bytes unused. Whole bytes:
 * the key's very last bit is never used, as the 288th input bit's
 * window ends one bit before it. */
static void every_key_byte_matters(void **state)
{
	(void)state;
	for (int i = 0; i < TOEPLITZ_KEY_LEN; i++) {
		uint8_t k[TOEPLITZ_KEY_LEN];
		int changed = 0;

		memcpy(k, key, sizeof(k));
		k[i] ^= 0xff;
		for (size_t r = 0; r < NV6; r++) {
			uint8_t s[16], d[16];

			addr(AF_INET6, v6[r].src, s);
			addr(AF_INET6, v6[r].dst, d);
			changed += toeplitz_ipv6_ports(k, s, d, v6[r].sport,
						       v6[r].dport) !=
				   v6[r].with_ports;
		}
		assert_true(changed > 0);
	}
}

/* The hash is linear over XOR: h(a ^ b) = h(a) ^ h(b), the property the
 * source-port choice leans on (only the port's bits change). */
static void hash_is_linear(void **state)
{
	uint8_t a[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
	uint8_t b[12] = {0xff, 0, 0x5a, 3, 0, 0, 0x80, 1, 0, 0x22, 0, 7};
	uint8_t x[12];

	(void)state;
	for (int i = 0; i < 12; i++)
		x[i] = a[i] ^ b[i];
	assert_int_equal(toeplitz_hash(key, x, 12),
			 toeplitz_hash(key, a, 12) ^ toeplitz_hash(key, b, 12));
	assert_int_equal(toeplitz_hash(key, x, 0), 0);
}

/* ---------------------------------------------------------- frames */

#define PAGE 4096

/* A frame of len bytes ending exactly at a page no access may touch:
 * a read past its end faults. */
static uint8_t *guarded(size_t len)
{
	uint8_t *two = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(two != MAP_FAILED);
	assert_int_equal(mprotect(two + PAGE, PAGE, PROT_NONE), 0);
	return two + PAGE - len;
}

static void unguard(uint8_t *f, size_t len)
{
	munmap(f + len - PAGE, 2 * PAGE);
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* Row i of the IPv4 table as a frame: Ethernet, an IPv4 header of
 * ihl words, then the ports of protocol proto. Returns its length. */
static size_t frame4(uint8_t *f, size_t i, int ihl, uint8_t proto)
{
	uint8_t *ip = f + 14;
	size_t hl = (size_t)ihl * 4;

	memset(f, 0, 14 + hl + 20);
	put16(f + 12, 0x0800);
	ip[0] = (uint8_t)(0x40 | ihl);
	ip[9] = proto;
	addr(AF_INET, v4[i].src, ip + 12);
	addr(AF_INET, v4[i].dst, ip + 16);
	put16(ip + hl, v4[i].sport);
	put16(ip + hl + 2, v4[i].dport);
	return 14 + hl + 20;
}

static size_t frame6(uint8_t *f, size_t i, uint8_t next)
{
	uint8_t *ip = f + 14;

	memset(f, 0, 14 + 40 + 20);
	put16(f + 12, 0x86dd);
	ip[0] = 0x60;
	ip[6] = next;
	addr(AF_INET6, v6[i].src, ip + 8);
	addr(AF_INET6, v6[i].dst, ip + 24);
	put16(ip + 40, v6[i].sport);
	put16(ip + 42, v6[i].dport);
	return 14 + 40 + 20;
}

static void frames_hash_as_the_table_says(void **state)
{
	uint8_t f[128];
	uint32_t h;

	(void)state;
	for (size_t i = 0; i < NV4; i++) {
		size_t n = frame4(f, i, 5, 6);

		assert_true(rss_frame_hash(key, f, (uint32_t)n, true, &h));
		assert_int_equal(h, v4[i].with_ports);
		assert_true(rss_frame_hash(key, f, (uint32_t)n, false, &h));
		assert_int_equal(h, v4[i].addrs);
		n = frame4(f, i, 7, 17); /* UDP, 8 bytes of options */
		assert_true(rss_frame_hash(key, f, (uint32_t)n, true, &h));
		assert_int_equal(h, v4[i].with_ports);
	}
	for (size_t i = 0; i < NV6; i++) {
		size_t n = frame6(f, i, 6);

		assert_true(rss_frame_hash(key, f, (uint32_t)n, true, &h));
		assert_int_equal(h, v6[i].with_ports);
		assert_true(rss_frame_hash(key, f, (uint32_t)n, false, &h));
		assert_int_equal(h, v6[i].addrs);
	}
}

static void frames_without_ports_are_refused_a_4tuple(void **state)
{
	uint8_t f[128];
	uint32_t h = 0;
	size_t n;

	(void)state;
	n = frame4(f, 0, 5, 1); /* ICMP */
	assert_false(rss_frame_hash(key, f, (uint32_t)n, true, &h));
	n = frame4(f, 0, 5, 6);
	put16(f + 14 + 6, 0x2000); /* more fragments */
	assert_false(rss_frame_hash(key, f, (uint32_t)n, true, &h));
	put16(f + 14 + 6, 0x0010); /* a later fragment */
	assert_false(rss_frame_hash(key, f, (uint32_t)n, true, &h));
	assert_true(rss_frame_hash(key, f, (uint32_t)n, false, &h));
	assert_int_equal(h, v4[0].addrs); /* fragments: addresses only */
	n = frame4(f, 0, 5, 6);
	put16(f + 14 + 6, 0x4000); /* don't fragment: still ports */
	assert_true(rss_frame_hash(key, f, (uint32_t)n, true, &h));
	n = frame6(f, 0, 0); /* hop-by-hop options first */
	assert_false(rss_frame_hash(key, f, (uint32_t)n, true, &h));
	n = frame4(f, 0, 5, 6);
	put16(f + 12, 0x8100); /* VLAN tagged */
	assert_false(rss_frame_hash(key, f, (uint32_t)n, false, &h));
	n = frame4(f, 0, 5, 6);
	f[14] = 0x65; /* ethertype IPv4, version 6 */
	assert_false(rss_frame_hash(key, f, (uint32_t)n, false, &h));
}

/* Every prefix of a good frame: hashed only once the fields it needs
 * are all inside, and nothing past the end is read (the next page
 * faults). */
static void truncated_frames_are_never_read_past(void **state)
{
	uint8_t f[128];
	size_t n4 = frame4(f, 1, 6, 6);
	size_t n6;
	uint32_t h;

	(void)state;
	for (size_t len = 0; len <= n4; len++) {
		uint8_t *g = guarded(len);

		memcpy(g, f, len);
		assert_int_equal(
			rss_frame_hash(key, g, (uint32_t)len, true, &h),
			len >= 14 + 24 + 4);
		assert_int_equal(
			rss_frame_hash(key, g, (uint32_t)len, false, &h),
			len >= 14 + 20);
		unguard(g, len);
	}
	n6 = frame6(f, 2, 17);
	for (size_t len = 0; len <= n6; len++) {
		uint8_t *g = guarded(len);

		memcpy(g, f, len);
		assert_int_equal(
			rss_frame_hash(key, g, (uint32_t)len, true, &h),
			len >= 14 + 40 + 4);
		unguard(g, len);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ipv4_vectors),
		cmocka_unit_test(ipv6_vectors),
		cmocka_unit_test(every_key_byte_matters),
		cmocka_unit_test(hash_is_linear),
		cmocka_unit_test(frames_hash_as_the_table_says),
		cmocka_unit_test(frames_without_ports_are_refused_a_4tuple),
		cmocka_unit_test(truncated_frames_are_never_read_past),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
