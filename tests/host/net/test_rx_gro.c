/*
 * net/rx_gro.c, the frame checks and header rewrite behind the glue's
 * receive coalescing of TCP segments.
 *
 * The contract: a data segment with only ACK (and PSH) in a plain IPv4
 * packet, or in an IPv6 packet without extension headers, may start or
 * join a packet, anything else may not; a segment follows another only
 * from the same connection and family, with the same headers but
 * sequence, IP id, lengths and sums, at exactly the next sequence
 * number; the rewritten head carries the joined length (with a right
 * IPv4 header sum); and no byte past a frame is ever read, however the
 * frame is malformed.
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

#include "net/rx_gro.c"

#define FRAME_MAX 1600
#define IP	  14 /* offsets in a frame */
#define TCP	  34
#define TCP6	  54 /* TCP after an IPv6 header */

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

/* RFC 1071 over 16-bit big-endian words, folded with end-around carry:
 * the test's own reference, nothing shared with net/rx_gro.c. */
static uint16_t ref_sum(const uint8_t *p, size_t n)
{
	uint32_t sum = 0;

	for (size_t i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

static void fill_ip_sum(uint8_t *f)
{
	put16(f + IP + 10, 0);
	put16(f + IP + 10, (uint16_t)~ref_sum(f + IP, 20));
}

/*
 * The TCP header and data at @t, the same in both families: port 5001 to
 * 40000, sequence number @seq, TCP flags @flags, @opts bytes of options
 * (a multiple of 4) and @payload bytes of data that depend on @seq.
 */
static void put_tcp(uint8_t *t, uint32_t seq, uint16_t payload, uint8_t flags,
		    unsigned int opts)
{
	put16(t, 5001);
	put16(t + 2, 40000);
	put32(t + 4, seq);
	put32(t + 8, 0x11223344); /* ack */
	t[12] = (uint8_t)((20 + opts) / 4 << 4);
	t[13] = flags;
	put16(t + 14, 29200); /* window */
	for (unsigned int i = 0; i < opts; i++)
		t[20 + i] = (uint8_t)(1 + i); /* option bytes */
	for (unsigned int i = 0; i < payload; i++)
		t[20 + opts + i] = (uint8_t)(seq + i);
}

/*
 * An Ethernet + IPv4 + TCP frame from 10.0.2.2:5001 to 10.0.2.15:40000
 * with @opts bytes of TCP options (a multiple of 4), @payload bytes of
 * data, sequence number @seq and TCP flags @flags. Returns its length.
 */
static uint32_t make(uint8_t *f, uint32_t seq, uint16_t payload, uint8_t flags,
		     unsigned int opts)
{
	static const uint8_t eth[14] = {0x52, 0x54, 0, 0x12, 0x34, 0x56, 0x52,
					0x55, 10,   0, 2,    2,	   0x08, 0x00};
	uint32_t ip_len = 20 + 20 + opts + payload;

	memset(f, 0, FRAME_MAX);
	memcpy(f, eth, sizeof(eth));
	f[IP] = 0x45;
	f[IP + 1] = 0x10; /* TOS */
	put16(f + IP + 2, (uint16_t)ip_len);
	put16(f + IP + 4, (uint16_t)(seq * 7)); /* IP id: varies */
	put16(f + IP + 6, 0x4000);		/* DF */
	f[IP + 8] = 64;				/* TTL */
	f[IP + 9] = 6;
	put32(f + IP + 12, 0x0a000202);
	put32(f + IP + 16, 0x0a00020f);
	put_tcp(f + TCP, seq, payload, flags, opts);
	fill_ip_sum(f);
	return 14 + ip_len;
}

/*
 * An Ethernet + IPv6 + TCP frame from 2001:db8::2 port 5001 to
 * 2001:db8::f port 40000, as make() builds its IPv4 one (no sums: IPv6
 * has no header sum, and the TCP sum is not parse's business).
 */
static uint32_t make6(uint8_t *f, uint32_t seq, uint16_t payload, uint8_t flags,
		      unsigned int opts)
{
	static const uint8_t eth[14] = {0x52, 0x54, 0, 0x12, 0x34, 0x56, 0x52,
					0x55, 10,   0, 2,    2,	   0x86, 0xdd};
	uint32_t plen = 20 + opts + payload;

	memset(f, 0, FRAME_MAX);
	memcpy(f, eth, sizeof(eth));
	put32(f + IP, 0x6a1bcdefu); /* version 6, class 0xa1, flow 0xbcdef */
	put16(f + IP + 4, (uint16_t)plen);
	f[IP + 6] = 6; /* next header: TCP */
	f[IP + 7] = 64;
	f[IP + 8] = 0x20;
	f[IP + 9] = 0x01;
	f[IP + 10] = 0x0d;
	f[IP + 11] = 0xb8;
	f[IP + 23] = 2;
	memcpy(f + IP + 24, f + IP + 8, 15);
	f[IP + 39] = 0x0f;
	put_tcp(f + TCP6, seq, payload, flags, opts);
	return 14 + 40 + plen;
}

#define ACK 0x10
#define PSH 0x08

static void test_a_data_segment_is_parsed(void **state)
{
	uint8_t f[FRAME_MAX];
	struct net_gro_seg s;
	uint32_t len = make(f, 1000, 1460, ACK, 12);

	(void)state;
	assert_true(net_gro_parse(f, len, &s));
	assert_int_equal(s.seq, 1000);
	assert_int_equal(s.ip_len, 20 + 32 + 1460);
	assert_int_equal(s.hdr_len, 14 + 20 + 32);
	assert_int_equal(s.payload, 1460);
	assert_int_equal(s.flags, ACK);
	len = make(f, 5, 1, ACK | PSH, 0);
	assert_true(net_gro_parse(f, len, &s));
	assert_int_equal(s.flags, ACK | PSH);
	assert_int_equal(s.payload, 1);
	/* Ethernet padding after the IPv4 length is allowed */
	assert_true(net_gro_parse(f, len + 6, &s));
	assert_int_equal(s.payload, 1);
}

static void test_a_segment_with_another_flag_is_refused(void **state)
{
	static const uint8_t bad[] = {0x01 | ACK, 0x02 | ACK, 0x04 | ACK,
				      0x20 | ACK, 0x40 | ACK, 0x80 | ACK,
				      PSH,	  0};
	uint8_t f[FRAME_MAX];
	struct net_gro_seg s;

	(void)state;
	for (size_t i = 0; i < sizeof(bad); i++) {
		uint32_t len = make(f, 1, 100, bad[i], 0);

		assert_false(net_gro_parse(f, len, &s));
	}
}

static void test_a_pure_ack_is_refused(void **state)
{
	uint8_t f[FRAME_MAX];
	struct net_gro_seg s;

	(void)state;
	assert_false(net_gro_parse(f, make(f, 1, 0, ACK, 0), &s));
	assert_false(net_gro_parse(f, make(f, 1, 0, ACK, 12), &s));
}

/* Each change makes the frame something the coalescing leaves alone. */
static void test_other_packets_are_refused(void **state)
{
	uint8_t f[FRAME_MAX];
	struct net_gro_seg s;
	uint32_t len;

	(void)state;
	len = make(f, 1, 100, ACK, 0);
	f[12] = 0x81; /* VLAN tag */
	f[13] = 0x00;
	assert_false(net_gro_parse(f, len, &s));
	len = make(f, 1, 100, ACK, 0);
	f[12] = 0x86; /* the IPv6 type over an IPv4 header */
	f[13] = 0xdd;
	assert_false(net_gro_parse(f, len, &s));
	len = make(f, 1, 100, ACK, 0);
	f[IP] = 0x46; /* IPv4 options */
	assert_false(net_gro_parse(f, len, &s));
	len = make(f, 1, 100, ACK, 0);
	f[IP + 9] = 17; /* UDP */
	assert_false(net_gro_parse(f, len, &s));
	len = make(f, 1, 100, ACK, 0);
	put16(f + IP + 6, 0x6000); /* DF and MF */
	assert_false(net_gro_parse(f, len, &s));
	len = make(f, 1, 100, ACK, 0);
	put16(f + IP + 6, 0x0001); /* a fragment offset */
	assert_false(net_gro_parse(f, len, &s));
	len = make(f, 1, 100, ACK, 0);
	f[TCP + 12] = 4 << 4; /* TCP header shorter than 20 bytes */
	assert_false(net_gro_parse(f, len, &s));
	len = make(f, 1, 30, ACK, 0);
	f[TCP + 12] = 15 << 4; /* TCP header past the IPv4 length */
	assert_false(net_gro_parse(f, len, &s));
	len = make(f, 1, 100, ACK, 0);
	put16(f + IP + 2, 20 + 20 + 101); /* longer than the frame */
	assert_false(net_gro_parse(f, len, &s));
	assert_false(net_gro_parse(f, 14 + 20 + 19, &s)); /* cut short */
}

/* The frame at the very end of a page whose next page is inaccessible:
 * a read past it faults. Every length, from nothing to the whole frame. */
static void test_parse_reads_nothing_past_the_frame(void **state)
{
	long pg = sysconf(_SC_PAGESIZE);
	uint8_t *map = mmap(NULL, (size_t)pg * 2, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint8_t f[FRAME_MAX];
	uint32_t len = make(f, 9, 200, ACK, 8);

	(void)state;
	assert_true(map != MAP_FAILED);
	assert_int_equal(mprotect(map + pg, (size_t)pg, PROT_NONE), 0);
	for (uint32_t n = 0; n <= len; n++) {
		uint8_t *at = map + pg - n;
		struct net_gro_seg s;

		memcpy(at, f, n);
		assert_int_equal(net_gro_parse(at, n, &s), n == len);
	}
	munmap(map, (size_t)pg * 2);
}

static void test_the_ip_header_sum_is_checked(void **state)
{
	uint8_t f[FRAME_MAX];

	(void)state;
	make(f, 1, 100, ACK, 0);
	assert_true(net_gro_ip_sum_ok(f));
	for (int i = 0; i < 20; i++) {
		f[IP + i] ^= 0x01;
		assert_false(net_gro_ip_sum_ok(f));
		f[IP + i] ^= 0x01;
	}
}

static void test_the_next_segment_follows(void **state)
{
	uint8_t h[FRAME_MAX], f[FRAME_MAX];
	struct net_gro_seg hs, s;

	(void)state;
	assert_true(net_gro_parse(h, make(h, 1000, 1460, ACK, 12), &hs));
	assert_true(net_gro_parse(f, make(f, 2460, 700, ACK | PSH, 12), &s));
	assert_true(net_gro_follows(h, &hs, 2460, f, &s));
	/* a gap, an overlap, a repeat */
	assert_false(net_gro_follows(h, &hs, 2461, f, &s));
	assert_false(net_gro_follows(h, &hs, 2459, f, &s));
	assert_false(net_gro_follows(h, &hs, 1000, f, &s));
	/* the IP id, length and sum may differ: make() already varies them */
	assert_int_not_equal(h[IP + 4] << 8 | h[IP + 5],
			     f[IP + 4] << 8 | f[IP + 5]);
}

/* Every header byte that names the connection or its state, changed on
 * its own, stops the next segment from following. */
static void test_a_segment_of_another_connection_does_not_follow(void **state)
{
	static const struct {
		int off;
		uint8_t bit;
	} change[] = {
		{0, 1},	       {5, 1},	       {6, 1},	      {11, 1},
		{IP + 1, 4},   {IP + 6, 0x40}, {IP + 8, 1},   {IP + 12, 1},
		{IP + 15, 1},  {IP + 16, 1},   {IP + 19, 1},  {TCP, 1},
		{TCP + 1, 1},  {TCP + 2, 1},   {TCP + 3, 1},  {TCP + 8, 1},
		{TCP + 11, 1}, {TCP + 14, 1},  {TCP + 15, 1}, {TCP + 19, 1},
		{TCP + 20, 1}, {TCP + 27, 1},  {TCP + 31, 1},
	};
	uint8_t h[FRAME_MAX], f[FRAME_MAX];
	struct net_gro_seg hs, s;

	(void)state;
	assert_true(net_gro_parse(h, make(h, 1, 1460, ACK, 12), &hs));
	for (size_t i = 0; i < sizeof(change) / sizeof(change[0]); i++) {
		uint32_t len = make(f, 1461, 1460, ACK, 12);

		f[change[i].off] ^= change[i].bit;
		fill_ip_sum(f);
		assert_true(net_gro_parse(f, len, &s));
		assert_false(net_gro_follows(h, &hs, 1461, f, &s));
	}
	/* other options length: another header length */
	assert_true(net_gro_parse(f, make(f, 1461, 1460, ACK, 8), &s));
	assert_false(net_gro_follows(h, &hs, 1461, f, &s));
}

static void test_the_head_is_rewritten_for_the_whole_packet(void **state)
{
	uint8_t f[FRAME_MAX], before[FRAME_MAX];
	uint32_t len = make(f, 1, 1460, ACK, 12);

	(void)state;
	memcpy(before, f, len);
	net_gro_rewrite_head(f, 20 + 32 + 3 * 1460, PSH);
	assert_int_equal(f[IP + 2] << 8 | f[IP + 3], 20 + 32 + 3 * 1460);
	assert_int_equal(ref_sum(f + IP, 20), 0xffff); /* sum right */
	assert_int_equal(f[TCP + 13], ACK | PSH);
	/* nothing else changed */
	f[IP + 2] = before[IP + 2];
	f[IP + 3] = before[IP + 3];
	f[IP + 10] = before[IP + 10];
	f[IP + 11] = before[IP + 11];
	f[TCP + 13] = before[TCP + 13];
	assert_memory_equal(f, before, len);
}

/* ---- IPv6 ---- */

static void test_an_ip6_data_segment_is_parsed(void **state)
{
	uint8_t f[FRAME_MAX];
	struct net_gro_seg s;
	uint32_t len = make6(f, 7000, 1440, ACK, 12);

	(void)state;
	assert_true(net_gro_parse(f, len, &s));
	assert_int_equal(s.seq, 7000);
	assert_int_equal(s.ip_len, 40 + 32 + 1440);
	assert_int_equal(s.tcp_off, TCP6);
	assert_int_equal(s.hdr_len, 14 + 40 + 32);
	assert_int_equal(s.payload, 1440);
	assert_int_equal(s.flags, ACK);
	assert_true(net_gro_parse(f, len + 6, &s)); /* padding allowed */
	assert_true(net_gro_ip_sum_ok(f));	    /* IPv6 has no header sum */
	assert_true(net_gro_parse(f, make6(f, 5, 1, ACK | PSH, 0), &s));
	assert_int_equal(s.flags, ACK | PSH);
	assert_int_equal(s.payload, 1);
}

static void
test_an_ip6_segment_with_another_flag_or_no_data_is_refused(void **state)
{
	static const uint8_t bad[] = {0x01 | ACK, 0x02 | ACK, 0x04 | ACK,
				      0x20 | ACK, 0x40 | ACK, 0x80 | ACK,
				      PSH,	  0};
	uint8_t f[FRAME_MAX];
	struct net_gro_seg s;

	(void)state;
	for (size_t i = 0; i < sizeof(bad); i++)
		assert_false(net_gro_parse(f, make6(f, 1, 100, bad[i], 0), &s));
	assert_false(net_gro_parse(f, make6(f, 1, 0, ACK, 0), &s));
	assert_false(net_gro_parse(f, make6(f, 1, 0, ACK, 12), &s));
}

/* A packet with an extension header before TCP is left to lwIP, whatever
 * the extension header holds (here a well-formed 8-byte one whose next
 * header is TCP: joining would read it as the TCP header). */
static void test_an_ip6_packet_with_an_extension_header_is_refused(void **state)
{
	static const uint8_t ext[] = {0, 43, 60, 44, 51, 50, 59};
	uint8_t f[FRAME_MAX];
	struct net_gro_seg s;

	(void)state;
	for (size_t i = 0; i < sizeof(ext); i++) {
		uint32_t len = make6(f, 1, 200, ACK, 0);

		memmove(f + TCP6 + 8, f + TCP6, len - TCP6);
		memset(f + TCP6, 0, 8);
		f[TCP6] = 6; /* the extension header's next header: TCP */
		f[IP + 6] = ext[i];
		put16(f + IP + 4, (uint16_t)(20 + 200 + 8));
		assert_false(net_gro_parse(f, len + 8, &s));
	}
}

/* Each change makes an IPv6 frame something the coalescing leaves alone. */
static void test_malformed_ip6_packets_are_refused(void **state)
{
	uint8_t f[FRAME_MAX];
	struct net_gro_seg s;
	uint32_t len;

	(void)state;
	len = make6(f, 1, 100, ACK, 0);
	f[IP] = 0x4a; /* version 4 behind the IPv6 type */
	assert_false(net_gro_parse(f, len, &s));
	len = make6(f, 1, 100, ACK, 0);
	f[IP] = 0x7a; /* version 7 */
	assert_false(net_gro_parse(f, len, &s));
	len = make6(f, 1, 100, ACK, 0);
	f[IP + 6] = 17; /* UDP */
	assert_false(net_gro_parse(f, len, &s));
	len = make6(f, 1, 100, ACK, 0);
	put16(f + IP + 4, 20 + 101); /* longer than the frame */
	assert_false(net_gro_parse(f, len, &s));
	len = make6(f, 1, 100, ACK, 0);
	put16(f + IP + 4, 0); /* no payload length (a jumbogram's) */
	assert_false(net_gro_parse(f, len, &s));
	len = make6(f, 1, 100, ACK, 0);
	put16(f + IP + 4, 19); /* shorter than a TCP header */
	assert_false(net_gro_parse(f, len, &s));
	len = make6(f, 1, 100, ACK, 0);
	f[TCP6 + 12] = 4 << 4; /* TCP header shorter than 20 bytes */
	assert_false(net_gro_parse(f, len, &s));
	len = make6(f, 1, 30, ACK, 0);
	f[TCP6 + 12] = 15 << 4; /* TCP header past the payload length */
	assert_false(net_gro_parse(f, len, &s));
	len = make6(f, 1, 100, ACK, 0);
	f[12] = 0x81; /* VLAN tag */
	f[13] = 0x00;
	assert_false(net_gro_parse(f, len, &s));
	assert_false(net_gro_parse(f, 14 + 40 + 19, &s)); /* cut short */
}

/* As for IPv4: an IPv6 frame at the end of a readable page, every length,
 * and every length again with the payload length claiming the most. */
static void test_ip6_parse_reads_nothing_past_the_frame(void **state)
{
	long pg = sysconf(_SC_PAGESIZE);
	uint8_t *map = mmap(NULL, (size_t)pg * 2, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint8_t f[FRAME_MAX];
	uint32_t len = make6(f, 9, 200, ACK, 8);

	(void)state;
	assert_true(map != MAP_FAILED);
	assert_int_equal(mprotect(map + pg, (size_t)pg, PROT_NONE), 0);
	for (int claim = 0; claim < 2; claim++) {
		if (claim)
			put16(f + IP + 4, 0xffff);
		for (uint32_t n = 0; n <= len; n++) {
			uint8_t *at = map + pg - n;
			struct net_gro_seg s;

			memcpy(at, f, n);
			assert_int_equal(net_gro_parse(at, n, &s),
					 !claim && n == len);
		}
	}
	munmap(map, (size_t)pg * 2);
}

static void test_the_next_ip6_segment_follows(void **state)
{
	uint8_t h[FRAME_MAX], f[FRAME_MAX];
	struct net_gro_seg hs, s;

	(void)state;
	assert_true(net_gro_parse(h, make6(h, 1000, 1440, ACK, 12), &hs));
	assert_true(net_gro_parse(f, make6(f, 2440, 700, ACK | PSH, 12), &s));
	assert_true(net_gro_follows(h, &hs, 2440, f, &s));
	assert_false(net_gro_follows(h, &hs, 2441, f, &s));
	assert_false(net_gro_follows(h, &hs, 2439, f, &s));
	assert_false(net_gro_follows(h, &hs, 1000, f, &s));
}

/* Every IPv6 and TCP header byte that names the connection or its state,
 * changed on its own, stops the next segment from following. */
static void test_an_ip6_segment_of_another_flow_does_not_follow(void **state)
{
	static const struct {
		int off;
		uint8_t bit;
	} change[] = {
		{0, 1},		{11, 1},	{IP, 0x01},	{IP + 1, 0x10},
		{IP + 1, 0x01}, {IP + 2, 1},	{IP + 3, 0x80}, {IP + 7, 1},
		{IP + 8, 1},	{IP + 15, 1},	{IP + 23, 1},	{IP + 24, 1},
		{IP + 31, 1},	{IP + 39, 1},	{TCP6, 1},	{TCP6 + 3, 1},
		{TCP6 + 8, 1},	{TCP6 + 11, 1}, {TCP6 + 14, 1}, {TCP6 + 15, 1},
		{TCP6 + 19, 1}, {TCP6 + 20, 1}, {TCP6 + 31, 1},
	};
	uint8_t h[FRAME_MAX], f[FRAME_MAX];
	struct net_gro_seg hs, s;

	(void)state;
	assert_true(net_gro_parse(h, make6(h, 1, 1440, ACK, 12), &hs));
	for (size_t i = 0; i < sizeof(change) / sizeof(change[0]); i++) {
		uint32_t len = make6(f, 1441, 1440, ACK, 12);

		f[change[i].off] ^= change[i].bit;
		assert_true(net_gro_parse(f, len, &s));
		assert_false(net_gro_follows(h, &hs, 1441, f, &s));
	}
	assert_true(net_gro_parse(f, make6(f, 1441, 1440, ACK, 8), &s));
	assert_false(net_gro_follows(h, &hs, 1441, f, &s));
}

/* One family never continues the other, even at the right sequence
 * number with every TCP byte the same. */
static void test_segments_of_the_two_families_do_not_follow(void **state)
{
	uint8_t h[FRAME_MAX], f[FRAME_MAX];
	struct net_gro_seg hs, s;

	(void)state;
	assert_true(net_gro_parse(h, make(h, 1, 1000, ACK, 12), &hs));
	assert_true(net_gro_parse(f, make6(f, 1001, 1000, ACK, 12), &s));
	assert_false(net_gro_follows(h, &hs, 1001, f, &s));
	assert_false(net_gro_follows(f, &s, 2001, h, &hs));
	hs.seq = 2001; /* the IPv4 segment right after the IPv6 one */
	assert_false(net_gro_follows(f, &s, 2001, h, &hs));
}

static void test_the_ip6_head_is_rewritten_for_the_whole_packet(void **state)
{
	uint8_t f[FRAME_MAX], before[FRAME_MAX];
	uint32_t len = make6(f, 1, 1440, ACK, 12);

	(void)state;
	memcpy(before, f, len);
	net_gro_rewrite_head(f, 40 + 32 + 3 * 1440, PSH);
	assert_int_equal(f[IP + 4] << 8 | f[IP + 5], 32 + 3 * 1440);
	assert_int_equal(f[TCP6 + 13], ACK | PSH);
	f[IP + 4] = before[IP + 4];
	f[IP + 5] = before[IP + 5];
	f[TCP6 + 13] = before[TCP6 + 13];
	assert_memory_equal(f, before, len);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_data_segment_is_parsed),
		cmocka_unit_test(test_a_segment_with_another_flag_is_refused),
		cmocka_unit_test(test_a_pure_ack_is_refused),
		cmocka_unit_test(test_other_packets_are_refused),
		cmocka_unit_test(test_parse_reads_nothing_past_the_frame),
		cmocka_unit_test(test_the_ip_header_sum_is_checked),
		cmocka_unit_test(test_the_next_segment_follows),
		cmocka_unit_test(
			test_a_segment_of_another_connection_does_not_follow),
		cmocka_unit_test(
			test_the_head_is_rewritten_for_the_whole_packet),
		cmocka_unit_test(test_an_ip6_data_segment_is_parsed),
		cmocka_unit_test(
			test_an_ip6_segment_with_another_flag_or_no_data_is_refused),
		cmocka_unit_test(
			test_an_ip6_packet_with_an_extension_header_is_refused),
		cmocka_unit_test(test_malformed_ip6_packets_are_refused),
		cmocka_unit_test(test_ip6_parse_reads_nothing_past_the_frame),
		cmocka_unit_test(test_the_next_ip6_segment_follows),
		cmocka_unit_test(
			test_an_ip6_segment_of_another_flow_does_not_follow),
		cmocka_unit_test(
			test_segments_of_the_two_families_do_not_follow),
		cmocka_unit_test(
			test_the_ip6_head_is_rewritten_for_the_whole_packet),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
