/*
 * VIRTIO_F_EVENT_IDX (virtio 1.x spec 2.7.7 and 2.7.10) against the
 * simulated device of virtq_sim.h: the index rule both sides use
 * (virtq_need_event), the driver's kicks suppressed by the device's
 * avail_event, the device's interrupts suppressed by the driver's
 * used_event, both across the 16-bit index wrap at 65535, the arm's
 * re-read that keeps a wake-up from being lost, the negotiation and its
 * boot switch, and the notify counters in the stats.
 *
 * The device side decides whether to interrupt entry by entry (is the
 * entry at used_event among those just published?), not with the
 * driver's formula, so the driver is not checked against itself.
 */
#include "virtq_sim.h"

#define EVENT_IDX_BIT (1ull << VIRTIO_F_EVENT_IDX)

/* A VQ_NUM-entry queue 0 whose device negotiated EVENT_IDX. */
static int setup_event_queue(void **state)
{
	setup_queue(state);
	hw.driver_features |= EVENT_IDX_BIT;
	virtq_use_event_idx(&vq);
	return 0;
}

static uint16_t used_event(void)
{
	return *virtq_used_event(&vq);
}

/* One chain through the whole round trip: add, kick, the device takes
 * and returns it, the driver reaps it. Every index moves by one. */
static void round_trip(void)
{
	uint32_t len;
	int head;

	assert_int_equal(add_chain(1, 1), 0);
	virtq_kick(&vq);
	head = hw_take(0);
	assert_true(head >= 0);
	hw_complete(0, (uint16_t)head, 0);
	assert_ptr_equal(virtq_get(&vq, &len), (void *)1);
}

/* Move every index of queue 0 to `to` by real round trips. */
static void advance_to(uint16_t to)
{
	while (vq.avail_idx != to)
		round_trip();
	assert_int_equal(vq.last_used, to);
	assert_int_equal(hw.q[0].used_idx, to);
}

/* ------------------------------------------------------- the rule */

static void test_need_event_rule_and_its_wrap(void **state)
{
	static const struct {
		uint16_t event, new_idx, old_idx;
		bool want;
	} cases[] = {
		{0, 1, 0, true},	  /* entry 0 published */
		{0, 0, 0, false},	  /* nothing moved */
		{1, 1, 0, false},	  /* only entry 0 published */
		{9, 10, 0, true},	  /* the last of a batch */
		{10, 10, 0, false},	  /* just past the batch */
		{3, 10, 5, false},	  /* behind the batch */
		{65535, 0, 65535, true},  /* the wrap itself */
		{65535, 2, 65534, true},  /* a batch over the wrap */
		{0, 2, 65534, true},	  /* ... its entry 0 */
		{1, 2, 65534, true},	  /* ... its last entry */
		{2, 2, 65534, false},	  /* ... one past it */
		{65533, 2, 65534, false}, /* ... one before it */
		{65534, 0, 65535, false}, /* behind, seen across the wrap */
		{32767, 32768, 0, true},  /* half the index space apart */
		{65535, 32768, 0, false}, /* an event "ahead" by 32767 */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bool got = virtq_need_event(cases[i].event, cases[i].new_idx,
					    cases[i].old_idx);

		if (got != cases[i].want)
			fail_msg("need_event(%u, %u, %u) = %d", cases[i].event,
				 cases[i].new_idx, cases[i].old_idx, got);
	}
}

/* --------------------------------------- kicks and the device's avail_event */

static void test_kick_notifies_only_when_avail_event_is_passed(void **state)
{
	(void)state;
	assert_int_equal(vq.avail->flags, 0); /* the spec asks for 0 */
	/* avail_event 0: the first chain (entry 0) passes it. */
	assert_int_equal(add_chain(1, 1), 0);
	virtq_kick(&vq);
	assert_int_equal(hw.q[0].notified, 1);
	/* The device is at work and has not moved avail_event: no kick. */
	assert_int_equal(add_chain(1, 2), 0);
	virtq_kick(&vq);
	assert_int_equal(hw.q[0].notified, 1);
	/* It has seen up to 2 and wants to hear of entry 2. */
	hw_set_avail_event(0, 2);
	assert_int_equal(add_chain(1, 3), 0);
	virtq_kick(&vq);
	assert_int_equal(hw.q[0].notified, 2);
	/* Three published, one kick: avail_event 4 is inside 3..5. */
	hw_set_avail_event(0, 4);
	for (int k = 0; k < 3; k++) {
		assert_int_equal(add_chain(1, 4 + k), 0);
		virtq_publish(&vq);
	}
	virtq_kick(&vq);
	assert_int_equal(hw.q[0].notified, 3);
	/* Nothing new: no decision, nothing counted. */
	virtq_kick(&vq);
	assert_int_equal(vq.notifies, 3);
	assert_int_equal(vq.notifies_suppressed, 1);
}

static void test_kick_rule_across_the_avail_index_wrap(void **state)
{
	(void)state;
	advance_to(65534);
	hw_set_avail_event(0, 65535);
	vq.notifies = vq.notifies_suppressed = 0;
	hw.q[0].notified = 0;
	assert_int_equal(add_chain(1, 1), 0); /* entry 65534 */
	virtq_kick(&vq);
	assert_int_equal(hw.q[0].notified, 0);
	assert_int_equal(add_chain(1, 2), 0); /* entry 65535: 65535 -> 0 */
	virtq_kick(&vq);
	assert_int_equal(hw.q[0].notified, 1);
	assert_int_equal(vq.avail->idx, 0);
	hw_set_avail_event(0, 1);
	assert_int_equal(add_chain(1, 3), 0); /* entry 0 */
	assert_int_equal(add_chain(1, 4), 0); /* entry 1 */
	virtq_kick(&vq);
	assert_int_equal(hw.q[0].notified, 2);
	assert_int_equal(vq.notifies, 2);
	assert_int_equal(vq.notifies_suppressed, 1);
	/* and the device reads every chain exactly once over the wrap */
	for (int k = 0; k < 4; k++)
		assert_true(hw_take(0) >= 0);
	assert_int_equal(hw_take(0), -1);
}

/* ------------------------------- interrupts and the driver's used_event */

/* Post n one-descriptor chains; the device takes them all. Returns the
 * first head (they are consecutive from the free list). */
static void post_and_take(int n, int *heads)
{
	for (int k = 0; k < n; k++)
		assert_int_equal(add_chain(1, (uintptr_t)(10 + k)), 0);
	virtq_kick(&vq);
	for (int k = 0; k < n; k++)
		assert_true((heads[k] = hw_take(0)) >= 0);
}

static void test_interrupt_only_past_used_event(void **state)
{
	int heads[4];
	uint32_t len;

	(void)state;
	post_and_take(4, heads);
	/* Created with the interrupt off: used_event one behind. */
	assert_int_equal(used_event(), 0xffff);
	hw_complete(0, (uint16_t)heads[0], 0);
	assert_int_equal(hw.q[0].interrupts, 0);
	assert_non_null(virtq_get(&vq, &len));
	/* Armed: used_event = last_used = 1, nothing waiting. */
	assert_false(virtq_irq_enable(&vq));
	assert_int_equal(used_event(), 1);
	hw_complete(0, (uint16_t)heads[1], 0);
	assert_int_equal(hw.q[0].interrupts, 1);
	/* Not reaped, not re-armed: the next one is not announced. */
	hw_complete(0, (uint16_t)heads[2], 0);
	assert_int_equal(hw.q[0].interrupts, 1);
	/* The handler's disarm: behind what was reaped. */
	virtq_irq_disable(&vq);
	assert_int_equal(used_event(), 0);
	while (virtq_get(&vq, &len))
		;
	hw_complete(0, (uint16_t)heads[3], 0);
	assert_int_equal(hw.q[0].interrupts, 1);
	assert_int_equal(vq.avail->flags, 0); /* flags never used */
}

/* The device publishes a batch with one index move: one interrupt. */
static void test_a_batch_published_at_once_interrupts_once(void **state)
{
	int heads[4];

	(void)state;
	post_and_take(4, heads);
	assert_false(virtq_irq_enable(&vq));
	hw.q[0].hold = true;
	for (int k = 0; k < 4; k++)
		hw_complete(0, (uint16_t)heads[k], 0);
	assert_int_equal(hw.q[0].interrupts, 0); /* not yet published */
	hw_publish_used(0);
	assert_int_equal(hw.q[0].interrupts, 1);
}

static void test_interrupt_rule_across_the_used_index_wrap(void **state)
{
	int head;
	uint32_t len;

	(void)state;
	advance_to(65535);
	hw.q[0].interrupts = 0;
	/* Armed at 65535: the entry written there (index 65535 -> 0). */
	assert_false(virtq_irq_enable(&vq));
	assert_int_equal(used_event(), 65535);
	post_and_take(1, &head);
	hw_complete(0, (uint16_t)head, 0);
	assert_int_equal(vq.used->idx, 0);
	assert_int_equal(hw.q[0].interrupts, 1);
	assert_non_null(virtq_get(&vq, &len));
	/* Disarmed at last_used 0: used_event 65535, already passed. */
	virtq_irq_disable(&vq);
	assert_int_equal(used_event(), 65535);
	post_and_take(1, &head);
	hw_complete(0, (uint16_t)head, 0);
	assert_int_equal(hw.q[0].interrupts, 1);
	assert_non_null(virtq_get(&vq, &len));
	/* Armed at 1 after the wrap. */
	assert_false(virtq_irq_enable(&vq));
	post_and_take(1, &head);
	hw_complete(0, (uint16_t)head, 0);
	assert_int_equal(hw.q[0].interrupts, 2);
}

/*
 * The lost wake-up. The device returns a chain while the interrupt is
 * off (the poller's last round had just found the ring empty), so it
 * does not interrupt; then the poller arms. Only the arm's re-read of the
 * used index can see that chain: nothing will ever announce it. Without
 * the re-read (virtq_irq_enable returning false here) this fails, at the
 * wrap point too.
 */
static void check_arm_sees_what_came_before_it(void)
{
	int head;

	post_and_take(1, &head);
	hw.q[0].interrupts = 0;
	hw_complete(0, (uint16_t)head, 0);
	assert_int_equal(hw.q[0].interrupts, 0);
	assert_true(virtq_irq_enable(&vq));
	assert_int_equal(hw.q[0].interrupts, 0); /* still none coming */
}

static void test_arm_rereads_and_sees_a_chain_returned_before_it(void **state)
{
	uint32_t len;

	(void)state;
	check_arm_sees_what_came_before_it();
	assert_non_null(virtq_get(&vq, &len));
	assert_false(virtq_irq_enable(&vq));
	virtq_irq_disable(&vq);
	advance_to(65535);
	check_arm_sees_what_came_before_it();
}

/* -------------------------------------------- through the virtio-net driver */

static void probe_event_idx(bool allowed)
{
	hw.features |= EVENT_IDX_BIT;
	vnet_allowed.event_idx = allowed;
	probe_one();
}

static void test_event_idx_negotiated_when_offered_and_allowed(void **state)
{
	(void)state;
	probe_event_idx(true);
	assert_true(hw.driver_features & EVENT_IDX_BIT);
	assert_non_null(strstr(printed, "virtio-net: eth0 event_idx=on\n"));
	for (int qi = 0; qi < 2; qi++) {
		assert_int_equal(hw.q[qi].avail->flags, 0);
		assert_int_equal(hw.q[qi].avail->ring[hw.q[qi].size], 0xffff);
	}
}

static void test_event_idx_switched_off_uses_the_flags(void **state)
{
	(void)state;
	probe_event_idx(false);
	assert_false(hw.driver_features & EVENT_IDX_BIT);
	assert_non_null(
		strstr(printed, "virtio-net: eth0 event_idx=off(switch)\n"));
	assert_int_equal(hw.q[0].avail->flags, VIRTQ_AVAIL_F_NO_INTERRUPT);
	assert_false(dev->ops->irq_arm(dev, 0));
	assert_int_equal(hw.q[0].avail->flags, 0);
}

static void test_event_idx_not_offered_is_not_negotiated(void **state)
{
	(void)state;
	vnet_allowed.event_idx = true;
	probe_one();
	assert_false(hw.driver_features & EVENT_IDX_BIT);
	assert_non_null(strstr(
		printed, "virtio-net: eth0 event_idx=off(not-offered)\n"));
}

/* The MSI-X handler turns the pair off by used_event, irq_arm turns it
 * on, and the device's next RX chain interrupts exactly once. */
static void test_pair_interrupt_masks_and_arms_by_used_event(void **state)
{
	struct virtq *rxq;
	int head;

	(void)state;
	hw.msix_size = 2;
	probe_event_idx(true);
	rxq = &((struct vnet *)dev->priv)->pairs[0].rxq;
	assert_int_equal(dev->ops->irq_setup(dev), 0);
	dev->ops->rx_poll(dev, 0, 64); /* posts the ring */
	assert_false(dev->ops->irq_arm(dev, 0));
	assert_int_equal(*virtq_used_event(rxq), rxq->last_used);
	head = hw_take(VNET_RXQ(0));
	hw_complete(VNET_RXQ(0), (uint16_t)head, 12 + 60);
	assert_int_equal(hw.q[VNET_RXQ(0)].interrupts, 1);
	irq_fn[1](irq_arg[1]); /* the pair's entry */
	assert_int_equal(hw.wakes[0], 1);
	assert_int_equal(*virtq_used_event(rxq),
			 (uint16_t)(rxq->last_used - 1));
	assert_int_equal(dev->ops->rx_poll(dev, 0, 64), 1);
	page_frag_free(rx_frame);
	head = hw_take(VNET_RXQ(0));
	hw_complete(VNET_RXQ(0), (uint16_t)head, 12 + 60);
	assert_int_equal(hw.q[VNET_RXQ(0)].interrupts, 1); /* masked */
	assert_true(dev->ops->irq_arm(dev, 0)); /* ... and it is seen */
	assert_int_equal(dev->ops->rx_poll(dev, 0, 64), 1);
	page_frag_free(rx_frame);
}

/* INTx set-up acknowledges an ISR left set before it (the control
 * queue's answer at boot), so the level line starts deasserted. */
static void test_intx_setup_acknowledges_a_stale_isr(void **state)
{
	(void)state;
	hw.msix_size = 0; /* INTx */
	probe_event_idx(true);
	hw.isr = 1;
	assert_int_equal(dev->ops->irq_setup(dev), 0);
	assert_true(hw.line_requested);
	assert_int_equal(hw.isr, 0);
}

/* MSI-X is given up when the device refuses a queue's vector after MSI-X
 * is on: MSI-X off again, the INTx pin on, the device told to use no
 * vector, every vector given back, and the line requested instead. */
static void test_a_refused_vector_falls_back_to_intx_whole(void **state)
{
	(void)state;
	hw.msix_size = 2;
	hw.refuse_q_vector = VNET_TXQ(0) + 1;
	probe_event_idx(true);
	assert_int_equal(dev->ops->irq_setup(dev), 0);
	assert_false(hw.msix_on);
	assert_false(hw.intx_off);
	assert_true(hw.line_requested);
	assert_string_equal(dev->queues[0].irq_mode, "intx");
	assert_int_equal(hw.vectors_taken, 2);
	assert_int_equal(hw.vectors_freed, 2);
	assert_int_equal(hw.cfg_vec, VIRTIO_MSI_NO_VECTOR);
	assert_int_equal(hw.q_vec[VNET_RXQ(0)], VIRTIO_MSI_NO_VECTOR);
	assert_int_equal(hw.q_vec[VNET_TXQ(0)], VIRTIO_MSI_NO_VECTOR);
	/* and the line works: the device's interrupt wakes the queue */
	hw.isr = 1;
	irq_fn[0](irq_arg[0]);
	assert_int_equal(hw.wakes[0], 1);
}

/* Out of kernel vectors half-way: the ones taken are given back and
 * MSI-X is never turned on. */
static void test_running_out_of_vectors_gives_back_the_taken_ones(void **s)
{
	(void)s;
	hw.msix_size = 2;
	hw.msi_fail_after = 2; /* the config's vector, not the pair's */
	probe_event_idx(true);
	assert_int_equal(dev->ops->irq_setup(dev), 0);
	assert_false(hw.msix_on);
	assert_false(hw.intx_off);
	assert_int_equal(hw.vectors_taken, 1);
	assert_int_equal(hw.vectors_freed, 1);
	assert_string_equal(dev->queues[0].irq_mode, "intx");
}

/* MSI-X that works keeps its vectors and INTx off. */
static void test_msix_set_up_keeps_its_vectors(void **state)
{
	(void)state;
	hw.msix_size = 2;
	probe_event_idx(true);
	assert_int_equal(dev->ops->irq_setup(dev), 0);
	assert_true(hw.msix_on);
	assert_true(hw.intx_off);
	assert_int_equal(hw.vectors_freed, 0);
	assert_string_equal(dev->queues[0].irq_mode, "msix");
}

/* Kicks sent and suppressed, per queue, in the stats and their JSON. */
static void test_notify_counters_reach_the_stats(void **state)
{
	static const uint8_t payload[60];
	struct netdev_sg sg = {payload, sizeof(payload)};
	char json[4096];
	int head;

	(void)state;
	probe_event_idx(true);
	dev->ops->rx_poll(dev, 0, 64); /* avail_event 0: notified */
	assert_int_equal(dev->queues[0].stats.rx_notifies, 1);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(dev->ops->xmit(dev, 0, &sg, 1,
						(void *)(uintptr_t)(i + 1)),
				 0);
		dev->ops->tx_flush(dev, 0);
	}
	/* The first passed avail_event 0; the device never moved it. */
	assert_int_equal(dev->queues[0].stats.tx_notifies, 1);
	assert_int_equal(dev->queues[0].stats.tx_notifies_suppressed, 2);
	assert_int_equal(hw.q[VNET_TXQ(0)].notified, 1);
	/* The device caught up with all three and waits for the fourth. */
	for (int i = 0; i < 3; i++) {
		head = hw_take(VNET_TXQ(0));
		hw_complete(VNET_TXQ(0), (uint16_t)head, 0);
	}
	hw_set_avail_event(VNET_TXQ(0), 3);
	assert_int_equal(dev->ops->xmit(dev, 0, &sg, 1, (void *)4), 0);
	dev->ops->tx_flush(dev, 0);
	assert_int_equal(dev->queues[0].stats.tx_notifies, 2);
	assert_true(netdev_stats_json(json, sizeof(json)) < (int)sizeof(json));
	assert_non_null(strstr(json, "\"tx_notifies\":2"));
	assert_non_null(strstr(json, "\"tx_notifies_suppressed\":2"));
	assert_non_null(strstr(json, "\"rx_notifies\":1"));
}

#define TE(fn) cmocka_unit_test_setup_teardown(fn, setup_event_queue, teardown)
#define TB(fn) cmocka_unit_test_setup_teardown(fn, setup_boot, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		TB(test_need_event_rule_and_its_wrap),
		TE(test_kick_notifies_only_when_avail_event_is_passed),
		TE(test_kick_rule_across_the_avail_index_wrap),
		TE(test_interrupt_only_past_used_event),
		TE(test_a_batch_published_at_once_interrupts_once),
		TE(test_interrupt_rule_across_the_used_index_wrap),
		TE(test_arm_rereads_and_sees_a_chain_returned_before_it),
		TB(test_event_idx_negotiated_when_offered_and_allowed),
		TB(test_event_idx_switched_off_uses_the_flags),
		TB(test_event_idx_not_offered_is_not_negotiated),
		TB(test_pair_interrupt_masks_and_arms_by_used_event),
		TB(test_intx_setup_acknowledges_a_stale_isr),
		TB(test_a_refused_vector_falls_back_to_intx_whole),
		TB(test_running_out_of_vectors_gives_back_the_taken_ones),
		TB(test_msix_set_up_keeps_its_vectors),
		TB(test_notify_counters_reach_the_stats),
	};

	signal(SIGALRM, on_alarm);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
