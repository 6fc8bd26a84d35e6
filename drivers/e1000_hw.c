/*
 * e1000: bringing an Intel 8254x up, following the 8254x Family Software
 * Developer's Manual: which parts we drive, the MAC (from the EEPROM when
 * its checksum holds, else what the part loaded into RAL0/RAH0, else a
 * locally administered one), the link, the receive and transmit
 * registers, and the PCI probe that registers each part as a netdev. The
 * global reset, the EEPROM reads and the link report are the steps every
 * Intel gigabit part shares (gbe_hw.c); the per-packet path (rings, poll,
 * transmit) is e1000.c.
 */
#include "e1000_internal.h"

#include <string.h>

#include "mm/mm.h"

_Static_assert(E1000_RX_BUF == 2048, "RCTL.BSIZE below is the 2048 setting");

#define VENDOR_INTEL 0x8086

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

static int ne1000s; /* parts brought up: the local MAC's last byte */

/* ------------------------------------------------------------- setup */

/*
 * The netdev of a part that is up: one queue pair, polled by the probing
 * CPU, its buffers on @node; the 8254x and the 82574L (e1000e_hw.c) share
 * the per-packet path (e1000_ops).
 */
void e1000_init_netdev(struct e1000 *e, const char *kind, int node,
		       const struct pci_dev *d)
{
	e->dev.kind = kind;
	e->dev.mtu = 1500;
	e->dev.nqueues = 1;
	e->dev.queues[0].cpu = mm_this_cpu();
	e->dev.queues[0].node = node;
	e->dev.dev_node = d->node;
	e->dev.ops = &e1000_ops;
	e->dev.priv = e;
}

/*
 * The MAC from the EEPROM, trusted only when words 0..0x3f carry the
 * checksum the manual defines (gbe_mac_from_nvm); port B of a dual-port
 * 82546 has port A's address with bit 0 flipped.
 */
static bool mac_from_eeprom(struct e1000 *e, uint8_t *mac)
{
	if (!gbe_mac_from_nvm(&e->hw, 0, mac))
		return false;
	if (e->model->dual_port &&
	    (e1000_rd32(e, E1000_STATUS) & E1000_STATUS_FUNC_MASK))
		mac[5] ^= 1;
	return true;
}

/* MAC: EEPROM, else RAL0/RAH0, else a locally administered one; then
 * program it as receive address 0 and clear the other 15 filters. */
void e1000_setup_mac(struct e1000 *e, int index)
{
	uint8_t *mac = e->dev.mac;

	if (mac_from_eeprom(e, mac)) {
		e->mac_source = "eeprom";
	} else if (gbe_mac_from_ral(&e->hw, mac)) {
		e->mac_source = "ral";
	} else {
		gbe_mac_local(mac, index);
		e->mac_source = "local";
	}
	gbe_set_mac(&e->hw, mac);
}

/* Link (manual 14.3): let the MAC follow the PHY's auto-negotiated speed
 * and duplex (ASDE), force the link up (SLU), undo reset-time states. */
void e1000_setup_link(struct e1000 *e)
{
	uint32_t ctrl = e1000_rd32(e, E1000_CTRL);

	ctrl |= E1000_CTRL_SLU | E1000_CTRL_ASDE;
	ctrl &= ~(E1000_CTRL_LRST | E1000_CTRL_PHY_RST | E1000_CTRL_ILOS |
		  E1000_CTRL_VME | E1000_CTRL_FRCSPD | E1000_CTRL_FRCDPLX);
	e1000_wr32(e, E1000_CTRL, ctrl);
	/* No flow control: we never send or honour PAUSE frames. */
	e1000_wr32(e, E1000_FCAL, 0);
	e1000_wr32(e, E1000_FCAH, 0);
	e1000_wr32(e, E1000_FCT, 0);
	e1000_wr32(e, E1000_FCTTV, 0);
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
void e1000_setup_rx(struct e1000 *e)
{
	uint64_t ring = drv_dma_addr((const void *)e->rx_ring);

	for (int i = 0; i < 128; i++)
		e1000_wr32(e, E1000_MTA + 4 * i, 0);
	e1000_wr32(e, E1000_RDBAL, (uint32_t)ring);
	e1000_wr32(e, E1000_RDBAH, (uint32_t)(ring >> 32));
	e1000_wr32(e, E1000_RDLEN,
		   E1000_RX_RING * sizeof(struct e1000_rx_desc));
	e1000_wr32(e, E1000_RDH, 0);
	e1000_wr32(e, E1000_RDT, 0);
	e1000_wr32(e, E1000_RDTR, 0);
	e1000_wr32(e, E1000_RCTL,
		   E1000_RCTL_EN | E1000_RCTL_BAM | E1000_RCTL_MPE |
			   E1000_RCTL_BSIZE_2048 | E1000_RCTL_SECRC |
			   E1000_RCTL_RDMTS_HALF);
}

/* Transmit (manual 14.5): full duplex collision distance, pad short
 * frames, the IEEE 802.3 inter-packet gap. */
void e1000_setup_tx(struct e1000 *e)
{
	uint64_t ring = drv_dma_addr((const void *)e->tx_ring);

	e1000_wr32(e, E1000_TDBAL, (uint32_t)ring);
	e1000_wr32(e, E1000_TDBAH, (uint32_t)(ring >> 32));
	e1000_wr32(e, E1000_TDLEN,
		   E1000_TX_RING * sizeof(struct e1000_tx_desc));
	e1000_wr32(e, E1000_TDH, 0);
	e1000_wr32(e, E1000_TDT, 0);
	e1000_wr32(e, E1000_TIDV, 0);
	e1000_wr32(e, E1000_TIPG, E1000_TIPG_COPPER);
	e1000_wr32(e, E1000_TCTL,
		   E1000_TCTL_EN | E1000_TCTL_PSP | E1000_TCTL_CT |
			   E1000_TCTL_COLD_FD);
}

/* Both rings, one zeroed page each, on the poller's node. */
int e1000_alloc_rings(struct e1000 *e, int node)
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

struct e1000 *e1000_alloc(const char *kind, const struct pci_dev *d, int node)
{
	struct e1000 *e =
		kmalloc_node(sizeof(*e), GFP_KERNEL | __GFP_ZERO, node);

	if (!e)
		drv_printf("%s: %02x:%02x.%x: no memory for the device\n", kind,
			   d->bus, d->dev, d->fn);
	return e;
}

void e1000_discard(struct e1000 *e, const struct pci_dev *d)
{
	gbe_quiesce(e->hw.regs, d);
	/* no DMA from here on: the rings can go back (no buffer is posted
	 * before the first poll) */
	free_pages((void *)(uintptr_t)e->rx_ring, 0);
	free_pages((void *)(uintptr_t)e->tx_ring, 0);
	kfree(e);
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
	e->hw.regs = pci_map_bar(d, 0);
	if (!e->hw.regs) {
		drv_printf("e1000: %02x:%02x.%x: BAR0 is not a mappable "
			   "memory BAR\n",
			   d->bus, d->dev, d->fn);
		return -1;
	}
	if (gbe_reset(&e->hw) != 0) {
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
	e1000_init_netdev(e, "e1000", node, d);
	return 0;
}

int e1000_probe(int node)
{
	int found = 0;

	for (int i = 0; i < pci_count(); i++) {
		struct pci_dev *d = pci_get(i);
		const struct e1000_model *m = find_model(d);
		struct e1000 *e;

		if (!m)
			continue;
		if (!netdev_room()) {
			netdev_left_out("e1000", d);
			gbe_quiesce(NULL, d);
			continue;
		}
		e = e1000_alloc("e1000", d, node);
		if (!e) {
			gbe_quiesce(NULL, d);
			continue;
		}
		e->model = m;
		e->hw.pci = d;
		e->hw.eerd = m->eerd;
		if (e1000_setup(e, d, node) != 0 ||
		    netdev_register(&e->dev) != 0) {
			e1000_discard(e, d);
			continue;
		}
		ne1000s++;
		found++;
		drv_printf("e1000: %s %02x:%02x.%x %s "
			   "mac=%02x:%02x:%02x:%02x:%02x:%02x (%s) rx=%u "
			   "tx=%u link %s\n",
			   e->dev.name, d->bus, d->dev, d->fn, m->name,
			   e->dev.mac[0], e->dev.mac[1], e->dev.mac[2],
			   e->dev.mac[3], e->dev.mac[4], e->dev.mac[5],
			   e->mac_source, E1000_RX_RING, E1000_TX_RING,
			   e1000_rd32(e, E1000_STATUS) & E1000_STATUS_LU
				   ? "up"
				   : "down");
	}
	return found;
}
