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
 * (RCTL.BSIZE says 2048 to match), the part after NETDEV_RX_HEADROOM of
 * an E1000_RX_ALLOC-byte napi_alloc_frag() allocation, remembered in
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
 * dropped and counted in rx_bad_len, never passed up. With checksum
 * offload (the 82574L's RXCSUM.TUOFL, e1000e_hw.c) a descriptor that says
 * the device checked a TCP or UDP sum, IPv4 or IPv6, and found it right
 * sends its frame up flagged NETDEV_RX_CSUM_OK (counted in rx_csum_valid),
 * so the stack skips its own sum over the payload.
 *
 * TX. One descriptor per scatter segment, read by the device in place;
 * every descriptor asks for the CRC (IFCS) and the last one also for EOP
 * and RS, so the device writes DD back on the frame's last descriptor
 * only. tx_last[first slot] says where a frame ends and tx_cookie[last
 * slot] holds the stack's cookie; tx_reclaim() walks frames from the
 * oldest, and a frame whose last descriptor shows DD goes back to the
 * stack through tx_done(). The stack frees the bytes then, not before.
 * xmit does not write TDT: the stack's tx_flush, once per hold of its
 * core lock, publishes every frame queued since the last one with a
 * single TDT write (each is a VM exit), and xmit publishes early only
 * when the ring is short of slots.
 *
 * Ordering. Descriptors live in ordinary write-back memory and the tail
 * registers are uncached MMIO: a release fence between filling descriptors
 * and writing the tail keeps the compiler from sinking the stores past it
 * (x86 itself keeps stores in order). After seeing DD an acquire fence
 * orders the reads of length and errors after it.
 *
 * Interrupts are masked (IMC) at reset; with net_irq=on (the default)
 * the poller unmasks them when it goes idle (e1000_irq.c), and always
 * calls e1000_rx_poll() and e1000_tx_reap(), as it does virtio-net's.
 * One queue pair, polled by the CPU that probed the part (CPU 0). Link
 * state comes from STATUS.LU, read when a link-change interrupt says so
 * and every 100 ms regardless; each change is printed and counted. Bringing the part up (reset, EEPROM,
 * MAC, link, the ring registers, probe) is e1000_hw.c; the PCIe 82574L
 * (e1000e_hw.c) runs this same file, its RX ring set to these legacy
 * descriptors.
 */
#include "e1000_internal.h"

#include <stdatomic.h>

#include "mm/mm.h"

_Static_assert((E1000_RX_RING & (E1000_RX_RING - 1)) == 0, "power of two");
_Static_assert((E1000_TX_RING & (E1000_TX_RING - 1)) == 0, "power of two");
_Static_assert(E1000_RX_RING * sizeof(struct e1000_rx_desc) <= MM_PAGE_SIZE &&
		       E1000_TX_RING * sizeof(struct e1000_tx_desc) <=
			       MM_PAGE_SIZE,
	       "each ring fits in one page");
_Static_assert(E1000_RX_RING * 16 % 128 == 0 && E1000_TX_RING * 16 % 128 == 0,
	       "ring length must be a multiple of 128 bytes");

#define RX_MASK	    (E1000_RX_RING - 1)
#define TX_MASK	    (E1000_TX_RING - 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

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
		uint8_t *buf = napi_alloc_frag(E1000_RX_ALLOC);

		if (unlikely(!buf)) {
			e->dev.queues[0].stats.rx_refill_fail++;
			break;
		}
		buf += NETDEV_RX_HEADROOM;
		e->rx_buf[slot] = buf;
		d->addr = drv_dma_addr(buf);
		d->status = 0; /* a stale DD must not look like a new frame */
		e->rx_tail = (uint16_t)((slot + 1) & RX_MASK);
		e->rx_posted++;
		e->dev.queues[0].stats.rx_bufs_posted++;
		e->dev.queues[0].stats.rx_refills++;
	}
	if (e->rx_tail != old_tail) {
		atomic_thread_fence(memory_order_release);
		e1000_wr32(e, E1000_RDT, e->rx_tail);
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
			e->dev.queues[0].stats.rx_bad_len++;
		e->rx_discard = true;
		return false;
	}
	if (unlikely(e->rx_discard)) { /* the last piece of such a frame */
		e->rx_discard = false;
		return false;
	}
	if (unlikely(errors & E1000_RXD_ERR_FRAME)) {
		e->dev.queues[0].stats.rx_errors++;
		return false;
	}
	if (unlikely(len == 0 || len > NETDEV_FRAME_MAX)) {
		e->dev.queues[0].stats.rx_bad_len++;
		return false;
	}
	return true;
}

/* Is frame f (len bytes) an IPv4 fragment? Its TCP/UDP sum covers the
 * whole datagram, so no device's word on one fragment holds for it. */
static bool rx_ipv4_fragment(const uint8_t *f, uint32_t len)
{
	return len >= 14 + 20 && f[12] == 0x08 && f[13] == 0x00 &&
	       ((f[14 + 6] & 0x3f) | f[14 + 7]) != 0; /* MF, offset */
}

/*
 * The rx callback's flags for a good frame: NETDEV_RX_CSUM_OK when
 * checksum offload is on and the device checked the TCP or UDP sum (IPv4
 * or IPv6) and found it right, never on an IPv4 fragment. Anything else
 * (offload off, IXSM, neither protocol, a wrong sum) goes up unflagged and
 * the stack checks the sums itself, so a frame the device calls bad is
 * still counted and dropped where lwIP's counters say so.
 */
static unsigned int rx_csum_flags(struct e1000 *e, uint8_t status,
				  uint8_t errors, const uint8_t *f,
				  uint32_t len)
{
	if (!e->rx_csum || (status & E1000_RXD_STAT_IXSM) ||
	    !(status & (E1000_RXD_STAT_TCPCS | E1000_RXD_STAT_UDPCS)) ||
	    (errors & E1000_RXD_ERR_TCPE) || rx_ipv4_fragment(f, len))
		return 0;
	e->dev.queues[0].stats.rx_csum_valid++;
	return NETDEV_RX_CSUM_OK;
}

/*
 * rx_take - take the buffer of the oldest owned slot, which the device has
 * marked done. The buffer leaves rx_buf[] first, so neither a wrap nor a
 * second DD can hand the same buffer out twice. Returns the buffer when it
 * holds a frame to pass up (its length in *len, the rx callback's flags in
 * *flags), or NULL when the frame was dropped: then it is already freed
 * and counted.
 */
static uint8_t *rx_take(struct e1000 *e, uint8_t status, uint32_t *len,
			unsigned int *flags)
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
	e->dev.queues[0].stats.rx_bufs_posted--;
	if (!rx_frame_ok(e, status, errors, length)) {
		page_frag_free(buf);
		return NULL;
	}
	*len = length;
	*flags = rx_csum_flags(e, status, errors, buf, length);
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
		e->dev.queues[0].stats.tx_completed++;
		e->dev.queues[0].stats.tx_inflight--;
		e->dev.tx_done(&e->dev, 0, cookie);
	}
}

/*
 * tx_publish - one TDT write for every frame queued since the last one.
 * A TDT write is an uncached MMIO store, a VM exit under a hypervisor
 * (QEMU sends the frames inside it), so xmit only fills descriptors and
 * this runs once per burst. The release fence keeps the descriptor
 * stores before the tail store.
 */
static void tx_publish(struct e1000 *e)
{
	if (e->tx_tail == e->tx_tdt)
		return;
	atomic_thread_fence(memory_order_release);
	e1000_wr32(e, E1000_TDT, e->tx_tail);
	e->tx_tdt = e->tx_tail;
	e->dev.queues[0].stats.tx_doorbells++;
}

/* e1000_tx_flush - the netdev op: the stack calls it before it lets go
 * of its TX guard after any xmit. */
static void e1000_tx_flush(struct netdev *dev, int q)
{
	(void)q; /* one queue */
	tx_publish(dev->priv);
}

/* tx_pending - the oldest frame in flight shows DD: tx_reclaim has work.
 * Read without the stack's TX guard, so a hint. */
static bool e1000_tx_pending(struct netdev *dev, int q)
{
	const struct e1000 *e = dev->priv;
	uint16_t used = *(const volatile uint16_t *)&e->tx_used;
	uint16_t last = e->tx_last[*(const volatile uint16_t *)&e->tx_clean];

	(void)q; /* one queue */
	return used && (e->tx_ring[last].status & E1000_TXD_STAT_DD);
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

static int e1000_xmit(struct netdev *dev, int q, const struct netdev_sg *sg,
		      int nsg, void *cookie)
{
	struct e1000 *e = dev->priv;
	uint32_t bytes = tx_frame_len(sg, nsg);
	uint16_t first = e->tx_tail, slot = first;

	(void)q; /* one queue */
	if (unlikely(bytes == 0)) {
		/* malformed, or longer than the MTU (the device cuts no TCP
		 * segment: no NETDEV_OFF_TSO4/6): refused, nothing queued */
		dev->queues[0].stats.tx_bad_len++;
		return -1;
	}
	if (tx_free_slots(e) < (unsigned int)nsg) {
		/* Short of slots: the device may not even know of the burst
		 * that fills them yet. Publish it, then take back what is
		 * done (QEMU sends during the TDT write itself). */
		tx_publish(e);
		tx_reclaim(e);
	}
	if (unlikely(tx_free_slots(e) < (unsigned int)nsg)) {
		dev->queues[0].stats.tx_busy++;
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
	/* No TDT write here: e1000_tx_flush publishes the whole burst. */
	dev->queues[0].stats.tx_packets++;
	dev->queues[0].stats.tx_bytes += bytes;
	dev->queues[0].stats.tx_inflight++;
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
	e->dev.queues[0].stats.rx_missed += e1000_rd32(e, E1000_MPC);
}

/* e1000_tx_reap - the netdev op: finished TX frames back to the stack.
 * Returns how many. */
static int e1000_tx_reap(struct netdev *dev, int q)
{
	struct e1000 *e = dev->priv;
	uint64_t before = e->dev.queues[0].stats.tx_completed;

	(void)q; /* one queue */
	tx_reclaim(e);
	return (int)(e->dev.queues[0].stats.tx_completed - before);
}

/*
 * e1000_rx_poll - take up to budget received buffers, give the ring fresh
 * ones, and only then hand the frames up (as virtio-net does): the device
 * is never short of buffers while the stack works on a batch. Returns the
 * number of RX descriptors consumed.
 */
static int e1000_rx_poll(struct netdev *dev, int q, int budget)
{
	struct e1000 *e = dev->priv;
	struct {
		uint8_t *buf;
		uint32_t len;
		unsigned int flags;
	} got[E1000_POLL_MAX];
	int taken = 0, n = 0;

	(void)q; /* one queue */
	if (budget > E1000_POLL_MAX)
		budget = E1000_POLL_MAX;
	while (taken < budget && e->rx_posted) {
		uint8_t status = e->rx_ring[e->rx_next].status;

		if (!(status & E1000_RXD_STAT_DD))
			break;
		atomic_thread_fence(memory_order_acquire);
		got[n].buf = rx_take(e, status, &got[n].len, &got[n].flags);
		if (got[n].buf)
			n++;
		taken++;
	}
	/* The first poll also fills the empty ring: buffers must come from
	 * the polling CPU's per-CPU frag cache, not the boot CPU's. */
	if (e->rx_posted < E1000_RX_RING - 1)
		rx_refill(e);
	for (int i = 0; i < n; i++) {
		dev->queues[0].stats.rx_packets++;
		dev->queues[0].stats.rx_bytes += got[i].len;
		dev->rx(dev, 0, got[i].buf, got[i].len, got[i].flags, 0);
	}
	read_hw_stats(e);
	return taken;
}

/* Link state: STATUS.LU, each change printed and counted (gbe_hw.c). */
static bool e1000_link_up(struct netdev *dev)
{
	struct e1000 *e = dev->priv;

	return gbe_link_up(&e->hw, dev);
}

const struct netdev_ops e1000_ops = {
	.xmit = e1000_xmit,
	.rx_poll = e1000_rx_poll,
	.tx_reap = e1000_tx_reap,
	.tx_pending = e1000_tx_pending,
	.tx_flush = e1000_tx_flush,
	.link_up = e1000_link_up,
	.irq_setup = e1000_irq_setup,
	.irq_arm = e1000_irq_arm,
	.irq_disarm = e1000_irq_disarm,
	.link_changed = e1000_link_changed,
};
