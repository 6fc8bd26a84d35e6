/*
 * net/rss_port.c: the local port of an active open whose answers a NIC's
 * RSS steers to the opening CPU's queue. The contract: the port returned
 * is in range, not in use, and its answers' full Toeplitz hash (computed
 * here bit by bit, not by the windows the picker adds) names the queue
 * in the table; it is the first such port from the start, wrapping; and
 * 0 comes back when no port can do (a table that never names the queue,
 * every fitting port in use, a bad range or table).
 */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "net/rss_port.c"
#include "net/toeplitz.c"

static const uint8_t key[TOEPLITZ_KEY_LEN] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67,
	0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb,
	0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30,
	0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

#define FIRST 0xc000
#define LAST  0xffff

static uint8_t table[128];

static void table_mod(int nqueues)
{
	for (int i = 0; i < 128; i++)
		table[i] = (uint8_t)(i % nqueues);
}

/* Ports in use: a bitmap over the whole port space. */
static uint8_t used[65536 / 8];

static bool in_use(uint16_t port, void *arg)
{
	(void)arg;
	return (used[port / 8] >> (port % 8)) & 1;
}

static void use(uint16_t port)
{
	used[port / 8] |= (uint8_t)(1u << (port % 8));
}

/* The answers' hash, the reference way: the whole input, bit by bit. */
static uint32_t answer_hash(const struct rss_port_query *q, uint16_t port)
{
	return q->v6 ? toeplitz_ipv6_ports(key, q->remote, q->local,
					   q->remote_port, port)
		     : toeplitz_ipv4_ports(key, q->remote, q->local,
					   q->remote_port, port);
}

static int answer_queue(const struct rss_port_query *q, uint16_t port)
{
	return q->table[answer_hash(q, port) & (uint32_t)(q->table_len - 1)];
}

static uint8_t local4[4], remote4[4], local6[16], remote6[16];

static int setup(void **state)
{
	(void)state;
	memset(used, 0, sizeof(used));
	table_mod(4);
	inet_pton(AF_INET, "10.0.2.15", local4);
	inet_pton(AF_INET, "10.0.2.2", remote4);
	inet_pton(AF_INET6, "fec0::5054:ff:fe12:3456", local6);
	inet_pton(AF_INET6, "fec0::2", remote6);
	return 0;
}

static struct rss_port_query query(bool v6, int queue, uint16_t rport)
{
	return (struct rss_port_query){
		.key = key,
		.table = table,
		.table_len = 128,
		.queue = queue,
		.v6 = v6,
		.local = v6 ? local6 : local4,
		.remote = v6 ? remote6 : remote4,
		.remote_port = rport,
	};
}

/* Key windows are what a single set input bit adds to the hash. */
static void windows_are_single_bit_hashes(void **state)
{
	(void)state;
	for (unsigned int bit = 0; bit < TOEPLITZ_INPUT_MAX * 8; bit++) {
		uint8_t in[TOEPLITZ_INPUT_MAX] = {0};

		in[bit / 8] = (uint8_t)(0x80u >> (bit % 8));
		assert_int_equal(toeplitz_key_window(key, bit),
				 toeplitz_hash(key, in, sizeof(in)));
	}
}

/* Each queue, both families, many remote ports and starts: the port is
 * in range, free, steered to the queue, and the first one from start. */
static void picks_the_first_free_port_steered_to_the_queue(void **state)
{
	unsigned int total = 0, picks = 0;

	(void)state;
	for (int v6 = 0; v6 <= 1; v6++)
		for (int queue = 0; queue < 4; queue++)
			for (uint16_t r = 1; r < 2000; r += 97) {
				struct rss_port_query q = query(v6, queue, r);
				uint16_t start =
					(uint16_t)(FIRST + r * 31 % 0x4000);
				unsigned int n;
				uint16_t p =
					rss_port_pick(&q, FIRST, LAST, start,
						      in_use, NULL, &n);

				assert_true(p >= FIRST);
				assert_int_equal(answer_queue(&q, p), queue);
				/* every port walked past before it: another queue */
				for (uint16_t c = start; c != p;
				     c = c == LAST ? FIRST : (uint16_t)(c + 1))
					assert_int_not_equal(
						answer_queue(&q, c), queue);
				assert_int_equal(
					n, (p - start + 0x4000) % 0x4000 + 1);
				total += n;
				picks++;
			}
	/* a quarter of the table per queue: about 4 candidates a pick */
	assert_true(total < 8 * picks);
}

static void ports_in_use_are_skipped(void **state)
{
	struct rss_port_query q = query(false, 2, 5001);
	uint16_t p1, p2, p3;

	(void)state;
	p1 = rss_port_pick(&q, FIRST, LAST, FIRST, in_use, NULL, NULL);
	use(p1);
	p2 = rss_port_pick(&q, FIRST, LAST, FIRST, in_use, NULL, NULL);
	assert_true(p2 > p1);
	assert_int_equal(answer_queue(&q, p2), 2);
	use(p2);
	p3 = rss_port_pick(&q, FIRST, LAST, FIRST, in_use, NULL, NULL);
	assert_true(p3 > p2);
	assert_int_equal(answer_queue(&q, p3), 2);
}

/* From near the range's end the search wraps to its start. */
static void the_search_wraps(void **state)
{
	struct rss_port_query q = query(false, 1, 80);
	uint16_t p;

	(void)state;
	for (uint32_t c = LAST - 200; c <= LAST; c++)
		use((uint16_t)c);
	p = rss_port_pick(&q, FIRST, LAST, LAST - 100, in_use, NULL, NULL);
	assert_true(p >= FIRST && p < LAST - 200);
	assert_int_equal(answer_queue(&q, p), 1);
}

static void no_port_can_do(void **state)
{
	struct rss_port_query q = query(true, 3, 443);
	uint16_t first = 0xf000, last = 0xf0ff;
	unsigned int n;

	(void)state;
	/* the table never names queue 3 */
	table_mod(3);
	assert_int_equal(
		rss_port_pick(&q, FIRST, LAST, FIRST, in_use, NULL, &n), 0);
	/* every fitting port of a small range in use: all looked at */
	table_mod(4);
	for (uint32_t c = first; c <= last; c++)
		if (answer_queue(&q, (uint16_t)c) == 3)
			use((uint16_t)c);
	assert_int_equal(
		rss_port_pick(&q, first, last, first + 7, in_use, NULL, &n), 0);
	assert_int_equal(n, last - first + 1);
	/* a range or table the picker cannot use */
	assert_int_equal(rss_port_pick(&q, 0, 10, 0, in_use, NULL, NULL), 0);
	assert_int_equal(
		rss_port_pick(&q, last, first, first, in_use, NULL, NULL), 0);
	q.table_len = 96;
	assert_int_equal(
		rss_port_pick(&q, FIRST, LAST, FIRST, in_use, NULL, NULL), 0);
}

/* A table of one queue: any free port fits, the start itself first. */
static void one_queue_takes_the_start(void **state)
{
	struct rss_port_query q = query(false, 0, 22);

	(void)state;
	table_mod(1);
	assert_int_equal(
		rss_port_pick(&q, FIRST, LAST, 0xd123, in_use, NULL, NULL),
		0xd123);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(windows_are_single_bit_hashes, setup),
		cmocka_unit_test_setup(
			picks_the_first_free_port_steered_to_the_queue, setup),
		cmocka_unit_test_setup(ports_in_use_are_skipped, setup),
		cmocka_unit_test_setup(the_search_wraps, setup),
		cmocka_unit_test_setup(no_port_can_do, setup),
		cmocka_unit_test_setup(one_queue_takes_the_start, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
