/*
 * The split virtqueue and the virtio-net driver logic against a simulated
 * virtio device that may be broken or hostile (virtq_sim.h: the driver's
 * sources compiled in, the transport replaced at its function seam).
 *
 * The test plays the device: it reads the avail ring and follows the
 * descriptors the driver wrote, marks their buffers in flight (a
 * descriptor handed out again while in flight fails the test), writes
 * used entries, and, when hostile, scribbles over the descriptor table
 * (next out of range, cycles, links into other live chains, cleared NEXT
 * flags) or returns ids it was never given. Ring memory comes from the
 * real host mm library. A driver that loops on a cycle is caught by an
 * alarm, so a hang is a failure, not a stuck `make test`.
 */
#include "virtq_sim.h"

/* ------------------------------------------------ virtqueue: the rules */

static void test_chains_come_back_with_their_cookie_and_length(void **state)
{
	int h1, h2, h3;
	uint32_t len;

	(void)state;
	assert_int_equal(add_chain(1, 1), 0);
	assert_int_equal(add_chain(2, 2), 0);
	assert_int_equal(add_chain(3, 3), 0);
	assert_int_equal(vq.num_free, VQ_NUM - 6);
	virtq_kick(&vq);
	assert_int_equal(hw.q[0].notified, 1);
	h1 = hw_take(0);
	h2 = hw_take(0);
	h3 = hw_take(0);
	assert_int_equal(hw.q[0].chain_n[h2], 2);
	assert_int_equal(hw.q[0].chain_n[h3], 3);
	hw_complete(0, (uint16_t)h3, 30);
	hw_complete(0, (uint16_t)h1, 10);
	hw_complete(0, (uint16_t)h2, 20);
	assert_ptr_equal(virtq_get(&vq, &len), (void *)3);
	assert_int_equal(len, 30);
	assert_ptr_equal(virtq_get(&vq, &len), (void *)1);
	assert_ptr_equal(virtq_get(&vq, &len), (void *)2);
	assert_int_equal(len, 20);
	assert_null(virtq_get(&vq, &len));
	assert_int_equal(vq.bad_used, 0);
	assert_whole_ring_usable();
}

static void test_ring_wraps_many_times_without_double_handout(void **state)
{
	uint32_t len;

	(void)state;
	srand(11);
	for (int round = 0; round < 500; round++) {
		int n = 1 + rand() % 3, heads[VQ_NUM], nh = 0;

		while (vq.num_free >= n) {
			assert_int_equal(add_chain(n, (uintptr_t)round + 1), 0);
			nh++;
		}
		virtq_kick(&vq);
		for (int k = 0; k < nh; k++)
			heads[k] = hw_take(0);
		for (int k = nh - 1; k >= 0; k--) /* out of order */
			hw_complete(0, (uint16_t)heads[k], 1);
		for (int k = 0; k < nh; k++)
			assert_ptr_equal(virtq_get(&vq, &len),
					 (void *)((uintptr_t)round + 1));
		assert_int_equal(vq.num_free, VQ_NUM);
	}
	assert_int_equal(vq.bad_used, 0);
}

static void test_add_refuses_null_cookie_and_too_long_chains(void **state)
{
	struct virtq_buf b = {0x1000, 64, 0};

	(void)state;
	assert_int_equal(virtq_add(&vq, &b, 1, NULL), -1);
	assert_int_equal(add_chain(0, 1), -1);
	assert_int_equal(add_chain(VQ_NUM - 1, 1), 0);
	assert_int_equal(add_chain(2, 2), -1);
	assert_int_equal(vq.num_free, 1);
}

/* ----------------------------------- virtqueue: a hostile device's links */

static void test_next_out_of_range_is_never_followed(void **state)
{
	int a, b;
	uint32_t len;

	(void)state;
	add_chain(1, 1);
	add_chain(2, 2);
	virtq_kick(&vq);
	a = hw_take(0);
	b = hw_take(0);
	hw.q[0].desc[a].flags |= VIRTQ_DESC_F_NEXT;
	hw.q[0].desc[a].next = 5000;
	hw.q[0].desc[hw.q[0].chain[b][1]].flags |= VIRTQ_DESC_F_NEXT;
	hw.q[0].desc[hw.q[0].chain[b][1]].next = 0xffff;
	hw_complete(0, (uint16_t)a, 0);
	hw_complete(0, (uint16_t)b, 0);
	assert_ptr_equal(virtq_get(&vq, &len), (void *)1);
	assert_ptr_equal(virtq_get(&vq, &len), (void *)2);
	assert_whole_ring_usable();
}

static void test_cycle_in_the_descriptor_table_does_not_hang(void **state)
{
	int a, b;
	uint32_t len;

	(void)state;
	add_chain(1, 1);
	add_chain(3, 2);
	virtq_kick(&vq);
	a = hw_take(0);
	b = hw_take(0);
	hw.q[0].desc[a].flags |= VIRTQ_DESC_F_NEXT;
	hw.q[0].desc[a].next = (uint16_t)a; /* a self-loop */
	/* and a loop back to the head from the chain's end */
	hw.q[0].desc[hw.q[0].chain[b][2]].flags |= VIRTQ_DESC_F_NEXT;
	hw.q[0].desc[hw.q[0].chain[b][2]].next = (uint16_t)b;
	hw_complete(0, (uint16_t)a, 0);
	hw_complete(0, (uint16_t)b, 0);
	assert_ptr_equal(virtq_get(&vq, &len), (void *)1);
	assert_ptr_equal(virtq_get(&vq, &len), (void *)2);
	assert_whole_ring_usable();
}

static void test_link_into_a_live_chain_does_not_free_it(void **state)
{
	int a, b;
	uint32_t len;

	(void)state;
	add_chain(1, 1);
	add_chain(2, 2);
	virtq_kick(&vq);
	a = hw_take(0);
	b = hw_take(0);
	/* a's head now claims to continue into b, which is still in flight */
	hw.q[0].desc[a].flags |= VIRTQ_DESC_F_NEXT;
	hw.q[0].desc[a].next = (uint16_t)b;
	hw_complete(0, (uint16_t)a, 0);
	assert_ptr_equal(virtq_get(&vq, &len), (void *)1);
	assert_int_equal(vq.num_free, VQ_NUM - 2);
	/* Fill the ring: b's descriptors must not be handed out (hw_take
	 * fails the test on a descriptor in flight). */
	while (add_chain(1, 7) == 0)
		;
	virtq_kick(&vq);
	while (hw_take(0) >= 0)
		;
	assert_int_equal(vq.num_free, 0);
}

static void test_cleared_next_flag_does_not_leak_descriptors(void **state)
{
	int a;
	uint32_t len;

	(void)state;
	add_chain(3, 1);
	virtq_kick(&vq);
	a = hw_take(0);
	hw.q[0].desc[a].flags &= (uint16_t)~VIRTQ_DESC_F_NEXT;
	hw_complete(0, (uint16_t)a, 0);
	assert_ptr_equal(virtq_get(&vq, &len), (void *)1);
	assert_whole_ring_usable();
}

static void test_free_descriptors_scribbled_on_are_not_followed(void **state)
{
	int a;
	uint32_t len;

	(void)state;
	add_chain(2, 1);
	virtq_kick(&vq);
	a = hw_take(0);
	hw_complete(0, (uint16_t)a, 0);
	assert_ptr_equal(virtq_get(&vq, &len), (void *)1);
	/* The device writes garbage over the whole table, free ones too. */
	for (int i = 0; i < VQ_NUM; i++) {
		hw.q[0].desc[i].next = (uint16_t)(0xfff0 + i);
		hw.q[0].desc[i].flags = 0xffff;
	}
	/* Chains of two: the links the device sees are the driver's own. */
	for (int k = 0; k < VQ_NUM / 2; k++)
		assert_int_equal(add_chain(2, 10 + k), 0);
	virtq_kick(&vq);
	for (int k = 0; k < VQ_NUM / 2; k++) {
		a = hw_take(0);
		assert_int_equal(hw.q[0].chain_n[a], 2);
	}
	assert_int_equal(vq.num_free, 0);
}

/* -------------------------------------- virtqueue: a hostile device's ids */

static void test_used_id_out_of_range_is_counted_and_skipped(void **state)
{
	int a;
	uint32_t len;

	(void)state;
	add_chain(1, 1);
	virtq_kick(&vq);
	a = hw_take(0);
	hw_used_raw(0, VQ_NUM + 3, 0);
	hw_used_raw(0, 0xffffffffu, 0);
	hw_complete(0, (uint16_t)a, 5);
	assert_ptr_equal(virtq_get(&vq, &len), (void *)1);
	assert_int_equal(len, 5);
	assert_int_equal(vq.bad_used, 2);
	assert_whole_ring_usable();
}

static void test_used_id_of_an_inner_descriptor_is_skipped(void **state)
{
	int a;
	uint32_t len;

	(void)state;
	add_chain(3, 1);
	virtq_kick(&vq);
	a = hw_take(0);
	hw_used_raw(0, hw.q[0].chain[a][1], 0);
	hw_used_raw(0, hw.q[0].chain[a][2], 0);
	assert_null(virtq_get(&vq, &len));
	assert_int_equal(vq.bad_used, 2);
	assert_int_equal(vq.num_free, VQ_NUM - 3); /* still in flight */
	hw_complete(0, (uint16_t)a, 0);
	assert_ptr_equal(virtq_get(&vq, &len), (void *)1);
	assert_whole_ring_usable();
}

static void test_used_id_returned_twice_is_skipped_once_done(void **state)
{
	int a;
	uint32_t len;

	(void)state;
	add_chain(2, 1);
	virtq_kick(&vq);
	a = hw_take(0);
	hw_complete(0, (uint16_t)a, 0);
	hw_used_raw(0, (uint32_t)a, 0);
	assert_ptr_equal(virtq_get(&vq, &len), (void *)1);
	assert_null(virtq_get(&vq, &len));
	assert_int_equal(vq.bad_used, 1);
	assert_whole_ring_usable();
}

/* ------------------------------------------ virtq_create: sizes, cleanup */

static void test_modern_size_is_capped_at_the_driver_max(void **state)
{
	(void)state;
	hw.q[0].max = 1024;
	virtio_pci_init(&vp, &fake_pci, true);
	assert_int_equal(virtq_create(&vq, &vp, 0, 256, 0), 0);
	assert_int_equal(vq.num, 256);
	assert_int_equal(hw.q[0].size, 256);
}

static void test_legacy_size_is_the_device_size(void **state)
{
	(void)state;
	hw.modern = false;
	hw.q[0].max = 512;
	virtio_pci_init(&vp, &fake_pci, true);
	assert_int_equal(virtq_create(&vq, &vp, 0, 256, 0), 0);
	assert_int_equal(vq.num, 512);
}

/* A device size that is not a power of two is refused, reported, and
 * leaves nothing allocated; the device is never given rings. */
static void check_size_refused(bool modern, uint16_t size)
{
	struct mem_use before;

	hw.modern = modern;
	hw.q[0].max = size;
	virtio_pci_init(&vp, &fake_pci, true);
	before = mem_use();
	assert_int_equal(virtq_create(&vq, &vp, 0, 256, 0), -1);
	assert_non_null(strstr(printed, "not a power of two"));
	assert_false(hw.q[0].set_up);
	assert_mem_use_equal(mem_use(), before);
}

static void test_modern_size_not_a_power_of_two_is_refused(void **state)
{
	(void)state;
	check_size_refused(true, 300);
}

static void test_legacy_size_not_a_power_of_two_is_refused(void **state)
{
	(void)state;
	check_size_refused(false, 100);
}

static void test_refused_queue_leaves_nothing_allocated(void **state)
{
	struct mem_use before;

	(void)state;
	hw.q[0].max = 256;
	virtio_pci_init(&vp, &fake_pci, true);
	/* Warm the caches the queue's memory comes from. */
	assert_int_equal(virtq_create(&vq, &vp, 0, 256, 0), 0);
	virtq_destroy(&vq);
	before = mem_use();
	hw.q[0].refuse = true;
	assert_int_equal(virtq_create(&vq, &vp, 0, 256, 0), -1);
	assert_non_null(strstr(printed, "refused queue 0"));
	assert_mem_use_equal(mem_use(), before);
}

/* ------------------------------------------------------ virtio-net probe */

static void test_probe_fails_cleanly_when_tx_queue_is_absent(void **state)
{
	struct mem_use before;

	(void)state;
	hw.q[0].max = 256; /* RX is there, TX is not */
	/* The first probe warms the caches the rings come from. */
	assert_int_equal(virtio_net_probe(true, 1), 0);
	before = mem_use();
	printed[0] = '\0';
	hw.resets = 0;
	assert_int_equal(virtio_net_probe(true, 1), 0);
	assert_non_null(strstr(printed, "queue 1 absent"));
	/* The device had the RX ring: it was reset (after the one of the
	 * negotiation) before the ring's memory went back, and told the
	 * driver gave up. */
	assert_int_equal(hw.resets, 2);
	assert_false(hw.q[0].set_up);
	assert_true(hw.status & VIRTIO_STATUS_FAILED);
	assert_false(hw.status & VIRTIO_STATUS_DRIVER_OK);
	assert_int_equal(netdev_count(), 0);
	assert_mem_use_equal(mem_use(), before);
}

static void
test_rings_stay_allocated_when_the_device_does_not_reset(void **state)
{
	struct mem_use before;

	(void)state;
	hw.q[0].max = 256;
	hw.resets_that_work = 1; /* negotiation's reset only */
	before = mem_use();
	assert_int_equal(virtio_net_probe(true, 1), 0);
	assert_non_null(strstr(printed, "queue memory stays allocated"));
	/* The device may still write into the RX ring: it was not freed. */
	assert_true(hw.q[0].set_up);
	assert_true(mem_use().free_pages < before.free_pages);
	assert_true(hw.status & VIRTIO_STATUS_FAILED);
}

static void test_rx_and_tx_round_trip(void **state)
{
	static const uint8_t payload[60] = {1, 2, 3};
	struct netdev_sg sg = {payload, sizeof(payload)};
	uint8_t *buf;
	int head;

	(void)state;
	probe_one();
	dev->ops->rx_poll(dev, 0, 64); /* posts the RX ring */
	assert_int_equal(dev->queues[0].stats.rx_bufs_posted, 256);
	head = hw_take(VNET_RXQ(0));
	buf = (uint8_t *)(uintptr_t)hw.q[VNET_RXQ(0)].desc[head].addr;
	memset(buf, 0, 12);
	memcpy(buf + 12, payload, sizeof(payload));
	hw_complete(VNET_RXQ(0), (uint16_t)head, 12 + sizeof(payload));
	assert_int_equal(dev->ops->rx_poll(dev, 0, 64), 1);
	assert_ptr_equal(rx_frame, buf + 12);
	assert_int_equal(rx_len, sizeof(payload));
	page_frag_free(rx_frame);

	assert_int_equal(dev->ops->xmit(dev, 0, &sg, 1, (void *)0x77), 0);
	head = hw_take(VNET_TXQ(0));
	assert_int_equal(hw.q[VNET_TXQ(0)].chain_n[head], 2); /* hdr + frame */
	assert_false(dev->ops->tx_pending(dev, 0)); /* still in flight */
	hw_complete(VNET_TXQ(0), (uint16_t)head, 0);
	assert_true(dev->ops->tx_pending(dev, 0));
	assert_int_equal(dev->ops->tx_reap(dev, 0), 1);
	assert_false(dev->ops->tx_pending(dev, 0));
	assert_ptr_equal(tx_cookie, (void *)0x77);
	assert_int_equal(dev->queues[0].stats.tx_inflight, 0);
}

static int desc_addr_cmp(const void *a, const void *b)
{
	const struct virtq_desc *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * netdev.h's RX contract: the NETDEV_RX_HEADROOM bytes before every
 * buffer the device may write belong to that buffer's own allocation (the
 * stack puts its pbuf there, net/net_mem.c). Sorted by address, no posted
 * buffer overlaps the next one's headroom, and each headroom is in its
 * buffer's own page block.
 */
static void test_rx_buffers_leave_the_stack_its_headroom(void **state)
{
	static struct virtq_desc d[256];
	const struct virtq_desc *ring;

	(void)state;
	probe_one();
	dev->ops->rx_poll(dev, 0, 64);
	assert_int_equal(dev->queues[0].stats.rx_bufs_posted, 256);
	ring = hw.q[VNET_RXQ(0)].desc;
	memcpy(d, ring, sizeof(d));
	qsort(d, 256, sizeof(d[0]), desc_addr_cmp);
	for (int i = 0; i < 256; i++) {
		const uint8_t *buf = (const uint8_t *)(uintptr_t)d[i].addr;

		assert_int_equal(d[i].len, RX_BUF_LEN);
		assert_ptr_equal(virt_to_head_page(buf - NETDEV_RX_HEADROOM),
				 virt_to_head_page(buf + d[i].len - 1));
		if (i + 1 < 256)
			assert_true(d[i].addr + d[i].len + NETDEV_RX_HEADROOM <=
				    d[i + 1].addr);
	}
}

static void test_bogus_completions_are_counted_in_the_stats(void **state)
{
	char json[2048];

	(void)state;
	probe_one();
	dev->ops->rx_poll(dev, 0, 64);
	hw_used_raw(VNET_RXQ(0), 9999, 100);
	hw_used_raw(VNET_TXQ(0), 3, 0); /* nothing in flight on TX */
	assert_int_equal(dev->ops->rx_poll(dev, 0, 64), 0);
	assert_int_equal(dev->ops->tx_reap(dev, 0), 0);
	assert_int_equal(dev->queues[0].stats.rx_bad_completions, 1);
	assert_int_equal(dev->queues[0].stats.tx_bad_completions, 1);
	assert_int_equal(dev->queues[0].stats.rx_packets, 0);
	assert_true(netdev_stats_json(json, sizeof(json)) < (int)sizeof(json));
	assert_non_null(strstr(json, "\"bad_completions\":2"));
}

static void test_xmit_refuses_empty_frames_and_null_cookies(void **state)
{
	static const uint8_t payload[60];
	struct netdev_sg sg = {payload, sizeof(payload)};

	(void)state;
	probe_one();
	assert_int_equal(dev->ops->xmit(dev, 0, &sg, 0, (void *)1), -1);
	assert_int_equal(dev->ops->xmit(dev, 0, &sg, 1, NULL), -1);
	assert_int_equal(dev->queues[0].stats.tx_packets, 0);
	assert_int_equal(hw_take(VNET_TXQ(0)), -1);
}

/* ------------------------------------------------------- multiqueue */

/* 4 CPUs on 2 nodes: CPUs 0-1 on node 0, CPUs 2-3 on node 1. */
static int setup_mq(void **state)
{
	static const int cpu_node[4] = {0, 0, 1, 1};

	setup_boot(state);
	mm_host_shutdown();
	assert_int_equal(mm_host_boot(2, 32u << 20, 4, cpu_node), 0);
	return 0;
}

/* The device offers MQ (and the control queue it needs) with this many
 * pairs of 256 entries, the control queue after them, and acks OK. */
static void hw_offer_mq(uint16_t pairs)
{
	hw.features |= 1ull << VIRTIO_NET_F_CTRL_VQ | 1ull << VIRTIO_NET_F_MQ;
	hw.max_pairs = pairs;
	for (int q = 0; q < 2 * pairs; q++)
		hw.q[q].max = 256;
	hw.q[2 * pairs].max = 64;
	hw.ctrl_ack = 0; /* VIRTIO_NET_OK */
}

static int node_of(const void *p)
{
	return page_to_nid(virt_to_page(p));
}

static void test_mq_device_gets_one_pair_per_cpu_on_its_node(void **state)
{
	(void)state;
	hw_offer_mq(4);
	assert_int_equal(virtio_net_probe(true, 4), 1);
	dev = netdev_get(0);
	assert_int_equal(dev->nqueues, 4);
	assert_true(hw.driver_features & 1ull << VIRTIO_NET_F_MQ);
	/* One VQ_PAIRS_SET(4) on the control queue, after all the pairs. */
	assert_true(hw.q[8].set_up);
	assert_int_equal(hw.ctrl_cmds, 1);
	assert_int_equal(hw.ctrl_class, 4);   /* VIRTIO_NET_CTRL_MQ */
	assert_int_equal(hw.ctrl_command, 0); /* VQ_PAIRS_SET */
	assert_int_equal(hw.ctrl_pairs, 4);
	for (int i = 0; i < 4; i++) {
		assert_true(hw.q[VNET_RXQ(i)].set_up);
		assert_true(hw.q[VNET_TXQ(i)].set_up);
		assert_int_equal(dev->queues[i].cpu, i);
		assert_int_equal(dev->queues[i].node, i / 2);
		assert_int_equal(node_of(vnet0()->pairs[i].rxq.mem), i / 2);
		assert_int_equal(node_of(vnet0()->pairs[i].txq.mem), i / 2);
		assert_int_equal(node_of(vnet0()->pairs[i].tx_hdrs), i / 2);
	}
	assert_non_null(strstr(printed, "eth0 queue 3 rx=6 tx=7 cpu=3 node=1"));
	assert_null(strstr(printed, "own no queue"));
}

static void test_mq_refused_by_the_device_leaves_one_pair(void **state)
{
	(void)state;
	hw_offer_mq(4);
	hw.ctrl_ack = 1; /* VIRTIO_NET_ERR */
	assert_int_equal(virtio_net_probe(true, 4), 1);
	assert_int_equal(netdev_get(0)->nqueues, 1);
	assert_non_null(strstr(printed, "refused 4 queue pairs (ack 1)"));
	assert_non_null(strstr(printed, "cpus 1-3 own no queue"));
}

static void test_mq_command_never_answered_leaves_one_pair(void **state)
{
	(void)state;
	hw_offer_mq(4);
	hw.ctrl_silent = true;
	assert_int_equal(virtio_net_probe(true, 4), 1);
	assert_int_equal(netdev_get(0)->nqueues, 1);
	assert_non_null(strstr(printed, "refused 4 queue pairs (ack -1)"));
}

/* The device offers RSS too (QEMU's: a 40-byte key, 128 entries, the
 * hash kinds the driver wants and more), and the driver may use it. */
static void hw_offer_rss(uint16_t pairs)
{
	hw_offer_mq(pairs);
	hw.features |= 1ull << VIRTIO_NET_F_RSS;
	hw.rss_max_key = 40;
	hw.rss_max_table = 128;
	hw.rss_types = 0x1ff;
	vnet_allowed.rss = true;
}

static uint32_t le16_at(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

/* The last command was RSS_CONFIG with this table length, entry i naming
 * pattern[i % n], pairs as max_tx_vq and the default key. */
static void assert_rss_command(int len, const uint8_t *pattern, int n,
			       int pairs)
{
	const uint8_t *d = hw.ctrl_data;

	assert_int_equal(hw.ctrl_class, 4);   /* VIRTIO_NET_CTRL_MQ */
	assert_int_equal(hw.ctrl_command, 1); /* RSS_CONFIG */
	assert_int_equal(hw.ctrl_len, 8 + 2 * len + 3 + 40);
	/* IPv4, TCPv4, UDPv4, IPv6, TCPv6, UDPv6; no _EX kinds */
	assert_int_equal(le16_at(d) | le16_at(d + 2) << 16, 0x3f);
	assert_int_equal(le16_at(d + 4), len - 1); /* the mask */
	assert_int_equal(le16_at(d + 6), 0);	   /* unclassified: queue 0 */
	for (int i = 0; i < len; i++)
		assert_int_equal(le16_at(d + 8 + 2 * i), pattern[i % n]);
	assert_int_equal(le16_at(d + 8 + 2 * len), pairs);
	assert_int_equal(d[8 + 2 * len + 2], 40);
	assert_memory_equal(d + 8 + 2 * len + 3, netdev_rss_default_key, 40);
}

static void test_rss_programs_key_table_and_pairs_in_one_command(void **state)
{
	static const uint8_t spread[] = {0, 1, 2, 3};

	(void)state;
	hw_offer_rss(4);
	assert_int_equal(virtio_net_probe(true, 4), 1);
	dev = netdev_get(0);
	assert_true(hw.driver_features & 1ull << VIRTIO_NET_F_RSS);
	/* RSS_CONFIG sets the pair count: no VQ_PAIRS_SET after it */
	assert_int_equal(hw.ctrl_cmds, 1);
	assert_rss_command(128, spread, 4, 4);
	assert_int_equal(dev->nqueues, 4);
	assert_int_equal(dev->rss_table_len, 128);
	assert_memory_equal(dev->rss_key, netdev_rss_default_key, 40);
	for (int i = 0; i < 128; i++)
		assert_int_equal(dev->rss_table[i], i % 4);
	assert_non_null(strstr(printed, "eth0 rss=on table=128 key=40"));
}

static void test_rss_refused_falls_back_to_the_pairs_command(void **state)
{
	(void)state;
	hw_offer_rss(4);
	hw.ctrl_refuse_rss = true;
	assert_int_equal(virtio_net_probe(true, 4), 1);
	dev = netdev_get(0);
	assert_int_equal(hw.ctrl_cmds, 2);
	assert_int_equal(hw.ctrl_command, 0); /* then VQ_PAIRS_SET(4) */
	assert_int_equal(hw.ctrl_pairs, 4);
	assert_int_equal(dev->nqueues, 4);
	assert_int_equal(dev->rss_table_len, 0); /* nothing to steer by */
	assert_non_null(strstr(printed, "eth0 rss=off(refused)"));
}

static void test_rss_table_is_the_devices_power_of_two(void **state)
{
	static const uint8_t two[] = {0, 1};

	(void)state;
	hw_offer_rss(2);
	hw.rss_max_table = 100; /* the driver's mask needs a power of two */
	assert_int_equal(virtio_net_probe(true, 2), 1);
	assert_rss_command(64, two, 2, 2);
	assert_int_equal(netdev_get(0)->rss_table_len, 64);
}

static void test_rss_with_a_short_key_is_not_used(void **state)
{
	(void)state;
	hw_offer_rss(2);
	hw.rss_max_key = 20;
	assert_int_equal(virtio_net_probe(true, 2), 1);
	assert_int_equal(hw.ctrl_cmds, 1);
	assert_int_equal(hw.ctrl_command, 0); /* VQ_PAIRS_SET only */
	assert_int_equal(netdev_get(0)->nqueues, 2);
	assert_int_equal(netdev_get(0)->rss_table_len, 0);
	assert_non_null(strstr(printed, "eth0 rss=off(key too short)"));
}

static void test_rss_switched_off_is_not_negotiated(void **state)
{
	(void)state;
	hw_offer_rss(2);
	vnet_allowed.rss = false;
	assert_int_equal(virtio_net_probe(true, 2), 1);
	assert_false(hw.driver_features & 1ull << VIRTIO_NET_F_RSS);
	assert_int_equal(hw.ctrl_command, 0);
	assert_non_null(strstr(printed, "eth0 rss=off(switch)"));
}

static void test_rss_table_change_is_sent_and_checked(void **state)
{
	static const uint8_t swap[] = {1, 0};
	static const uint8_t bad_len[] = {0, 1, 0};
	static const uint8_t bad_queue[] = {0, 2};

	(void)state;
	hw_offer_rss(2);
	assert_int_equal(virtio_net_probe(true, 2), 1);
	dev = netdev_get(0);
	assert_int_equal(dev->ops->set_rss_table(dev, swap, 2), 0);
	assert_int_equal(hw.ctrl_cmds, 2);
	assert_rss_command(128, swap, 2, 2);
	assert_int_equal(dev->rss_table[0], 1);
	/* not a power of two, a queue it does not have: refused, unsent */
	assert_int_equal(dev->ops->set_rss_table(dev, bad_len, 3), -1);
	assert_int_equal(dev->ops->set_rss_table(dev, bad_queue, 2), -1);
	assert_int_equal(hw.ctrl_cmds, 2);
	/* refused by the device: the table stays what the device holds */
	hw.ctrl_refuse_rss = true;
	assert_int_equal(dev->ops->set_rss_table(dev, swap + 1, 1), -1);
	assert_int_equal(hw.ctrl_cmds, 3);
	assert_int_equal(dev->rss_table[0], 1);
	assert_int_equal(dev->rss_table[1], 0);
}

static void test_cpus_beyond_the_pairs_own_no_queue(void **state)
{
	(void)state;
	hw_offer_mq(2);
	assert_int_equal(virtio_net_probe(true, 4), 1);
	dev = netdev_get(0);
	assert_int_equal(dev->nqueues, 2);
	assert_true(hw.q[4].set_up); /* control queue after the 2 pairs */
	assert_int_equal(hw.ctrl_pairs, 2);
	assert_non_null(strstr(printed, "2 pairs for 4 cpus: cpus 2-3 own no "
					"queue"));
	/* CPUs without a queue borrow one to send; the owners keep theirs. */
	assert_int_equal(netdev_tx_queue(dev, 0), 0);
	assert_int_equal(netdev_tx_queue(dev, 1), 1);
	assert_int_equal(netdev_tx_queue(dev, 2), 0);
	assert_int_equal(netdev_tx_queue(dev, 3), 1);
}

static void test_one_cpu_with_mq_offered_sends_no_command(void **state)
{
	(void)state;
	hw_offer_mq(4);
	assert_int_equal(virtio_net_probe(true, 1), 1);
	assert_int_equal(netdev_get(0)->nqueues, 1);
	assert_int_equal(hw.ctrl_cmds, 0);
	assert_false(hw.q[8].set_up);
	assert_false(hw.q[2].set_up);
}

static void test_device_without_mq_gets_one_pair(void **state)
{
	(void)state;
	hw.q[0].max = hw.q[1].max = 256;
	assert_int_equal(virtio_net_probe(true, 4), 1);
	assert_int_equal(netdev_get(0)->nqueues, 1);
	assert_false(hw.driver_features & 1ull << VIRTIO_NET_F_MQ);
	assert_false(hw.driver_features & 1ull << VIRTIO_NET_F_CTRL_VQ);
	assert_non_null(strstr(printed, "pairs=1 of 1"));
}

static void test_mq_without_control_queue_is_not_negotiated(void **state)
{
	(void)state;
	hw_offer_mq(4);
	hw.features &= ~(1ull << VIRTIO_NET_F_CTRL_VQ);
	assert_int_equal(virtio_net_probe(true, 4), 1);
	assert_int_equal(netdev_get(0)->nqueues, 1);
	assert_false(hw.driver_features & 1ull << VIRTIO_NET_F_MQ);
	assert_int_equal(hw.ctrl_cmds, 0);
}

static void test_max_pairs_out_of_range_means_one_pair(void **state)
{
	(void)state;
	hw_offer_mq(4);
	hw.max_pairs = 0; /* the spec's range is 1..0x8000 */
	assert_int_equal(virtio_net_probe(true, 4), 1);
	assert_int_equal(netdev_get(0)->nqueues, 1);
	assert_non_null(strstr(printed, "max_virtqueue_pairs 0 out of range"));
}

/* rx_poll of queue 2, run as CPU 2 (node 1). */
static void poll_queue2(void *arg)
{
	int *got = arg;

	*got = dev->ops->rx_poll(dev, 2, 64);
}

static void test_each_pair_uses_its_own_rings_and_cpu_buffers(void **state)
{
	static const uint8_t payload[60] = {9};
	struct netdev_sg sg = {payload, sizeof(payload)};
	uint8_t *buf;
	int head, got;

	(void)state;
	hw_offer_mq(4);
	assert_int_equal(virtio_net_probe(true, 4), 1);
	dev = netdev_get(0);
	dev->rx = stack_rx;
	dev->tx_done = stack_tx_done;
	/* The first poll, on the queue's CPU, fills the ring from that CPU's
	 * frag cache: buffers on node 1. */
	mm_test_on_cpu(2, poll_queue2, &got);
	assert_int_equal(dev->queues[2].stats.rx_bufs_posted, 256);
	assert_int_equal(dev->queues[0].stats.rx_bufs_posted, 0);
	head = hw_take(VNET_RXQ(2));
	buf = (uint8_t *)(uintptr_t)hw.q[VNET_RXQ(2)].desc[head].addr;
	assert_int_equal(node_of(buf), 1);
	memset(buf, 0, 12);
	hw_complete(VNET_RXQ(2), (uint16_t)head, 12 + sizeof(payload));
	mm_test_on_cpu(2, poll_queue2, &got);
	assert_int_equal(got, 1);
	assert_int_equal(rx_queue, 2);
	assert_ptr_equal(rx_frame, buf + 12);
	assert_int_equal(dev->queues[2].stats.rx_packets, 1);
	assert_int_equal(dev->queues[0].stats.rx_packets, 0);
	page_frag_free(rx_frame);
	/* TX on pair 3 goes to virtqueue 7 and comes back on queue 3. */
	assert_int_equal(dev->ops->xmit(dev, 3, &sg, 1, (void *)0x33), 0);
	assert_int_equal(hw_take(VNET_TXQ(0)), -1);
	head = hw_take(VNET_TXQ(3));
	assert_true(head >= 0);
	hw_complete(VNET_TXQ(3), (uint16_t)head, 0);
	assert_int_equal(dev->ops->tx_reap(dev, 0), 0);
	assert_int_equal(dev->ops->tx_reap(dev, 3), 1);
	assert_int_equal(tx_queue, 3);
	assert_ptr_equal(tx_cookie, (void *)0x33);
	assert_int_equal(dev->queues[3].stats.tx_packets, 1);
	page_frag_percpu_drain(2);
}

/* ------------------------------------------------------------ offloads */

#define OFFLOAD_BITS                                                   \
	(1ull << VIRTIO_NET_F_CSUM | 1ull << VIRTIO_NET_F_GUEST_CSUM | \
	 1ull << VIRTIO_NET_F_GUEST_TSO4 | 1ull << VIRTIO_NET_F_MRG_RXBUF)

/* Every rx call, as the stack saw it. */
static struct {
	void *frame;
	uint32_t len;
	unsigned int flags;
} got_rx[64];
static int ngot_rx;

static void collect_rx(struct netdev *d, int q, void *frame, uint32_t len,
		       unsigned int flags, uint32_t hash)
{
	(void)d;
	assert_int_equal(hash, 0); /* virtio-net reports no hash */
	(void)q;
	assert_true(ngot_rx < 64);
	got_rx[ngot_rx].frame = frame;
	got_rx[ngot_rx].len = len;
	got_rx[ngot_rx].flags = flags;
	ngot_rx++;
}

/* Give back what the stack got: the frames are ours to free. */
static void free_got_rx(void)
{
	for (int i = 0; i < ngot_rx; i++)
		page_frag_free(got_rx[i].frame);
	ngot_rx = 0;
}

/* RX buffers the driver owns or has lent to the stack: what page_frag
 * handed out less what came back. */
static uint64_t frags_out(void)
{
	struct page_frag_stats st;

	page_frag_stats_read(&st);
	return st.fragments - st.frees;
}

/* Probe a device offering `offered` with `allowed`, ring posted. */
static void probe_offloads(uint64_t offered, struct virtio_net_offloads allowed)
{
	hw.features |= offered;
	virtio_net_allow_offloads(&allowed);
	probe_one();
	dev->rx = collect_rx;
	ngot_rx = 0;
	dev->ops->rx_poll(dev, 0, 64);
	assert_int_equal(dev->queues[0].stats.rx_bufs_posted, 256);
}

static const struct virtio_net_offloads all_on = {
	.csum = true, .tso = true, .mrg = true};

/* A 60-byte IPv4 TCP frame (no sums) of 10.0.0.1 -> 10.0.0.2. */
static void ipv4_tcp_frame(uint8_t *f, uint32_t len, uint16_t frag)
{
	memset(f, 0, len);
	f[12] = 0x08; /* IPv4 */
	f[14] = 0x45;
	f[16] = (uint8_t)((len - 14) >> 8);
	f[17] = (uint8_t)(len - 14);
	f[20] = (uint8_t)(frag >> 8);
	f[21] = (uint8_t)frag;
	f[23] = 6;
	memcpy(f + 26, "\x0a\x00\x00\x01\x0a\x00\x00\x02", 8);
	for (uint32_t i = 54; i < len; i++)
		f[i] = (uint8_t)(i * 7);
}

/* Post one received buffer: header (num_buffers n, flags, csum place,
 * gso) then the bytes; returns its address. */
static uint8_t *rx_buf(const struct vnet_hdr *h, const uint8_t *data,
		       uint32_t len)
{
	int head = hw_take(VNET_RXQ(0));
	uint8_t *buf = (uint8_t *)(uintptr_t)hw.q[VNET_RXQ(0)].desc[head].addr;
	uint32_t hl = h ? 12 : 0;

	assert_true(head >= 0);
	if (h)
		memcpy(buf, h, 12);
	memcpy(buf + hl, data, len);
	hw_complete(VNET_RXQ(0), (uint16_t)head, hl + len);
	return buf;
}

static void test_offloads_negotiated_when_offered_and_allowed(void **state)
{
	(void)state;
	probe_offloads(OFFLOAD_BITS, all_on);
	assert_int_equal(hw.driver_features & OFFLOAD_BITS, OFFLOAD_BITS);
	assert_int_equal(dev->offloads, NETDEV_OFF_TX_CSUM |
						NETDEV_OFF_RX_CSUM |
						NETDEV_OFF_RX_BIG);
	assert_non_null(strstr(printed, "csum=on guest_csum=on guest_tso4=on "
					"guest_tso6=off(switch) mrg_rxbuf=on"));
}

static void test_offloads_switched_off_are_not_negotiated(void **state)
{
	(void)state;
	probe_offloads(OFFLOAD_BITS,
		       (struct virtio_net_offloads){.tso = true, .mrg = true});
	/* TSO needs the checksum offload: off with it. */
	assert_int_equal(hw.driver_features & OFFLOAD_BITS,
			 1ull << VIRTIO_NET_F_MRG_RXBUF);
	assert_int_equal(dev->offloads, 0);
	assert_non_null(strstr(printed, "csum=off(switch)"));
	assert_non_null(strstr(printed, "guest_tso4=off(needs-csum+mrg)"));
}

static void test_tso_offered_without_mrg_is_not_negotiated(void **state)
{
	(void)state;
	probe_offloads(OFFLOAD_BITS & ~(1ull << VIRTIO_NET_F_MRG_RXBUF),
		       all_on);
	assert_false(hw.driver_features & 1ull << VIRTIO_NET_F_GUEST_TSO4);
	assert_true(hw.driver_features & 1ull << VIRTIO_NET_F_GUEST_CSUM);
}

static void test_legacy_with_mrg_has_a_12_byte_header(void **state)
{
	(void)state;
	hw.modern = false;
	hw.features &= ~(1ull << VIRTIO_F_VERSION_1);
	probe_offloads(1ull << VIRTIO_NET_F_MRG_RXBUF, all_on);
	assert_int_equal(vnet0()->hdr_len, 12);
}

static void test_mergeable_frame_over_polls_is_one_chain(void **state)
{
	uint8_t f[3000];
	struct vnet_hdr h = {.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM,
			     .gso_type = VIRTIO_NET_HDR_GSO_TCPV4,
			     .gso_size = 1448,
			     .csum_start = 34,
			     .csum_offset = 16,
			     .num_buffers = 3};
	uint8_t *b0;
	/* A full first buffer: the header and RX_BUF_LEN - 12 frame bytes. */
	const uint32_t first = RX_BUF_LEN - 12;

	(void)state;
	probe_offloads(OFFLOAD_BITS, all_on);
	ipv4_tcp_frame(f, sizeof(f), 0);
	b0 = rx_buf(&h, f, first);
	rx_buf(NULL, f + first, 900);
	/* Two of three buffers: nothing handed up yet. */
	assert_int_equal(dev->ops->rx_poll(dev, 0, 64), 2);
	assert_int_equal(ngot_rx, 0);
	rx_buf(NULL, f + first + 900, sizeof(f) - first - 900);
	assert_int_equal(dev->ops->rx_poll(dev, 0, 64), 1);
	assert_int_equal(ngot_rx, 3);
	assert_ptr_equal(got_rx[0].frame, b0 + 12);
	assert_int_equal(got_rx[0].len, first);
	assert_int_equal(got_rx[1].len, 900);
	assert_int_equal(got_rx[2].len, sizeof(f) - first - 900);
	assert_int_equal(got_rx[0].flags, NETDEV_RX_CSUM_OK | NETDEV_RX_MORE);
	assert_int_equal(got_rx[1].flags, NETDEV_RX_CSUM_OK | NETDEV_RX_MORE);
	assert_int_equal(got_rx[2].flags, NETDEV_RX_CSUM_OK);
	assert_memory_equal(got_rx[1].frame, f + first, 900);
	assert_int_equal(dev->queues[0].stats.rx_mrg_chains, 1);
	assert_int_equal(dev->queues[0].stats.rx_gso_frames, 1);
	assert_int_equal(dev->queues[0].stats.rx_csum_partial, 1);
	assert_int_equal(dev->queues[0].stats.rx_bytes, sizeof(f));
	free_got_rx();
	assert_int_equal(frags_out(), 256);
}

static void test_data_valid_trusted_but_not_on_a_fragment(void **state)
{
	uint8_t f[60];
	struct vnet_hdr h = {.flags = VIRTIO_NET_HDR_F_DATA_VALID,
			     .num_buffers = 1};

	(void)state;
	probe_offloads(OFFLOAD_BITS, all_on);
	ipv4_tcp_frame(f, sizeof(f), 0);
	rx_buf(&h, f, sizeof(f));
	ipv4_tcp_frame(f, sizeof(f), 0x2000); /* MF: a first fragment */
	rx_buf(&h, f, sizeof(f));
	h.flags = 0;
	rx_buf(&h, f, sizeof(f));
	assert_int_equal(dev->ops->rx_poll(dev, 0, 64), 3);
	assert_int_equal(ngot_rx, 3);
	assert_int_equal(got_rx[0].flags, NETDEV_RX_CSUM_OK);
	assert_int_equal(got_rx[1].flags, 0);
	assert_int_equal(got_rx[2].flags, 0);
	assert_int_equal(dev->queues[0].stats.rx_csum_valid, 2);
	free_got_rx();
}

/* Each malformed header: dropped, counted, its buffers freed; the frame
 * after it still arrives. */
static void assert_refused_then_next_arrives(uint64_t bad_hdr)
{
	uint8_t f[60];
	struct vnet_hdr h = {.num_buffers = 1};

	ipv4_tcp_frame(f, sizeof(f), 0);
	rx_buf(&h, f, sizeof(f));
	while (dev->ops->rx_poll(dev, 0, 64) > 0)
		;
	assert_int_equal(dev->queues[0].stats.rx_bad_hdr, bad_hdr);
	assert_int_equal(ngot_rx, 1);
	assert_int_equal(got_rx[0].len, sizeof(f));
	free_got_rx();
	assert_int_equal(frags_out(), 256);
}

static void test_num_buffers_zero_is_dropped(void **state)
{
	uint8_t f[60] = {0};
	struct vnet_hdr h = {.num_buffers = 0};

	(void)state;
	probe_offloads(OFFLOAD_BITS, all_on);
	rx_buf(&h, f, sizeof(f));
	assert_refused_then_next_arrives(1);
}

static void test_num_buffers_too_big_drops_the_whole_frame(void **state)
{
	uint8_t f[60] = {0};
	struct vnet_hdr h = {.num_buffers = VNET_MRG_MAX + 6};

	(void)state;
	probe_offloads(OFFLOAD_BITS, all_on);
	rx_buf(&h, f, sizeof(f));
	for (int i = 1; i < VNET_MRG_MAX + 6; i++)
		rx_buf(NULL, f, sizeof(f));
	assert_refused_then_next_arrives(1);
	assert_int_equal(dev->queues[0].stats.rx_packets, 1);
}

static void test_csum_start_outside_the_frame_is_dropped(void **state)
{
	uint8_t f[60];
	struct vnet_hdr h = {.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM,
			     .csum_start = 50,
			     .csum_offset = 16,
			     .num_buffers = 1};

	(void)state;
	probe_offloads(OFFLOAD_BITS, all_on);
	ipv4_tcp_frame(f, sizeof(f), 0);
	rx_buf(&h, f, sizeof(f)); /* 50 + 16 + 2 > 60 */
	h.csum_start = 4;	  /* inside the Ethernet header */
	h.csum_offset = 0;
	rx_buf(&h, f, sizeof(f));
	assert_refused_then_next_arrives(2);
}

static void test_gso_or_flags_not_negotiated_are_dropped(void **state)
{
	uint8_t f[60];
	struct vnet_hdr h = {.gso_type = VIRTIO_NET_HDR_GSO_TCPV4,
			     .num_buffers = 1};

	(void)state;
	/* Checksums and mergeable buffers, but no GUEST_TSO4. */
	probe_offloads(OFFLOAD_BITS,
		       (struct virtio_net_offloads){.csum = true, .mrg = true});
	ipv4_tcp_frame(f, sizeof(f), 0);
	rx_buf(&h, f, sizeof(f));
	h.gso_type = 4; /* TCPv6: never negotiated */
	rx_buf(&h, f, sizeof(f));
	assert_refused_then_next_arrives(2);
}

/* GUEST_TSO6 (IPv6's coalesced receive), offered with the rest. */
#define OFFLOAD6_BITS (OFFLOAD_BITS | 1ull << VIRTIO_NET_F_GUEST_TSO6)

/* A 60-byte IPv6 TCP frame (no sums) of 2001:db8::1 -> 2001:db8::2. */
static void ipv6_tcp_frame(uint8_t *f, uint32_t len)
{
	memset(f, 0, len);
	f[12] = 0x86;
	f[13] = 0xdd;
	f[14] = 0x60;
	f[18] = (uint8_t)((len - 54) >> 8);
	f[19] = (uint8_t)(len - 54);
	f[20] = 6;
	f[21] = 64;
	for (uint32_t i = 74; i < len; i++)
		f[i] = (uint8_t)(i * 5);
}

/* Allowed and offered: negotiated, reported, and a TCPV6 frame over two
 * mergeable buffers arrives as one chain the device vouched for. */
static void test_guest_tso6_negotiated_and_its_frames_arrive(void **state)
{
	uint8_t f[3000];
	struct vnet_hdr h = {.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM,
			     .gso_type = VIRTIO_NET_HDR_GSO_TCPV6,
			     .gso_size = 1428,
			     .csum_start = 54,
			     .csum_offset = 16,
			     .num_buffers = 2};
	const uint32_t first = RX_BUF_LEN - 12;

	(void)state;
	probe_offloads(
		OFFLOAD6_BITS,
		(struct virtio_net_offloads){
			.csum = true, .tso = true, .mrg = true, .tso6 = true});
	assert_int_equal(hw.driver_features & OFFLOAD6_BITS, OFFLOAD6_BITS);
	assert_true(dev->offloads & NETDEV_OFF_RX_BIG);
	assert_non_null(strstr(printed, "guest_tso4=on guest_tso6=on "
					"mrg_rxbuf=on"));
	ipv6_tcp_frame(f, sizeof(f));
	rx_buf(&h, f, first);
	rx_buf(NULL, f + first, sizeof(f) - first);
	assert_int_equal(dev->ops->rx_poll(dev, 0, 64), 2);
	assert_int_equal(ngot_rx, 2);
	assert_int_equal(got_rx[0].flags, NETDEV_RX_CSUM_OK | NETDEV_RX_MORE);
	assert_int_equal(got_rx[1].flags, NETDEV_RX_CSUM_OK);
	assert_memory_equal(got_rx[1].frame, f + first, sizeof(f) - first);
	assert_int_equal(dev->queues[0].stats.rx_gso_frames, 1);
	assert_int_equal(dev->queues[0].stats.rx_bad_hdr, 0);
	free_got_rx();
}

/* Each family's GSO type needs its own feature: with GUEST_TSO6 alone a
 * TCPV4 frame is refused (big frames are still on: RX_BIG)... */
static void test_tcpv4_frame_without_guest_tso4_is_dropped(void **state)
{
	uint8_t f[60];
	struct vnet_hdr h = {.gso_type = VIRTIO_NET_HDR_GSO_TCPV4,
			     .num_buffers = 1};

	(void)state;
	probe_offloads(OFFLOAD6_BITS,
		       (struct virtio_net_offloads){
			       .csum = true, .mrg = true, .tso6 = true});
	assert_false(hw.driver_features & 1ull << VIRTIO_NET_F_GUEST_TSO4);
	assert_true(hw.driver_features & 1ull << VIRTIO_NET_F_GUEST_TSO6);
	assert_true(dev->offloads & NETDEV_OFF_RX_BIG);
	assert_non_null(strstr(printed, "guest_tso4=off(switch) "
					"guest_tso6=on"));
	ipv4_tcp_frame(f, sizeof(f), 0);
	rx_buf(&h, f, sizeof(f));
	assert_refused_then_next_arrives(1);
}

/* ... and without GUEST_TSO6 a TCPV6 one. */
static void test_tcpv6_frame_without_guest_tso6_is_dropped(void **state)
{
	uint8_t f[60];
	struct vnet_hdr h = {.num_buffers = 1};

	(void)state;
	probe_offloads(OFFLOAD6_BITS, all_on); /* GUEST_TSO6 not allowed */
	assert_false(hw.driver_features & 1ull << VIRTIO_NET_F_GUEST_TSO6);
	assert_non_null(strstr(printed, "guest_tso6=off(switch)"));
	ipv6_tcp_frame(f, sizeof(f));
	h.gso_type = VIRTIO_NET_HDR_GSO_TCPV6;
	rx_buf(&h, f, sizeof(f));
	assert_refused_then_next_arrives(1);
}

static void test_csum_flags_without_guest_csum_are_dropped(void **state)
{
	uint8_t f[60];
	struct vnet_hdr h = {.flags = VIRTIO_NET_HDR_F_DATA_VALID,
			     .num_buffers = 1};

	(void)state;
	probe_offloads(OFFLOAD_BITS, (struct virtio_net_offloads){.mrg = true});
	ipv4_tcp_frame(f, sizeof(f), 0);
	rx_buf(&h, f, sizeof(f));
	assert_refused_then_next_arrives(1);
}

static void test_bad_length_mid_chain_drops_the_rest(void **state)
{
	uint8_t f[60];
	struct vnet_hdr h = {.num_buffers = 3};
	int head;

	(void)state;
	probe_offloads(OFFLOAD_BITS, all_on);
	ipv4_tcp_frame(f, sizeof(f), 0);
	rx_buf(&h, f, sizeof(f));
	head = hw_take(VNET_RXQ(0));
	hw_complete(VNET_RXQ(0), (uint16_t)head, RX_BUF_LEN + 1);
	rx_buf(NULL, f, sizeof(f)); /* the frame's third: thrown away */
	assert_refused_then_next_arrives(0);
	assert_int_equal(dev->queues[0].stats.rx_bad_len, 1);
}

/* Send f split over sg at `split`, then play the device: sum from
 * csum_start, store the complement; the result must verify. */
static void tx_and_verify(uint8_t *f, uint32_t len, uint32_t split,
			  uint16_t l4_off)
{
	struct netdev_sg sg[2] = {{f, split}, {f + split, len - split}};
	const struct vnet_hdr *h;
	uint32_t sum, pseudo;
	int head;

	assert_int_equal(dev->ops->xmit(dev, 0, sg, 2, (void *)0x99), 0);
	head = hw_take(VNET_TXQ(0));
	h = (const struct vnet_hdr *)(uintptr_t)hw.q[VNET_TXQ(0)]
		    .desc[head]
		    .addr;
	assert_int_equal(h->flags, VIRTIO_NET_HDR_F_NEEDS_CSUM);
	assert_int_equal(h->csum_start, 34);
	assert_int_equal(h->csum_offset, l4_off);
	sum = hw_ones_sum(f + h->csum_start, len - h->csum_start, 0);
	f[h->csum_start + h->csum_offset] = (uint8_t)(~sum >> 8);
	f[h->csum_start + h->csum_offset + 1] = (uint8_t)~sum;
	/* A receiver's check: pseudo header + segment sums to 0xffff. */
	pseudo = hw_ones_sum(f + 26, 8, f[23] + (len - 34));
	assert_int_equal(hw_ones_sum(f + 34, len - 34, pseudo), 0xffff);
	hw_complete(VNET_TXQ(0), (uint16_t)head, 0);
	assert_int_equal(dev->ops->tx_reap(dev, 0), 1);
}

static void test_tx_csum_request_verifies_tcp_and_udp(void **state)
{
	uint8_t f[301];

	(void)state;
	probe_offloads(OFFLOAD_BITS, all_on);
	ipv4_tcp_frame(f, sizeof(f), 0);
	tx_and_verify(f, sizeof(f), 200, 16);
	ipv4_tcp_frame(f, sizeof(f), 0);
	tx_and_verify(f, sizeof(f), 51, 16); /* the sum field split */
	ipv4_tcp_frame(f, sizeof(f), 0);
	f[23] = 17;
	tx_and_verify(f, sizeof(f), 20, 6); /* IP header split */
	assert_int_equal(dev->queues[0].stats.tx_csum_offloaded, 3);
}

static void test_tx_csum_request_verifies_ipv6_udp(void **state)
{
	uint8_t f[200];
	struct netdev_sg sg[2] = {{f, 57}, {f + 57, sizeof(f) - 57}};
	const struct vnet_hdr *h;
	uint32_t sum, len6 = sizeof(f) - 54;
	int head;

	(void)state;
	probe_offloads(OFFLOAD_BITS, all_on);
	memset(f, 0, sizeof(f));
	f[12] = 0x86;
	f[13] = 0xdd;
	f[14] = 0x60;
	f[18] = (uint8_t)(len6 >> 8);
	f[19] = (uint8_t)len6;
	f[20] = 17;
	for (int i = 22; i < 54; i++) /* source and destination */
		f[i] = (uint8_t)(i * 13);
	for (uint32_t i = 62; i < sizeof(f); i++)
		f[i] = (uint8_t)(i * 7);
	assert_int_equal(dev->ops->xmit(dev, 0, sg, 2, (void *)0x98), 0);
	head = hw_take(VNET_TXQ(0));
	h = (const struct vnet_hdr *)(uintptr_t)hw.q[VNET_TXQ(0)]
		    .desc[head]
		    .addr;
	assert_int_equal(h->flags, VIRTIO_NET_HDR_F_NEEDS_CSUM);
	assert_int_equal(h->csum_start, 54);
	assert_int_equal(h->csum_offset, 6);
	sum = hw_ones_sum(f + 54, len6, 0);
	f[60] = (uint8_t)(~sum >> 8);
	f[61] = (uint8_t)~sum;
	/* Pseudo header: addresses, length, next header. */
	sum = hw_ones_sum(f + 22, 32, 17 + len6);
	assert_int_equal(hw_ones_sum(f + 54, len6, sum), 0xffff);
}

static void test_tx_fragments_and_non_ip_ask_for_nothing(void **state)
{
	uint8_t f[100];
	struct netdev_sg sg = {f, sizeof(f)};
	const struct vnet_hdr *h;
	int head;

	(void)state;
	probe_offloads(OFFLOAD_BITS, all_on);
	ipv4_tcp_frame(f, sizeof(f), 0x2000);
	assert_int_equal(dev->ops->xmit(dev, 0, &sg, 1, (void *)1), 0);
	f[12] = 0x08;
	f[13] = 0x06; /* ARP */
	assert_int_equal(dev->ops->xmit(dev, 0, &sg, 1, (void *)2), 0);
	for (int i = 0; i < 2; i++) {
		head = hw_take(VNET_TXQ(0));
		h = (const struct vnet_hdr *)(uintptr_t)hw.q[VNET_TXQ(0)]
			    .desc[head]
			    .addr;
		assert_int_equal(h->flags, 0);
		assert_int_equal(h->csum_start, 0);
	}
	assert_int_equal(dev->queues[0].stats.tx_csum_offloaded, 0);
}

/* ------------------------------------------------------- interrupts */

static void test_modern_msix_gives_each_pair_its_entry_on_its_cpu(void **state)
{
	(void)state;
	hw_offer_mq(4);
	hw.msix_size = 9;
	assert_int_equal(virtio_net_probe(true, 4), 1);
	dev = netdev_get(0);
	assert_int_equal(dev->ops->irq_setup(dev), 0);
	assert_true(hw.msix_on);
	assert_int_equal(hw.cfg_vec, 0);
	for (int q = 0; q < 4; q++) {
		assert_string_equal(dev->queues[q].irq_mode, "msix");
		/* RX and TX of a pair share its entry, 1 + pair */
		assert_int_equal(hw.q_vec[VNET_RXQ(q)], 1 + q);
		assert_int_equal(hw.q_vec[VNET_TXQ(q)], 1 + q);
		assert_int_equal(hw.msix_data[1 + q],
				 (uint32_t)dev->queues[q].irq_vector);
	}
	/* pair 2's interrupt wakes CPU 2 only, and turns its rings off */
	hw.q[VNET_RXQ(2)].avail->flags = 0;
	irq_fn[1 + 2](irq_arg[1 + 2]);
	assert_int_equal(hw.wakes[2], 1);
	assert_int_equal(hw.wakes[0] + hw.wakes[1] + hw.wakes[3], 0);
	assert_int_equal(hw.q[VNET_RXQ(2)].avail->flags,
			 VIRTQ_AVAIL_F_NO_INTERRUPT);
	assert_int_equal(dev->queues[2].stats.interrupts, 1);
}

static void test_too_few_msix_entries_fall_back_to_intx(void **state)
{
	(void)state;
	hw_offer_mq(4);
	hw.msix_size = 4; /* needs 4 pairs + config */
	assert_int_equal(virtio_net_probe(true, 4), 1);
	dev = netdev_get(0);
	assert_int_equal(dev->ops->irq_setup(dev), 0);
	assert_false(hw.msix_on);
	assert_true(hw.line_requested);
	assert_string_equal(dev->queues[3].irq_mode, "intx");
	/* the shared line: ISR 0 is another device's interrupt */
	irq_fn[0](irq_arg[0]);
	assert_int_equal(hw.wakes[0], 0);
	hw.isr = 1;
	irq_fn[0](irq_arg[0]);
	for (int q = 0; q < 4; q++)
		assert_int_equal(hw.wakes[q], 1);
	assert_int_equal(hw.isr, 0);
}

/* Arm clears NO_INTERRUPT on both rings and then looks: a chain the
 * device returned before it could see the flag cleared is reported. */
static void test_arm_reports_a_chain_returned_before_it(void **state)
{
	int head;

	(void)state;
	probe_one();
	dev->ops->rx_poll(dev, 0, 64);
	assert_int_equal(hw.q[VNET_RXQ(0)].avail->flags,
			 VIRTQ_AVAIL_F_NO_INTERRUPT);
	assert_false(dev->ops->irq_arm(dev, 0));
	assert_int_equal(hw.q[VNET_RXQ(0)].avail->flags, 0);
	assert_int_equal(hw.q[VNET_TXQ(0)].avail->flags, 0);
	dev->ops->irq_disarm(dev, 0);
	assert_int_equal(hw.q[VNET_TXQ(0)].avail->flags,
			 VIRTQ_AVAIL_F_NO_INTERRUPT);
	head = hw_take(VNET_RXQ(0));
	hw_complete(VNET_RXQ(0), (uint16_t)head, 12 + 60);
	assert_true(dev->ops->irq_arm(dev, 0));
	assert_int_equal(dev->ops->rx_poll(dev, 0, 64), 1);
	page_frag_free(rx_frame);
	assert_false(dev->ops->irq_arm(dev, 0));
}

/* xmit publishes each frame at once (a device at work may take it) but
 * leaves the notify, a device exit, to tx_flush: one for all of them. */
static void test_tx_notifies_once_per_flush_not_per_frame(void **state)
{
	static const uint8_t payload[60];
	struct netdev_sg sg = {payload, sizeof(payload)};
	int before;

	(void)state;
	probe_one();
	before = hw.q[VNET_TXQ(0)].notified;
	for (int i = 0; i < 3; i++)
		assert_int_equal(dev->ops->xmit(dev, 0, &sg, 1,
						(void *)(uintptr_t)(i + 1)),
				 0);
	assert_int_equal(hw.q[VNET_TXQ(0)].notified, before);
	assert_int_equal(hw.q[VNET_TXQ(0)].avail->idx, 3); /* visible */
	dev->ops->tx_flush(dev, 0);
	assert_int_equal(hw.q[VNET_TXQ(0)].notified, before + 1);
	dev->ops->tx_flush(dev, 0); /* nothing new: no notify */
	assert_int_equal(hw.q[VNET_TXQ(0)].notified, before + 1);
}

#define TQ(fn) cmocka_unit_test_setup_teardown(fn, setup_queue, teardown)
#define TM(fn) cmocka_unit_test_setup_teardown(fn, setup_mq, teardown)
#define TB(fn) cmocka_unit_test_setup_teardown(fn, setup_boot, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		TQ(test_chains_come_back_with_their_cookie_and_length),
		TQ(test_ring_wraps_many_times_without_double_handout),
		TQ(test_add_refuses_null_cookie_and_too_long_chains),
		TQ(test_next_out_of_range_is_never_followed),
		TQ(test_cycle_in_the_descriptor_table_does_not_hang),
		TQ(test_link_into_a_live_chain_does_not_free_it),
		TQ(test_cleared_next_flag_does_not_leak_descriptors),
		TQ(test_free_descriptors_scribbled_on_are_not_followed),
		TQ(test_used_id_out_of_range_is_counted_and_skipped),
		TQ(test_used_id_of_an_inner_descriptor_is_skipped),
		TQ(test_used_id_returned_twice_is_skipped_once_done),
		TB(test_modern_size_is_capped_at_the_driver_max),
		TB(test_legacy_size_is_the_device_size),
		TB(test_modern_size_not_a_power_of_two_is_refused),
		TB(test_legacy_size_not_a_power_of_two_is_refused),
		TB(test_refused_queue_leaves_nothing_allocated),
		TB(test_probe_fails_cleanly_when_tx_queue_is_absent),
		TB(test_rings_stay_allocated_when_the_device_does_not_reset),
		TB(test_rx_and_tx_round_trip),
		TB(test_rx_buffers_leave_the_stack_its_headroom),
		TB(test_bogus_completions_are_counted_in_the_stats),
		TB(test_xmit_refuses_empty_frames_and_null_cookies),
		TM(test_mq_device_gets_one_pair_per_cpu_on_its_node),
		TM(test_mq_refused_by_the_device_leaves_one_pair),
		TM(test_mq_command_never_answered_leaves_one_pair),
		TM(test_cpus_beyond_the_pairs_own_no_queue),
		TM(test_rss_programs_key_table_and_pairs_in_one_command),
		TM(test_rss_refused_falls_back_to_the_pairs_command),
		TM(test_rss_table_is_the_devices_power_of_two),
		TM(test_rss_with_a_short_key_is_not_used),
		TM(test_rss_switched_off_is_not_negotiated),
		TM(test_rss_table_change_is_sent_and_checked),
		TM(test_one_cpu_with_mq_offered_sends_no_command),
		TM(test_device_without_mq_gets_one_pair),
		TM(test_mq_without_control_queue_is_not_negotiated),
		TM(test_max_pairs_out_of_range_means_one_pair),
		TM(test_each_pair_uses_its_own_rings_and_cpu_buffers),
		TB(test_offloads_negotiated_when_offered_and_allowed),
		TB(test_offloads_switched_off_are_not_negotiated),
		TB(test_tso_offered_without_mrg_is_not_negotiated),
		TB(test_guest_tso6_negotiated_and_its_frames_arrive),
		TB(test_tcpv4_frame_without_guest_tso4_is_dropped),
		TB(test_tcpv6_frame_without_guest_tso6_is_dropped),
		TB(test_legacy_with_mrg_has_a_12_byte_header),
		TB(test_mergeable_frame_over_polls_is_one_chain),
		TB(test_data_valid_trusted_but_not_on_a_fragment),
		TB(test_num_buffers_zero_is_dropped),
		TB(test_num_buffers_too_big_drops_the_whole_frame),
		TB(test_csum_start_outside_the_frame_is_dropped),
		TB(test_gso_or_flags_not_negotiated_are_dropped),
		TB(test_csum_flags_without_guest_csum_are_dropped),
		TB(test_bad_length_mid_chain_drops_the_rest),
		TB(test_tx_csum_request_verifies_tcp_and_udp),
		TB(test_tx_csum_request_verifies_ipv6_udp),
		TB(test_tx_fragments_and_non_ip_ask_for_nothing),
		TM(test_modern_msix_gives_each_pair_its_entry_on_its_cpu),
		TM(test_too_few_msix_entries_fall_back_to_intx),
		TB(test_arm_reports_a_chain_returned_before_it),
		TB(test_tx_notifies_once_per_flush_not_per_frame),
	};

	signal(SIGALRM, on_alarm);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
