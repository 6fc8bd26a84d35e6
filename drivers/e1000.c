/*
 * e1000: Intel 8254x gigabit Ethernet (82540EM under QEMU), polled, one
 * legacy RX ring and one legacy TX ring, following the 8254x Family
 * Software Developer's Manual.
 *
 * Rings. Each ring is an array of 16-byte descriptors in one page from
 * alloc_pages_node() on the polling CPU's node, shared with the device
 * through two indexes: the device owns the slots from head (RDH/TDH, which
 * only it moves) up to, not including, tail (RDT/TDT, which only we
 * write). head == tail means the device owns nothing, so at most N - 1
 * slots are ever given to it. We never read the device's head register on
 * the fast path: the DD ("descriptor done") bit it writes back into a
 * descriptor tells us that slot is ours again.
 *
 * RX. Every slot we give the device holds one E1000_RX_BUF-byte buffer
 * from napi_alloc_frag() (RCTL.BSIZE says 2048 to match), remembered in
 * rx_buf[slot]. rx_next is the oldest slot the device owns; when its DD is
 * set we take the buffer out of rx_buf[] (the slot goes NULL, so a buffer
 * is handed out once) and pass it up zero-copy: from then on the stack owns
 * it and frees it with page_frag_free(). A poll takes a batch, lets
 * rx_refill() put fresh buffers in the free slots after rx_tail (one RDT
 * write for all), and only then hands the batch up. Frames
 * with a hardware error (CRC, symbol, sequence, carrier extension, RX data
 * error) are dropped and counted in rx_errors; a length outside
 * [1, NETDEV_FRAME_MAX] or a frame spread over several buffers (which
 * cannot happen with long packets off, so the device is misbehaving) is
 * dropped and counted in rx_bad_len, never passed up.
 *
 * TX. One descriptor per scatter segment, read by the device in place;
 * every descriptor asks for the CRC (IFCS) and the last one also for EOP
 * and RS, so the device writes DD back on the frame's last descriptor
 * only. tx_last[first slot] says where a frame ends and tx_cookie[last
 * slot] holds the stack's cookie; tx_reclaim() walks frames from the
 * oldest, and a frame whose last descriptor shows DD goes back to the
 * stack through tx_done(). The stack frees the bytes then, not before.
 *
 * Ordering. Descriptors live in ordinary write-back memory and the tail
 * registers are uncached MMIO: a release fence between filling descriptors
 * and writing the tail keeps the compiler from sinking the stores past it
 * (x86 itself keeps stores in order). After seeing DD an acquire fence
 * orders the reads of length and errors after it.
 *
 * Interrupts stay masked (IMC): the poll loop calls e1000_poll(), as it
 * does virtio-net's poll. Link state comes from STATUS.LU.
 */
#include "e1000.h"

#include <stdatomic.h>
#include <string.h>

#include "drv_port.h"
#include "e1000_regs.h"
#include "mm/mm.h"
#include "netdev.h"
#include "pci.h"

_Static_assert((E1000_RX_RING & (E1000_RX_RING - 1)) == 0, "power of two");
_Static_assert((E1000_TX_RING & (E1000_TX_RING - 1)) == 0, "power of two");
_Static_assert(E1000_RX_RING * sizeof(struct e1000_rx_desc) <= MM_PAGE_SIZE &&
		       E1000_TX_RING * sizeof(struct e1000_tx_desc) <=
			       MM_PAGE_SIZE,
	       "each ring fits in one page");
_Static_assert(E1000_RX_RING * 16 % 128 == 0 && E1000_TX_RING * 16 % 128 == 0,
	       "ring length must be a multiple of 128 bytes");
_Static_assert(E1000_RX_BUF == 2048, "RCTL.BSIZE below is the 2048 setting");

#define RX_MASK	     (E1000_RX_RING - 1)
#define TX_MASK	     (E1000_TX_RING - 1)
#define VENDOR_INTEL 0x8086
#define unlikely(x)  __builtin_expect(!!(x), 0)

/* How a part reads its EEPROM words (if at all through EERD). */
enum e1000_eerd {
	EERD_NONE,  /* 82544: no EERD; the MAC comes from RAL0/RAH0 */
	EERD_8254X, /* 82540/82545/82546: addr at bit 8, done at bit 4 */
	EERD_82541, /* 82541/82547: addr at bit 2, done at bit 1 */
};

struct e1000_model {
	uint16_t device;
	const char *name;
	enum e1000_eerd eerd;
	bool dual_port; /* 82546: port B's MAC is port A's with bit 0 flipped */
};

/* Copper parts of the 8254x family that share the register set used
 * here. Fiber/SerDes variants need TBI link setup we do not do. */
static const struct e1000_model models[] = {
	{0x1008, "82544EI", EERD_NONE, false},
	{0x100c, "82544GC", EERD_NONE, false},
	{0x100d, "82544GC-LOM", EERD_NONE, false},
	{0x100e, "82540EM", EERD_8254X, false},
	{0x1015, "82540EM-LOM", EERD_8254X, false},
	{0x1016, "82540EP-LOM", EERD_8254X, false},
	{0x1017, "82540EP", EERD_8254X, false},
	{0x101e, "82540EP-LP", EERD_8254X, false},
	{0x100f, "82545EM", EERD_8254X, false},
	{0x1026, "82545GM", EERD_8254X, false},
	{0x1010, "82546EB", EERD_8254X, true},
	{0x101d, "82546EB-quad", EERD_8254X, true},
	{0x1079, "82546GB", EERD_8254X, true},
	{0x1013, "82541EI", EERD_82541, false},
	{0x1018, "82541EI-mobile", EERD_82541, false},
	{0x1076, "82541GI", EERD_82541, false},
	{0x1077, "82541GI-mobile", EERD_82541, false},
	{0x1078, "82541ER", EERD_82541, false},
	{0x107c, "82541PI", EERD_82541, false},
	{0x1019, "82547EI", EERD_82541, false},
	{0x101a, "82547EI-mobile", EERD_82541, false},
	{0x1075, "82547GI", EERD_82541, false},
};

struct e1000 {
	struct netdev dev;
	volatile uint8_t *regs; /* BAR0 */
	const struct e1000_model *model;
	const struct pci_dev *pci;
	const char *mac_source; /* "eeprom", "ral" or "local" */
	bool link;		/* last STATUS.LU seen, to report changes */
	uint64_t stats_due_ms;	/* next read of the missed-packet counter */

	volatile struct e1000_rx_desc *rx_ring;
	void *rx_buf[E1000_RX_RING]; /* buffer in each slot, NULL if none */
	uint16_t rx_next;	     /* oldest slot the device owns */
	uint16_t rx_tail;	     /* next slot to fill (RDT's value) */
	uint16_t rx_posted;	     /* slots the device owns */
	bool rx_discard;	     /* dropping a frame's remaining buffers */

	volatile struct e1000_tx_desc *tx_ring;
	void *tx_cookie[E1000_TX_RING];	 /* on a frame's last slot */
	uint16_t tx_last[E1000_TX_RING]; /* on a frame's first slot */
	uint16_t tx_clean;		 /* first slot of the oldest frame */
	uint16_t tx_tail;		 /* next free slot (TDT's value) */
	uint16_t tx_used;		 /* slots the device owns */
};

static struct e1000 e1000s[E1000_MAX_DEVS];
static int ne1000s;

static uint32_t rd32(const struct e1000 *e, unsigned int reg)
{
	return mmio_read32(e->regs + reg);
}

static void wr32(struct e1000 *e, unsigned int reg, uint32_t v)
{
	mmio_write32(e->regs + reg, v);
}

/* Busy-wait: only at probe time, where a few milliseconds are fine. The
 * iteration cap keeps a stopped clock from hanging the boot. */
static void delay_ms(uint64_t ms)
{
	uint64_t end = drv_clock_ms() + ms;

	for (unsigned long spins = 0; drv_clock_ms() < end && spins < 100000000;
	     spins++)
		__builtin_ia32_pause();
}

/* ---------------------------------------------------------------- RX */

/*
 * rx_refill - give the device a buffer in every free slot (up to N - 1
 * owned), then publish them with one RDT write. Poll context only:
 * napi_alloc_frag() uses this CPU's unguarded cache. A failed allocation
 * is counted and leaves the rest for the next poll.
 */
static void rx_refill(struct e1000 *e)
{
	uint16_t old_tail = e->rx_tail;

	while (e->rx_posted < E1000_RX_RING - 1) {
		uint16_t slot = e->rx_tail;
		volatile struct e1000_rx_desc *d = &e->rx_ring[slot];
		void *buf = napi_alloc_frag(E1000_RX_BUF);

		if (unlikely(!buf)) {
			e->dev.stats.rx_refill_fail++;
			break;
		}
		e->rx_buf[slot] = buf;
		d->addr = drv_dma_addr(buf);
		d->status = 0; /* a stale DD must not look like a new frame */
		e->rx_tail = (uint16_t)((slot + 1) & RX_MASK);
		e->rx_posted++;
		e->dev.stats.rx_bufs_posted++;
	}
	if (e->rx_tail != old_tail) {
		atomic_thread_fence(memory_order_release);
		wr32(e, E1000_RDT, e->rx_tail);
	}
}

/* Is this buffer's content a frame we pass up? Counts why not. */
static bool rx_frame_ok(struct e1000 *e, uint8_t status, uint8_t errors,
			uint16_t len)
{
	if (unlikely(!(status & E1000_RXD_STAT_EOP))) {
		/* First piece of a frame longer than a buffer: drop it and
		 * every piece up to its EOP, counting the frame once. */
		if (!e->rx_discard)
			e->dev.stats.rx_bad_len++;
		e->rx_discard = true;
		return false;
	}
	if (unlikely(e->rx_discard)) { /* the last piece of such a frame */
		e->rx_discard = false;
		return false;
	}
	if (unlikely(errors & E1000_RXD_ERR_FRAME)) {
		e->dev.stats.rx_errors++;
		return false;
	}
	if (unlikely(len == 0 || len > NETDEV_FRAME_MAX)) {
		e->dev.stats.rx_bad_len++;
		return false;
	}
	return true;
}

/*
 * rx_take - take the buffer of the oldest owned slot, which the device has
 * marked done. The buffer leaves rx_buf[] first, so neither a wrap nor a
 * second DD can hand the same buffer out twice. Returns the buffer when it
 * holds a frame to pass up (its length in *len), or NULL when the frame
 * was dropped: then it is already freed and counted.
 */
static uint8_t *rx_take(struct e1000 *e, uint8_t status, uint32_t *len)
{
	uint16_t slot = e->rx_next;
	volatile struct e1000_rx_desc *d = &e->rx_ring[slot];
	uint8_t *buf = e->rx_buf[slot];
	uint16_t length = d->length;
	uint8_t errors = d->errors;

	e->rx_buf[slot] = NULL;
	d->status = 0;
	e->rx_next = (uint16_t)((slot + 1) & RX_MASK);
	e->rx_posted--;
	e->dev.stats.rx_bufs_posted--;
	if (!rx_frame_ok(e, status, errors, length)) {
		page_frag_free(buf);
		return NULL;
	}
	*len = length;
	return buf;
}

/* ---------------------------------------------------------------- TX */

static unsigned int tx_free_slots(const struct e1000 *e)
{
	return E1000_TX_RING - 1u - e->tx_used;
}

/*
 * tx_reclaim - give the stack back every frame the device has finished,
 * oldest first, stopping at the first one still in flight. Each frame's
 * slots become free again in one step.
 */
static void tx_reclaim(struct e1000 *e)
{
	while (e->tx_used) {
		uint16_t first = e->tx_clean, last = e->tx_last[first];
		void *cookie;

		if (!(e->tx_ring[last].status & E1000_TXD_STAT_DD))
			break;
		atomic_thread_fence(memory_order_acquire);
		cookie = e->tx_cookie[last];
		e->tx_cookie[last] = NULL;
		e->tx_used = (uint16_t)(e->tx_used -
					(((last - first) & TX_MASK) + 1));
		e->tx_clean = (uint16_t)((last + 1) & TX_MASK);
		e->dev.stats.tx_completed++;
		e->dev.stats.tx_inflight--;
		e->dev.tx_done(&e->dev, cookie);
	}
}

/* The stack's segments, checked: each within what one descriptor takes,
 * the frame no longer than the MTU allows. Returns the frame's bytes or 0. */
static uint32_t tx_frame_len(const struct netdev_sg *sg, int nsg)
{
	uint32_t bytes = 0;

	if (nsg < 1 || nsg > NETDEV_MAX_SG)
		return 0;
	for (int i = 0; i < nsg; i++) {
		if (sg[i].len == 0 || sg[i].len > E1000_TXD_MAX_LEN)
			return 0;
		bytes += sg[i].len;
	}
	return bytes <= NETDEV_FRAME_MAX ? bytes : 0;
}

static int e1000_xmit(struct netdev *dev, const struct netdev_sg *sg, int nsg,
		      void *cookie)
{
	struct e1000 *e = dev->priv;
	uint32_t bytes = tx_frame_len(sg, nsg);
	uint16_t first = e->tx_tail, slot = first;

	if (unlikely(bytes == 0))
		return -1; /* malformed request: refused, nothing queued */
	if (tx_free_slots(e) < (unsigned int)nsg)
		tx_reclaim(e);
	if (unlikely(tx_free_slots(e) < (unsigned int)nsg)) {
		dev->stats.tx_busy++;
		return -1;
	}
	for (int i = 0; i < nsg; i++) {
		volatile struct e1000_tx_desc *d = &e->tx_ring[slot];
		bool last = i == nsg - 1;

		d->addr = drv_dma_addr(sg[i].addr);
		d->length = (uint16_t)sg[i].len;
		d->cso = 0;
		d->css = 0;
		d->special = 0;
		d->status = 0;
		d->cmd = E1000_TXD_CMD_IFCS |
			 (last ? E1000_TXD_CMD_EOP | E1000_TXD_CMD_RS : 0);
		if (!last)
			slot = (uint16_t)((slot + 1) & TX_MASK);
	}
	e->tx_last[first] = slot;
	e->tx_cookie[slot] = cookie;
	e->tx_used = (uint16_t)(e->tx_used + nsg);
	e->tx_tail = (uint16_t)((slot + 1) & TX_MASK);
	atomic_thread_fence(memory_order_release);
	wr32(e, E1000_TDT, e->tx_tail);
	dev->stats.tx_packets++;
	dev->stats.tx_bytes += bytes;
	dev->stats.tx_inflight++;
	return 0;
}

/* -------------------------------------------------------------- poll */

/* Frames dropped for want of a posted buffer: MPC, read (and so cleared)
 * now and then rather than on every poll. */
static void read_hw_stats(struct e1000 *e)
{
	uint64_t now = drv_clock_ms();

	if (now < e->stats_due_ms)
		return;
	e->stats_due_ms = now + E1000_STATS_MS;
	e->dev.stats.rx_missed += rd32(e, E1000_MPC);
}

/*
 * e1000_poll - reap finished TX frames, take up to budget received
 * buffers, give the ring fresh ones, and only then hand the frames up (as
 * virtio-net does): the device is never short of buffers while the stack
 * works on a batch. Returns the number of RX descriptors consumed.
 */
static int e1000_poll(struct netdev *dev, int budget)
{
	struct e1000 *e = dev->priv;
	struct {
		uint8_t *buf;
		uint32_t len;
	} got[E1000_POLL_MAX];
	int taken = 0, n = 0;

	tx_reclaim(e);
	if (budget > E1000_POLL_MAX)
		budget = E1000_POLL_MAX;
	while (taken < budget && e->rx_posted) {
		uint8_t status = e->rx_ring[e->rx_next].status;

		if (!(status & E1000_RXD_STAT_DD))
			break;
		atomic_thread_fence(memory_order_acquire);
		got[n].buf = rx_take(e, status, &got[n].len);
		if (got[n].buf)
			n++;
		taken++;
	}
	/* The first poll also fills the empty ring: buffers must come from
	 * the polling CPU's per-CPU frag cache, not the boot CPU's. */
	if (e->rx_posted < E1000_RX_RING - 1)
		rx_refill(e);
	for (int i = 0; i < n; i++) {
		dev->stats.rx_packets++;
		dev->stats.rx_bytes += got[i].len;
		dev->rx(dev, got[i].buf, got[i].len);
	}
	read_hw_stats(e);
	return taken;
}

static bool e1000_link_up(struct netdev *dev)
{
	struct e1000 *e = dev->priv;
	uint32_t status = rd32(e, E1000_STATUS);
	bool up = status & E1000_STATUS_LU;

	if (up != e->link) {
		static const int mbps[4] = {10, 100, 1000, 1000};

		e->link = up;
		if (up)
			drv_printf(
				"e1000: %s link up %d Mb/s %s duplex\n",
				dev->name,
				mbps[(status >> E1000_STATUS_SPEED_SHIFT) & 3],
				status & E1000_STATUS_FD ? "full" : "half");
		else
			drv_printf("e1000: %s link down\n", dev->name);
	}
	return up;
}

static const struct netdev_ops e1000_ops = {
	.xmit = e1000_xmit,
	.poll = e1000_poll,
	.link_up = e1000_link_up,
};

/* ------------------------------------------------------------- setup */

/*
 * Global reset (manual 14.5): stop both DMA engines, give transfers in
 * flight a moment, set CTRL.RST and wait for it to clear; the part then
 * reloads its EEPROM defaults (MAC into RAL0/RAH0 among them). Interrupts
 * are masked before and after, since reset unmasks nothing but a stale
 * cause could still be latched. Return: 0, or -1 if RST never clears.
 */
static int e1000_reset(struct e1000 *e)
{
	uint64_t end;

	wr32(e, E1000_IMC, 0xffffffffu);
	wr32(e, E1000_RCTL, 0);
	wr32(e, E1000_TCTL, E1000_TCTL_PSP);
	(void)rd32(e, E1000_STATUS); /* flush the posted writes */
	delay_ms(10);
	wr32(e, E1000_CTRL, rd32(e, E1000_CTRL) | E1000_CTRL_RST);
	delay_ms(1); /* the manual asks for >= 1 us before the next access */
	end = drv_clock_ms() + 100;
	while (rd32(e, E1000_CTRL) & E1000_CTRL_RST)
		if (drv_clock_ms() > end)
			return -1;
	delay_ms(10); /* EEPROM auto-load after reset */
	wr32(e, E1000_IMC, 0xffffffffu);
	(void)rd32(e, E1000_ICR);
	return 0;
}

/* One EEPROM word through EERD. Return: 0, or -1 on timeout. */
static int eeprom_read(struct e1000 *e, unsigned int word, uint16_t *out)
{
	bool old = e->model->eerd == EERD_8254X;
	uint32_t done = old ? E1000_EERD_DONE : E1000_EERD_DONE_82541;
	unsigned int shift =
		old ? E1000_EERD_ADDR_SHIFT : E1000_EERD_ADDR_SHIFT_82541;

	wr32(e, E1000_EERD, word << shift | E1000_EERD_START);
	for (int i = 0; i < 100000; i++) {
		uint32_t v = rd32(e, E1000_EERD);

		if (v & done) {
			*out = (uint16_t)(v >> E1000_EERD_DATA_SHIFT);
			return 0;
		}
	}
	return -1;
}

static bool mac_valid(const uint8_t *mac)
{
	static const uint8_t zero[6];

	return !(mac[0] & 1) && memcmp(mac, zero, 6) != 0; /* unicast, set */
}

/*
 * The MAC from the EEPROM, trusted only when words 0..0x3f carry the
 * checksum the manual defines (they sum to 0xbaba).
 */
static bool mac_from_eeprom(struct e1000 *e, uint8_t *mac)
{
	uint16_t sum = 0, w;

	if (e->model->eerd == EERD_NONE)
		return false;
	for (unsigned int i = 0; i < E1000_EEPROM_CHECKSUM_WORDS; i++) {
		if (eeprom_read(e, i, &w) != 0)
			return false;
		if (i < 3) {
			mac[2 * i] = (uint8_t)w;
			mac[2 * i + 1] = (uint8_t)(w >> 8);
		}
		sum = (uint16_t)(sum + w);
	}
	if (sum != E1000_EEPROM_CHECKSUM_SUM)
		return false;
	if (e->model->dual_port &&
	    (rd32(e, E1000_STATUS) & E1000_STATUS_FUNC_MASK))
		mac[5] ^= 1;
	return mac_valid(mac);
}

/* The address the part loaded into receive address 0 at reset. */
static bool mac_from_ral(struct e1000 *e, uint8_t *mac)
{
	uint32_t lo = rd32(e, E1000_RAL0), hi = rd32(e, E1000_RAH0);

	if (!(hi & E1000_RAH_AV))
		return false;
	for (int i = 0; i < 4; i++)
		mac[i] = (uint8_t)(lo >> (8 * i));
	mac[4] = (uint8_t)hi;
	mac[5] = (uint8_t)(hi >> 8);
	return mac_valid(mac);
}

/* MAC: EEPROM, else RAL0/RAH0, else a locally administered one; then
 * program it as receive address 0 and clear the other 15 filters. */
static void e1000_setup_mac(struct e1000 *e, int index)
{
	uint8_t *mac = e->dev.mac;

	if (mac_from_eeprom(e, mac)) {
		e->mac_source = "eeprom";
	} else if (mac_from_ral(e, mac)) {
		e->mac_source = "ral";
	} else {
		static const uint8_t local[6] = {0x02, 0x00, 0x00, 0x10, 0x00};

		memcpy(mac, local, 6);
		mac[5] = (uint8_t)index;
		e->mac_source = "local";
	}
	for (int i = 1; i < 16; i++) {
		wr32(e, E1000_RAH0 + 8 * i, 0);
		wr32(e, E1000_RAL0 + 8 * i, 0);
	}
	wr32(e, E1000_RAL0,
	     (uint32_t)mac[0] | (uint32_t)mac[1] << 8 | (uint32_t)mac[2] << 16 |
		     (uint32_t)mac[3] << 24);
	wr32(e, E1000_RAH0,
	     (uint32_t)mac[4] | (uint32_t)mac[5] << 8 | E1000_RAH_AV);
}

/* Link (manual 14.3): let the MAC follow the PHY's auto-negotiated speed
 * and duplex (ASDE), force the link up (SLU), undo reset-time states. */
static void e1000_setup_link(struct e1000 *e)
{
	uint32_t ctrl = rd32(e, E1000_CTRL);

	ctrl |= E1000_CTRL_SLU | E1000_CTRL_ASDE;
	ctrl &= ~(E1000_CTRL_LRST | E1000_CTRL_PHY_RST | E1000_CTRL_ILOS |
		  E1000_CTRL_VME | E1000_CTRL_FRCSPD | E1000_CTRL_FRCDPLX);
	wr32(e, E1000_CTRL, ctrl);
	/* No flow control: we never send or honour PAUSE frames. */
	wr32(e, E1000_FCAL, 0);
	wr32(e, E1000_FCAH, 0);
	wr32(e, E1000_FCT, 0);
	wr32(e, E1000_FCTTV, 0);
}

/*
 * Receive (manual 14.4). The ring starts empty (RDH == RDT == 0): the
 * first poll fills it from the poller's frag cache. Broadcast accepted;
 * multicast too, all of it (MPE), because the netdev interface has no
 * multicast filter op — lwIP drops what it did not join, as it does
 * behind virtio-net, which also passes every multicast frame. CRC
 * stripped (SECRC) so lengths are frame lengths; no long packets, so a
 * frame always fits one 2048-byte buffer.
 */
static void e1000_setup_rx(struct e1000 *e)
{
	uint64_t ring = drv_dma_addr((const void *)e->rx_ring);

	for (int i = 0; i < 128; i++)
		wr32(e, E1000_MTA + 4 * i, 0);
	wr32(e, E1000_RDBAL, (uint32_t)ring);
	wr32(e, E1000_RDBAH, (uint32_t)(ring >> 32));
	wr32(e, E1000_RDLEN, E1000_RX_RING * sizeof(struct e1000_rx_desc));
	wr32(e, E1000_RDH, 0);
	wr32(e, E1000_RDT, 0);
	wr32(e, E1000_RDTR, 0);
	wr32(e, E1000_RCTL,
	     E1000_RCTL_EN | E1000_RCTL_BAM | E1000_RCTL_MPE |
		     E1000_RCTL_BSIZE_2048 | E1000_RCTL_SECRC |
		     E1000_RCTL_RDMTS_HALF);
}

/* Transmit (manual 14.5): full duplex collision distance, pad short
 * frames, the IEEE 802.3 inter-packet gap. */
static void e1000_setup_tx(struct e1000 *e)
{
	uint64_t ring = drv_dma_addr((const void *)e->tx_ring);

	wr32(e, E1000_TDBAL, (uint32_t)ring);
	wr32(e, E1000_TDBAH, (uint32_t)(ring >> 32));
	wr32(e, E1000_TDLEN, E1000_TX_RING * sizeof(struct e1000_tx_desc));
	wr32(e, E1000_TDH, 0);
	wr32(e, E1000_TDT, 0);
	wr32(e, E1000_TIDV, 0);
	wr32(e, E1000_TIPG, E1000_TIPG_COPPER);
	wr32(e, E1000_TCTL,
	     E1000_TCTL_EN | E1000_TCTL_PSP | E1000_TCTL_CT |
		     E1000_TCTL_COLD_FD);
}

/* Both rings, one zeroed page each, on the poller's node. */
static int e1000_alloc_rings(struct e1000 *e, int node)
{
	struct page *rx = alloc_pages_node(node, __GFP_ZERO, 0);
	struct page *tx = alloc_pages_node(node, __GFP_ZERO, 0);

	if (!rx || !tx) {
		if (rx)
			__free_pages(rx, 0);
		if (tx)
			__free_pages(tx, 0);
		return -1;
	}
	e->rx_ring = page_address(rx);
	e->tx_ring = page_address(tx);
	return 0;
}

static const struct e1000_model *find_model(const struct pci_dev *d)
{
	if (d->vendor != VENDOR_INTEL)
		return NULL;
	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++)
		if (models[i].device == d->device)
			return &models[i];
	return NULL;
}

static int e1000_setup(struct e1000 *e, struct pci_dev *d, int node)
{
	pci_enable(d);
	e->regs = pci_map_bar(d, 0);
	if (!e->regs) {
		drv_printf("e1000: %02x:%02x.%x: BAR0 is not a mappable "
			   "memory BAR\n",
			   d->bus, d->dev, d->fn);
		return -1;
	}
	if (e1000_reset(e) != 0) {
		drv_printf("e1000: %02x:%02x.%x: reset did not complete\n",
			   d->bus, d->dev, d->fn);
		return -1;
	}
	if (e1000_alloc_rings(e, node) != 0) {
		drv_printf("e1000: %02x:%02x.%x: no memory for the rings\n",
			   d->bus, d->dev, d->fn);
		return -1;
	}
	e1000_setup_mac(e, ne1000s);
	e1000_setup_link(e);
	e1000_setup_rx(e);
	e1000_setup_tx(e);
	e->dev.kind = "e1000";
	e->dev.mtu = 1500;
	e->dev.node = node;
	e->dev.ops = &e1000_ops;
	e->dev.priv = e;
	return 0;
}

int e1000_probe(int node)
{
	int found = 0;

	for (int i = 0; i < pci_count() && ne1000s < E1000_MAX_DEVS; i++) {
		struct pci_dev *d = pci_get(i);
		const struct e1000_model *m = find_model(d);
		struct e1000 *e = &e1000s[ne1000s];

		if (!m)
			continue;
		memset(e, 0, sizeof(*e));
		e->model = m;
		e->pci = d;
		if (e1000_setup(e, d, node) != 0)
			continue;
		ne1000s++;
		if (netdev_register(&e->dev) == 0)
			found++;
		drv_printf("e1000: %s %02x:%02x.%x %s "
			   "mac=%02x:%02x:%02x:%02x:%02x:%02x (%s) rx=%u "
			   "tx=%u link %s\n",
			   e->dev.name, d->bus, d->dev, d->fn, m->name,
			   e->dev.mac[0], e->dev.mac[1], e->dev.mac[2],
			   e->dev.mac[3], e->dev.mac[4], e->dev.mac[5],
			   e->mac_source, E1000_RX_RING, E1000_TX_RING,
			   rd32(e, E1000_STATUS) & E1000_STATUS_LU ? "up"
								   : "down");
	}
	return found;
}
