/*
 * net/rx_csum.c, the glue's software check of a received frame's sums,
 * against a reference written from RFC 1071 (16-bit big-endian words
 * summed with end-around carry, no shortcut shared with net/chksum.c).
 *
 * The contract: a frame whose IPv4 header and TCP/UDP sums are right is
 * GOOD; one byte changed anywhere the sums cover makes it BAD; frames the
 * check does not cover (ARP, ICMP, fragments, IPv6 extension headers, an
 * IPv4 UDP datagram without a sum, lengths that do not fit the frame) are
 * UNCHECKED, left to lwIP; and it reads no byte past the frame.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "net/chksum.c"
#include "net/rx_csum.c"

#define FRAME_MAX 1600

/* RFC 1071 over a sequence of pieces: the 16-bit big-endian words, the
 * odd last byte padded with zero, summed with end-around carry. */
static uint32_t ref_add(uint32_t sum, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (n & 1)
		sum += (uint32_t)p[n - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* The sum field of the segment at l4 (offset off), given its
 * pseudo-header's addresses. */
static void fill_l4_sum(uint8_t *l4, uint32_t l4len, uint8_t proto,
			const uint8_t *addrs, size_t alen, size_t off)
{
	uint8_t words[4] = {0, proto, (uint8_t)(l4len >> 8), (uint8_t)l4len};
	uint32_t sum;

	put16(l4 + off, 0);
	sum = ref_add(0, addrs, alen);
	sum = ref_add(sum, words, 4);
	sum = ref_add(sum, l4, l4len);
	put16(l4 + off, (uint16_t)~sum);
}

static size_t sum_off(uint8_t proto)
{
	return proto == PROTO_TCP ? 16 : 6;
}

/* An IPv4 frame: header of 20 + opt bytes, a TCP (20-byte header) or
 * UDP segment with pay payload bytes, then pad bytes after the IP
 * length; every sum right. Returns the frame's length. */
static uint32_t build4(uint8_t *f, uint8_t proto, uint32_t opt, uint32_t pay,
		       uint32_t pad)
{
	uint8_t *ip = f + ETH_HLEN, *l4;
	uint32_t hlen = 20 + opt, l4len = (proto == PROTO_TCP ? 20 : 8) + pay;
	uint32_t tot = hlen + l4len;

	memset(f, 0, ETH_HLEN);
	for (int i = 0; i < 12; i++)
		f[i] = (uint8_t)(0x52 + i);
	put16(f + 12, ETH_TYPE_IPV4);
	ip[0] = (uint8_t)(0x40 | hlen / 4);
	ip[1] = 0;
	put16(ip + 2, (uint16_t)tot);
	put16(ip + 4, 0x1234);
	put16(ip + 6, 0x4000); /* DF */
	ip[8] = 64;
	ip[9] = proto;
	put16(ip + 10, 0);
	memcpy(ip + 12, "\x0a\x00\x02\x02\x0a\x00\x02\x0f", 8);
	for (uint32_t i = 20; i < hlen; i++)
		ip[i] = 1; /* NOP options */
	put16(ip + 10, (uint16_t)~ref_add(0, ip, hlen));
	l4 = ip + hlen;
	for (uint32_t i = 0; i < l4len; i++)
		l4[i] = (uint8_t)(i * 37 + pay);
	if (proto == PROTO_UDP)
		put16(l4 + 4, (uint16_t)l4len);
	else
		l4[12] = 0x50; /* data offset 5 */
	fill_l4_sum(l4, l4len, proto, ip + 12, 8, sum_off(proto));
	memset(ip + tot, 0xee, pad);
	return ETH_HLEN + tot + pad;
}

/* An IPv6 frame, next header TCP or UDP, pay payload bytes. */
static uint32_t build6(uint8_t *f, uint8_t proto, uint32_t pay)
{
	uint8_t *ip = f + ETH_HLEN, *l4 = ip + IP6_HLEN;
	uint32_t l4len = (proto == PROTO_TCP ? 20 : 8) + pay;

	memset(f, 0, ETH_HLEN);
	put16(f + 12, ETH_TYPE_IPV6);
	memset(ip, 0, IP6_HLEN);
	ip[0] = 0x60;
	put16(ip + 4, (uint16_t)l4len);
	ip[6] = proto;
	ip[7] = 64;
	for (int i = 0; i < 32; i++)
		ip[8 + i] = (uint8_t)(0x20 + i * 7);
	for (uint32_t i = 0; i < l4len; i++)
		l4[i] = (uint8_t)(i * 53 + 1);
	if (proto == PROTO_UDP)
		put16(l4 + 4, (uint16_t)l4len);
	else
		l4[12] = 0x50;
	fill_l4_sum(l4, l4len, proto, ip + 8, 32, sum_off(proto));
	return ETH_HLEN + IP6_HLEN + l4len;
}

static void test_right_sums_are_good(void **state)
{
	static uint8_t f[FRAME_MAX];
	uint32_t len;

	(void)state;
	for (uint32_t pay = 0; pay <= 1460; pay++) {
		len = build4(f, PROTO_TCP, 0, pay, 0);
		assert_int_equal(net_rx_csum_verify(f, len), NET_RX_CSUM_GOOD);
		len = build4(f, PROTO_UDP, 0, pay, 0);
		assert_int_equal(net_rx_csum_verify(f, len), NET_RX_CSUM_GOOD);
		len = build6(f, PROTO_TCP, pay);
		assert_int_equal(net_rx_csum_verify(f, len), NET_RX_CSUM_GOOD);
		len = build6(f, PROTO_UDP, pay);
		assert_int_equal(net_rx_csum_verify(f, len), NET_RX_CSUM_GOOD);
	}
	/* IP options (every header length) and Ethernet padding after the
	 * IP length: the sums cover neither the padding nor more. */
	for (uint32_t opt = 0; opt <= 40; opt += 4) {
		len = build4(f, PROTO_TCP, opt, 7, 0);
		assert_int_equal(net_rx_csum_verify(f, len), NET_RX_CSUM_GOOD);
	}
	len = build4(f, PROTO_UDP, 0, 1, 17); /* a 60-byte minimum frame */
	assert_int_equal(net_rx_csum_verify(f, len), NET_RX_CSUM_GOOD);
}

/* Every byte the sums cover, changed, makes the frame BAD; a changed
 * padding byte does not. */
static void assert_every_covered_byte_counts(uint8_t *f, uint32_t len,
					     uint32_t covered_from,
					     uint32_t covered_to)
{
	for (uint32_t i = 0; i < len; i++) {
		enum net_rx_csum want, got;

		if (i >= covered_from && i < covered_to)
			want = NET_RX_CSUM_BAD;
		else if (i < covered_from)
			continue; /* Ethernet header and IP fields parsed */
		else
			want = NET_RX_CSUM_GOOD;
		f[i] ^= 0x01;
		got = net_rx_csum_verify(f, len);
		f[i] ^= 0x01;
		if (got != want)
			fail_msg("byte %u of %u: got %d, want %d", i, len, got,
				 want);
	}
}

static void test_one_changed_byte_is_bad(void **state)
{
	static uint8_t f[FRAME_MAX];
	uint32_t len;

	(void)state;
	/* IPv4: from the header's sum field on; earlier header bytes are
	 * also parsed (version, length, protocol), so some changes there
	 * make the frame UNCHECKED instead: flipped below on their own. */
	len = build4(f, PROTO_TCP, 8, 301, 6);
	assert_every_covered_byte_counts(f, len, ETH_HLEN + 10, len - 6);
	len = build4(f, PROTO_UDP, 0, 300, 0);
	assert_every_covered_byte_counts(f, len, ETH_HLEN + 10, len);
	f[ETH_HLEN + 1] ^= 0x04; /* TOS: covered by the header sum */
	assert_int_equal(net_rx_csum_verify(f, len), NET_RX_CSUM_BAD);
	f[ETH_HLEN + 1] ^= 0x04;
	f[ETH_HLEN + 8] ^= 0x01; /* TTL */
	assert_int_equal(net_rx_csum_verify(f, len), NET_RX_CSUM_BAD);
	f[ETH_HLEN + 8] ^= 0x01;
	/* IPv6: from the addresses on (the pseudo-header's). */
	len = build6(f, PROTO_TCP, 999);
	assert_every_covered_byte_counts(f, len, ETH_HLEN + 8, len);
	len = build6(f, PROTO_UDP, 2);
	assert_every_covered_byte_counts(f, len, ETH_HLEN + 8, len);
}

static void test_frames_not_checked_are_left_to_lwip(void **state)
{
	static uint8_t f[FRAME_MAX];
	uint32_t len;

	(void)state;
	assert_int_equal(net_rx_csum_verify(f, 0), NET_RX_CSUM_UNCHECKED);
	len = build4(f, PROTO_TCP, 0, 100, 0);
	assert_int_equal(net_rx_csum_verify(f, 13), NET_RX_CSUM_UNCHECKED);
	assert_int_equal(net_rx_csum_verify(f, ETH_HLEN + 19),
			 NET_RX_CSUM_UNCHECKED);
	/* The IP length past the frame's end. */
	assert_int_equal(net_rx_csum_verify(f, len - 1), NET_RX_CSUM_UNCHECKED);
	/* ARP, a VLAN tag: not IP here. */
	put16(f + 12, 0x0806);
	assert_int_equal(net_rx_csum_verify(f, len), NET_RX_CSUM_UNCHECKED);
	put16(f + 12, 0x8100);
	assert_int_equal(net_rx_csum_verify(f, len), NET_RX_CSUM_UNCHECKED);
	/* Fragments: a first one (MF) and a later one (offset). */
	len = build4(f, PROTO_TCP, 0, 100, 0);
	put16(f + ETH_HLEN + 6, 0x2000);
	assert_int_equal(net_rx_csum_verify(f, len), NET_RX_CSUM_UNCHECKED);
	put16(f + ETH_HLEN + 6, 0x0010);
	assert_int_equal(net_rx_csum_verify(f, len), NET_RX_CSUM_UNCHECKED);
	/* ICMP; a header length below 20; version 5. */
	len = build4(f, PROTO_TCP, 0, 100, 0);
	f[ETH_HLEN + 9] = 1;
	assert_int_equal(net_rx_csum_verify(f, len), NET_RX_CSUM_UNCHECKED);
	len = build4(f, PROTO_TCP, 0, 100, 0);
	f[ETH_HLEN] = 0x44;
	assert_int_equal(net_rx_csum_verify(f, len), NET_RX_CSUM_UNCHECKED);
	f[ETH_HLEN] = 0x55;
	assert_int_equal(net_rx_csum_verify(f, len), NET_RX_CSUM_UNCHECKED);
	/* An IP length too short for the TCP or UDP header. */
	len = build4(f, PROTO_TCP, 0, 0, 0);
	put16(f + ETH_HLEN + 2, 39);
	assert_int_equal(net_rx_csum_verify(f, len), NET_RX_CSUM_UNCHECKED);
	len = build4(f, PROTO_UDP, 0, 0, 0);
	put16(f + ETH_HLEN + 2, 27);
	assert_int_equal(net_rx_csum_verify(f, len), NET_RX_CSUM_UNCHECKED);
	/* IPv4 UDP without a sum: lwIP checks none either. */
	len = build4(f, PROTO_UDP, 0, 50, 0);
	put16(f + ETH_HLEN + 20 + 6, 0);
	assert_int_equal(net_rx_csum_verify(f, len), NET_RX_CSUM_UNCHECKED);
	/* IPv6: an extension header first; a payload past the end. */
	len = build6(f, PROTO_TCP, 10);
	f[ETH_HLEN + 6] = 0; /* hop-by-hop */
	assert_int_equal(net_rx_csum_verify(f, len), NET_RX_CSUM_UNCHECKED);
	len = build6(f, PROTO_TCP, 10);
	assert_int_equal(net_rx_csum_verify(f, len - 1), NET_RX_CSUM_UNCHECKED);
	/* IPv6 UDP with a zero sum is never valid: BAD, lwIP drops it. */
	len = build6(f, PROTO_UDP, 10);
	put16(f + ETH_HLEN + IP6_HLEN + 6, 0);
	assert_int_equal(net_rx_csum_verify(f, len), NET_RX_CSUM_BAD);
}

/* Frames that end at a page the process may not read: every length of
 * a good frame and of each cut-off prefix is checked without a fault. */
static void test_reads_nothing_past_the_frame(void **state)
{
	long page = sysconf(_SC_PAGESIZE);
	uint8_t *map = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	static uint8_t f[FRAME_MAX];
	uint8_t *end;

	(void)state;
	assert_true(map != MAP_FAILED);
	assert_int_equal(mprotect(map + page, (size_t)page, PROT_NONE), 0);
	end = map + page;
	for (int kind = 0; kind < 4; kind++) {
		uint32_t len = kind == 0   ? build4(f, PROTO_TCP, 4, 333, 0)
			       : kind == 1 ? build4(f, PROTO_UDP, 0, 1, 0)
			       : kind == 2 ? build6(f, PROTO_TCP, 77)
					   : build6(f, PROTO_UDP, 0);

		for (uint32_t cut = 0; cut <= len; cut++) {
			memcpy(end - cut, f, cut);
			(void)net_rx_csum_verify(end - cut, cut);
		}
		memcpy(end - len, f, len);
		assert_int_equal(net_rx_csum_verify(end - len, len),
				 NET_RX_CSUM_GOOD);
	}
	munmap(map, (size_t)page * 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_right_sums_are_good),
		cmocka_unit_test(test_one_changed_byte_is_bad),
		cmocka_unit_test(test_frames_not_checked_are_left_to_lwip),
		cmocka_unit_test(test_reads_nothing_past_the_frame),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
