/*
 * The e1000 driver's ring logic against a simulated 8254x: the register
 * file is plain memory, and the test plays the device (it reads the
 * descriptors the driver posted, writes frames and DD bits back, moves its
 * head). drivers/e1000.c, e1000_hw.c, gbe_hw.c and netdev.c are
 * compiled into this file so their static state can be reset between
 * tests; the kernel-side functions they need (console, clock, PCI) are the
 * small fakes below.
 * RX buffers and rings come from the real host mm library.
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
#include "drivers/netdev.c"
#include "mm_test.h"

/* ------------------------------------------------ fake kernel and PCI */

#define BAR0_SIZE 0x20000

static uint8_t *regs;
static uint64_t fake_ms;
static struct pci_dev fake_pci = {.vendor = 0x8086, .device = 0x100e};

void drv_printf(const char *fmt, ...)
{
	(void)fmt; /* quiet: the boot lines are checked under QEMU */
}

static uint32_t *reg(unsigned int off)
{
	return (uint32_t *)(regs + off);
}

/* An EEPROM image the simulated part answers EERD reads from (none: the
 * read never completes, as on a part without a working EEPROM). */
static bool eeprom_present;
static uint16_t eeprom[E1000_EEPROM_CHECKSUM_WORDS];

/* An EERD read completes within the millisecond, in the layout of the
 * model being simulated (82540: address at bit 8, done at bit 4; 82541:
 * at bit 2, done at bit 1). */
static void eerd_answer(void)
{
	bool old = fake_pci.device == 0x100e;
	uint32_t done = old ? E1000_EERD_DONE : E1000_EERD_DONE_82541;
	unsigned int shift =
		old ? E1000_EERD_ADDR_SHIFT : E1000_EERD_ADDR_SHIFT_82541;
	uint32_t eerd = *reg(E1000_EERD);
	unsigned int word = (eerd >> shift) & 0x3f;

	if (eeprom_present && (eerd & E1000_EERD_START) && !(eerd & done))
		*reg(E1000_EERD) =
			(uint32_t)eeprom[word] << E1000_EERD_DATA_SHIFT | done;
}

/* Time passes one millisecond per look; the simulated reset completes
 * as soon as the driver waits for it, and so does an EERD read. */
uint64_t drv_clock_ms(void)
{
	*reg(E1000_CTRL) &= ~E1000_CTRL_RST;
	eerd_answer();
	return ++fake_ms;
}

int pci_count(void)
{
	return 1;
}

struct pci_dev *pci_get(int i)
{
	return i == 0 ? &fake_pci : NULL;
}

void pci_enable(struct pci_dev *d)
{
	(void)d;
}

/* Bus mastering turned off: the driver gave the device up. */
static int fake_master_off;

void pci_disable_master(const struct pci_dev *d)
{
	(void)d;
	fake_master_off++;
}

volatile void *pci_map_bar(const struct pci_dev *d, int bar)
{
	(void)d;
	return bar == 0 ? regs : NULL;
}

#include "e1000_irq_fake.h"

/* ------------------------------------------------- the simulated NIC */

static const uint8_t test_mac[6] = {0x52, 0x54, 0x00, 0x12, 0x34, 0x57};
static const uint8_t eeprom_mac[6] = {0x52, 0x54, 0x00, 0xee, 0x00, 0x01};
static uint32_t hw_rdh, hw_tdh; /* the device's heads */

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

/* The device stores one buffer's worth and marks it done; returns the
 * buffer it wrote, as a real NIC would (the address from the descriptor).
 * Fails the test if the driver gave it no buffer. */
static uint8_t *hw_receive(uint16_t len, uint8_t status, uint8_t errors)
{
	struct e1000_rx_desc *d = &hw_rx_ring()[hw_rdh];
	uint8_t *buf = (uint8_t *)(uintptr_t)d->addr;

	assert_int_not_equal(hw_rdh, *reg(E1000_RDT)); /* device owns it */
	assert_non_null(buf);
	memset(buf, (int)(hw_rdh & 0xff), len < E1000_RX_BUF ? len : 16);
	d->length = len;
	d->errors = errors;
	d->status = status;
	hw_rdh = (hw_rdh + 1) % E1000_RX_RING;
	*reg(E1000_RDH) = hw_rdh;
	return buf;
}

static uint8_t *hw_receive_frame(uint16_t len)
{
	return hw_receive(len, E1000_RXD_STAT_DD | E1000_RXD_STAT_EOP, 0);
}

/* The device sends up to max_frames queued frames, writing DD where RS
 * asks for it. Returns the number of descriptors it consumed. */
static int hw_transmit(int max_frames)
{
	int descs = 0;

	while (hw_tdh != *reg(E1000_TDT) && max_frames > 0) {
		struct e1000_tx_desc *d = &hw_tx_ring()[hw_tdh];

		if (d->cmd & E1000_TXD_CMD_RS)
			d->status |= E1000_TXD_STAT_DD;
		if (d->cmd & E1000_TXD_CMD_EOP)
			max_frames--;
		hw_tdh = (hw_tdh + 1) % E1000_TX_RING;
		*reg(E1000_TDH) = hw_tdh;
		descs++;
	}
	return descs;
}

/* ---------------------------------------------------- the fake stack */

#define MAX_HELD 4096

static struct netdev *dev;
static void *held[MAX_HELD]; /* RX buffers the stack holds */
static uint32_t held_len[MAX_HELD];
static int nheld;
static bool hold_rx;	      /* keep received buffers (else free at once) */
static uint64_t posted_at_rx; /* rx_bufs_posted when the last frame came */
static void *done_cookies[MAX_HELD];
static int ndone;

static void stack_rx(struct netdev *d, int q, void *frame, uint32_t len,
		     unsigned int flags, uint32_t hash)
{
	(void)flags;
	assert_int_equal(hash, 0); /* no RSS: no hash */
	assert_int_equal(q, 0);	   /* one queue */
	posted_at_rx = d->queues[0].stats.rx_bufs_posted;
	if (!hold_rx) {
		page_frag_free(frame);
		return;
	}
	for (int i = 0; i < nheld; i++)
		assert_ptr_not_equal(held[i], frame); /* handed out twice */
	assert_true(nheld < MAX_HELD);
	held_len[nheld] = len;
	held[nheld++] = frame;
}

static void stack_tx_done(struct netdev *d, int q, void *cookie)
{
	(void)d;
	assert_int_equal(q, 0);
	assert_true(ndone < MAX_HELD);
	done_cookies[ndone++] = cookie;
}

static void release_held(void)
{
	for (int i = 0; i < nheld; i++)
		page_frag_free(held[i]);
	nheld = 0;
}

/* Fragments handed out minus fragments freed: buffers alive right now. */
static int64_t frags_alive(void)
{
	struct page_frag_stats s;

	page_frag_stats_read(&s);
	return (int64_t)s.fragments - (int64_t)s.frees;
}

static int64_t alive_at_start;

static int setup(void **state)
{
	(void)state;
	mm_test_boot(1, 32, 1);
	regs = calloc(1, BAR0_SIZE);
	assert_non_null(regs);
	fake_master_off = 0;
	ne1000s = 0;
	nnetdevs = 0;
	hw_rdh = hw_tdh = 0;
	nheld = ndone = 0;
	hold_rx = false;
	fake_irq_reset();
	/* What the part loaded at reset: MAC in RAL0/RAH0, link up, 1 Gb/s. */
	*reg(E1000_RAL0) = (uint32_t)test_mac[0] | (uint32_t)test_mac[1] << 8 |
			   (uint32_t)test_mac[2] << 16 |
			   (uint32_t)test_mac[3] << 24;
	*reg(E1000_RAH0) = (uint32_t)test_mac[4] | (uint32_t)test_mac[5] << 8 |
			   E1000_RAH_AV;
	*reg(E1000_STATUS) = E1000_STATUS_LU | E1000_STATUS_FD |
			     2u << E1000_STATUS_SPEED_SHIFT;
	alive_at_start = frags_alive();
	assert_int_equal(e1000_probe(0), 1);
	dev = netdev_get(0);
	assert_non_null(dev);
	dev->rx = stack_rx;
	dev->tx_done = stack_tx_done;
	return 0;
}

/* The MAC in EEPROM words 0-2, the last word making the sum 0xBABA. */
static void eeprom_fill(void)
{
	uint16_t sum = 0;

	memset(eeprom, 0, sizeof(eeprom));
	for (int i = 0; i < 3; i++)
		eeprom[i] = (uint16_t)(eeprom_mac[2 * i] | eeprom_mac[2 * i + 1]
								   << 8);
	for (int i = 0; i < E1000_EEPROM_CHECKSUM_WORDS - 1; i++)
		sum = (uint16_t)(sum + eeprom[i]);
	eeprom[E1000_EEPROM_CHECKSUM_WORDS - 1] =
		(uint16_t)(E1000_EEPROM_CHECKSUM_SUM - sum);
	eeprom_present = true;
}

static int setup_82540_eeprom(void **state)
{
	fake_pci.device = 0x100e;
	eeprom_fill();
	return setup(state);
}

static int setup_82541_eeprom(void **state)
{
	fake_pci.device = 0x1076; /* 82541GI */
	eeprom_fill();
	return setup(state);
}

static int teardown(void **state)
{
	eeprom_present = false;
	fake_pci.device = 0x100e;
	release_held();
	page_frag_percpu_drain(0);
	free(regs);
	return mm_test_teardown(state);
}

/* ---------------------------------------------------------- the tests */

static void test_probe_programs_mac_rings_and_masks_interrupts(void **state)
{
	(void)state;
	assert_string_equal(dev->kind, "e1000");
	assert_string_equal(dev->name, "eth0");
	assert_memory_equal(dev->mac, test_mac, 6);
	assert_true(*reg(E1000_RAH0) & E1000_RAH_AV);
	assert_int_equal(*reg(E1000_IMC), 0xffffffffu);
	assert_int_equal(*reg(E1000_RDLEN), E1000_RX_RING * 16);
	assert_int_equal(*reg(E1000_TDLEN), E1000_TX_RING * 16);
	assert_non_null(hw_rx_ring());
	assert_non_null(hw_tx_ring());
	assert_int_equal((uintptr_t)hw_rx_ring() % 16, 0);
}

static void test_rctl_buffer_size_is_2048_with_crc_stripped(void **state)
{
	uint32_t rctl = *reg(E1000_RCTL);

	(void)state;
	assert_true(rctl & E1000_RCTL_EN);
	assert_int_equal(rctl & (E1000_RCTL_BSIZE_MASK | E1000_RCTL_BSEX), 0);
	assert_true(rctl & E1000_RCTL_SECRC);
	assert_false(rctl & E1000_RCTL_LPE);
	assert_true(*reg(E1000_TCTL) & E1000_TCTL_EN);
	assert_true(*reg(E1000_TCTL) & E1000_TCTL_PSP);
}

static void test_first_poll_posts_all_but_one_slot(void **state)
{
	(void)state;
	assert_int_equal(*reg(E1000_RDT), 0); /* nothing before the poll */
	assert_int_equal(dev->ops->rx_poll(dev, 0, 64), 0);
	assert_int_equal(*reg(E1000_RDT), E1000_RX_RING - 1);
	assert_int_equal(dev->queues[0].stats.rx_bufs_posted,
			 E1000_RX_RING - 1);
	assert_int_equal(frags_alive() - alive_at_start, E1000_RX_RING - 1);
	for (int i = 0; i < E1000_RX_RING - 1; i++)
		assert_int_not_equal(hw_rx_ring()[i].addr, 0);
}

static int addr_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * netdev.h's RX contract: the NETDEV_RX_HEADROOM bytes before every
 * buffer the device may fill belong to that buffer's own allocation, so
 * the stack may write its pbuf there (net/net_mem.c). Sorted by address,
 * no posted buffer (2048 bytes, all of which the device may fill) nor its
 * headroom overlaps the next one's headroom, and each headroom is in its
 * buffer's own page block.
 */
static void test_rx_buffers_leave_the_stack_its_headroom(void **state)
{
	uint64_t addr[E1000_RX_RING - 1] = {0};

	(void)state;
	dev->ops->rx_poll(dev, 0, 64);
	for (int i = 0; i < E1000_RX_RING - 1; i++)
		addr[i] = hw_rx_ring()[i].addr;
	qsort(addr, E1000_RX_RING - 1, sizeof(addr[0]), addr_cmp);
	for (int i = 0; i < E1000_RX_RING - 1; i++) {
		const uint8_t *buf = (const uint8_t *)(uintptr_t)addr[i];

		assert_ptr_equal(virt_to_head_page(buf - NETDEV_RX_HEADROOM),
				 virt_to_head_page(buf + E1000_RX_BUF - 1));
		if (i + 1 < E1000_RX_RING - 1)
			assert_true(addr[i] + E1000_RX_BUF +
					    NETDEV_RX_HEADROOM <=
				    addr[i + 1]);
	}
}

static void test_received_frames_go_up_in_order_zero_copy(void **state)
{
	uint8_t *a, *b;

	(void)state;
	hold_rx = true;
	dev->ops->rx_poll(dev, 0, 64);
	a = hw_receive_frame(60);
	b = hw_receive_frame(1514);
	assert_int_equal(dev->ops->rx_poll(dev, 0, 64), 2);
	assert_int_equal(nheld, 2);
	assert_ptr_equal(held[0], a);
	assert_ptr_equal(held[1], b);
	assert_int_equal(held_len[0], 60);
	assert_int_equal(held_len[1], 1514);
	assert_int_equal(dev->queues[0].stats.rx_packets, 2);
	assert_int_equal(dev->queues[0].stats.rx_bytes, 1574);
	/* Both slots were refilled with new buffers. */
	assert_int_equal(dev->queues[0].stats.rx_bufs_posted,
			 E1000_RX_RING - 1);
	assert_int_equal(*reg(E1000_RDT), 1);
}

static void test_ring_is_refilled_before_frames_go_up(void **state)
{
	(void)state;
	dev->ops->rx_poll(dev, 0, 64);
	for (int i = 0; i < 32; i++)
		hw_receive_frame(100);
	dev->ops->rx_poll(dev, 0, 64);
	assert_int_equal(posted_at_rx, E1000_RX_RING - 1);
}

static void test_poll_takes_at_most_budget_frames(void **state)
{
	(void)state;
	dev->ops->rx_poll(dev, 0, 64);
	for (int i = 0; i < 10; i++)
		hw_receive_frame(100);
	assert_int_equal(dev->ops->rx_poll(dev, 0, 4), 4);
	assert_int_equal(dev->ops->rx_poll(dev, 0, 64), 6);
	assert_int_equal(dev->queues[0].stats.rx_packets, 10);
}

static void
test_ring_wraps_ten_times_without_loss_or_double_handout(void **state)
{
	int64_t alive;

	(void)state;
	hold_rx = true; /* a held buffer seen again would fail stack_rx */
	dev->ops->rx_poll(dev, 0, 64);
	for (int round = 0; round < 10; round++) {
		for (int i = 0; i < E1000_RX_RING - 1; i++)
			hw_receive_frame(64);
		while (dev->ops->rx_poll(dev, 0, 64) > 0)
			;
	}
	assert_int_equal(nheld, 10 * (E1000_RX_RING - 1));
	assert_int_equal(dev->queues[0].stats.rx_packets,
			 10 * (E1000_RX_RING - 1));
	/* Every buffer is either held by the stack or posted: none lost. */
	alive = frags_alive() - alive_at_start;
	assert_int_equal(alive,
			 nheld + (int64_t)dev->queues[0].stats.rx_bufs_posted);
	release_held();
	assert_int_equal(frags_alive() - alive_at_start, E1000_RX_RING - 1);
}

static void test_crc_error_frame_is_dropped_and_counted(void **state)
{
	int64_t alive;

	(void)state;
	dev->ops->rx_poll(dev, 0, 64);
	alive = frags_alive();
	hw_receive(64, E1000_RXD_STAT_DD | E1000_RXD_STAT_EOP,
		   E1000_RXD_ERR_CE);
	hw_receive(64, E1000_RXD_STAT_DD | E1000_RXD_STAT_EOP,
		   E1000_RXD_ERR_RXE);
	dev->ops->rx_poll(dev, 0, 64);
	assert_int_equal(dev->queues[0].stats.rx_errors, 2);
	assert_int_equal(dev->queues[0].stats.rx_packets, 0);
	assert_int_equal(nheld, 0);
	/* Both buffers freed, both slots refilled. */
	assert_int_equal(frags_alive(), alive);
	assert_int_equal(dev->queues[0].stats.rx_bufs_posted,
			 E1000_RX_RING - 1);
}

static void test_checksum_offload_error_bits_do_not_drop(void **state)
{
	(void)state;
	dev->ops->rx_poll(dev, 0, 64);
	hw_receive(64, E1000_RXD_STAT_DD | E1000_RXD_STAT_EOP,
		   E1000_RXD_ERR_IPE | E1000_RXD_ERR_TCPE);
	dev->ops->rx_poll(dev, 0, 64);
	assert_int_equal(dev->queues[0].stats.rx_packets, 1);
	assert_int_equal(dev->queues[0].stats.rx_errors, 0);
}

static void test_zero_and_oversize_lengths_are_dropped(void **state)
{
	(void)state;
	dev->ops->rx_poll(dev, 0, 64);
	hw_receive_frame(0);
	hw_receive_frame(NETDEV_FRAME_MAX + 1);
	hw_receive_frame(NETDEV_FRAME_MAX);
	dev->ops->rx_poll(dev, 0, 64);
	assert_int_equal(dev->queues[0].stats.rx_bad_len, 2);
	assert_int_equal(dev->queues[0].stats.rx_packets, 1);
}

static void test_frame_spread_over_buffers_is_dropped_once(void **state)
{
	int64_t alive;

	(void)state;
	dev->ops->rx_poll(dev, 0, 64);
	alive = frags_alive();
	hw_receive(2048, E1000_RXD_STAT_DD, 0);
	hw_receive(2048, E1000_RXD_STAT_DD, 0);
	hw_receive(100, E1000_RXD_STAT_DD | E1000_RXD_STAT_EOP, 0);
	hw_receive_frame(60); /* the next frame is fine again */
	dev->ops->rx_poll(dev, 0, 64);
	assert_int_equal(dev->queues[0].stats.rx_bad_len, 1);
	assert_int_equal(dev->queues[0].stats.rx_packets, 1);
	assert_int_equal(frags_alive(), alive);
}

static void test_descriptor_done_late_is_not_read_early(void **state)
{
	(void)state;
	dev->ops->rx_poll(dev, 0, 64);
	/* The device wrote the length but not yet DD: nothing to take. */
	hw_rx_ring()[0].length = 60;
	assert_int_equal(dev->ops->rx_poll(dev, 0, 64), 0);
	hw_receive_frame(60);
	assert_int_equal(dev->ops->rx_poll(dev, 0, 64), 1);
}

static void test_tx_one_descriptor_per_segment_eop_rs_on_last(void **state)
{
	static uint8_t a[14], b[20], c[30];
	struct netdev_sg sg[3] = {{a, 14}, {b, 20}, {c, 30}};
	struct e1000_tx_desc *ring = hw_tx_ring();

	(void)state;
	assert_int_equal(dev->ops->xmit(dev, 0, sg, 3, (void *)0x1), 0);
	dev->ops->tx_flush(dev, 0);
	assert_int_equal(*reg(E1000_TDT), 3);
	for (int i = 0; i < 3; i++) {
		assert_ptr_equal((void *)(uintptr_t)ring[i].addr, sg[i].addr);
		assert_int_equal(ring[i].length, sg[i].len);
		assert_true(ring[i].cmd & E1000_TXD_CMD_IFCS);
	}
	assert_int_equal(ring[0].cmd & (E1000_TXD_CMD_EOP | E1000_TXD_CMD_RS),
			 0);
	assert_int_equal(ring[1].cmd & (E1000_TXD_CMD_EOP | E1000_TXD_CMD_RS),
			 0);
	assert_int_equal(ring[2].cmd & (E1000_TXD_CMD_EOP | E1000_TXD_CMD_RS),
			 E1000_TXD_CMD_EOP | E1000_TXD_CMD_RS);
	assert_int_equal(dev->queues[0].stats.tx_packets, 1);
	assert_int_equal(dev->queues[0].stats.tx_bytes, 64);
	assert_int_equal(dev->queues[0].stats.tx_inflight, 1);
}

static void test_tx_cookies_come_back_in_order_once_done(void **state)
{
	static uint8_t f[60];
	struct netdev_sg two[2] = {{f, 30}, {f + 30, 30}}, one[1] = {{f, 60}};

	(void)state;
	assert_int_equal(dev->ops->xmit(dev, 0, two, 2, (void *)0x11), 0);
	assert_int_equal(dev->ops->xmit(dev, 0, one, 1, (void *)0x22), 0);
	dev->ops->tx_flush(dev, 0);
	dev->ops->tx_reap(dev, 0);
	assert_int_equal(ndone, 0); /* the device has sent nothing yet */
	assert_false(dev->ops->tx_pending(dev, 0));
	hw_transmit(1);
	assert_true(dev->ops->tx_pending(dev, 0));
	dev->ops->tx_reap(dev, 0);
	assert_int_equal(ndone, 1);
	assert_false(dev->ops->tx_pending(dev, 0)); /* second not sent yet */
	assert_ptr_equal(done_cookies[0], (void *)0x11);
	hw_transmit(1);
	dev->ops->tx_reap(dev, 0);
	assert_int_equal(ndone, 2);
	assert_ptr_equal(done_cookies[1], (void *)0x22);
	assert_int_equal(dev->queues[0].stats.tx_completed, 2);
	assert_int_equal(dev->queues[0].stats.tx_inflight, 0);
}

static void test_tx_full_ring_refuses_then_wraps_after_reclaim(void **state)
{
	static uint8_t f[60];
	struct netdev_sg sg[1] = {{f, 60}};
	int queued = 0;

	(void)state;
	while (dev->ops->xmit(dev, 0, sg, 1, (void *)(uintptr_t)(queued + 1)) ==
	       0)
		queued++;
	assert_int_equal(queued, E1000_TX_RING - 1); /* one slot stays free */
	assert_int_equal(dev->queues[0].stats.tx_busy, 1);
	/* The device drains it all; 3 more rounds wrap the ring. */
	for (int round = 0; round < 3; round++) {
		hw_transmit(E1000_TX_RING);
		dev->ops->tx_reap(dev, 0);
		for (int i = 0; i < E1000_TX_RING - 1; i++) {
			void *cookie = (void *)(uintptr_t)(queued + 1);

			assert_int_equal(dev->ops->xmit(dev, 0, sg, 1, cookie),
					 0);
			queued++;
		}
		dev->ops->tx_flush(dev, 0);
	}
	hw_transmit(E1000_TX_RING);
	dev->ops->tx_reap(dev, 0);
	assert_int_equal(ndone, queued);
	for (int i = 0; i < ndone; i++)
		assert_ptr_equal(done_cookies[i], (void *)(uintptr_t)(i + 1));
}

/* A burst of frames costs one TDT write (a VM exit), at the flush: xmit
 * leaves TDT alone, and a flush with nothing new writes nothing. */
static void test_tx_burst_writes_tdt_once_at_the_flush(void **state)
{
	static uint8_t f[60];
	struct netdev_sg sg[1] = {{f, 60}};

	(void)state;
	for (int i = 0; i < 8; i++) {
		assert_int_equal(dev->ops->xmit(dev, 0, sg, 1,
						(void *)(uintptr_t)(i + 1)),
				 0);
		assert_int_equal(*reg(E1000_TDT), 0);
	}
	assert_int_equal(dev->queues[0].stats.tx_doorbells, 0);
	assert_int_equal(hw_transmit(8), 0); /* the device knows of none */
	dev->ops->tx_flush(dev, 0);
	assert_int_equal(*reg(E1000_TDT), 8);
	assert_int_equal(dev->queues[0].stats.tx_doorbells, 1);
	dev->ops->tx_flush(dev, 0);
	assert_int_equal(dev->queues[0].stats.tx_doorbells, 1);
	assert_int_equal(hw_transmit(8), 8);
	dev->ops->tx_reap(dev, 0);
	assert_int_equal(ndone, 8);
	for (int i = 0; i < 8; i++)
		assert_ptr_equal(done_cookies[i], (void *)(uintptr_t)(i + 1));
	assert_int_equal(dev->queues[0].stats.tx_packets, 8);
}

/* A burst that fills the ring before any flush: the xmit that finds no
 * room publishes what is queued (else the device would never send it and
 * no slot would come back), and once the device has sent it the next
 * xmit succeeds. Every accepted frame is sent, in order, once. */
static void test_tx_full_ring_publishes_the_burst_before_refusing(void **state)
{
	static uint8_t f[60];
	struct netdev_sg sg[1] = {{f, 60}};
	int queued = 0;

	(void)state;
	while (dev->ops->xmit(dev, 0, sg, 1, (void *)(uintptr_t)(queued + 1)) ==
	       0) {
		queued++;
		if (queued < E1000_TX_RING - 1)
			assert_int_equal(*reg(E1000_TDT), 0);
	}
	assert_int_equal(queued, E1000_TX_RING - 1);
	assert_int_equal(*reg(E1000_TDT), E1000_TX_RING - 1);
	assert_int_equal(dev->queues[0].stats.tx_doorbells, 1);
	assert_int_equal(dev->queues[0].stats.tx_busy, 1);
	/* The device sends the published burst; xmit takes the slots back
	 * itself, without a reap from the stack. */
	assert_int_equal(hw_transmit(E1000_TX_RING), E1000_TX_RING - 1);
	for (int i = 0; i < 10; i++, queued++)
		assert_int_equal(
			dev->ops->xmit(dev, 0, sg, 1,
				       (void *)(uintptr_t)(queued + 1)),
			0);
	dev->ops->tx_flush(dev, 0);
	hw_transmit(E1000_TX_RING);
	dev->ops->tx_reap(dev, 0);
	assert_int_equal(ndone, queued);
	for (int i = 0; i < ndone; i++)
		assert_ptr_equal(done_cookies[i], (void *)(uintptr_t)(i + 1));
	assert_int_equal(dev->queues[0].stats.tx_inflight, 0);
	assert_int_equal(dev->queues[0].stats.tx_doorbells, 2);
}

static void test_tx_refuses_malformed_frames(void **state)
{
	static uint8_t f[2000];
	struct netdev_sg empty[1] = {{f, 0}}, big[1] = {{f, 1515}};
	struct netdev_sg split[2] = {{f, 1000}, {f + 1000, 515}};

	(void)state;
	assert_int_equal(dev->ops->xmit(dev, 0, empty, 0, NULL), -1);
	assert_int_equal(dev->ops->xmit(dev, 0, empty, 1, NULL), -1);
	assert_int_equal(dev->ops->xmit(dev, 0, big, 1, NULL), -1);
	assert_int_equal(dev->ops->xmit(dev, 0, split, 2, NULL), -1);
	assert_int_equal(dev->ops->xmit(dev, 0, split, NETDEV_MAX_SG + 1, NULL),
			 -1);
	assert_int_equal(*reg(E1000_TDT), 0);
	assert_int_equal(dev->queues[0].stats.tx_packets, 0);
	assert_int_equal(dev->queues[0].stats.tx_bad_len, 5);
	/* it cuts no TCP segment: the stack must build none longer */
	assert_int_equal(dev->offloads & (NETDEV_OFF_TSO4 | NETDEV_OFF_TSO6),
			 0);
}

static void test_link_state_follows_status_lu(void **state)
{
	(void)state;
	assert_true(dev->ops->link_up(dev));
	*reg(E1000_STATUS) &= ~E1000_STATUS_LU;
	assert_false(dev->ops->link_up(dev));
	*reg(E1000_STATUS) |= E1000_STATUS_LU;
	assert_true(dev->ops->link_up(dev));
}

static void test_missed_packet_counter_is_accumulated(void **state)
{
	(void)state;
	*reg(E1000_MPC) = 7;
	fake_ms += E1000_STATS_MS + 1;
	dev->ops->rx_poll(dev, 0, 64);
	assert_int_equal(dev->queues[0].stats.rx_missed, 7);
}

static void test_stats_json_names_the_error_counters(void **state)
{
	char buf[2048];

	(void)state;
	dev->queues[0].stats.rx_errors = 3;
	assert_true(netdev_stats_json(buf, sizeof(buf)) < (int)sizeof(buf));
	assert_non_null(strstr(buf, "\"eth0\":{\"kind\":\"e1000\""));
	assert_non_null(strstr(buf, "\"rx_errors\":3"));
	assert_non_null(strstr(buf, "\"rx_missed\":0"));
	/* one queue, polled by the CPU that probed the part, no interrupt
	 * until irq_setup gives it one */
	assert_non_null(strstr(buf, "\"queues\":[{\"queue\":0,\"cpu\":0,"
				    "\"node\":0,\"irq\":\"poll\","
				    "\"vector\":-1,\"rx_packets\":0,"));
	assert_non_null(strstr(buf, "\"interrupts\":0"));
}

static void test_mac_comes_from_a_valid_eeprom(void **state)
{
	(void)state;
	assert_memory_equal(dev->mac, eeprom_mac, 6);
	assert_string_equal(((struct e1000 *)dev->priv)->mac_source, "eeprom");
	assert_int_equal(*reg(E1000_RAL0), 0xee005452u);
}

/* ------------------------------------------------------- interrupts */

static void test_irq_setup_uses_the_intx_line_without_msi(void **state)
{
	(void)state;
	assert_int_equal(dev->ops->irq_setup(dev), 0);
	assert_string_equal(dev->queues[0].irq_mode, "intx");
	assert_int_equal(dev->queues[0].irq_vector, 0x30);
	assert_false(fake_msi_enabled);
	/* set up, still masked: the poller unmasks it */
	assert_int_equal(*reg(E1000_IMS), 0);
}

static void test_irq_arm_unmasks_rx_and_tx_causes_idle_ring(void **state)
{
	(void)state;
	dev->ops->rx_poll(dev, 0, 64);
	assert_false(dev->ops->irq_arm(dev, 0));
	assert_int_equal(*reg(E1000_IMS), E1000_ICR_RXT0 | E1000_ICR_RXO |
						  E1000_ICR_TXDW |
						  E1000_ICR_LSC);
}

/* LSC on the shared line: noted for the poller (which reads the link at
 * once), counted, and handled like any cause (all masked, CPU woken). */
static void test_link_change_interrupt_wakes_the_poller(void **state)
{
	(void)state;
	dev->ops->irq_setup(dev);
	assert_true(dev->ops->link_up(dev)); /* as the stack's first look */
	assert_false(dev->ops->link_changed(dev));
	*reg(E1000_ICR) = E1000_ICR_LSC;
	*reg(E1000_STATUS) &= ~E1000_STATUS_LU;
	fake_irq_fire(0);
	assert_int_equal(fake_wakes, 1);
	assert_int_equal(*reg(E1000_IMC), 0xffffffffu);
	assert_int_equal(dev->queues[0].stats.link_interrupts, 1);
	assert_true(dev->ops->link_changed(dev));
	assert_false(dev->ops->link_up(dev));
	assert_false(dev->ops->link_changed(dev));
	assert_int_equal(dev->queues[0].stats.link_changes, 2);
	/* An RX cause alone is no link event. */
	*reg(E1000_ICR) = E1000_ICR_RXT0;
	fake_irq_fire(0);
	assert_false(dev->ops->link_changed(dev));
	assert_int_equal(dev->queues[0].stats.link_interrupts, 1);
}

/* A link change while the poller worked with every cause masked: arm's
 * ICR read clears it, so arm must keep it as an event, not drop it. */
static void test_irq_arm_keeps_a_link_change_latched_while_masked(void **state)
{
	(void)state;
	dev->ops->rx_poll(dev, 0, 64);
	*reg(E1000_ICR) = E1000_ICR_LSC;
	dev->ops->irq_arm(dev, 0);
	assert_true(dev->ops->link_changed(dev));
}

/* A frame written back before the unmask: no interrupt will announce
 * it, so arm must report it (the lost wake-up the look prevents). */
static void test_irq_arm_sees_a_frame_that_came_before_it(void **state)
{
	(void)state;
	dev->ops->rx_poll(dev, 0, 64);
	hw_receive_frame(60);
	assert_true(dev->ops->irq_arm(dev, 0));
	assert_int_equal(dev->ops->rx_poll(dev, 0, 64), 1);
	assert_false(dev->ops->irq_arm(dev, 0));
}

static void
test_irq_handler_masks_counts_and_wakes_only_on_its_cause(void **state)
{
	(void)state;
	dev->queues[0].cpu = 1;
	dev->ops->irq_setup(dev);
	*reg(E1000_IMC) = 0;
	*reg(E1000_ICR) = 0; /* a shared line's other device */
	fake_irq_fire(0);
	assert_int_equal(fake_wakes, 0);
	assert_int_equal(*reg(E1000_IMC), 0);
	*reg(E1000_ICR) = E1000_ICR_RXT0;
	fake_irq_fire(0);
	assert_int_equal(fake_wakes, 1);
	assert_int_equal(fake_wake_cpu, 1);
	assert_int_equal(*reg(E1000_IMC), 0xffffffffu);
	assert_int_equal(dev->queues[0].stats.interrupts, 1);
}

static void test_irq_setup_prefers_msi_when_offered(void **state)
{
	(void)state;
	fake_pci.cap_msi = 0x50;
	assert_int_equal(dev->ops->irq_setup(dev), 0);
	fake_pci.cap_msi = 0;
	assert_string_equal(dev->queues[0].irq_mode, "msi");
	assert_true(fake_msi_enabled);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_probe_programs_mac_rings_and_masks_interrupts),
		T(test_rctl_buffer_size_is_2048_with_crc_stripped),
		T(test_first_poll_posts_all_but_one_slot),
		T(test_rx_buffers_leave_the_stack_its_headroom),
		T(test_received_frames_go_up_in_order_zero_copy),
		T(test_ring_is_refilled_before_frames_go_up),
		T(test_poll_takes_at_most_budget_frames),
		T(test_ring_wraps_ten_times_without_loss_or_double_handout),
		T(test_crc_error_frame_is_dropped_and_counted),
		T(test_checksum_offload_error_bits_do_not_drop),
		T(test_zero_and_oversize_lengths_are_dropped),
		T(test_frame_spread_over_buffers_is_dropped_once),
		T(test_descriptor_done_late_is_not_read_early),
		T(test_tx_one_descriptor_per_segment_eop_rs_on_last),
		T(test_tx_cookies_come_back_in_order_once_done),
		T(test_tx_full_ring_refuses_then_wraps_after_reclaim),
		T(test_tx_burst_writes_tdt_once_at_the_flush),
		T(test_tx_full_ring_publishes_the_burst_before_refusing),
		T(test_tx_refuses_malformed_frames),
		T(test_link_state_follows_status_lu),
		T(test_missed_packet_counter_is_accumulated),
		T(test_stats_json_names_the_error_counters),
		T(test_irq_setup_uses_the_intx_line_without_msi),
		T(test_irq_arm_unmasks_rx_and_tx_causes_idle_ring),
		T(test_irq_arm_sees_a_frame_that_came_before_it),
		T(test_link_change_interrupt_wakes_the_poller),
		T(test_irq_arm_keeps_a_link_change_latched_while_masked),
		T(test_irq_handler_masks_counts_and_wakes_only_on_its_cause),
		T(test_irq_setup_prefers_msi_when_offered),
		/* The EEPROM read in both EERD layouts. */
		cmocka_unit_test_setup_teardown(
			test_mac_comes_from_a_valid_eeprom, setup_82540_eeprom,
			teardown),
		cmocka_unit_test_setup_teardown(
			test_mac_comes_from_a_valid_eeprom, setup_82541_eeprom,
			teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
