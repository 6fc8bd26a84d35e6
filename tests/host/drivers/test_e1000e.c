/*
 * The e1000e (82574L) driver against a simulated 82574: the register file
 * is plain memory and the test plays the device (gbe_sim.h, shared with
 * the igb test). Time is the device's clock: each drv_clock_ms() call is a millisecond passing, in which the
 * simulated part completes what the driver asked for (the reset clears
 * CTRL.RST and sets EECD.AUTO_RD, PCIe master requests drain, an EERD
 * read returns its NVM word in the 82541/82574 layout). The ring tests
 * play the device's DMA as test_e1000.c does: the 82574L runs the same
 * e1000.c, so these check that the e1000e bring-up leaves that path
 * working (legacy descriptors, buffers, cookies), not every ring corner
 * again. drivers/e1000.c, e1000_hw.c, e1000e_hw.c, gbe_hw.c and netdev.c are
 * compiled in so their static state can be reset between tests.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "drivers/e1000.c"
#include "drivers/e1000_hw.c"
#include "drivers/e1000_irq.c"
#include "drivers/gbe_hw.c"
#include "drivers/e1000e_hw.c"
#include "drivers/netdev.c"
#include "mm_test.h"

/* ------------------------------------------------ fake kernel and PCI */

#include "gbe_sim.h"

/* One millisecond of the simulated 82574's life: a reset also ends its
 * NVM auto-read. */
uint64_t drv_clock_ms(void)
{
	if (gbe_sim_tick())
		*reg(E1000E_EECD) |= E1000E_EECD_AUTO_RD;
	return fake_ms;
}

#include "e1000_irq_fake.h"

/* ------------------------------------------------- the simulated NIC */

static const uint8_t nvm_mac[6] = {0x52, 0x54, 0x00, 0xe1, 0x0e, 0x01};
static const uint8_t ral_mac[6] = {0x52, 0x54, 0x00, 0xe1, 0x0e, 0x02};
static uint32_t hw_rdh, hw_tdh;

static struct e1000_rx_desc *hw_rx_ring(void)
{
	return (struct e1000_rx_desc *)(uintptr_t)((uint64_t)*reg(E1000_RDBAH)
							   << 32 |
						   *reg(E1000_RDBAL));
}

static struct e1000_tx_desc *hw_tx_ring(void)
{
	return (struct e1000_tx_desc *)(uintptr_t)((uint64_t)*reg(E1000_TDBAH)
							   << 32 |
						   *reg(E1000_TDBAL));
}

/* The device stores a frame in the next posted buffer (legacy write-back:
 * length, DD | EOP) and returns the buffer it used. */
static uint8_t *hw_receive_frame(uint16_t len)
{
	struct e1000_rx_desc *d = &hw_rx_ring()[hw_rdh];
	uint8_t *buf = (uint8_t *)(uintptr_t)d->addr;

	assert_int_not_equal(hw_rdh, *reg(E1000_RDT));
	assert_non_null(buf);
	memset(buf, 0xab, len);
	d->length = len;
	d->errors = 0;
	d->status = E1000_RXD_STAT_DD | E1000_RXD_STAT_EOP;
	hw_rdh = (hw_rdh + 1) % E1000_RX_RING;
	return buf;
}

static void hw_transmit_all(void)
{
	while (hw_tdh != *reg(E1000_TDT)) {
		struct e1000_tx_desc *d = &hw_tx_ring()[hw_tdh];

		if (d->cmd & E1000_TXD_CMD_RS)
			d->status |= E1000_TXD_STAT_DD;
		hw_tdh = (hw_tdh + 1) % E1000_TX_RING;
	}
}

/* ---------------------------------------------------- the fake stack */

static void *held[E1000_RX_RING];
static unsigned int held_flags[E1000_RX_RING];
static int nheld;
static void *done_cookies[E1000_TX_RING];
static int ndone;

static void stack_rx(struct netdev *d, int q, void *frame, uint32_t len,
		     unsigned int flags, uint32_t hash)
{
	(void)d;
	(void)q;
	(void)len;
	assert_int_equal(hash, 0); /* no RSS: no hash */
	assert_true(nheld < E1000_RX_RING);
	held_flags[nheld] = flags;
	held[nheld++] = frame;
}

static void stack_tx_done(struct netdev *d, int q, void *cookie)
{
	(void)d;
	(void)q;
	done_cookies[ndone++] = cookie;
}

/* A fresh simulated 82574 on a fresh bus: what it loaded at reset. */
static int setup(void **state)
{
	(void)state;
	mm_test_boot(1, 32, 1);
	gbe_sim_reset(nvm_mac, ral_mac);
	nleft_out = 0;
	ne1000es = 0;
	nnetdevs = 0;
	fake_irq_reset();
	hw_rdh = hw_tdh = 0;
	nheld = ndone = 0;
	e1000e_allow_offloads(&(struct e1000e_offloads){.rx_csum = true});
	/* Extended descriptors and checksum offload on, as a previous
	 * owner (or firmware) may have left them: the driver must undo it. */
	*reg(E1000E_RFCTL) = E1000E_RFCTL_EXTEN;
	*reg(E1000E_RXCSUM) = 0x300;
	return 0;
}

static int teardown(void **state)
{
	for (int i = 0; i < nheld; i++)
		page_frag_free(held[i]);
	page_frag_percpu_drain(0);
	free(regs);
	return mm_test_teardown(state);
}

static struct netdev *probe_one(void)
{
	struct netdev *dev;

	add_pci(0x10d3, 2);
	assert_int_equal(e1000e_probe(0), 1);
	dev = netdev_get(0);
	assert_non_null(dev);
	dev->rx = stack_rx;
	dev->tx_done = stack_tx_done;
	return dev;
}

/* ---------------------------------------------------------- the tests */

static void test_82574l_mac_comes_from_the_nvm_through_eerd(void **state)
{
	struct netdev *dev;

	(void)state;
	dev = probe_one();
	assert_string_equal(dev->kind, "e1000e");
	assert_memory_equal(dev->mac, nvm_mac, 6);
	assert_non_null(strstr(console, "e1000e: eth0 00:02.0 82574L "
					"mac=52:54:00:e1:0e:01 (eeprom) "
					"rx=256 tx=256 link up\n"));
	/* Programmed as receive address 0, valid. */
	assert_int_equal(*reg(E1000_RAL0), 0xe1005452u);
	assert_int_equal(*reg(E1000_RAH0), 0x010eu | E1000_RAH_AV);
}

static void test_bad_nvm_checksum_falls_back_to_ral(void **state)
{
	struct netdev *dev;

	(void)state;
	gbe_sim_nvm_fill(nvm_mac, false);
	dev = probe_one();
	assert_memory_equal(dev->mac, ral_mac, 6);
	assert_non_null(strstr(console, "(ral)"));
}

static void test_reset_drains_master_requests_and_claims_the_part(void **state)
{
	(void)state;
	probe_one();
	assert_false(*reg(E1000_CTRL) & E1000E_CTRL_GIO_MASTER_DISABLE);
	assert_true(*reg(E1000E_CTRL_EXT) & E1000E_CTRL_EXT_DRV_LOAD);
	assert_true(*reg(E1000_CTRL) & E1000_CTRL_SLU);
	assert_null(strstr(console, "pending"));
	assert_null(strstr(console, "auto-read"));
}

static void test_stuck_master_requests_are_reported_reset_goes_on(void **state)
{
	(void)state;
	master_stuck = true;
	probe_one();
	assert_non_null(strstr(console, "e1000e: 00:02.0: master requests "
					"still pending, resetting anyway\n"));
	assert_int_equal(netdev_count(), 1);
}

static void test_legacy_descriptors_and_masked_interrupts(void **state)
{
	uint32_t rctl;

	(void)state;
	probe_one();
	rctl = *reg(E1000_RCTL);
	assert_false(*reg(E1000E_RFCTL) & E1000E_RFCTL_EXTEN);
	/* TCP/UDP checksum offload only: the IP header sum (IPOFL, left
	 * set at reset) is lwIP's. */
	assert_int_equal(*reg(E1000E_RXCSUM), E1000E_RXCSUM_TUOFL);
	assert_true(rctl & E1000_RCTL_EN);
	assert_int_equal(rctl & (3u << 10), 0); /* DTYP: legacy, no split */
	assert_int_equal(rctl & (E1000_RCTL_BSIZE_MASK | E1000_RCTL_BSEX), 0);
	assert_true(rctl & E1000_RCTL_SECRC);
	assert_true(*reg(E1000E_TXDCTL) & E1000E_TXDCTL_RESERVED_ONE);
	assert_true(*reg(E1000_TCTL) & E1000_TCTL_EN);
	assert_int_equal(*reg(E1000_RDLEN), E1000_RX_RING * 16);
	assert_int_equal(*reg(E1000_TDLEN), E1000_TX_RING * 16);
	/* Ready for MSI-X, every cause masked: RX0 -> 0, TX0 -> 1, other
	 * -> 2, each valid. */
	assert_int_equal(*reg(E1000E_IVAR), 0x000a0908u);
	assert_int_equal(*reg(E1000_IMC), 0xffffffffu);
	assert_int_equal(*reg(E1000_IMS), 0);
	assert_int_equal(*reg(E1000E_ITR), E1000E_ITR_DEFAULT);
}

static void test_frames_go_up_zero_copy_and_the_ring_is_refilled(void **state)
{
	struct netdev *dev;
	uint8_t *a, *b;

	(void)state;
	dev = probe_one();
	assert_int_equal(dev->ops->rx_poll(dev, 0, 64), 0);
	assert_int_equal(*reg(E1000_RDT), E1000_RX_RING - 1);
	a = hw_receive_frame(60);
	b = hw_receive_frame(1514);
	assert_int_equal(dev->ops->rx_poll(dev, 0, 64), 2);
	assert_int_equal(nheld, 2);
	assert_ptr_equal(held[0], a);
	assert_ptr_equal(held[1], b);
	assert_int_equal(dev->queues[0].stats.rx_bytes, 1574);
	assert_int_equal(dev->queues[0].stats.rx_bufs_posted,
			 E1000_RX_RING - 1);
	assert_int_equal(*reg(E1000_RDT), 1);
}

/* hw_receive_frame's frame, the write-back then given the checksum
 * status bits and errors. */
static uint8_t *hw_receive_checked(uint16_t len, uint8_t status, uint8_t errors)
{
	uint16_t slot = (uint16_t)hw_rdh;
	uint8_t *buf = hw_receive_frame(len);

	hw_rx_ring()[slot].status |= status;
	hw_rx_ring()[slot].errors = errors;
	return buf;
}

/* The device checked TCP or UDP, IPv4 or IPv6: the frame goes up
 * NETDEV_RX_CSUM_OK. A wrong sum, IXSM, no protocol bit, or an IPv4
 * fragment (its sum is the datagram's): unflagged, the stack checks. */
static void test_rx_csum_flags_only_frames_the_device_found_right(void **state)
{
	struct netdev *dev;
	uint8_t *f;

	(void)state;
	dev = probe_one();
	assert_true(dev->offloads & NETDEV_OFF_RX_CSUM);
	assert_non_null(strstr(console, "e1000e: eth0 offloads rx_csum=on\n"));
	dev->ops->rx_poll(dev, 0, 64); /* fills the ring */
	f = hw_receive_checked(60, E1000_RXD_STAT_TCPCS, 0);
	memcpy(f + 12, "\x86\xdd", 2); /* IPv6 */
	hw_receive_checked(60, E1000_RXD_STAT_UDPCS, 0);
	hw_receive_checked(60, E1000_RXD_STAT_TCPCS, E1000_RXD_ERR_TCPE);
	hw_receive_checked(60, E1000_RXD_STAT_TCPCS | E1000_RXD_STAT_IXSM, 0);
	hw_receive_checked(60, 0, 0);
	f = hw_receive_checked(60, E1000_RXD_STAT_TCPCS, 0);
	memcpy(f + 12, "\x08\x00", 2); /* IPv4, MF set */
	memcpy(f + 20, "\x20\x00", 2);
	f = hw_receive_checked(60, E1000_RXD_STAT_TCPCS, 0);
	memcpy(f + 12, "\x08\x00", 2); /* IPv4, DF only: whole */
	memcpy(f + 20, "\x40\x00", 2);
	assert_int_equal(dev->ops->rx_poll(dev, 0, 64), 7);
	assert_int_equal(nheld, 7);
	assert_int_equal(held_flags[0], NETDEV_RX_CSUM_OK);
	assert_int_equal(held_flags[1], NETDEV_RX_CSUM_OK);
	for (int i = 2; i < 6; i++)
		assert_int_equal(held_flags[i], 0);
	assert_int_equal(held_flags[6], NETDEV_RX_CSUM_OK);
	assert_int_equal(dev->queues[0].stats.rx_csum_valid, 3);
	assert_int_equal(dev->queues[0].stats.rx_errors, 0);
}

/* e1000e_rx_csum=0: RXCSUM stays 0 and no frame is ever flagged. */
static void test_rx_csum_switched_off_flags_nothing(void **state)
{
	struct netdev *dev;

	(void)state;
	e1000e_allow_offloads(&(struct e1000e_offloads){.rx_csum = false});
	dev = probe_one();
	assert_int_equal(*reg(E1000E_RXCSUM), 0);
	assert_false(dev->offloads & NETDEV_OFF_RX_CSUM);
	assert_non_null(
		strstr(console, "e1000e: eth0 offloads rx_csum=off(switch)\n"));
	dev->ops->rx_poll(dev, 0, 64);
	hw_receive_checked(60, E1000_RXD_STAT_TCPCS, 0);
	assert_int_equal(dev->ops->rx_poll(dev, 0, 64), 1);
	assert_int_equal(held_flags[0], 0);
	assert_int_equal(dev->queues[0].stats.rx_csum_valid, 0);
}

static void test_scatter_tx_completes_in_order(void **state)
{
	static uint8_t f[100];
	struct netdev_sg two[2] = {{f, 14}, {f + 14, 46}}, one[1] = {{f, 60}};
	struct netdev *dev;

	(void)state;
	dev = probe_one();
	assert_int_equal(dev->ops->xmit(dev, 0, two, 2, (void *)0x1), 0);
	assert_int_equal(dev->ops->xmit(dev, 0, one, 1, (void *)0x2), 0);
	assert_int_equal(*reg(E1000_TDT), 0); /* published at the flush */
	dev->ops->tx_flush(dev, 0);
	assert_int_equal(*reg(E1000_TDT), 3);
	assert_ptr_equal((void *)(uintptr_t)hw_tx_ring()[1].addr, f + 14);
	dev->ops->tx_reap(dev, 0);
	assert_int_equal(ndone, 0);
	hw_transmit_all();
	dev->ops->tx_reap(dev, 0);
	assert_int_equal(ndone, 2);
	assert_ptr_equal(done_cookies[0], (void *)0x1);
	assert_ptr_equal(done_cookies[1], (void *)0x2);
	assert_int_equal(dev->queues[0].stats.tx_inflight, 0);
}

static void test_link_changes_are_counted_and_reported(void **state)
{
	struct netdev *dev;
	char json[4096];

	(void)state;
	dev = probe_one();
	assert_true(dev->ops->link_up(dev)); /* first look: up */
	*reg(E1000_STATUS) &= ~E1000_STATUS_LU;
	assert_false(dev->ops->link_up(dev));
	assert_false(dev->ops->link_up(dev)); /* no change, not counted */
	*reg(E1000_STATUS) |= E1000_STATUS_LU;
	assert_true(dev->ops->link_up(dev));
	assert_int_equal(dev->queues[0].stats.link_changes, 3);
	assert_non_null(strstr(console, "e1000e: eth0 link down\n"));
	assert_non_null(strstr(console, "e1000e: eth0 link up 1000 Mb/s full "
					"duplex\n"));
	assert_true(netdev_stats_json(json, sizeof(json)) < (int)sizeof(json));
	assert_non_null(strstr(json, "\"kind\":\"e1000e\""));
	assert_non_null(strstr(json, "\"link_changes\":3"));
}

static void test_i219_and_other_family_parts_are_refused_by_name(void **state)
{
	(void)state;
	add_pci(0x15b8, 0x1f); /* I219-V2 */
	add_pci(0x10b9, 3);    /* 82572EI */
	assert_int_equal(e1000e_probe(0), 0);
	assert_int_equal(netdev_count(), 0);
	assert_non_null(strstr(console, "e1000e: 00:1f.0 8086:15b8 I219-V2 "
					"not driven: a PCH part"));
	assert_non_null(strstr(console, "e1000e: 00:03.0 8086:10b9 82572EI "
					"not driven: an e1000e-family part"));
	assert_int_equal(*reg(E1000_CTRL), 0); /* never touched */
}

/* Firmware (a boot ROM) left an I219 receiving into a ring of its own,
 * with bus mastering on: refused, it must end up with receive and
 * transmit off, every interrupt masked and no bus mastering, so nothing
 * it still holds is written into memory the allocator hands out again. */
static void test_a_refused_part_left_live_is_stopped(void **state)
{
	(void)state;
	add_pci(0x15b8, 0x1f); /* I219-V2 */
	bus_master[0] = true;
	*reg(E1000_RCTL) = E1000_RCTL_EN | E1000_RCTL_BAM;
	*reg(E1000_TCTL) = E1000_TCTL_EN;
	assert_int_equal(e1000e_probe(0), 0);
	assert_false(*reg(E1000_RCTL) & E1000_RCTL_EN);
	assert_false(*reg(E1000_TCTL) & E1000_TCTL_EN);
	assert_int_equal(*reg(E1000_IMC), 0xffffffffu);
	assert_false(bus_master[0]);
	assert_non_null(strstr(console, "e1000e: 00:1f.0 8086:15b8 I219-V2 "
					"not driven: "));
	assert_non_null(strstr(console, "stopped: receive, transmit and bus "
					"mastering off\n"));
}

/* An 82574L found when the registry is full: never brought up (no reset,
 * no ring), bus mastering off, named in the line past the limit. */
static void test_an_82574l_past_the_limit_is_named_and_stopped(void **state)
{
	(void)state;
	add_pci(0x10d3, 2);
	bus_master[0] = true;
	nnetdevs = NETDEV_MAX;
	assert_int_equal(e1000e_probe(0), 0);
	assert_int_equal(*reg(E1000_CTRL), 0);
	assert_int_equal(*reg(E1000_RDBAL), 0);
	assert_false(bus_master[0]);
	netdev_report_left_out();
	assert_non_null(strstr(console, "netdev: NETDEV_MAX=16 devices bound, "
					"1 left out: 00:02.0 e1000e "
					"8086:10d3\n"));
}

/* A part whose bring-up fails half-way (here its reset never completes)
 * is not left enabled: receive off, bus mastering off, nothing bound. */
static void test_a_part_that_fails_its_setup_is_stopped(void **state)
{
	(void)state;
	reset_stuck = true;
	add_pci(0x10d3, 2);
	assert_int_equal(e1000e_probe(0), 0);
	assert_int_equal(netdev_count(), 0);
	assert_non_null(strstr(console, "e1000e: 00:02.0: reset did not "
					"complete\n"));
	assert_false(*reg(E1000_RCTL) & E1000_RCTL_EN);
	assert_false(bus_master[0]);
}

static void test_8254x_and_other_vendors_are_left_silently(void **state)
{
	(void)state;
	add_pci(0x100e, 3); /* 82540EM: e1000's */
	fake_pci[nfake_pci++] =
		(struct pci_dev){.vendor = 0x1af4, .device = 0x10d3};
	assert_int_equal(e1000e_probe(0), 0);
	assert_string_equal(console, "");
}

static void test_the_82574l_next_to_a_refused_part_still_binds(void **state)
{
	(void)state;
	add_pci(0x153a, 0x19); /* I217-LM */
	add_pci(0x10d3, 2);
	assert_int_equal(e1000e_probe(0), 1);
	assert_non_null(strstr(console, "I217-LM not driven"));
	assert_non_null(strstr(console, "e1000e: eth0 00:02.0 82574L"));
}

/* ------------------------------------------------------- interrupts */

#define QUEUE_CAUSES (E1000E_ICR_RXQ0 | E1000E_ICR_TXQ0)
#define OTHER_CAUSES (E1000E_ICR_OTHER | E1000_ICR_LSC)

/* The 82574L with its MSI-X capability (and MSI beside it, as QEMU's),
 * queue 0 polled by CPU 1. */
static struct netdev *probe_msix(void)
{
	struct netdev *dev;

	add_pci(0x10d3, 2);
	fake_pci[0].cap_msix = 0xa0;
	fake_pci[0].cap_msi = 0xd0;
	assert_int_equal(e1000e_probe(0), 1);
	dev = netdev_get(0);
	dev->rx = stack_rx;
	dev->tx_done = stack_tx_done;
	dev->queues[0].cpu = 1;
	return dev;
}

static void test_msix_gives_rx_tx_and_link_vectors_on_queue0_cpu(void **state)
{
	struct netdev *dev;

	(void)state;
	dev = probe_msix();
	assert_int_equal(dev->ops->irq_setup(dev), 0);
	assert_string_equal(dev->queues[0].irq_mode, "msix");
	assert_true(fake_msix_enabled);
	assert_false(fake_msi_enabled);
	assert_int_equal(nfake_irqs, 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(fake_irqs[i].cpu, 1);
		/* IVAR's entries: RX0 on 0, TX0 on 1, other on 2 */
		assert_int_equal(fake_msix_entry_of(fake_irqs[i].vector), i);
	}
	assert_int_equal(*reg(E1000E_IVAR), E1000E_IVAR_RX0(0) |
						    E1000E_IVAR_TX0(1) |
						    E1000E_IVAR_OTHER(2));
	assert_int_equal(dev->queues[0].irq_vector, fake_irqs[0].vector);
	assert_int_equal(*reg(E1000E_EIAC), QUEUE_CAUSES);
	/* link interrupts from now on; queue causes wait for the poller */
	assert_int_equal(*reg(E1000_IMS), OTHER_CAUSES);
	assert_non_null(strstr(console, "e1000e: eth0 queue 0: msix vector "
					"0x31 cpu 1 (rx 0x31 tx 0x32 link "
					"0x33)\n"));
}

static void test_msix_queue_vectors_mask_queue_causes_and_wake(void **state)
{
	struct netdev *dev;

	(void)state;
	dev = probe_msix();
	dev->ops->irq_setup(dev);
	for (int i = 0; i < 2; i++) { /* RX0, then TX0 */
		*reg(E1000_IMC) = 0;
		fake_irq_fire(i);
		assert_int_equal(*reg(E1000_IMC), QUEUE_CAUSES);
		assert_int_equal(fake_wakes, i + 1);
		assert_int_equal(fake_wake_cpu, 1);
	}
	assert_int_equal(dev->queues[0].stats.interrupts, 2);
	assert_false(dev->ops->link_changed(dev));
	/* The poller arms: stale queue causes cleared (written 1s), then
	 * unmasked; an idle ring means it may sleep. */
	dev->ops->rx_poll(dev, 0, 64);
	assert_false(dev->ops->irq_arm(dev, 0));
	assert_int_equal(*reg(E1000_ICR), QUEUE_CAUSES);
	assert_int_equal(*reg(E1000_IMS), QUEUE_CAUSES);
	dev->ops->irq_disarm(dev, 0);
	assert_int_equal(*reg(E1000_IMC), QUEUE_CAUSES); /* link stays on */
}

static void test_msix_link_vector_notes_the_change_masks_nothing(void **state)
{
	struct netdev *dev;

	(void)state;
	dev = probe_msix();
	dev->ops->irq_setup(dev);
	assert_true(dev->ops->link_up(dev)); /* as the stack's first look */
	*reg(E1000_IMC) = 0;
	*reg(E1000_ICR) = E1000E_ICR_OTHER | E1000_ICR_LSC;
	*reg(E1000_STATUS) &= ~E1000_STATUS_LU;
	fake_irq_fire(2);
	assert_int_equal(*reg(E1000_ICR), OTHER_CAUSES); /* cleared by 1s */
	assert_int_equal(*reg(E1000_IMC), 0);
	assert_int_equal(fake_wakes, 1);
	assert_int_equal(fake_wake_cpu, 1);
	assert_int_equal(dev->queues[0].stats.link_interrupts, 1);
	assert_int_equal(dev->queues[0].stats.interrupts, 0);
	assert_true(dev->ops->link_changed(dev));
	/* The woken poller reads the link, which ends the event. */
	assert_false(dev->ops->link_up(dev));
	assert_false(dev->ops->link_changed(dev));
	assert_non_null(strstr(console, "e1000e: eth0 link down\n"));
	/* Another non-queue cause (an overrun): a look, not a link count. */
	*reg(E1000_ICR) = E1000E_ICR_OTHER | E1000_ICR_RXO;
	fake_irq_fire(2);
	assert_int_equal(dev->queues[0].stats.link_interrupts, 1);
}

/* The kernel runs out of vectors at the third MSI-X one: the two taken
 * are given back (none is left behind), MSI finds none either, and the
 * INTx line serves. */
static void test_msix_short_of_vectors_gives_them_back(void **state)
{
	struct netdev *dev;

	(void)state;
	dev = probe_msix();
	fake_msi_fail_after = 3;
	assert_int_equal(dev->ops->irq_setup(dev), 0);
	assert_string_equal(dev->queues[0].irq_mode, "intx");
	assert_false(fake_msix_enabled);
	assert_int_equal(fake_msi_taken, 2);
	assert_int_equal(fake_vectors_freed, 2);
}

/* An MSI message the function cannot take (only 32-bit addresses): its
 * vector is given back and the INTx line serves instead of no interrupt
 * at all. */
static void test_refused_msi_falls_back_to_the_line(void **state)
{
	struct netdev *dev;

	(void)state;
	dev = probe_msix();
	fake_msix_entries = 2;
	fake_msi_refused = true;
	assert_int_equal(dev->ops->irq_setup(dev), 0);
	assert_string_equal(dev->queues[0].irq_mode, "intx");
	assert_int_equal(fake_vectors_freed, 1);
}

static void test_too_small_msix_table_falls_back_to_msi(void **state)
{
	struct netdev *dev;

	(void)state;
	dev = probe_msix();
	fake_msix_entries = 2;
	assert_int_equal(dev->ops->irq_setup(dev), 0);
	assert_string_equal(dev->queues[0].irq_mode, "msi");
	assert_false(fake_msix_enabled);
	assert_true(fake_msi_enabled);
	assert_non_null(strstr(console, "e1000e: eth0: MSI-X not usable (2 "
					"entries), falling back\n"));
	assert_non_null(strstr(console, "e1000e: eth0 queue 0: msi vector "
					"0x31 cpu 1\n"));
	/* One vector for all: a link change comes through it too. */
	*reg(E1000_ICR) = E1000_ICR_LSC;
	fake_irq_fire(0);
	assert_true(dev->ops->link_changed(dev));
	assert_int_equal(*reg(E1000_IMC), 0xffffffffu);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_82574l_mac_comes_from_the_nvm_through_eerd),
		T(test_bad_nvm_checksum_falls_back_to_ral),
		T(test_reset_drains_master_requests_and_claims_the_part),
		T(test_stuck_master_requests_are_reported_reset_goes_on),
		T(test_legacy_descriptors_and_masked_interrupts),
		T(test_frames_go_up_zero_copy_and_the_ring_is_refilled),
		T(test_rx_csum_flags_only_frames_the_device_found_right),
		T(test_rx_csum_switched_off_flags_nothing),
		T(test_scatter_tx_completes_in_order),
		T(test_link_changes_are_counted_and_reported),
		T(test_msix_gives_rx_tx_and_link_vectors_on_queue0_cpu),
		T(test_msix_queue_vectors_mask_queue_causes_and_wake),
		T(test_msix_link_vector_notes_the_change_masks_nothing),
		T(test_too_small_msix_table_falls_back_to_msi),
		T(test_msix_short_of_vectors_gives_them_back),
		T(test_refused_msi_falls_back_to_the_line),
		T(test_i219_and_other_family_parts_are_refused_by_name),
		T(test_a_refused_part_left_live_is_stopped),
		T(test_an_82574l_past_the_limit_is_named_and_stopped),
		T(test_a_part_that_fails_its_setup_is_stopped),
		T(test_8254x_and_other_vendors_are_left_silently),
		T(test_the_82574l_next_to_a_refused_part_still_binds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
