/*
 * Intel 8254x (e1000) NIC, polled, legacy descriptors, one RX and one TX
 * ring. Only registers that the whole 8254x family shares are used (Intel's
 * 8254x software developer's manual), so QEMU's 82540EM and real cards
 * behave alike.
 *
 * RX: each of the E1000_RING descriptors points at a 2048-byte buffer from
 * napi_alloc_frag() (RCTL.BSIZE = 2048). The device fills descriptors from
 * head to tail; we walk them in order, take the ones with DD set, hand a
 * good frame up zero-copy, put a fresh buffer in the slot and advance the
 * tail. A frame with an error bit, without EOP (longer than one buffer) or
 * with a length outside [14, 1514] is dropped and counted.
 *
 * TX: one descriptor per segment, IFCS on all (the device appends the
 * Ethernet CRC), EOP|RS on the last. The device sets DD on a descriptor
 * with RS once the frame is gone; then the stack's cookie goes back.
 */
#include "e1000.h"

#include <stdatomic.h>
#include <string.h>

#include "drv_port.h"
#include "mm.h"
#include "netdev.h"
#include "pci.h"

#define E1000_CTRL   0x0000
#define E1000_STATUS 0x0008
#define E1000_EERD   0x0014
#define E1000_IMC    0x00d8
#define E1000_RCTL   0x0100
#define E1000_TCTL   0x0400
#define E1000_TIPG   0x0410
#define E1000_RDBAL  0x2800
#define E1000_RDBAH  0x2804
#define E1000_RDLEN  0x2808
#define E1000_RDH    0x2810
#define E1000_RDT    0x2818
#define E1000_TDBAL  0x3800
#define E1000_TDBAH  0x3804
#define E1000_TDLEN  0x3808
#define E1000_TDH    0x3810
#define E1000_TDT    0x3818
#define E1000_MTA    0x5200
#define E1000_RAL0   0x5400
#define E1000_RAH0   0x5404

#define CTRL_ASDE  (1u << 5)
#define CTRL_SLU   (1u << 6)
#define CTRL_RST   (1u << 26)
#define STATUS_LU  (1u << 1)
#define RCTL_EN	   (1u << 1)
#define RCTL_BAM   (1u << 15)
#define RCTL_SECRC (1u << 26)
#define TCTL_EN	   (1u << 1)
#define TCTL_PSP   (1u << 3)
#define TCTL_CT	   (0x10u << 4)
#define TCTL_COLD  (0x40u << 12)
#define TIPG_82540 (10u | 8u << 10 | 6u << 20)
#define RAH_AV	   (1u << 31)
#define EERD_START 1u
#define EERD_DONE  (1u << 4)

#define RXD_STAT_DD  0x01
#define RXD_STAT_EOP 0x02
#define TXD_CMD_EOP  0x01
#define TXD_CMD_IFCS 0x02
#define TXD_CMD_RS   0x08
#define TXD_STAT_DD  0x01

#define E1000_RING     256 /* descriptors per ring: 4 KiB, a multiple of 128 B */
#define E1000_BUF      2048
#define E1000_POLL_MAX 64
#define E1000_MAX_DEVS 4

struct e1000_rx_desc {
	uint64_t addr;
	uint16_t length;
	uint16_t csum;
	uint8_t status;
	uint8_t errors;
	uint16_t special;
};

struct e1000_tx_desc {
	uint64_t addr;
	uint16_t length;
	uint8_t cso;
	uint8_t cmd;
	uint8_t status;
	uint8_t css;
	uint16_t special;
};

struct e1000 {
	struct netdev dev;
	volatile uint8_t *regs;
	struct e1000_rx_desc *rx;
	struct e1000_tx_desc *tx;
	void *rx_buf[E1000_RING];
	void *tx_cookie[E1000_RING];  /* set on a frame's last descriptor */
	uint16_t tx_last[E1000_RING]; /* on a frame's first: its last one */
	unsigned int rx_next;	      /* next descriptor to look at */
	unsigned int rx_filled;	      /* initial fill progress */
	unsigned int tx_tail, tx_clean, tx_free;
};

static struct e1000 e1000s[E1000_MAX_DEVS];
static int ne1000s;

static const uint16_t e1000_ids[] = {
	0x100e,			/* 82540EM (QEMU's e1000) */
	0x100f, 0x1011, 0x1026, /* 82545EM, 82545EM fiber, 82545GM */
	0x1004, 0x1008, 0x1010, /* 82543GC, 82544EI, 82546EB */
	0x1015, 0x1017, 0x1019, 0x101e, 0x1076, 0x107c,
};

static uint32_t rd(struct e1000 *e, unsigned int reg)
{
	return mmio_read32(e->regs + reg);
}

static void wr(struct e1000 *e, unsigned int reg, uint32_t v)
{
	mmio_write32(e->regs + reg, v);
}

/*
 * First poll: give every descriptor a buffer (from this CPU's frag cache),
 * then hand the device all but one: RDT = last means "up to last-1", and
 * from then on RDT always names the slot refilled most recently.
 */
static bool rx_initial_fill(struct e1000 *e)
{
	while (e->rx_filled < E1000_RING) {
		void *buf = napi_alloc_frag(E1000_BUF);

		if (!buf) {
			e->dev.stats.rx_refill_fail++;
			return false;
		}
		e->rx_buf[e->rx_filled] = buf;
		e->rx[e->rx_filled].addr = drv_dma_addr(buf);
		e->rx[e->rx_filled].status = 0;
		e->dev.stats.rx_bufs_posted++;
		e->rx_filled++;
	}
	atomic_thread_fence(memory_order_release);
	wr(e, E1000_RDT, E1000_RING - 1);
	return true;
}

/* Reclaim finished frames (their last descriptor has DD); returns how many. */
static int tx_reap(struct e1000 *e)
{
	int n = 0;

	while (e->tx_free < E1000_RING) {
		unsigned int first = e->tx_clean, last = e->tx_last[first];

		if (!(*(volatile uint8_t *)&e->tx[last].status & TXD_STAT_DD))
			break;
		e->dev.tx_done(&e->dev, e->tx_cookie[last]);
		e->tx_cookie[last] = NULL;
		e->tx_free += (last + E1000_RING - first) % E1000_RING + 1;
		e->tx_clean = (last + 1) % E1000_RING;
		e->dev.stats.tx_completed++;
		e->dev.stats.tx_inflight--;
		n++;
	}
	return n;
}

static void rx_one(struct e1000 *e, void *buf, const struct e1000_rx_desc *d)
{
	struct netdev *dev = &e->dev;

	if (d->errors || !(d->status & RXD_STAT_EOP) || d->length < 14 ||
	    d->length > NETDEV_FRAME_MAX) {
		dev->stats.rx_bad_len++;
		page_frag_free(buf);
		return;
	}
	dev->stats.rx_packets++;
	dev->stats.rx_bytes += d->length;
	dev->rx(dev, buf, d->length);
}

/*
 * Take up to budget completed RX descriptors in ring order. A slot's
 * replacement buffer is allocated before its frame is taken, so a failed
 * allocation leaves the frame in place for the next poll and the device is
 * never handed a descriptor without a buffer.
 */
static int e1000_poll(struct netdev *dev, int budget)
{
	struct e1000 *e = dev->priv;
	struct {
		void *buf;
		struct e1000_rx_desc d;
	} got[E1000_POLL_MAX];
	int n = 0, reaped = tx_reap(e);
	unsigned int last = E1000_RING;

	if (e->rx_filled < E1000_RING && !rx_initial_fill(e))
		return reaped;
	if (budget > E1000_POLL_MAX)
		budget = E1000_POLL_MAX;
	while (n < budget) {
		unsigned int i = e->rx_next;
		struct e1000_rx_desc *d = &e->rx[i];
		void *fresh;

		if (!(*(volatile uint8_t *)&d->status & RXD_STAT_DD))
			break;
		fresh = napi_alloc_frag(E1000_BUF);
		if (!fresh) {
			dev->stats.rx_refill_fail++;
			break;
		}
		atomic_thread_fence(memory_order_acquire);
		got[n].buf = e->rx_buf[i];
		got[n].d = *d;
		n++;
		e->rx_buf[i] = fresh;
		d->addr = drv_dma_addr(fresh);
		d->status = 0;
		last = i;
		e->rx_next = (i + 1) % E1000_RING;
	}
	if (last != E1000_RING) {
		/* Descriptors written before the tail moves over them. */
		atomic_thread_fence(memory_order_release);
		wr(e, E1000_RDT, last);
	}
	for (int k = 0; k < n; k++)
		rx_one(e, got[k].buf, &got[k].d);
	return n + reaped;
}

static int e1000_xmit(struct netdev *dev, const struct netdev_sg *sg, int nsg,
		      void *cookie)
{
	struct e1000 *e = dev->priv;
	unsigned int i = e->tx_tail;
	uint32_t bytes = 0;

	if ((unsigned int)nsg >= e->tx_free)
		tx_reap(e);
	if (nsg <= 0 || (unsigned int)nsg >= e->tx_free) {
		dev->stats.tx_busy++;
		return -1;
	}
	for (int k = 0; k < nsg; k++) {
		struct e1000_tx_desc *d = &e->tx[i];

		d->addr = drv_dma_addr(sg[k].addr);
		d->length = (uint16_t)sg[k].len;
		d->cmd = TXD_CMD_IFCS |
			 (k == nsg - 1 ? TXD_CMD_EOP | TXD_CMD_RS : 0);
		d->status = 0;
		e->tx_cookie[i] = k == nsg - 1 ? cookie : NULL;
		if (k == nsg - 1)
			e->tx_last[e->tx_tail] = (uint16_t)i;
		bytes += sg[k].len;
		i = (i + 1) % E1000_RING;
	}
	e->tx_free -= (unsigned int)nsg;
	e->tx_tail = i;
	atomic_thread_fence(memory_order_release);
	wr(e, E1000_TDT, i);
	dev->stats.tx_packets++;
	dev->stats.tx_bytes += bytes;
	dev->stats.tx_inflight++;
	return 0;
}

static bool e1000_link_up(struct netdev *dev)
{
	return rd(dev->priv, E1000_STATUS) & STATUS_LU;
}

static const struct netdev_ops e1000_ops = {
	.xmit = e1000_xmit,
	.poll = e1000_poll,
	.link_up = e1000_link_up,
};

/* MAC from RAL0/RAH0 (loaded from the EEPROM at reset), else the EEPROM. */
static void e1000_read_mac(struct e1000 *e)
{
	uint32_t lo = rd(e, E1000_RAL0), hi = rd(e, E1000_RAH0);

	if (!(hi & RAH_AV)) {
		uint16_t w[3];

		for (int i = 0; i < 3; i++) {
			uint64_t end = drv_clock_ms() + 10;
			uint32_t v;

			wr(e, E1000_EERD, (uint32_t)i << 8 | EERD_START);
			while (!((v = rd(e, E1000_EERD)) & EERD_DONE) &&
			       drv_clock_ms() < end)
				;
			w[i] = (uint16_t)(v >> 16);
		}
		lo = w[0] | (uint32_t)w[1] << 16;
		hi = w[2];
	}
	for (int i = 0; i < 4; i++)
		e->dev.mac[i] = (uint8_t)(lo >> (8 * i));
	e->dev.mac[4] = (uint8_t)hi;
	e->dev.mac[5] = (uint8_t)(hi >> 8);
}

static int e1000_reset(struct e1000 *e)
{
	uint64_t end;

	wr(e, E1000_IMC, 0xffffffff);
	wr(e, E1000_CTRL, rd(e, E1000_CTRL) | CTRL_RST);
	end = drv_clock_ms() + 100;
	while (rd(e, E1000_CTRL) & CTRL_RST)
		if (drv_clock_ms() > end)
			return -1;
	wr(e, E1000_IMC, 0xffffffff); /* polled: no interrupts */
	wr(e, E1000_CTRL, rd(e, E1000_CTRL) | CTRL_SLU | CTRL_ASDE);
	return 0;
}

static int e1000_rings(struct e1000 *e, int node)
{
	struct page *rp = alloc_pages_node(node, __GFP_ZERO, 0);
	struct page *tp = alloc_pages_node(node, __GFP_ZERO, 0);

	if (!rp || !tp) {
		if (rp)
			__free_pages(rp, 0);
		if (tp)
			__free_pages(tp, 0);
		return -1;
	}
	e->rx = page_address(rp);
	e->tx = page_address(tp);
	for (int i = 0; i < 128; i++)
		wr(e, E1000_MTA + 4 * i, 0);
	wr(e, E1000_RDBAL, (uint32_t)drv_dma_addr(e->rx));
	wr(e, E1000_RDBAH, (uint32_t)(drv_dma_addr(e->rx) >> 32));
	wr(e, E1000_RDLEN, E1000_RING * sizeof(struct e1000_rx_desc));
	wr(e, E1000_RDH, 0);
	wr(e, E1000_RDT, 0); /* no buffers yet: the first poll fills them */
	wr(e, E1000_TDBAL, (uint32_t)drv_dma_addr(e->tx));
	wr(e, E1000_TDBAH, (uint32_t)(drv_dma_addr(e->tx) >> 32));
	wr(e, E1000_TDLEN, E1000_RING * sizeof(struct e1000_tx_desc));
	wr(e, E1000_TDH, 0);
	wr(e, E1000_TDT, 0);
	e->tx_free = E1000_RING;
	wr(e, E1000_TIPG, TIPG_82540);
	wr(e, E1000_TCTL, TCTL_EN | TCTL_PSP | TCTL_CT | TCTL_COLD);
	wr(e, E1000_RCTL, RCTL_EN | RCTL_BAM | RCTL_SECRC); /* BSIZE 2048 */
	return 0;
}

static bool is_e1000(const struct pci_dev *d)
{
	if (d->vendor != 0x8086)
		return false;
	for (size_t i = 0; i < sizeof(e1000_ids) / sizeof(e1000_ids[0]); i++)
		if (d->device == e1000_ids[i])
			return true;
	return false;
}

int e1000_probe(int node)
{
	int found = 0;

	for (int i = 0; i < pci_count() && ne1000s < E1000_MAX_DEVS; i++) {
		struct pci_dev *d = pci_get(i);
		struct e1000 *e = &e1000s[ne1000s];

		if (!is_e1000(d))
			continue;
		memset(e, 0, sizeof(*e));
		pci_enable(d);
		e->regs = pci_map_bar(d, 0);
		if (!e->regs || e1000_reset(e) != 0 || e1000_rings(e, node)) {
			drv_printf("e1000: %02x:%02x.%x: set-up failed\n",
				   d->bus, d->dev, d->fn);
			continue;
		}
		e1000_read_mac(e);
		e->dev.kind = "e1000";
		e->dev.mtu = 1500;
		e->dev.node = node;
		e->dev.ops = &e1000_ops;
		e->dev.priv = e;
		ne1000s++;
		if (netdev_register(&e->dev) == 0)
			found++;
		drv_printf("e1000: %s %02x:%02x.%x %04x "
			   "mac=%02x:%02x:%02x:%02x:%02x:%02x ring=%d\n",
			   e->dev.name, d->bus, d->dev, d->fn, d->device,
			   e->dev.mac[0], e->dev.mac[1], e->dev.mac[2],
			   e->dev.mac[3], e->dev.mac[4], e->dev.mac[5],
			   E1000_RING);
	}
	return found;
}
