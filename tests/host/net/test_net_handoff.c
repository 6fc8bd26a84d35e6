/*
 * net/net_handoff.c: the rings that carry a frame from the stack instance
 * that received it to the one that owns it (net_stack=percpu). A frame
 * of several buffers arrives whole and in order; the owner is woken; a
 * full ring refuses a frame without taking any part of it, counts the
 * refusal, and takes frames again once the owner has emptied it; each
 * ring is on its CPU's node; and three senders filling one ring at once
 * while its owner empties it lose, duplicate and tear no frame, each
 * sender's frames in its order (the TSan build checks the ring's
 * publication).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mm_test.h"
#include "net/net_handoff.c"
#include "page.h"

/* kernel/poll.h's: counts the wake-ups each CPU got */
static atomic_int wakes[NET_HANDOFF_MAX];

void poll_wake(int cpu)
{
	atomic_fetch_add(&wakes[cpu], 1);
}

static void reset(void)
{
	for (int i = 0; i < nrings; i++) {
		alf_queue_free(rings[i]);
		rings[i] = NULL;
	}
	nrings = 0;
	memset(stats, 0, sizeof(stats));
	for (int i = 0; i < NET_HANDOFF_MAX; i++)
		atomic_store(&wakes[i], 0);
}

static int setup(void **state)
{
	mm_test_boot(2, 32, 4); /* CPUs 0-1 on node 0, 2-3 on node 1 */
	(void)state;
	return 0;
}

static int teardown(void **state)
{
	reset();
	return mm_test_teardown(state);
}

/* What the owner's park callback saw, in order. */
struct parked {
	struct net_handoff_buf buf[8192];
	int dev[8192];
	int n;
};

static void park(void *arg, int dev_index, const struct net_handoff_buf *b)
{
	struct parked *p = arg;

	p->buf[p->n] = *b;
	p->dev[p->n] = dev_index;
	p->n++;
}

static char frames[4096][2];

static struct net_handoff_buf one(int i, unsigned int flags)
{
	return (struct net_handoff_buf){
		.frame = frames[i], .len = 60u + (uint32_t)i, .flags = flags};
}

static void
test_a_frame_of_three_buffers_arrives_whole_with_its_fields(void **state)
{
	static struct parked got;
	struct net_handoff_buf chain[3] = {one(0, NETDEV_RX_MORE),
					   one(1, NETDEV_RX_MORE), one(2, 0)};
	struct net_handoff_totals t;

	(void)state;
	assert_int_equal(net_handoff_init(4), 0);
	assert_false(net_handoff_waiting(2));
	assert_true(net_handoff_send(1, 2, 7, chain, 3, false));
	assert_int_equal(atomic_load(&wakes[2]), 1);
	assert_true(net_handoff_waiting(2));
	assert_false(net_handoff_waiting(1));

	got.n = 0;
	/* asked for one buffer: the frame is never split */
	assert_int_equal(net_handoff_take(2, 1, park, &got), 3);
	for (int i = 0; i < 3; i++) {
		assert_ptr_equal(got.buf[i].frame, frames[i]);
		assert_int_equal(got.buf[i].len, 60 + i);
		assert_int_equal(got.buf[i].flags, i < 2 ? NETDEV_RX_MORE : 0);
		assert_int_equal(got.dev[i], 7);
	}
	assert_false(net_handoff_waiting(2));
	net_handoff_stats(1, &t);
	assert_int_equal(t.sent, 1);
	net_handoff_stats(2, &t);
	assert_int_equal(t.taken, 1);
	reset();
}

static void
test_copies_are_counted_apart_from_frames_on_the_wrong_cpu(void **state)
{
	struct net_handoff_buf b = one(5, 0);
	struct net_handoff_totals t;

	(void)state;
	assert_int_equal(net_handoff_init(2), 0);
	assert_true(net_handoff_send(0, 1, 0, &b, 1, true));
	assert_true(net_handoff_send(0, 1, 0, &b, 1, false));
	net_handoff_copy_failed(0);
	net_handoff_totals(&t);
	assert_int_equal(t.copies, 1);
	assert_int_equal(t.sent, 1);
	assert_int_equal(t.copy_fail, 1);
	net_handoff_stats(9, &t); /* no such ring */
	assert_int_equal(t.sent + t.copies, 0);
	reset();
}

static void
test_a_full_ring_refuses_whole_frames_and_takes_again_when_emptied(void **state)
{
	static struct parked got;
	struct net_handoff_buf pair[2] = {one(0, NETDEV_RX_MORE), one(1, 0)};
	struct net_handoff_buf b;
	struct net_handoff_totals t;
	int accepted = 0;

	(void)state;
	assert_int_equal(net_handoff_init(2), 0);
	for (int i = 0; i < 4096; i++) {
		b = one(i, 0);
		if (!net_handoff_send(0, 1, 0, &b, 1, false))
			break;
		accepted++;
	}
	/* a ring of 4096 pointer slots holds 2048 one-buffer frames (an ALF
	 * queue keeps one slot free) */
	assert_in_range(accepted, 2047, 2048);
	net_handoff_stats(0, &t);
	assert_int_equal(t.ring_full, 1);
	assert_int_equal(t.sent, accepted);
	/* refused whole: a two-buffer frame does not leave half of itself */
	assert_false(net_handoff_send(0, 1, 0, pair, 2, false));
	assert_int_equal(atomic_load(&wakes[1]), accepted);

	got.n = 0;
	while (net_handoff_take(1, 64, park, &got) > 0)
		;
	assert_int_equal(got.n, accepted);
	for (int i = 0; i < accepted; i++)
		assert_ptr_equal(got.buf[i].frame, frames[i]);
	/* emptied: the refused frame goes now */
	assert_true(net_handoff_send(0, 1, 0, pair, 2, false));
	got.n = 0;
	assert_int_equal(net_handoff_take(1, 64, park, &got), 2);
	net_handoff_stats(1, &t);
	assert_int_equal(t.taken, accepted + 1);
	reset();
}

static void test_each_ring_is_on_its_cpus_node(void **state)
{
	(void)state;
	assert_int_equal(net_handoff_init(4), 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(page_to_nid(virt_to_page(rings[i])),
				 mm_cpu_to_node(i));
	assert_int_equal(mm_cpu_to_node(3), 1); /* both nodes were used */
	reset();
	assert_int_equal(net_handoff_init(0), -1);
	assert_int_equal(net_handoff_init(NET_HANDOFF_MAX + 1), -1);
}

/* Three senders (instances 1-3) hand frames of 1-3 buffers to instance 0
 * while it takes them. */
#define SENDERS	    3
#define FRAMES_EACH 20000

static atomic_int refusals;

static void send_all(void *arg)
{
	int from = (int)(intptr_t)arg;

	for (int k = 0; k < FRAMES_EACH; k++) {
		int nbuf = 1 + k % 3;
		struct net_handoff_buf b[3];

		for (int j = 0; j < nbuf; j++)
			b[j] = (struct net_handoff_buf){
				/* sender, frame and buffer in the pointer */
				.frame = (void *)(uintptr_t)(((uintptr_t)from
							      << 40) |
							     ((uintptr_t)k
							      << 8) |
							     (uintptr_t)j),
				.len = (uint32_t)(k * 4 + j),
				.flags = j + 1 < nbuf ? NETDEV_RX_MORE : 0};
		while (!net_handoff_send(from, 0, from, b, nbuf, false))
			atomic_fetch_add(&refusals, 1); /* keep it, retry */
	}
}

static void *sender_thread(void *arg)
{
	if (mm_host_set_cpu((int)(intptr_t)arg) == 0)
		send_all(arg);
	return NULL;
}

struct checker {
	int next[SENDERS + 1]; /* next frame expected from each sender */
	int in_frame;	       /* buffers of the current frame seen */
	int from;
	long bufs;
};

static void check(void *arg, int dev_index, const struct net_handoff_buf *b)
{
	struct checker *c = arg;
	uintptr_t v = (uintptr_t)b->frame;
	int from = (int)(v >> 40), k = (int)(v >> 8 & 0xffffffff), j = v & 0xff;

	assert_int_equal(dev_index, from);
	if (c->in_frame == 0)
		c->from = from;
	assert_int_equal(from, c->from);    /* no torn frame */
	assert_int_equal(k, c->next[from]); /* in order, once */
	assert_int_equal(j, c->in_frame);   /* its buffers in order */
	assert_int_equal(b->len, (uint32_t)(k * 4 + j));
	c->bufs++;
	if (b->flags & NETDEV_RX_MORE) {
		c->in_frame++;
	} else {
		assert_int_equal(c->in_frame, k % 3); /* the frame was whole */
		c->in_frame = 0;
		c->next[from]++;
	}
}

static void
test_three_senders_and_the_owner_at_once_lose_and_tear_nothing(void **state)
{
	pthread_t t[SENDERS];
	struct checker c = {0};
	struct net_handoff_totals tot;
	long want = 0;

	(void)state;
	assert_int_equal(net_handoff_init(4), 0);
	atomic_store(&refusals, 0);
	for (int i = 0; i < SENDERS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, sender_thread,
						(void *)(intptr_t)(i + 1)),
				 0);
	if (mm_host_set_cpu(0))
		fail_msg("no CPU 0");
	for (;;) {
		bool done = true;

		net_handoff_take(0, 64, check, &c);
		for (int i = 1; i <= SENDERS; i++)
			done = done && c.next[i] == FRAMES_EACH;
		if (done)
			break;
	}
	for (int i = 0; i < SENDERS; i++)
		pthread_join(t[i], NULL);
	for (int k = 0; k < FRAMES_EACH; k++)
		want += 1 + k % 3;
	assert_int_equal(c.bufs, want * SENDERS);
	assert_false(net_handoff_waiting(0));
	net_handoff_totals(&tot);
	assert_int_equal(tot.sent, SENDERS * FRAMES_EACH);
	assert_int_equal(tot.taken, SENDERS * FRAMES_EACH);
	assert_int_equal(tot.ring_full, atomic_load(&refusals));
	reset();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
			test_a_frame_of_three_buffers_arrives_whole_with_its_fields),
		cmocka_unit_test(
			test_copies_are_counted_apart_from_frames_on_the_wrong_cpu),
		cmocka_unit_test(
			test_a_full_ring_refuses_whole_frames_and_takes_again_when_emptied),
		cmocka_unit_test(test_each_ring_is_on_its_cpus_node),
		cmocka_unit_test(
			test_three_senders_and_the_owner_at_once_lose_and_tear_nothing),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
