/*
 * The igb driver against a simulated 82576: the register file is plain
 * memory and the test plays the device (gbe_sim.h, shared with the
 * e1000e test). Time is the device's clock: each drv_clock_ms() call is
 * a millisecond in which the simulated part completes what the driver
 * asked (the reset clears CTRL.RST, PCIe master requests drain, an EERD
 * read returns its NVM word, and here an MDIC access gets READY and a
 * PHY write is remembered). The ring tests write advanced
 * descriptors back as the device would -- and as a broken or hostile one
 * might: a length past the buffer, a frame without EOP, status bits that
 * come without DD or out of ring order. The interrupt tests use the
 * kernel services e1000_irq_fake.h fakes (vectors, MSI/MSI-X tables,
 * wakes). drivers/igb.c, igb_hw.c, igb_irq.c, igb_rss.c, igb_tso.c, igb_tx.c,
 * tcp_merge.c, gbe_hw.c, frame_hdr.c and
 * netdev.c are compiled in so their static state can be reset between
 * tests.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "drivers/frame_hdr.c"
#include "drivers/gbe_hw.c"
#include "drivers/igb.c"
#include "drivers/igb_hw.c"
#include "drivers/igb_irq.c"
#include "drivers/igb_rss.c"
#include "drivers/igb_tso.c"
#include "drivers/igb_tx.c"
#include "drivers/tcp_merge.c"
#include "drivers/netdev.c"
#include "mm_test.h"

/* ------------------------------------------------ fake kernel and PCI */

#include "gbe_sim.h"

static uint16_t phy_bmcr; /* the last value written to the PHY's BMCR */

/* An MDIC access the driver started: done, a write to BMCR remembered. */
static void phy_step(void)
{
	uint32_t v = *reg(E1000_MDIC);

	if (!(v & (E1000_MDIC_OP_WRITE | E1000_MDIC_OP_READ)) ||
	    (v & E1000_MDIC_READY))
		return;
	if ((v & E1000_MDIC_OP_WRITE) &&
	    ((v >> E1000_MDIC_REG_SHIFT) & 31u) == MII_BMCR)
		phy_bmcr = (uint16_t)v;
	*reg(E1000_MDIC) = v | E1000_MDIC_READY;
}

/* One millisecond of the simulated 82576's life: its PHY answers too. */
uint64_t drv_clock_ms(void)
{
	gbe_sim_tick();
	phy_step();
	return fake_ms;
}

int drv_nr_cpus(void)
{
	return 1;
}

#include "e1000_irq_fake.h"

/* ------------------------------------------------- the simulated NIC */

static const uint8_t nvm_mac[6] = {0x52, 0x54, 0x00, 0x1b, 0x00, 0x01};
static const uint8_t ral_mac[6] = {0x52, 0x54, 0x00, 0x1b, 0x00, 0x02};
static uint32_t hw_rdh, hw_tdh;

static union igb_rx_desc *hw_rx_ring(void)
{
	return (union igb_rx_desc *)(uintptr_t)((uint64_t)*reg(IGB_RDBAH(0))
							<< 32 |
						*reg(IGB_RDBAL(0)));
}

static union igb_tx_desc *hw_tx_ring(void)
{
	return (union igb_tx_desc *)(uintptr_t)((uint64_t)*reg(IGB_TDBAH(0))
							<< 32 |
						*reg(IGB_TDBAL(0)));
}

/*
 * The device writes slot @slot back: @len bytes of 0xab in its buffer
 * (at most the 2 KiB it may write), the write-back format with @staterr
 * and @len, and returns the buffer. The slot must be one posted to it.
 */
static uint8_t *hw_write_back(uint32_t slot, uint16_t len, uint32_t staterr)
{
	union igb_rx_desc *d = &hw_rx_ring()[slot];
	uint8_t *buf = (uint8_t *)(uintptr_t)d->read.pkt_addr;

	assert_non_null(buf);
	memset(buf, 0xab, len < IGB_RX_BUF ? len : IGB_RX_BUF);
	d->wb.pkt_info = 0;
	d->wb.hdr_info = 0;
	d->wb.rss_hash = 0;
	d->wb.length = len;
	d->wb.vlan = 0;
	d->wb.staterr = staterr;
	return buf;
}

/* The next frame into the next posted buffer, the head moving on. */
static uint8_t *hw_receive(uint16_t len, uint32_t staterr)
{
	uint8_t *buf;

	assert_int_not_equal(hw_rdh, *reg(IGB_RDT(0)));
	buf = hw_write_back(hw_rdh, len, staterr);
	hw_rdh = (hw_rdh + 1) % IGB_RX_RING;
	return buf;
}

/* The device sends every posted descriptor and writes DD back on those
 * that asked for it (RS). */
static void hw_transmit_all(void)
{
	while (hw_tdh != *reg(IGB_TDT(0))) {
		union igb_tx_desc *d = &hw_tx_ring()[hw_tdh];

		if (d->read.cmd_type_len & IGB_TXD_CMD_RS)
			d->wb.status |= IGB_TXD_STAT_DD;
		hw_tdh = (hw_tdh + 1) % IGB_TX_RING;
	}
}

/* ---------------------------------------------------- the fake stack */

static struct {
	void *frame;
	uint32_t len, hash;
	unsigned int flags;
} held[IGB_RX_RING];
static int nheld;
static void *done_cookies[IGB_TX_RING];
static int ndone;

static void stack_rx(struct netdev *d, int q, void *frame, uint32_t len,
		     unsigned int flags, uint32_t hash)
{
	(void)d;
	assert_int_equal(q, 0);
	assert_true(nheld < IGB_RX_RING);
	held[nheld].frame = frame;
	held[nheld].len = len;
	held[nheld].flags = flags;
	held[nheld].hash = hash;
	nheld++;
}

/* The same, for a device of several queues. */
static void stack_rx_any(struct netdev *d, int q, void *frame, uint32_t len,
			 unsigned int flags, uint32_t hash)
{
	assert_true(q >= 0 && q < d->nqueues);
	held[nheld].frame = frame;
	held[nheld].len = len;
	held[nheld].flags = flags;
	held[nheld].hash = hash;
	nheld++;
}

static void stack_tx_done(struct netdev *d, int q, void *cookie)
{
	(void)d;
	(void)q;
	done_cookies[ndone++] = cookie;
}

/* A fresh simulated 82576 on a fresh bus of a machine of @nodes nodes
 * and @cpus CPUs: what the part loaded at reset. */
static void setup_machine(int nodes, size_t mib, int cpus)
{
	mm_test_boot(nodes, mib, cpus);
	gbe_sim_reset(nvm_mac, ral_mac);
	nleft_out = 0;
	phy_bmcr = 0;
	nigbs = 0;
	nnetdevs = 0;
	igb_allow_untested(false);
	fake_irq_reset();
	hw_rdh = hw_tdh = 0;
	nheld = ndone = 0;
}

static int setup(void **state)
{
	(void)state;
	setup_machine(1, 32, 1);
	return 0;
}

/* Two nodes, a CPU on each: queue pair q belongs to CPU q, on node q. */
static int setup_2nodes(void **state)
{
	(void)state;
	setup_machine(2, 32, 2);
	return 0;
}

/* 2 MiB: the free memory holds one pair's RX buffers twice at most. */
static int setup_tiny(void **state)
{
	(void)state;
	setup_machine(1, 2, 1);
	return 0;
}

/* 4 MiB: a quarter of the free memory holds one pair's RX buffers, half
 * of it three. */
static int setup_small(void **state)
{
	(void)state;
	setup_machine(1, 4, 1);
	return 0;
}

static int teardown(void **state)
{
	for (int i = 0; i < nheld; i++)
		page_frag_free(held[i].frame);
	page_frag_percpu_drain(0);
	free(regs);
	return mm_test_teardown(state);
}

/* Probe the bus as the test laid it out: one 82576 must bind. */
static struct netdev *bind_one(void)
{
	struct netdev *dev;

	assert_int_equal(igb_probe(1), 1);
	dev = netdev_get(0);
	assert_non_null(dev);
	dev->rx = stack_rx;
	dev->tx_done = stack_tx_done;
	return dev;
}

static struct netdev *probe_one(void)
{
	add_pci(0x10c9, 2);
	return bind_one();
}

/* Probed, and the RX ring filled by a first poll (nothing received). */
static struct netdev *probe_filled(void)
{
	struct netdev *dev = probe_one();

	assert_int_equal(dev->ops->rx_poll(dev, 0, 64), 0);
	assert_int_equal(*reg(IGB_RDT(0)), IGB_RX_RING - 1);
	return dev;
}

/* ------------------------------------------------- bring-up and ids */

static void test_82576_mac_comes_from_ral_and_the_report_says_so(void **state)
{
	struct netdev *dev;

	(void)state;
	dev = probe_one();
	assert_string_equal(dev->kind, "igb");
	assert_memory_equal(dev->mac, ral_mac, 6);
	assert_non_null(strstr(console, "igb: eth0 00:02.0 82576 "
					"mac=52:54:00:1b:00:02 (ral) rx=256 "
					"tx=256 queues=1 link up\n"));
	assert_int_equal(*reg(E1000_RAH0), 0x0200u | E1000_RAH_AV);
}

static void test_without_a_valid_ral_the_mac_comes_from_the_nvm(void **state)
{
	struct netdev *dev;

	(void)state;
	*reg(E1000_RAH0) = 0; /* not marked valid */
	dev = probe_one();
	assert_memory_equal(dev->mac, nvm_mac, 6);
	assert_non_null(strstr(console, "(nvm)"));
}

static void test_rings_are_advanced_enabled_and_interrupts_masked(void **state)
{
	(void)state;
	probe_one();
	assert_int_equal(*reg(IGB_SRRCTL(0)),
			 2u | IGB_SRRCTL_DESC_ADV_ONEBUF | IGB_SRRCTL_DROP_EN);
	assert_true(*reg(IGB_RXDCTL(0)) & IGB_DCTL_ENABLE);
	assert_true(*reg(IGB_TXDCTL(0)) & IGB_DCTL_ENABLE);
	assert_int_equal(*reg(IGB_RDLEN(0)), IGB_RX_RING * 16);
	assert_int_equal(*reg(IGB_TDLEN(0)), IGB_TX_RING * 16);
	assert_true(*reg(E1000_RCTL) & E1000_RCTL_EN);
	assert_true(*reg(E1000_RCTL) & E1000_RCTL_SECRC);
	assert_true(*reg(E1000_TCTL) & E1000_TCTL_EN);
	assert_int_equal(*reg(IGB_RXCSUM), IGB_RXCSUM_IPOFLD |
						   IGB_RXCSUM_TUOFLD |
						   IGB_RXCSUM_PCSD);
	assert_int_equal(*reg(E1000_IMC), 0xffffffffu);
	assert_int_equal(*reg(IGB_EIMC), 0xffffffffu);
	assert_int_equal(*reg(IGB_GPIE), 0);
	assert_true(*reg(E1000E_CTRL_EXT) & E1000E_CTRL_EXT_DRV_LOAD);
	assert_true(*reg(E1000_CTRL) & E1000_CTRL_SLU);
	/* the link renegotiated: a reset leaves it down until then */
	assert_int_equal(phy_bmcr, MII_BMCR_AUTOEN | MII_BMCR_ANRESTART);
}

static void test_an_untested_variant_is_named_and_stopped(void **state)
{
	(void)state;
	add_pci(0x1521, 3); /* I350 copper */
	bus_master[0] = true;
	*reg(E1000_RCTL) = E1000_RCTL_EN; /* firmware left it receiving */
	assert_int_equal(igb_probe(1), 0);
	assert_int_equal(netdev_count(), 0);
	assert_non_null(strstr(console, "igb: 00:03.0 8086:1521 I350-copper "
					"not tested with this driver (only "
					"the 82576 under QEMU is): stopped; "
					"igb_untested=1 drives it\n"));
	assert_false(*reg(E1000_RCTL) & E1000_RCTL_EN);
	assert_false(bus_master[0]);
}

static void test_igb_untested_1_drives_an_untested_variant(void **state)
{
	(void)state;
	igb_allow_untested(true);
	add_pci(0x1533, 4); /* I210 copper */
	assert_int_equal(igb_probe(1), 1);
	assert_non_null(strstr(console, "igb: eth0 00:04.0 I210-copper "
					"(untested) mac="));
}

static void test_a_part_that_fails_its_setup_is_stopped(void **state)
{
	(void)state;
	reset_stuck = true;
	add_pci(0x10c9, 2);
	assert_int_equal(igb_probe(1), 0);
	assert_int_equal(netdev_count(), 0);
	assert_non_null(strstr(console, "igb: 00:02.0: reset did not "
					"complete\n"));
	assert_false(*reg(E1000_RCTL) & E1000_RCTL_EN);
	assert_false(bus_master[0]);
}

static void test_other_intel_parts_are_left_silently(void **state)
{
	(void)state;
	add_pci(0x10d3, 3); /* 82574L: e1000e's */
	add_pci(0x100e, 4); /* 82540EM: e1000's */
	assert_int_equal(igb_probe(1), 0);
	assert_string_equal(console, "");
}

/* ------------------------------------------------------------- RX */

static void test_frames_go_up_zero_copy_with_the_checksum_verdict(void **state)
{
	struct netdev *dev;
	uint8_t *a, *b;

	(void)state;
	dev = probe_filled();
	a = hw_receive(60, IGB_RXD_STAT_DD | IGB_RXD_STAT_EOP);
	b = hw_receive(1514, IGB_RXD_STAT_DD | IGB_RXD_STAT_EOP |
				     IGB_RXD_STAT_L4CS | IGB_RXD_STAT_IPCS);
	assert_int_equal(dev->ops->rx_poll(dev, 0, 64), 2);
	assert_int_equal(nheld, 2);
	assert_ptr_equal(held[0].frame, a);
	assert_int_equal(held[0].len, 60);
	assert_int_equal(held[0].flags, 0); /* nothing checked */
	assert_ptr_equal(held[1].frame, b);
	assert_int_equal(held[1].flags, NETDEV_RX_CSUM_OK);
	/* the verdict is counted as on every other NIC (/stats.json) */
	assert_int_equal(dev->queues[0].stats.rx_csum_valid, 1);
	assert_int_equal(dev->queues[0].stats.rx_bytes, 1574);
	/* both slots got fresh buffers: the tail moved on by two */
	assert_int_equal(*reg(IGB_RDT(0)), 1);
	assert_int_equal(dev->queues[0].stats.rx_bufs_posted, IGB_RX_RING - 1);
}

static void test_a_wrong_sum_goes_up_unflagged_for_lwip_to_drop(void **state)
{
	struct netdev *dev;

	(void)state;
	dev = probe_filled();
	hw_receive(100, IGB_RXD_STAT_DD | IGB_RXD_STAT_EOP | IGB_RXD_STAT_L4CS |
				IGB_RXD_ERR_L4E);
	assert_int_equal(dev->ops->rx_poll(dev, 0, 64), 1);
	assert_int_equal(nheld, 1);
	assert_int_equal(held[0].flags, 0);
	assert_int_equal(dev->queues[0].stats.rx_csum_valid, 0);
}

/* A length past the 2 KiB the device may write: the buffer is not passed
 * up (the stack would read past it), counted, and the ring goes on. */
static void test_a_length_past_the_buffer_is_dropped_and_counted(void **state)
{
	struct netdev *dev;
	uint8_t *good;

	(void)state;
	dev = probe_filled();
	hw_receive(IGB_RX_BUF + 1, IGB_RXD_STAT_DD | IGB_RXD_STAT_EOP);
	hw_receive(1515, IGB_RXD_STAT_DD | IGB_RXD_STAT_EOP); /* > MTU */
	hw_receive(0, IGB_RXD_STAT_DD | IGB_RXD_STAT_EOP);
	good = hw_receive(64, IGB_RXD_STAT_DD | IGB_RXD_STAT_EOP);
	assert_int_equal(dev->ops->rx_poll(dev, 0, 64), 4);
	assert_int_equal(nheld, 1);
	assert_ptr_equal(held[0].frame, good);
	assert_int_equal(dev->queues[0].stats.rx_bad_len, 3);
	assert_int_equal(dev->queues[0].stats.rx_packets, 1);
	assert_int_equal(dev->queues[0].stats.rx_bufs_posted, IGB_RX_RING - 1);
}

/* A frame spread over buffers (no EOP on the first), which long packets
 * off should make impossible: all of it dropped, counted once, and the
 * frame after its EOP goes up. */
static void test_a_frame_without_eop_is_dropped_through_its_end(void **state)
{
	struct netdev *dev;
	uint8_t *good;

	(void)state;
	dev = probe_filled();
	hw_receive(2048, IGB_RXD_STAT_DD);
	hw_receive(2048, IGB_RXD_STAT_DD);
	hw_receive(100, IGB_RXD_STAT_DD | IGB_RXD_STAT_EOP);
	good = hw_receive(80, IGB_RXD_STAT_DD | IGB_RXD_STAT_EOP);
	assert_int_equal(dev->ops->rx_poll(dev, 0, 64), 4);
	assert_int_equal(nheld, 1);
	assert_ptr_equal(held[0].frame, good);
	assert_int_equal(dev->queues[0].stats.rx_bad_len, 1);
}

/* Status bits out of order: a write-back whose length and EOP are there
 * but not yet DD is not the driver's; a DD on a later slot while the
 * oldest has none takes nothing (slots complete in ring order); once the
 * oldest shows DD both go up, in order. */
static void test_status_without_dd_or_out_of_order_waits(void **state)
{
	struct netdev *dev;
	uint8_t *first, *second;

	(void)state;
	dev = probe_filled();
	first = hw_write_back(0, 70, IGB_RXD_STAT_EOP);
	second = hw_write_back(1, 90, IGB_RXD_STAT_DD | IGB_RXD_STAT_EOP);
	assert_int_equal(dev->ops->rx_poll(dev, 0, 64), 0);
	assert_int_equal(nheld, 0);
	hw_rx_ring()[0].wb.staterr |= IGB_RXD_STAT_DD;
	assert_int_equal(dev->ops->rx_poll(dev, 0, 64), 2);
	assert_int_equal(nheld, 2);
	assert_ptr_equal(held[0].frame, first);
	assert_ptr_equal(held[1].frame, second);
	assert_int_equal(held[0].len, 70);
}

static void test_frames_the_device_flagged_bad_are_dropped(void **state)
{
	static const uint32_t errs[] = {IGB_RXD_ERR_CE, IGB_RXD_ERR_SE,
					IGB_RXD_ERR_SEQ, IGB_RXD_ERR_CXE,
					IGB_RXD_ERR_RXE};
	struct netdev *dev;

	(void)state;
	dev = probe_filled();
	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++)
		hw_receive(60, IGB_RXD_STAT_DD | IGB_RXD_STAT_EOP | errs[i]);
	assert_int_equal(dev->ops->rx_poll(dev, 0, 64), 5);
	assert_int_equal(nheld, 0);
	assert_int_equal(dev->queues[0].stats.rx_errors, 5);
}

/* A posted buffer is handed up once: the device writing a slot back a
 * second time (after the driver took its frame, before the slot is
 * posted again) does not make a second frame of the same buffer. */
static void
test_a_second_write_back_of_a_slot_is_not_a_second_frame(void **state)
{
	struct netdev *dev;
	struct igb *g;

	(void)state;
	dev = probe_filled();
	g = dev->priv;
	hw_receive(60, IGB_RXD_STAT_DD | IGB_RXD_STAT_EOP);
	assert_int_equal(dev->ops->rx_poll(dev, 0, 64), 1);
	assert_null(g->pairs[0]->rx.buf[0]); /* the slot holds nothing now */
	hw_rx_ring()[0].wb.length = 60;
	hw_rx_ring()[0].wb.staterr = IGB_RXD_STAT_DD | IGB_RXD_STAT_EOP;
	assert_int_equal(dev->ops->rx_poll(dev, 0, 64), 0);
	assert_int_equal(nheld, 1);
	assert_int_equal(dev->queues[0].stats.rx_packets, 1);
}

/* ------------------------------------------------------------- TX */

/* An IPv4 TCP segment: 10.0.2.15:80 -> 10.0.2.2:1234, @payload bytes. */
static uint32_t tcp4_frame(uint8_t *f, uint32_t payload)
{
	uint32_t tot = 20 + 20 + payload;

	memset(f, 0, 14 + tot);
	f[12] = 0x08;
	f[14] = 0x45;
	f[16] = (uint8_t)(tot >> 8);
	f[17] = (uint8_t)tot;
	f[22] = 64;
	f[23] = FRAME_PROTO_TCP;
	memcpy(f + 26, (const uint8_t[]){10, 0, 2, 15, 10, 0, 2, 2}, 8);
	f[34 + 12] = 5 << 4;
	f[34 + 13] = 0x18;
	return 14 + tot;
}

static void test_tcp_checksum_goes_to_the_device_with_a_context(void **state)
{
	static uint8_t f[200];
	uint32_t len = tcp4_frame(f, 100);
	/* split inside the IP header: the parser reads through the list */
	struct netdev_sg sg[2] = {{f, 20}, {f + 20, len - 20}};
	struct netdev *dev;
	volatile struct igb_tx_ctx_desc *c;
	union igb_tx_desc *d;
	uint32_t pseudo = 0x0a00 + 0x020f + 0x0a00 + 0x0202 + 6 + 120;

	(void)state;
	dev = probe_one();
	assert_true(dev->offloads & NETDEV_OFF_TX_CSUM);
	assert_int_equal(dev->ops->xmit(dev, 0, sg, 2, (void *)0x7), 0);
	dev->ops->tx_flush(dev, 0);
	assert_int_equal(*reg(IGB_TDT(0)), 3); /* context + two data */
	c = (volatile struct igb_tx_ctx_desc *)&hw_tx_ring()[0];
	assert_int_equal(c->type_tucmd_mlhl,
			 IGB_TXD_CMD_DEXT | IGB_TXD_DTYP_CTXT |
				 IGB_CTX_TUCMD_IPV4 | IGB_CTX_TUCMD_TCP);
	assert_int_equal(c->vlan_macip_lens, IGB_CTX_MACLEN(14) | 20);
	d = &hw_tx_ring()[1];
	assert_ptr_equal((void *)(uintptr_t)d->read.addr, f);
	assert_int_equal(d->read.olinfo,
			 IGB_TXD_PAYLEN(len) | IGB_TXD_POPTS_TXSM);
	assert_int_equal(d->read.cmd_type_len & 0xffff, 20);
	assert_false(d->read.cmd_type_len & IGB_TXD_CMD_EOP);
	assert_true(hw_tx_ring()[2].read.cmd_type_len &
		    (IGB_TXD_CMD_EOP | IGB_TXD_CMD_RS));
	/* the sum field holds the pseudo-header sum for the device */
	assert_int_equal(f[34 + 16] << 8 | f[34 + 17], frame_fold(pseudo));
	assert_int_equal(dev->queues[0].stats.tx_csum_offloaded, 1);
	hw_transmit_all();
	assert_int_equal(dev->ops->tx_reap(dev, 0), 1);
	assert_ptr_equal(done_cookies[0], (void *)0x7);
	assert_int_equal(dev->queues[0].stats.tx_inflight, 0);
}

static void test_a_frame_without_l4_goes_without_context(void **state)
{
	static uint8_t arp[60] = {[12] = 0x08, [13] = 0x06};
	struct netdev_sg one = {arp, sizeof(arp)};
	struct netdev *dev;

	(void)state;
	dev = probe_one();
	/* no cookie: nothing could tell the stack the frame is sent */
	assert_int_equal(dev->ops->xmit(dev, 0, &one, 1, NULL), -1);
	assert_int_equal(dev->ops->xmit(dev, 0, &one, 1, (void *)0x1), 0);
	assert_int_equal(dev->ops->xmit(dev, 0, &one, 1, (void *)0x2), 0);
	assert_int_equal(*reg(IGB_TDT(0)), 0); /* published at the flush */
	dev->ops->tx_flush(dev, 0);
	assert_int_equal(*reg(IGB_TDT(0)), 2);
	assert_int_equal(hw_tx_ring()[0].read.olinfo, IGB_TXD_PAYLEN(60));
	assert_true(hw_tx_ring()[0].read.cmd_type_len & IGB_TXD_DTYP_DATA);
	assert_int_equal(dev->ops->tx_reap(dev, 0), 0); /* not sent yet */
	hw_transmit_all();
	assert_true(dev->ops->tx_pending(dev, 0));
	assert_int_equal(dev->ops->tx_reap(dev, 0), 2);
	assert_ptr_equal(done_cookies[0], (void *)0x1);
	assert_ptr_equal(done_cookies[1], (void *)0x2);
}

static void test_a_full_ring_refuses_and_counts_busy(void **state)
{
	static uint8_t arp[60] = {[12] = 0x08, [13] = 0x06};
	struct netdev_sg one = {arp, sizeof(arp)};
	struct netdev *dev;
	int sent = 0;

	(void)state;
	dev = probe_one();
	while (dev->ops->xmit(dev, 0, &one, 1, (void *)0x1) == 0)
		sent++;
	assert_int_equal(sent, IGB_TX_RING - 1);
	assert_int_equal(dev->queues[0].stats.tx_busy, 1);
	/* the full ring was published before giving up */
	assert_int_equal(*reg(IGB_TDT(0)), IGB_TX_RING - 1);
}

static void test_link_changes_are_counted_and_reported(void **state)
{
	struct netdev *dev;

	(void)state;
	dev = probe_one();
	assert_true(dev->ops->link_up(dev));
	*reg(E1000_STATUS) &= ~E1000_STATUS_LU;
	assert_false(dev->ops->link_up(dev));
	*reg(E1000_STATUS) |= E1000_STATUS_LU;
	assert_true(dev->ops->link_up(dev));
	assert_int_equal(dev->queues[0].stats.link_changes, 3);
	assert_non_null(strstr(console, "igb: eth0 link down\n"));
}

/* ------------------------------------------------------- interrupts */

/* The 82576 with MSI-X (and MSI beside it, as QEMU's), queue 0 polled by
 * CPU 1. */
static struct netdev *probe_irq(bool msix, bool msi)
{
	struct netdev *dev;

	add_pci(0x10c9, 2);
	fake_pci[0].cap_msix = msix ? 0x70 : 0;
	fake_pci[0].cap_msi = msi ? 0x50 : 0;
	fake_pci[0].irq_line = 11;
	dev = bind_one();
	dev->queues[0].cpu = 1;
	return dev;
}

static void test_msix_routes_the_queue_pair_and_the_link_by_ivar(void **state)
{
	struct netdev *dev;

	(void)state;
	dev = probe_irq(true, true);
	assert_int_equal(dev->ops->irq_setup(dev), 0);
	assert_string_equal(dev->queues[0].irq_mode, "msix");
	assert_true(fake_msix_enabled);
	assert_false(fake_msi_enabled);
	assert_int_equal(nfake_irqs, 2);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(fake_irqs[i].cpu, 1);
		assert_int_equal(fake_msix_entry_of(fake_irqs[i].vector), i);
	}
	assert_int_equal(dev->queues[0].irq_vector, fake_irqs[0].vector);
	assert_true(*reg(IGB_GPIE) & IGB_GPIE_MSIX);
	/* RX 0 and TX 0 on vector 0, the other causes on vector 1 */
	assert_int_equal(*reg(IGB_IVAR(0)), 0x8080u);
	assert_int_equal(*reg(IGB_IVAR_MISC), 0x8100u);
	assert_int_equal(*reg(IGB_EIAC), 0x3u);
	/* link interrupts from now on; the queue's waits for its poller */
	assert_int_equal(*reg(IGB_EIMS), 0x2u);
	assert_int_equal(*reg(E1000_IMS), E1000_ICR_LSC);
	assert_non_null(strstr(console, "igb: eth0 queue 0: msix vector 0x31 "
					"cpu 1\nigb: eth0 link: msix vector "
					"0x32 cpu 1\n"));
}

static void test_msix_queue_vector_masks_its_queue_and_wakes(void **state)
{
	struct netdev *dev;

	(void)state;
	dev = probe_irq(true, false);
	dev->ops->irq_setup(dev);
	*reg(IGB_EIMC) = 0;
	fake_irq_fire(0);
	assert_int_equal(*reg(IGB_EIMC), 0x1u);
	assert_int_equal(fake_wakes, 1);
	assert_int_equal(fake_wake_cpu, 1);
	assert_int_equal(dev->queues[0].stats.interrupts, 1);
	/* the link vector: a change noted for the poller, nothing masked */
	*reg(IGB_EIMC) = 0;
	*reg(E1000_ICR) = E1000_ICR_LSC;
	fake_irq_fire(1);
	assert_int_equal(*reg(IGB_EIMC), 0);
	assert_true(dev->ops->link_changed(dev));
	assert_int_equal(dev->queues[0].stats.link_interrupts, 1);
	assert_int_equal(fake_wakes, 2);
}

static void test_msix_arm_unmasks_and_looks_at_the_rings(void **state)
{
	struct netdev *dev;

	(void)state;
	dev = probe_irq(true, false);
	dev->ops->irq_setup(dev);
	assert_int_equal(dev->ops->rx_poll(dev, 0, 64), 0); /* fill */
	assert_false(dev->ops->irq_arm(dev, 0));
	assert_int_equal(*reg(IGB_EICR), 0x1u); /* latched cause cleared */
	assert_int_equal(*reg(IGB_EIMS), 0x1u);
	/* a frame written back before the unmask: poll again */
	hw_receive(60, IGB_RXD_STAT_DD | IGB_RXD_STAT_EOP);
	assert_true(dev->ops->irq_arm(dev, 0));
	dev->ops->irq_disarm(dev, 0);
	assert_int_equal(*reg(IGB_EIMC), 0x1u);
}

static void test_too_few_msix_entries_fall_back_to_msi(void **state)
{
	struct netdev *dev;

	(void)state;
	fake_msix_entries = 1; /* one vector: no room for the link's */
	dev = probe_irq(true, true);
	assert_int_equal(dev->ops->irq_setup(dev), 0);
	assert_string_equal(dev->queues[0].irq_mode, "msi");
	assert_true(fake_msi_enabled);
	assert_false(fake_msix_enabled);
	assert_int_equal(*reg(IGB_GPIE), 0);
	assert_non_null(strstr(console, "igb: eth0: MSI-X not usable (1 "
					"entries for 2 vectors), falling "
					"back\n"));
	assert_non_null(strstr(console, "igb: eth0 queues 0-0: msi vector "
					"0x31 cpu 1\n"));
}

/* MSI-X vectors run out half-way: the one taken is given back, MSI finds
 * none either, and the INTx line is used. */
static void test_vectors_running_out_end_on_the_intx_line(void **state)
{
	struct netdev *dev;

	(void)state;
	fake_msi_fail_after = 2;
	dev = probe_irq(true, true);
	assert_int_equal(dev->ops->irq_setup(dev), 0);
	assert_string_equal(dev->queues[0].irq_mode, "intx");
	assert_int_equal(fake_vectors_freed, 1);
	assert_false(fake_msix_enabled);
	assert_non_null(strstr(console, "(line shared, level)\n"));
}

static void test_intx_handler_claims_only_its_causes(void **state)
{
	struct netdev *dev;

	(void)state;
	dev = probe_irq(false, false);
	assert_int_equal(dev->ops->irq_setup(dev), 0);
	assert_string_equal(dev->queues[0].irq_mode, "intx");
	*reg(E1000_ICR) = 0; /* another device on the line */
	*reg(E1000_IMC) = 0;
	fake_irq_fire(0);
	assert_int_equal(fake_wakes, 0);
	assert_int_equal(*reg(E1000_IMC), 0);
	*reg(E1000_ICR) = E1000_ICR_RXT0;
	fake_irq_fire(0);
	assert_int_equal(*reg(E1000_IMC), 0xffffffffu);
	assert_int_equal(fake_wakes, 1);
	assert_int_equal(dev->queues[0].stats.interrupts, 1);
	/* arming opens the shared mask; disarming leaves it to the handler */
	*reg(E1000_ICR) = 0;
	assert_false(dev->ops->irq_arm(dev, 0));
	assert_int_equal(*reg(E1000_IMS), IGB_SHARED_CAUSES);
	*reg(E1000_IMC) = 0;
	dev->ops->irq_disarm(dev, 0);
	assert_int_equal(*reg(E1000_IMC), 0);
}

/* --------------------------------------------------- queues and RSS */

/* The 82576 with MSI-X (5 entries in the fake: room for 4 pairs and the
 * link), probed for up to @queues pairs. */
static struct netdev *probe_queues(int queues)
{
	struct netdev *dev;

	add_pci(0x10c9, 2);
	fake_pci[0].cap_msix = 0x70;
	assert_int_equal(igb_probe(queues), 1);
	dev = netdev_get(0);
	dev->rx = stack_rx_any;
	dev->tx_done = stack_tx_done;
	return dev;
}

static void test_pairs_follow_cpus_part_and_msix_vectors(void **state)
{
	(void)state;
	/* 6 CPUs asked, 4 vectors for pairs (5 entries less the link's) */
	assert_int_equal(probe_queues(6)->nqueues, 4);
	assert_non_null(strstr(console, " queues=4 link up\n"));
	for (int q = 0; q < 4; q++) {
		assert_true(*reg(IGB_RXDCTL(q)) & IGB_DCTL_ENABLE);
		assert_true(*reg(IGB_TXDCTL(q)) & IGB_DCTL_ENABLE);
		assert_int_not_equal(*reg(IGB_RDBAL(q)), 0);
	}
	assert_false(*reg(IGB_RXDCTL(4)) & IGB_DCTL_ENABLE);
}

static void test_a_small_memory_gets_fewer_pairs_and_no_tso(void **state)
{
	(void)state;
	assert_int_equal(probe_queues(4)->nqueues, 1);
	assert_non_null(strstr(console, "igb: 00:02.0: 1 of 4 queue pairs: "
					"the free memory holds no more RX "
					"buffers\n"));
	/* and no TSO tables where every page is wanted for buffers */
	assert_non_null(strstr(console, "igb: 00:02.0: TSO off: its tables "
					"would take more than 1/64 of the "
					"free memory\n"));
	assert_null(((struct igb *)netdev_get(0)->priv)->pairs[0]->tx.batch);
}

/* The rings of the pairs kept take at most a quarter of the free memory:
 * at half, two pairs of a q35 guest of -m 8M took every page after a
 * flood and it answered nothing for good. */
static void
test_the_rings_take_at_most_a_quarter_of_the_free_memory(void **state)
{
	uint64_t free_bytes = (uint64_t)nr_free_pages() * MM_PAGE_SIZE;
	struct netdev *dev;

	(void)state;
	assert_true(free_bytes / 2 >= 3 * IGB_PAIR_RX_BYTES);
	dev = probe_queues(4);
	assert_int_equal(dev->nqueues, 1);
	assert_non_null(strstr(console, "igb: 00:02.0: 1 of 4 queue pairs: "
					"the free memory holds no more RX "
					"buffers\n"));
}

static void test_a_part_without_msix_gets_one_pair(void **state)
{
	(void)state;
	add_pci(0x10c9, 2);
	fake_pci[0].cap_msi = 0x50;
	assert_int_equal(igb_probe(4), 1);
	assert_int_equal(netdev_get(0)->nqueues, 1);
}

static void test_rss_key_table_and_fields_are_programmed(void **state)
{
	struct netdev *dev;

	(void)state;
	dev = probe_queues(4);
	assert_int_equal(dev->rss_table_len, 128);
	for (int i = 0; i < 128; i++)
		assert_int_equal(dev->rss_table[i], i % 4);
	assert_int_equal(*reg(IGB_RETA(0)), 0x03020100u);
	assert_int_equal(*reg(IGB_RETA(31)), 0x03020100u);
	/* the key's first bytes, the lowest first */
	assert_int_equal(*reg(IGB_RSSRK(0)), 0xda565a6du);
	assert_memory_equal(dev->rss_key, netdev_rss_default_key, 40);
	assert_int_equal(*reg(IGB_MRQC), IGB_MRQC_RSS | IGB_MRQC_FIELDS);
	/* the hash needs PCSD: the write-back carries it, not a sum */
	assert_true(*reg(IGB_RXCSUM) & IGB_RXCSUM_PCSD);
}

static void test_the_stack_chooses_the_table(void **state)
{
	static const uint8_t two[2] = {1, 0}, bad[2] = {0, 4};
	struct netdev *dev;

	(void)state;
	dev = probe_queues(4);
	assert_int_equal(dev->ops->set_rss_table(dev, two, 3), -1);
	assert_int_equal(dev->ops->set_rss_table(dev, bad, 2), -1);
	assert_int_equal(dev->rss_table[1], 1); /* refused: nothing changed */
	assert_int_equal(dev->ops->set_rss_table(dev, two, 2), 0);
	assert_int_equal(*reg(IGB_RETA(0)), 0x00010001u);
	assert_int_equal(*reg(IGB_RETA(31)), 0x00010001u);
	assert_int_equal(dev->rss_table[127], 0);
	assert_int_equal(netdev_rss_queue(dev, 0x12345678), 0x78 % 2 ? 0 : 1);
}

static void test_the_hash_and_its_kind_go_up_with_the_frame(void **state)
{
	static const struct {
		uint16_t type;
		unsigned int flags;
	} kinds[] = {
		{IGB_RSS_TYPE_TCP_IPV4, NETDEV_RX_HASH_L4},
		{IGB_RSS_TYPE_UDP_IPV6, NETDEV_RX_HASH_L4},
		{IGB_RSS_TYPE_IPV4, NETDEV_RX_HASH_L3},
		{IGB_RSS_TYPE_IPV6, NETDEV_RX_HASH_L3},
		{0, 0}, /* not hashed: no hash */
	};
	struct netdev *dev;

	(void)state;
	dev = probe_filled();
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		union igb_rx_desc *d = &hw_rx_ring()[hw_rdh];

		hw_receive(60, IGB_RXD_STAT_DD | IGB_RXD_STAT_EOP);
		d->wb.pkt_info = kinds[i].type | 0x10; /* + a packet type */
		d->wb.rss_hash = 0xc0ffee00u + (uint32_t)i;
	}
	assert_int_equal(dev->ops->rx_poll(dev, 0, 64), 5);
	for (int i = 0; i < 5; i++) {
		assert_int_equal(held[i].flags, kinds[i].flags);
		assert_int_equal(held[i].hash,
				 kinds[i].flags ? 0xc0ffee00u + (uint32_t)i
						: 0);
	}
}

/* Queue pair 1 belongs to CPU 1 on node 1: its rings are there, and so
 * are the RX buffers its first poll (on CPU 1) posts. */
static void poll_queue1(void *arg)
{
	struct netdev *dev = arg;

	assert_int_equal(dev->ops->rx_poll(dev, 1, 64), 0);
}

static void test_a_pairs_rings_and_buffers_are_on_its_cpus_node(void **state)
{
	struct netdev *dev;
	struct igb *g;

	(void)state;
	dev = probe_queues(2);
	g = dev->priv;
	assert_int_equal(dev->nqueues, 2);
	assert_int_equal(dev->queues[1].cpu, 1);
	assert_int_equal(dev->queues[1].node, 1);
	assert_int_equal(
		page_to_nid(virt_to_page((const void *)g->pairs[1]->rx.desc)),
		1);
	assert_int_equal(
		page_to_nid(virt_to_page((const void *)g->pairs[1]->tx.desc)),
		1);
	assert_int_equal(
		page_to_nid(virt_to_page((const void *)g->pairs[0]->rx.desc)),
		0);
	mm_test_on_cpu(1, poll_queue1, dev);
	assert_int_equal(*reg(IGB_RDT(1)), IGB_RX_RING - 1);
	for (int i = 0; i < IGB_RX_RING - 1; i++)
		assert_int_equal(
			page_to_nid(virt_to_page(g->pairs[1]->rx.buf[i])), 1);
}

/* ---------------------------------------------------------------- TSO */

/* A TCP segment's headers (ACK, 20-byte header) in h, for IPv4
 * 10.0.2.15:80 -> 10.0.2.2:1234 or IPv6 2001:db8::f -> 2001:db8::2,
 * carrying @payload bytes from @seq. Returns the header bytes. */
static uint32_t tcp_headers(uint8_t *h, bool ipv6, uint32_t seq,
			    uint32_t payload)
{
	uint32_t l4 = ipv6 ? 54 : 34;

	memset(h, 0, l4 + 20);
	if (ipv6) {
		h[12] = 0x86;
		h[13] = 0xdd;
		h[14] = 0x60;
		frame_put_be16(h + 18, 20 + payload);
		h[20] = FRAME_PROTO_TCP;
		h[21] = 64;
		h[22] = 0x20, h[23] = 0x01, h[24] = 0x0d, h[25] = 0xb8;
		h[37] = 0x0f;
		h[38] = 0x20, h[39] = 0x01, h[40] = 0x0d, h[41] = 0xb8;
		h[53] = 0x02;
	} else {
		h[12] = 0x08;
		h[14] = 0x45;
		frame_put_be16(h + 16, 40 + payload);
		h[20] = 0x40; /* DF */
		h[22] = 64;
		h[23] = FRAME_PROTO_TCP;
		memcpy(h + 26, (const uint8_t[]){10, 0, 2, 15, 10, 0, 2, 2}, 8);
	}
	frame_put_be16(h + l4, 80);
	frame_put_be16(h + l4 + 2, 1234);
	frame_put_be16(h + l4 + 4, seq >> 16);
	frame_put_be16(h + l4 + 6, seq & 0xffff);
	h[l4 + 12] = 5 << 4;
	h[l4 + 13] = 0x10; /* ACK */
	frame_put_be16(h + l4 + 14, 8192);
	return l4 + 20;
}

static uint8_t seg_hdr[4][80];
static uint8_t seg_pay[4][1000];

/* Segment i of a flow: its headers and 1000 payload bytes, two pieces. */
static int seg(struct netdev_sg *sg, int i, bool ipv6, uint32_t seq)
{
	sg[0] = (struct netdev_sg){seg_hdr[i],
				   tcp_headers(seg_hdr[i], ipv6, seq, 1000)};
	memset(seg_pay[i], 'a' + i, sizeof(seg_pay[i]));
	sg[1] = (struct netdev_sg){seg_pay[i], 1000};
	return 2;
}

static struct netdev *probe_tso(void)
{
	struct netdev *dev = probe_one();
	struct igb *g = dev->priv;

	assert_non_null(g->pairs[0]->tx.tso_hdr);
	assert_non_null(g->pairs[0]->tx.batch);
	return dev;
}

static void test_three_ipv4_segments_go_as_one_tso_frame(void **state)
{
	struct netdev_sg sg[2];
	struct netdev *dev;
	volatile struct igb_tx_ctx_desc *c;
	union igb_tx_desc *d;
	const uint8_t *h;
	uint32_t pseudo = 0x0a00 + 0x020f + 0x0a00 + 0x0202 + 6;

	(void)state;
	dev = probe_tso();
	for (int i = 0; i < 3; i++)
		assert_int_equal(dev->ops->xmit(dev, 0, sg,
						seg(sg, i, false, 1000u * i),
						(void *)(uintptr_t)(i + 1)),
				 0);
	assert_int_equal(*reg(IGB_TDT(0)), 0); /* held until the flush */
	dev->ops->tx_flush(dev, 0);
	/* context, headers, three payloads */
	assert_int_equal(*reg(IGB_TDT(0)), 5);
	c = (volatile struct igb_tx_ctx_desc *)&hw_tx_ring()[0];
	assert_int_equal(c->type_tucmd_mlhl,
			 IGB_TXD_CMD_DEXT | IGB_TXD_DTYP_CTXT |
				 IGB_CTX_TUCMD_IPV4 | IGB_CTX_TUCMD_TCP);
	assert_int_equal(c->vlan_macip_lens, IGB_CTX_MACLEN(14) | 20);
	assert_int_equal(c->mss_l4len_idx,
			 IGB_CTX_MSS(1000) | IGB_CTX_L4LEN(20));
	d = &hw_tx_ring()[1];
	h = (const uint8_t *)(uintptr_t)d->read.addr;
	assert_int_equal(d->read.cmd_type_len & 0xffff, 54);
	assert_true(d->read.cmd_type_len & IGB_TXD_CMD_TSE);
	assert_int_equal(d->read.olinfo, IGB_TXD_PAYLEN(3000) |
						 IGB_TXD_POPTS_TXSM |
						 IGB_TXD_POPTS_IXSM);
	/* the merged headers: the whole length, IPv4 sum left to the device,
	 * the TCP sum seeded without a length; the stack's own untouched */
	assert_int_equal(frame_be16(h + 16), 3040);
	assert_int_equal(frame_be16(h + 24), 0);
	assert_int_equal(frame_be16(h + 34 + 16), frame_fold(pseudo));
	assert_int_equal(frame_be16(seg_hdr[0] + 16), 1040);
	for (int i = 0; i < 3; i++) {
		d = &hw_tx_ring()[2 + i];
		assert_ptr_equal((void *)(uintptr_t)d->read.addr, seg_pay[i]);
		assert_true(d->read.cmd_type_len & IGB_TXD_CMD_TSE);
		assert_int_equal(d->read.olinfo, 0);
	}
	assert_true(hw_tx_ring()[4].read.cmd_type_len & IGB_TXD_CMD_EOP);
	assert_int_equal(dev->queues[0].stats.tx_gso_frames, 1);
	assert_int_equal(dev->queues[0].stats.tx_gso_segs, 3);
	assert_int_equal(dev->queues[0].stats.tx_packets, 3);
	hw_transmit_all();
	assert_int_equal(dev->ops->tx_reap(dev, 0), 3);
	for (int i = 0; i < 3; i++)
		assert_ptr_equal(done_cookies[i], (void *)(uintptr_t)(i + 1));
	assert_int_equal(dev->queues[0].stats.tx_inflight, 0);
}

static void test_ipv6_segments_merge_without_ipv4_fields(void **state)
{
	struct netdev_sg sg[2];
	struct netdev *dev;
	volatile struct igb_tx_ctx_desc *c;
	union igb_tx_desc *d;
	const uint8_t *h;

	(void)state;
	dev = probe_tso();
	dev->ops->xmit(dev, 0, sg, seg(sg, 0, true, 7), (void *)0x1);
	dev->ops->xmit(dev, 0, sg, seg(sg, 1, true, 1007), (void *)0x2);
	dev->ops->tx_flush(dev, 0);
	assert_int_equal(*reg(IGB_TDT(0)), 4);
	c = (volatile struct igb_tx_ctx_desc *)&hw_tx_ring()[0];
	assert_int_equal(c->type_tucmd_mlhl, IGB_TXD_CMD_DEXT |
						     IGB_TXD_DTYP_CTXT |
						     IGB_CTX_TUCMD_TCP);
	assert_int_equal(c->vlan_macip_lens, IGB_CTX_MACLEN(14) | 40);
	d = &hw_tx_ring()[1];
	h = (const uint8_t *)(uintptr_t)d->read.addr;
	assert_int_equal(d->read.olinfo,
			 IGB_TXD_PAYLEN(2000) | IGB_TXD_POPTS_TXSM);
	assert_int_equal(frame_be16(h + 18), 2020); /* payload length */
	hw_transmit_all();
	assert_int_equal(dev->ops->tx_reap(dev, 0), 2);
}

/* What is held goes out before a frame that cannot join it, and a lone
 * segment goes as the frame it was: the wire order is the stack's. */
static void test_a_lone_segment_goes_as_it_came_before_the_next(void **state)
{
	static uint8_t arp[60] = {[12] = 0x08, [13] = 0x06};
	struct netdev_sg sg[2], one = {arp, sizeof(arp)};
	struct netdev *dev;

	(void)state;
	dev = probe_tso();
	dev->ops->xmit(dev, 0, sg, seg(sg, 0, false, 0), (void *)0x1);
	dev->ops->xmit(dev, 0, &one, 1, (void *)0x2);
	/* a gap in the sequence: not the held batch's next */
	dev->ops->xmit(dev, 0, sg, seg(sg, 1, false, 5000), (void *)0x3);
	dev->ops->tx_flush(dev, 0);
	/* segment 0 (context + 2), the ARP (1), segment 1 (context + 2) */
	assert_int_equal(*reg(IGB_TDT(0)), 7);
	assert_ptr_equal((void *)(uintptr_t)hw_tx_ring()[1].read.addr,
			 seg_hdr[0]);
	assert_ptr_equal((void *)(uintptr_t)hw_tx_ring()[3].read.addr, arp);
	assert_ptr_equal((void *)(uintptr_t)hw_tx_ring()[5].read.addr,
			 seg_hdr[1]);
	assert_int_equal(dev->queues[0].stats.tx_gso_frames, 0);
	hw_transmit_all();
	assert_int_equal(dev->ops->tx_reap(dev, 0), 3);
	for (int i = 0; i < 3; i++)
		assert_ptr_equal(done_cookies[i], (void *)(uintptr_t)(i + 1));
}

/* ------------------------------------------ TSO of large segments */

#define MSS4  1460 /* lwIP's MSS at MTU 1500: 1500 - 40 */
#define MSS6  1440 /* lwIP's MSS for IPv6 at MTU 1500: 1500 - 60 */
#define F_FIN 0x01
#define F_PSH 0x08
#define F_ACK 0x10

static uint8_t large_hdr[80];
static uint8_t large_pay[66000];

/* A large segment, as lwIP builds it on a NIC with NETDEV_OFF_TSO4/6:
 * the headers (TCP flags @flags), then @payload bytes of large_pay in
 * @npieces pieces. Returns the pieces in sg. */
static int large_seg(struct netdev_sg *sg, bool ipv6, uint32_t seq,
		     uint32_t payload, int npieces, uint8_t flags)
{
	uint32_t hlen = tcp_headers(large_hdr, ipv6, seq, payload), at = 0;

	large_hdr[hlen - 20 + 13] = flags;
	sg[0] = (struct netdev_sg){large_hdr, hlen};
	for (int i = 0; i < npieces; i++) {
		uint32_t n = i == npieces - 1 ? payload - at
					      : payload / (uint32_t)npieces;

		sg[1 + i] = (struct netdev_sg){large_pay + at, n};
		at += n;
	}
	return 1 + npieces;
}

/* The TSO frame whose context is at slot: MSS, header lengths, the
 * payload length on its first data descriptor. */
static void assert_tso_frame(int slot, bool ipv6, uint32_t mss,
			     uint32_t payload)
{
	volatile struct igb_tx_ctx_desc *c =
		(volatile struct igb_tx_ctx_desc *)&hw_tx_ring()[slot];
	union igb_tx_desc *d = &hw_tx_ring()[slot + 1];
	const uint8_t *h = (const uint8_t *)(uintptr_t)d->read.addr;

	assert_int_equal(c->type_tucmd_mlhl,
			 IGB_TXD_CMD_DEXT | IGB_TXD_DTYP_CTXT |
				 (ipv6 ? 0 : IGB_CTX_TUCMD_IPV4) |
				 IGB_CTX_TUCMD_TCP);
	assert_int_equal(c->vlan_macip_lens,
			 IGB_CTX_MACLEN(14) | (ipv6 ? 40 : 20));
	assert_int_equal(c->mss_l4len_idx,
			 IGB_CTX_MSS(mss) | IGB_CTX_L4LEN(20));
	assert_int_equal(d->read.cmd_type_len & 0xffff, ipv6 ? 74 : 54);
	assert_true(d->read.cmd_type_len & IGB_TXD_CMD_TSE);
	assert_int_equal(d->read.olinfo,
			 IGB_TXD_PAYLEN(payload) | IGB_TXD_POPTS_TXSM |
				 (ipv6 ? 0 : IGB_TXD_POPTS_IXSM));
	if (ipv6)
		assert_int_equal(frame_be16(h + 18), 20 + payload);
	else
		assert_int_equal(frame_be16(h + 16), 40 + payload);
}

/* One large IPv4 segment: one TSO frame at once (no flush needed to
 * post it), cut at lwIP's MSS, counted as one stack frame and six wire
 * segments; it comes back as one cookie. */
static void test_a_large_ipv4_segment_is_one_tso_frame_at_mtu_mss(void **state)
{
	struct netdev_sg sg[NETDEV_MAX_SG];
	struct netdev *dev;
	int n;

	(void)state;
	dev = probe_tso();
	assert_int_equal(dev->offloads & (NETDEV_OFF_TSO4 | NETDEV_OFF_TSO6),
			 NETDEV_OFF_TSO4 | NETDEV_OFF_TSO6);
	n = large_seg(sg, false, 0, 5 * MSS4 + 100, 2, F_ACK);
	assert_int_equal(dev->ops->xmit(dev, 0, sg, n, (void *)0x1), 0);
	/* context, headers, two payload pieces: queued, not held */
	assert_int_equal(((struct igb *)dev->priv)->pairs[0]->tx.tail, 4);
	dev->ops->tx_flush(dev, 0);
	assert_int_equal(*reg(IGB_TDT(0)), 4);
	assert_tso_frame(0, false, MSS4, 5 * MSS4 + 100);
	assert_ptr_equal((void *)(uintptr_t)hw_tx_ring()[2].read.addr,
			 large_pay);
	assert_true(hw_tx_ring()[3].read.cmd_type_len & IGB_TXD_CMD_EOP);
	assert_int_equal(dev->queues[0].stats.tx_gso_frames, 1);
	assert_int_equal(dev->queues[0].stats.tx_gso_segs, 6);
	assert_int_equal(dev->queues[0].stats.tx_packets, 1);
	assert_int_equal(dev->queues[0].stats.tx_bytes, 54 + 5 * MSS4 + 100);
	hw_transmit_all();
	assert_int_equal(dev->ops->tx_reap(dev, 0), 1);
	assert_ptr_equal(done_cookies[0], (void *)0x1);
	assert_int_equal(dev->queues[0].stats.tx_inflight, 0);
}

static void test_a_large_ipv6_segment_is_cut_at_its_mss(void **state)
{
	struct netdev_sg sg[NETDEV_MAX_SG];
	struct netdev *dev;
	int n;

	(void)state;
	dev = probe_tso();
	n = large_seg(sg, true, 0, 3 * MSS6 + 1, 1, F_ACK);
	assert_int_equal(dev->ops->xmit(dev, 0, sg, n, (void *)0x1), 0);
	dev->ops->tx_flush(dev, 0);
	assert_int_equal(*reg(IGB_TDT(0)), 3);
	assert_tso_frame(0, true, MSS6, 3 * MSS6 + 1);
	assert_int_equal(dev->queues[0].stats.tx_gso_segs, 4);
}

/* Held MSS segments go before a large one, and the MSS segment after it
 * does not join it: merged frame, large frame, plain frame, in the
 * stack's order, each cookie back once in that order. */
static void test_a_large_segment_goes_alone_after_what_is_held(void **state)
{
	struct netdev_sg sg[NETDEV_MAX_SG];
	struct netdev *dev;
	uint32_t large = 5 * MSS4 + 100;
	int n;

	(void)state;
	dev = probe_tso();
	dev->ops->xmit(dev, 0, sg, seg(sg, 0, false, 0), (void *)0x1);
	dev->ops->xmit(dev, 0, sg, seg(sg, 1, false, 1000), (void *)0x2);
	n = large_seg(sg, false, 2000, large, 2, F_ACK);
	assert_int_equal(dev->ops->xmit(dev, 0, sg, n, (void *)0x3), 0);
	assert_int_equal(dev->ops->xmit(dev, 0, sg,
					seg(sg, 2, false, 2000 + large),
					(void *)0x4),
			 0);
	dev->ops->tx_flush(dev, 0);
	/* merged: context, headers, 2 payloads; large: the same; the last
	 * segment as it came: context and its two pieces */
	assert_int_equal(*reg(IGB_TDT(0)), 11);
	assert_tso_frame(0, false, 1000, 2000);
	assert_tso_frame(4, false, MSS4, large);
	assert_false(hw_tx_ring()[9].read.cmd_type_len & IGB_TXD_CMD_TSE);
	assert_ptr_equal((void *)(uintptr_t)hw_tx_ring()[9].read.addr,
			 seg_hdr[2]);
	assert_int_equal(dev->queues[0].stats.tx_gso_frames, 2);
	assert_int_equal(dev->queues[0].stats.tx_gso_segs, 2 + 6);
	assert_int_equal(dev->queues[0].stats.tx_packets, 4);
	hw_transmit_all();
	assert_int_equal(dev->ops->tx_reap(dev, 0), 4);
	for (int i = 0; i < 4; i++)
		assert_ptr_equal(done_cookies[i], (void *)(uintptr_t)(i + 1));
}

/* lwIP puts FIN (and PSH) on a stream's last segment. A large one's PSH
 * stays on the TSO frame's headers (the 82576 sets it on the last segment
 * it cuts); its FIN goes apart, right after, as a segment of no payload
 * at the sequence that follows (QEMU's software cutting clears FIN on
 * every segment). Fifteen payload pieces (NETDEV_MAX_SG with the
 * headers) take 17 slots, the FIN 2 more; one cookie back, once both
 * are done. */
static void test_a_large_segment_with_fin_sends_the_fin_apart(void **state)
{
	uint32_t pseudo = 0x0a00 + 0x020f + 0x0a00 + 0x0202 + 6 + 20;
	struct netdev_sg sg[NETDEV_MAX_SG];
	struct netdev *dev;
	const uint8_t *h, *fin;
	union igb_tx_desc *d;
	int n;

	(void)state;
	dev = probe_tso();
	n = large_seg(sg, false, 7, 10 * MSS4, 15, F_ACK | F_PSH | F_FIN);
	assert_int_equal(n, NETDEV_MAX_SG);
	assert_int_equal(dev->ops->xmit(dev, 0, sg, n, (void *)0x1), 0);
	dev->ops->tx_flush(dev, 0);
	assert_int_equal(*reg(IGB_TDT(0)), 19);
	assert_tso_frame(0, false, MSS4, 10 * MSS4);
	h = (const uint8_t *)(uintptr_t)hw_tx_ring()[1].read.addr;
	assert_int_equal(h[34 + 13], F_ACK | F_PSH);
	assert_int_equal(large_hdr[34 + 13], F_ACK | F_PSH | F_FIN);
	/* the FIN: a context for the sums, one descriptor of headers */
	assert_int_equal(((volatile struct igb_tx_ctx_desc *)&hw_tx_ring()[17])
				 ->mss_l4len_idx,
			 IGB_CTX_L4LEN(20));
	d = &hw_tx_ring()[18];
	fin = (const uint8_t *)(uintptr_t)d->read.addr;
	assert_int_equal(d->read.cmd_type_len & 0xffff, 54);
	assert_false(d->read.cmd_type_len & IGB_TXD_CMD_TSE);
	assert_true(d->read.cmd_type_len & IGB_TXD_CMD_EOP);
	assert_int_equal(d->read.olinfo, IGB_TXD_PAYLEN(54) |
						 IGB_TXD_POPTS_TXSM |
						 IGB_TXD_POPTS_IXSM);
	assert_int_equal(fin[34 + 13], F_ACK | F_FIN);
	assert_int_equal(frame_be16(fin + 16), 40);
	assert_int_equal(frame_be16(fin + 38) << 16 | frame_be16(fin + 40),
			 7 + 10 * MSS4);
	assert_int_equal(frame_be16(fin + 34 + 16), frame_fold(pseudo));
	assert_int_equal(dev->queues[0].stats.tx_gso_segs, 10);
	assert_int_equal(dev->queues[0].stats.tx_packets, 1);
	hw_transmit_all();
	assert_int_equal(dev->ops->tx_reap(dev, 0), 1);
	assert_ptr_equal(done_cookies[0], (void *)0x1);
	assert_int_equal(dev->queues[0].stats.tx_inflight, 0);
}

/* A frame longer than the MTU that is not a segment the device may cut
 * (a SYN, a datagram longer than IP allows) is refused and counted,
 * never put on the ring; what was held still goes. */
static void test_an_over_mtu_frame_not_to_cut_is_refused(void **state)
{
	struct netdev_sg sg[NETDEV_MAX_SG];
	struct netdev *dev;
	int n;

	(void)state;
	dev = probe_tso();
	dev->ops->xmit(dev, 0, sg, seg(sg, 0, false, 0), (void *)0x1);
	n = large_seg(sg, false, 1000, 2 * MSS4, 1, F_ACK | 0x02 /* SYN */);
	assert_int_equal(dev->ops->xmit(dev, 0, sg, n, (void *)0x2), -1);
	n = large_seg(sg, true, 1000, 65500, 2, F_ACK); /* 65540 bytes */
	assert_int_equal(dev->ops->xmit(dev, 0, sg, n, (void *)0x3), -1);
	assert_int_equal(dev->queues[0].stats.tx_bad_len, 2);
	dev->ops->tx_flush(dev, 0);
	assert_int_equal(*reg(IGB_TDT(0)), 3); /* segment 0 alone */
	assert_int_equal(dev->queues[0].stats.tx_gso_frames, 0);
	assert_int_equal(dev->queues[0].stats.tx_packets, 1);
}
/* Without TSO tables (a memory too small for them) the device says it
 * cuts nothing, so the stack builds no large segment; one that comes all
 * the same is refused and counted, not sent whole. */
static void test_without_tso_tables_a_large_segment_is_refused(void **state)
{
	struct netdev_sg sg[NETDEV_MAX_SG];
	struct netdev *dev;
	int n;

	(void)state;
	dev = probe_queues(4);
	assert_null(((struct igb *)dev->priv)->pairs[0]->tx.batch);
	assert_int_equal(dev->offloads & (NETDEV_OFF_TSO4 | NETDEV_OFF_TSO6),
			 0);
	n = large_seg(sg, false, 0, 2 * MSS4, 1, F_ACK);
	assert_int_equal(dev->ops->xmit(dev, 0, sg, n, (void *)0x1), -1);
	assert_int_equal(dev->queues[0].stats.tx_bad_len, 1);
	assert_int_equal(dev->queues[0].stats.tx_packets, 0);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_82576_mac_comes_from_ral_and_the_report_says_so),
		T(test_without_a_valid_ral_the_mac_comes_from_the_nvm),
		T(test_rings_are_advanced_enabled_and_interrupts_masked),
		T(test_an_untested_variant_is_named_and_stopped),
		T(test_igb_untested_1_drives_an_untested_variant),
		T(test_a_part_that_fails_its_setup_is_stopped),
		T(test_other_intel_parts_are_left_silently),
		T(test_frames_go_up_zero_copy_with_the_checksum_verdict),
		T(test_a_wrong_sum_goes_up_unflagged_for_lwip_to_drop),
		T(test_a_length_past_the_buffer_is_dropped_and_counted),
		T(test_a_frame_without_eop_is_dropped_through_its_end),
		T(test_status_without_dd_or_out_of_order_waits),
		T(test_frames_the_device_flagged_bad_are_dropped),
		T(test_a_second_write_back_of_a_slot_is_not_a_second_frame),
		T(test_tcp_checksum_goes_to_the_device_with_a_context),
		T(test_a_frame_without_l4_goes_without_context),
		T(test_a_full_ring_refuses_and_counts_busy),
		T(test_link_changes_are_counted_and_reported),
		T(test_msix_routes_the_queue_pair_and_the_link_by_ivar),
		T(test_msix_queue_vector_masks_its_queue_and_wakes),
		T(test_msix_arm_unmasks_and_looks_at_the_rings),
		T(test_too_few_msix_entries_fall_back_to_msi),
		T(test_vectors_running_out_end_on_the_intx_line),
		T(test_intx_handler_claims_only_its_causes),
		T(test_pairs_follow_cpus_part_and_msix_vectors),
		T(test_a_part_without_msix_gets_one_pair),
		cmocka_unit_test_setup_teardown(
			test_a_small_memory_gets_fewer_pairs_and_no_tso,
			setup_tiny, teardown),
		cmocka_unit_test_setup_teardown(
			test_the_rings_take_at_most_a_quarter_of_the_free_memory,
			setup_small, teardown),
		T(test_rss_key_table_and_fields_are_programmed),
		T(test_the_stack_chooses_the_table),
		T(test_the_hash_and_its_kind_go_up_with_the_frame),
		T(test_three_ipv4_segments_go_as_one_tso_frame),
		T(test_ipv6_segments_merge_without_ipv4_fields),
		T(test_a_lone_segment_goes_as_it_came_before_the_next),
		T(test_a_large_ipv4_segment_is_one_tso_frame_at_mtu_mss),
		T(test_a_large_ipv6_segment_is_cut_at_its_mss),
		T(test_a_large_segment_goes_alone_after_what_is_held),
		T(test_a_large_segment_with_fin_sends_the_fin_apart),
		T(test_an_over_mtu_frame_not_to_cut_is_refused),
		cmocka_unit_test_setup_teardown(
			test_without_tso_tables_a_large_segment_is_refused,
			setup_tiny, teardown),
		cmocka_unit_test_setup_teardown(
			test_a_pairs_rings_and_buffers_are_on_its_cpus_node,
			setup_2nodes, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
