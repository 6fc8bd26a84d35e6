/*
 * RFC 4861's validity checks for neighbour discovery (net/nd6_check.c):
 * a valid message of each kind passes, and each rule, broken alone on
 * it, is caught with its own verdict.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "net/nd6_check.c"

static const uint8_t link_local[16] = {0xfe, 0x80, [8] = 0x02, [15] = 0x01};
static const uint8_t global[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 0x01};
static const uint8_t all_nodes[16] = {0xff, 0x02, [15] = 0x01};
static const uint8_t unspecified[16];
/* ff02::1:ff00:1, the solicited-node group of global */
static const uint8_t sol_node[16] = {0xff, 0x02, [11] = 0x01, 0xff, 0, 0, 1};

/* A message being built: its bytes and the IPv6 fields around them. */
struct msg {
	uint8_t b[ND6_MAX_LEN + 1];
	struct nd6_msg m;
};

static void start(struct msg *x, uint8_t type, size_t fixed,
		  const uint8_t src[16], const uint8_t dst[16])
{
	memset(x->b, 0, sizeof(x->b));
	x->b[0] = type;
	x->m = (struct nd6_msg){.hop_limit = 255,
				.src = src,
				.dst = dst,
				.icmp = x->b,
				.len = fixed};
}

/* Appends an option of @len8 units of 8 bytes (type @type). */
static void option(struct msg *x, uint8_t type, uint8_t len8)
{
	x->b[x->m.len] = type;
	x->b[x->m.len + 1] = len8;
	x->m.len += len8 ? (size_t)len8 * 8 : 8;
}

static void set_target(struct msg *x, const uint8_t a[16])
{
	memcpy(x->b + 8, a, 16);
}

static void test_valid_messages_pass(void **state)
{
	struct msg x;

	(void)state;
	start(&x, ND6_TYPE_RA, 16, link_local, all_nodes);
	option(&x, 1, 1); /* source link-layer address */
	option(&x, 3, 4); /* prefix information */
	assert_int_equal(nd6_check(&x.m), ND6_VALID);
	start(&x, ND6_TYPE_NS, 24, global, sol_node);
	set_target(&x, global);
	option(&x, 1, 1);
	assert_int_equal(nd6_check(&x.m), ND6_VALID);
	start(&x, ND6_TYPE_NS, 24, unspecified, sol_node); /* DAD */
	set_target(&x, global);
	assert_int_equal(nd6_check(&x.m), ND6_VALID);
	start(&x, ND6_TYPE_NA, 24, global, global);
	x.b[4] = 0x60; /* solicited, override: to a unicast address */
	set_target(&x, global);
	option(&x, 2, 1);
	assert_int_equal(nd6_check(&x.m), ND6_VALID);
	start(&x, ND6_TYPE_NA, 24, global, all_nodes);
	x.b[4] = 0x20; /* unsolicited, to all nodes */
	assert_int_equal(nd6_check(&x.m), ND6_VALID);
	start(&x, ND6_TYPE_REDIRECT, 40, link_local, global);
	set_target(&x, link_local);
	memcpy(x.b + 24, global, 16);
	assert_int_equal(nd6_check(&x.m), ND6_VALID);
	start(&x, ND6_TYPE_RS, 8, global, all_nodes);
	option(&x, 1, 1);
	assert_int_equal(nd6_check(&x.m), ND6_VALID);
}

static void test_other_icmp6_types_are_not_judged(void **state)
{
	struct msg x;

	(void)state;
	start(&x, 128, 1, global, global); /* echo request, hop limit 64 */
	x.m.hop_limit = 64;
	assert_int_equal(nd6_check(&x.m), ND6_VALID);
}

static void test_shared_rules(void **state)
{
	static const uint8_t types[] = {ND6_TYPE_RS, ND6_TYPE_RA, ND6_TYPE_NS,
					ND6_TYPE_NA, ND6_TYPE_REDIRECT};
	static const size_t fixed[] = {8, 16, 24, 24, 40};
	struct msg x;

	(void)state;
	for (size_t i = 0; i < sizeof(types); i++) {
		start(&x, types[i], fixed[i], link_local, global);
		set_target(&x, link_local);
		x.m.hop_limit = 254; /* forwarded by a router */
		assert_int_equal(nd6_check(&x.m), ND6_BAD_HOP_LIMIT);
		start(&x, types[i], fixed[i] - 1, link_local, global);
		assert_int_equal(nd6_check(&x.m), ND6_TOO_SHORT);
		start(&x, types[i], ND6_MAX_LEN + 1, link_local, global);
		assert_int_equal(nd6_check(&x.m), ND6_TOO_LONG);
		start(&x, types[i], fixed[i], link_local, global);
		x.b[1] = 1;
		assert_int_equal(nd6_check(&x.m), ND6_BAD_CODE);
		start(&x, types[i], fixed[i], link_local, global);
		option(&x, 1, 1);
		option(&x, 9, 0); /* length 0: would never end */
		assert_int_equal(nd6_check(&x.m), ND6_BAD_OPTION);
		start(&x, types[i], fixed[i], link_local, global);
		option(&x, 3, 4);
		x.m.len -= 8; /* the prefix option runs past the end */
		assert_int_equal(nd6_check(&x.m), ND6_BAD_OPTION);
		start(&x, types[i], fixed[i] + 1, link_local, global);
		assert_int_equal(nd6_check(&x.m), ND6_BAD_OPTION);
	}
}

static void test_ra_and_redirect_only_from_link_local(void **state)
{
	struct msg x;

	(void)state;
	start(&x, ND6_TYPE_RA, 16, global, all_nodes);
	assert_int_equal(nd6_check(&x.m), ND6_BAD_SOURCE);
	start(&x, ND6_TYPE_RA, 16, unspecified, all_nodes);
	assert_int_equal(nd6_check(&x.m), ND6_BAD_SOURCE);
	start(&x, ND6_TYPE_REDIRECT, 40, global, global);
	set_target(&x, link_local);
	assert_int_equal(nd6_check(&x.m), ND6_BAD_SOURCE);
}

static void test_redirect_target_and_destination(void **state)
{
	struct msg x;

	(void)state;
	start(&x, ND6_TYPE_REDIRECT, 40, link_local, global);
	set_target(&x, link_local);
	memcpy(x.b + 24, all_nodes, 16); /* multicast destination */
	assert_int_equal(nd6_check(&x.m), ND6_BAD_TARGET);
	start(&x, ND6_TYPE_REDIRECT, 40, link_local, global);
	set_target(&x, global); /* neither link-local nor the destination */
	memcpy(x.b + 24, sol_node, 16);
	x.b[24] = 0x20;
	assert_int_equal(nd6_check(&x.m), ND6_BAD_TARGET);
	memcpy(x.b + 24, global, 16); /* the destination itself: on-link */
	assert_int_equal(nd6_check(&x.m), ND6_VALID);
}

static void test_ns_and_na_targets_and_destinations(void **state)
{
	struct msg x;

	(void)state;
	start(&x, ND6_TYPE_NS, 24, global, sol_node);
	set_target(&x, all_nodes);
	assert_int_equal(nd6_check(&x.m), ND6_BAD_TARGET);
	start(&x, ND6_TYPE_NA, 24, global, global);
	set_target(&x, sol_node);
	assert_int_equal(nd6_check(&x.m), ND6_BAD_TARGET);
	start(&x, ND6_TYPE_NA, 24, global, all_nodes);
	set_target(&x, global);
	x.b[4] = 0x40; /* solicited, yet to all nodes */
	assert_int_equal(nd6_check(&x.m), ND6_BAD_DEST);
}

static void test_from_the_unspecified_address(void **state)
{
	struct msg x;

	(void)state;
	start(&x, ND6_TYPE_NS, 24, unspecified, sol_node);
	set_target(&x, global);
	option(&x, 1, 1); /* no link-layer address to learn from :: */
	assert_int_equal(nd6_check(&x.m), ND6_BAD_SOURCE);
	start(&x, ND6_TYPE_NS, 24, unspecified, global);
	set_target(&x, global); /* DAD goes to the solicited-node group */
	assert_int_equal(nd6_check(&x.m), ND6_BAD_DEST);
	start(&x, ND6_TYPE_RS, 8, unspecified, all_nodes);
	option(&x, 1, 1);
	assert_int_equal(nd6_check(&x.m), ND6_BAD_SOURCE);
	start(&x, ND6_TYPE_RS, 8, unspecified, all_nodes);
	assert_int_equal(nd6_check(&x.m), ND6_VALID);
}

static void test_every_verdict_has_a_name(void **state)
{
	(void)state;
	for (int v = 0; v < ND6_VERDICTS; v++) {
		const char *name = nd6_verdict_name((enum nd6_verdict)v);

		assert_non_null(name);
		assert_true(strlen(name) > 1);
	}
	assert_string_equal(nd6_verdict_name(ND6_VERDICTS), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_messages_pass),
		cmocka_unit_test(test_other_icmp6_types_are_not_judged),
		cmocka_unit_test(test_shared_rules),
		cmocka_unit_test(test_ra_and_redirect_only_from_link_local),
		cmocka_unit_test(test_redirect_target_and_destination),
		cmocka_unit_test(test_ns_and_na_targets_and_destinations),
		cmocka_unit_test(test_from_the_unspecified_address),
		cmocka_unit_test(test_every_verdict_has_a_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
