/*
 * net/flow_owner.c: which stack instance a received frame belongs to
 * (net_stack=percpu). Each rule on a frame built here byte by byte: ARP
 * replies and IPv6 advertisements to every instance, DHCP replies, echo
 * replies, fragments and the pinned TCP port to instance 0, TCP by the
 * Toeplitz hash and the table when the device does not steer (and where
 * it arrived when it does), UDP and the rest where they arrived; and a
 * frame cut short anywhere stays where it arrived, read within its bytes
 * (each one in a buffer of exactly its length, for ASan).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "net/flow_owner.c"
#include "net/rss_check.c"
#include "net/toeplitz.c"

static const uint8_t key[TOEPLITZ_KEY_LEN] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67,
	0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb,
	0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30,
	0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};
static uint8_t table[128];

/* Instance 3 of 4 received it; software steering unless said. */
static struct flow_owner_rules rules(bool device_steers)
{
	for (int i = 0; i < 128; i++)
		table[i] = (uint8_t)(i % 4);
	return (struct flow_owner_rules){.self = 3,
					 .device_steers = device_steers,
					 .key = key,
					 .table = table,
					 .table_len = 128,
					 .pinned_tcp_port = 1234};
}

struct frame {
	uint8_t b[128];
	uint32_t len;
};

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static struct frame eth(uint16_t type)
{
	struct frame f = {.len = 14};

	memset(f.b, 0x52, 12);
	put16(f.b + 12, type);
	return f;
}

static struct frame arp(uint16_t op)
{
	struct frame f = eth(0x0806);

	put16(f.b + 14, 1);	 /* Ethernet */
	put16(f.b + 16, 0x0800); /* IPv4 */
	f.b[18] = 6;
	f.b[19] = 4;
	put16(f.b + 20, op);
	f.len = 14 + 28;
	return f;
}

/* IPv4, 10.0.0.1 -> 10.0.0.2, protocol proto, then l4 (n bytes). */
static struct frame ipv4(uint8_t proto, uint16_t frag, const uint8_t *l4,
			 uint32_t n)
{
	struct frame f = eth(0x0800);
	uint8_t *ip = f.b + 14;

	ip[0] = 0x45;
	put16(ip + 2, (uint16_t)(20 + n));
	put16(ip + 6, frag);
	ip[8] = 64;
	ip[9] = proto;
	memcpy(ip + 12, (uint8_t[]){10, 0, 0, 1, 10, 0, 0, 2}, 8);
	memcpy(ip + 20, l4, n);
	f.len = 14 + 20 + n;
	return f;
}

static const uint8_t src6[16] = {0xfe, 0x80, [15] = 1};
static const uint8_t dst6[16] = {0xfe, 0x80, [15] = 2};

static struct frame ipv6(uint8_t next, const uint8_t *l4, uint32_t n)
{
	struct frame f = eth(0x86dd);
	uint8_t *ip = f.b + 14;

	ip[0] = 0x60;
	put16(ip + 4, (uint16_t)n);
	ip[6] = next;
	ip[7] = 255;
	memcpy(ip + 8, src6, 16);
	memcpy(ip + 24, dst6, 16);
	memcpy(ip + 40, l4, n);
	f.len = 14 + 40 + n;
	return f;
}

/* Transport headers, 24 bytes each (room for any n below). */
static const uint8_t ports_5000_80[24] = {0x13, 0x88, 0x00, 0x50};
static const uint8_t ports_67_68[24] = {0x00, 0x43, 0x00, 0x44};
static const uint8_t ports_to_pinned[24] = {0x13, 0x88, 0x04, 0xd2};

/* An ICMP or ICMPv6 header of type t. */
#define ICMP(t) ((const uint8_t[24]){t})

/* The owner, the frame in a buffer of exactly its length. */
static int owner_of(const struct flow_owner_rules *r, const struct frame *f,
		    uint32_t len)
{
	uint8_t *copy = malloc(len ? len : 1);
	int o;

	memcpy(copy, f->b, len);
	o = flow_owner(r, copy, len);
	free(copy);
	return o;
}

static int owner(const struct flow_owner_rules *r, struct frame f)
{
	return owner_of(r, &f, f.len);
}

static void test_arp_replies_go_to_every_instance_requests_stay(void **state)
{
	struct flow_owner_rules r = rules(false);

	(void)state;
	assert_int_equal(owner(&r, arp(2)), FLOW_OWNER_ALL);
	assert_int_equal(owner(&r, arp(1)), 3);
}

static void test_tcp_by_the_table_unless_the_device_steers(void **state)
{
	struct flow_owner_rules soft = rules(false), dev = rules(true);
	struct frame f = ipv4(6, 0x4000, ports_5000_80, 20);
	uint32_t h =
		toeplitz_ipv4_ports(key, (const uint8_t[]){10, 0, 0, 1},
				    (const uint8_t[]){10, 0, 0, 2}, 5000, 80);

	(void)state;
	assert_int_equal(owner(&soft, f), table[h & 127]);
	assert_int_equal(owner(&dev, f), 3);
	/* a SYN-ACK answers an active open: its owner is the table's even
	 * when the device steers (a SYN alone, or an ACK, is not) */
	assert_int_not_equal(table[h & 127], 3); /* the check can tell */
	f.b[14 + 20 + 13] = 0x12;
	assert_int_equal(owner(&dev, f), table[h & 127]);
	f.b[14 + 20 + 13] = 0x02;
	assert_int_equal(owner(&dev, f), 3);
	f.b[14 + 20 + 13] = 0x10;
	assert_int_equal(owner(&dev, f), 3);
	/* IPv6 the same way */
	f = ipv6(6, ports_5000_80, 20);
	h = toeplitz_ipv6_ports(key, src6, dst6, 5000, 80);
	assert_int_equal(owner(&soft, f), table[h & 127]);
	assert_int_equal(owner(&dev, f), 3);
}

static void test_software_owners_follow_the_hash_over_many_ports(void **state)
{
	struct flow_owner_rules r = rules(false);
	int seen[4] = {0};

	(void)state;
	for (uint16_t sport = 40000; sport < 40400; sport++) {
		uint8_t l4[20] = {0};
		struct frame f;
		int o;

		put16(l4, sport);
		put16(l4 + 2, 80);
		f = ipv4(6, 0, l4, 20);
		o = owner(&r, f);
		assert_in_range(o, 0, 3);
		assert_int_equal(
			o, table[toeplitz_ipv4_ports(
					 key, (const uint8_t[]){10, 0, 0, 1},
					 (const uint8_t[]){10, 0, 0, 2}, sport,
					 80) &
				 127]);
		seen[o]++;
	}
	for (int i = 0; i < 4; i++)
		assert_true(seen[i] > 50); /* every instance gets flows */
}

static void test_udp_stays_dhcp_replies_go_to_instance_0(void **state)
{
	struct flow_owner_rules r = rules(false);
	uint8_t dhcp6[24] = {0x02, 0x23, 0x02, 0x22}; /* 547 -> 546 */

	(void)state;
	assert_int_equal(owner(&r, ipv4(17, 0, ports_5000_80, 8)), 3);
	assert_int_equal(owner(&r, ipv4(17, 0, ports_67_68, 8)), 0);
	assert_int_equal(owner(&r, ipv6(17, dhcp6, 8)), 0);
}

static void test_pinned_tcp_port_and_fragments_go_to_instance_0(void **state)
{
	struct flow_owner_rules r = rules(true);
	uint8_t frag6[24] = {6};

	(void)state;
	assert_int_equal(owner(&r, ipv4(6, 0, ports_to_pinned, 20)), 0);
	r.pinned_tcp_port = 0;
	assert_int_equal(owner(&r, ipv4(6, 0, ports_to_pinned, 20)), 3);
	assert_int_equal(owner(&r, ipv4(17, 0x2000, ports_5000_80, 8)), 0);
	assert_int_equal(owner(&r, ipv4(17, 0x0010, ports_5000_80, 8)), 0);
	assert_int_equal(owner(&r, ipv6(44, frag6, 8)), 0);
}

static void test_icmp_echo_replies_to_0_advertisements_to_all(void **state)
{
	struct flow_owner_rules r = rules(false);

	(void)state;
	assert_int_equal(owner(&r, ipv4(1, 0, ICMP(0), 8)), 0);
	assert_int_equal(owner(&r, ipv4(1, 0, ICMP(8), 8)), 3);
	assert_int_equal(owner(&r, ipv6(58, ICMP(129), 8)), 0);
	assert_int_equal(owner(&r, ipv6(58, ICMP(128), 8)), 3);
	for (uint8_t t = 134; t <= 137; t++)
		assert_int_equal(owner(&r, ipv6(58, ICMP(t), 24)),
				 t == 135 ? 3 : FLOW_OWNER_ALL);
	assert_int_equal(owner(&r, ipv6(58, ICMP(133), 8)), 3);
}

static void test_frames_cut_short_stay_where_they_arrived(void **state)
{
	struct flow_owner_rules r = rules(false);
	const struct frame whole[] = {
		arp(2),
		ipv4(6, 0, ports_5000_80, 20),
		ipv4(17, 0, ports_67_68, 8),
		ipv4(1, 0, ICMP(0), 8),
		ipv6(6, ports_5000_80, 20),
		ipv6(58, ICMP(134), 16),
	};
	/* the shortest length at which each is classified */
	const uint32_t need[] = {14 + 8,      14 + 20 + 4, 14 + 20 + 4,
				 14 + 20 + 1, 14 + 40 + 4, 14 + 40 + 1};

	(void)state;
	for (size_t i = 0; i < sizeof(whole) / sizeof(whole[0]); i++)
		for (uint32_t len = 0; len <= whole[i].len; len++) {
			int o = owner_of(&r, &whole[i], len);

			if (len < need[i])
				assert_int_equal(o, 3);
			else
				assert_int_equal(o, owner(&r, whole[i]));
		}
	/* an IPv4 header length past the frame, and one below 20 */
	struct frame f = ipv4(6, 0, ports_5000_80, 20);

	f.b[14] = 0x4f;
	assert_int_equal(owner(&r, f), 3);
	f.b[14] = 0x44;
	assert_int_equal(owner(&r, f), 3);
	/* not IP at all, and IP of the wrong version */
	assert_int_equal(owner(&r, eth(0x88cc)), 3);
	f = ipv4(6, 0, ports_5000_80, 20);
	f.b[14] = 0x65;
	assert_int_equal(owner(&r, f), 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
			test_arp_replies_go_to_every_instance_requests_stay),
		cmocka_unit_test(
			test_tcp_by_the_table_unless_the_device_steers),
		cmocka_unit_test(
			test_software_owners_follow_the_hash_over_many_ports),
		cmocka_unit_test(test_udp_stays_dhcp_replies_go_to_instance_0),
		cmocka_unit_test(
			test_pinned_tcp_port_and_fragments_go_to_instance_0),
		cmocka_unit_test(
			test_icmp_echo_replies_to_0_advertisements_to_all),
		cmocka_unit_test(test_frames_cut_short_stay_where_they_arrived),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
