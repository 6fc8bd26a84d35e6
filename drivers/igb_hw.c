/*
 * igb: bringing an 82576, I350, I210 or I211 up, following the 82576
 * datasheet (chapter 4, initialization) and where the I350/I210 ones
 * agree with it.
 *
 * What is the 8254x/82574's, and so gbe_hw.c's: PCIe master requests
 * stopped before the global reset (CTRL.RST, then the NVM auto-load),
 * the MAC from receive address 0 (which the part loads from its NVM
 * section for this function) or else the NVM through EERD, the PHY
 * through MDIC, the link report from STATUS.
 *
 * What the family adds, done here:
 *  - every interrupt masked twice over: the legacy causes (IMC) and the
 *    extended ones (EIMC), with GPIE left in its non-MSI-X reset state;
 *  - the link: CTRL.SLU with the MAC following the PHY, and the PHY's
 *    auto-negotiation restarted (BMCR), since a reset leaves the link
 *    down until negotiation completes (the part then raises LSC); the
 *    probe waits for it a bounded time (IGB_LINK_WAIT_MS);
 *  - RX: per queue, SRRCTL asks for advanced one-buffer descriptors of
 *    2 KiB (no header split) and DROP_EN, RXDCTL.ENABLE is set and read
 *    back before the tail is written; RXCSUM checks IP and TCP/UDP sums
 *    (PCSD: the descriptor carries the RSS hash rather than a raw sum);
 *  - TX: per queue, TXDCTL.ENABLE, read back likewise, and the tables
 *    TSO keeps (without memory for them the queue sends unmerged).
 *
 * Which parts: the PCI ids of the 82576, I350, I210 and I211 variants
 * are all recognised. Only the 82576 copper part (8086:10c9, QEMU's) has
 * been run with this driver; any other says so in one boot line and is
 * stopped (receive, transmit and bus mastering off) unless the boot line
 * has igb_untested=1, so a real machine never runs silently on a path
 * nobody has watched work.
 */
#include "igb_internal.h"

#include <string.h>

#include "e1000e_regs.h"
#include "mm/mm.h"

#define VENDOR_INTEL	 0x8086
/* How long the part gets to confirm a queue enable (datasheet: poll). */
#define IGB_ENABLE_MS	 10
/*
 * How long the probe waits for the renegotiated link: QEMU's takes 500 ms
 * (virtual), so a guest comes up with its link and its first frames are
 * not lost to a link that is still down (a static address is announced at
 * once). A slower real link, or none, is left to the periodic link check:
 * a port without a cable costs the boot this long, no more.
 */
#define IGB_LINK_WAIT_MS 1000

/* Queue pairs: the 82576 and I350 spread RSS over 8 (the 82576 has 16
 * rings, but MSI-X vectors for 8 pairs and the link), the I210 over 4,
 * the I211 over 2. */
static const struct igb_model igb_models[] = {
	{0x10c9, "82576", IGB_82576, 8, true},
	{0x10e6, "82576-fiber", IGB_82576, 8, false},
	{0x10e7, "82576-serdes", IGB_82576, 8, false},
	{0x10e8, "82576-quad-copper", IGB_82576, 8, false},
	{0x1526, "82576-quad-copper-et2", IGB_82576, 8, false},
	{0x150a, "82576-ns", IGB_82576, 8, false},
	{0x1518, "82576-ns-serdes", IGB_82576, 8, false},
	{0x150d, "82576-serdes-quad", IGB_82576, 8, false},
	{0x1521, "I350-copper", IGB_I350, 8, false},
	{0x1522, "I350-fiber", IGB_I350, 8, false},
	{0x1523, "I350-serdes", IGB_I350, 8, false},
	{0x1524, "I350-sgmii", IGB_I350, 8, false},
	{0x1546, "I350-da4", IGB_I350, 8, false},
	{0x1533, "I210-copper", IGB_I210, 4, false},
	{0x1534, "I210-copper-oem1", IGB_I210, 4, false},
	{0x1535, "I210-copper-it", IGB_I210, 4, false},
	{0x1536, "I210-fiber", IGB_I210, 4, false},
	{0x1537, "I210-serdes", IGB_I210, 4, false},
	{0x1538, "I210-sgmii", IGB_I210, 4, false},
	{0x157b, "I210-copper-flashless", IGB_I210, 4, false},
	{0x157c, "I210-serdes-flashless", IGB_I210, 4, false},
	{0x1539, "I211-copper", IGB_I211, 2, false},
};

static bool allow_untested;
static int nigbs; /* parts brought up: the local MAC's last byte */

void igb_allow_untested(bool allow)
{
	allow_untested = allow;
}

/* Reset: master requests stopped, the global reset, then the part told a
 * driver owns it and every cause masked. Return: 0, or -1. */
static int igb_reset(struct igb *g, const char *where)
{
	if (!gbe_stop_master(&g->hw))
		drv_printf("igb: %s: master requests still pending, "
			   "resetting anyway\n",
			   where);
	if (gbe_reset(&g->hw) != 0)
		return -1;
	igb_wr32(g, E1000_CTRL,
		 igb_rd32(g, E1000_CTRL) & ~E1000E_CTRL_GIO_MASTER_DISABLE);
	igb_wr32(g, E1000E_CTRL_EXT,
		 igb_rd32(g, E1000E_CTRL_EXT) | E1000E_CTRL_EXT_DRV_LOAD);
	igb_wr32(g, IGB_EIMC, 0xffffffffu);
	igb_wr32(g, IGB_GPIE, 0);
	(void)igb_rd32(g, IGB_EICR);
	return 0;
}

/* MAC: receive address 0 as the part loaded it for this function, else
 * the NVM's first section, else a locally administered one. */
static void igb_setup_mac(struct igb *g)
{
	uint8_t *mac = g->dev.mac;

	if (gbe_mac_from_ral(&g->hw, mac)) {
		g->mac_source = "ral";
	} else if (gbe_mac_from_nvm(&g->hw, 0, mac)) {
		g->mac_source = "nvm";
	} else {
		gbe_mac_local(mac, 0xc0 + nigbs); /* never an e1000's */
		g->mac_source = "local";
	}
	gbe_set_mac(&g->hw, mac);
}

/* Link: the MAC follows the PHY (SLU + ASDE), no flow control, and the
 * PHY renegotiates; STATUS.LU follows when it is done. */
static void igb_setup_link(struct igb *g)
{
	uint32_t ctrl = igb_rd32(g, E1000_CTRL);

	ctrl |= E1000_CTRL_SLU | E1000_CTRL_ASDE;
	ctrl &= ~(E1000_CTRL_LRST | E1000_CTRL_PHY_RST | E1000_CTRL_ILOS |
		  E1000_CTRL_VME | E1000_CTRL_FRCSPD | E1000_CTRL_FRCDPLX);
	igb_wr32(g, E1000_CTRL, ctrl);
	igb_wr32(g, E1000_FCAL, 0);
	igb_wr32(g, E1000_FCAH, 0);
	igb_wr32(g, E1000_FCT, 0);
	igb_wr32(g, E1000_FCTTV, 0);
	if (gbe_phy_write(&g->hw, MII_BMCR,
			  MII_BMCR_AUTOEN | MII_BMCR_ANRESTART) != 0)
		drv_printf("igb: %s: PHY did not take the auto-negotiation "
			   "restart (a fibre or SerDes port?)\n",
			   g->model->name);
	else
		(void)gbe_wait_reg(&g->hw, E1000_STATUS, E1000_STATUS_LU,
				   E1000_STATUS_LU, IGB_LINK_WAIT_MS);
}

/* Turn a queue register's ENABLE on and wait for the part to show it. */
static bool igb_enable_queue(struct igb *g, unsigned int reg, uint32_t val)
{
	igb_wr32(g, reg, val | IGB_DCTL_ENABLE);
	return gbe_wait_reg(&g->hw, reg, IGB_DCTL_ENABLE, IGB_DCTL_ENABLE,
			    IGB_ENABLE_MS);
}

/* Queue q's rings. The RX ring starts empty (RDH == RDT == 0): the first
 * poll fills it from the polling CPU's frag cache. */
static int igb_setup_queue(struct igb *g, int q)
{
	uint64_t rx = drv_dma_addr((const void *)g->pairs[q]->rx.desc);
	uint64_t tx = drv_dma_addr((const void *)g->pairs[q]->tx.desc);

	igb_wr32(g, IGB_RDBAL(q), (uint32_t)rx);
	igb_wr32(g, IGB_RDBAH(q), (uint32_t)(rx >> 32));
	igb_wr32(g, IGB_RDLEN(q), IGB_RX_RING * sizeof(union igb_rx_desc));
	igb_wr32(g, IGB_RDH(q), 0);
	igb_wr32(g, IGB_RDT(q), 0);
	igb_wr32(g, IGB_SRRCTL(q),
		 IGB_SRRCTL_BSIZEPKT_KB(IGB_RX_BUF / 1024) |
			 IGB_SRRCTL_DESC_ADV_ONEBUF | IGB_SRRCTL_DROP_EN);
	igb_wr32(g, IGB_TDBAL(q), (uint32_t)tx);
	igb_wr32(g, IGB_TDBAH(q), (uint32_t)(tx >> 32));
	igb_wr32(g, IGB_TDLEN(q), IGB_TX_RING * sizeof(union igb_tx_desc));
	igb_wr32(g, IGB_TDH(q), 0);
	igb_wr32(g, IGB_TDT(q), 0);
	/* Write-back threshold 1: each done descriptor is written back at
	 * once, never held for a batch a polled queue might wait on. */
	if (!igb_enable_queue(g, IGB_RXDCTL(q),
			      IGB_DCTL_PTHRESH(8) | IGB_DCTL_HTHRESH(8) |
				      IGB_DCTL_WTHRESH(1)) ||
	    !igb_enable_queue(g, IGB_TXDCTL(q),
			      IGB_DCTL_PTHRESH(8) | IGB_DCTL_HTHRESH(1) |
				      IGB_DCTL_WTHRESH(1))) {
		drv_printf("igb: queue %d did not enable\n", q);
		return -1;
	}
	return 0;
}

/*
 * Receive and transmit on, RSS spreading flows over the queues (even
 * one: the hash still goes up). Broadcast and every multicast accepted (MPE:
 * the netdev interface has no multicast filter; lwIP drops what it did
 * not join), the CRC stripped so lengths are frame lengths, no long
 * frames. RCTL's buffer size is SRRCTL's to say.
 */
static void igb_start(struct igb *g)
{
	for (int i = 0; i < 128; i++)
		igb_wr32(g, E1000_MTA + 4 * i, 0);
	igb_wr32(g, IGB_RXCSUM,
		 IGB_RXCSUM_IPOFLD | IGB_RXCSUM_TUOFLD | IGB_RXCSUM_PCSD);
	igb_rss_setup(g);
	igb_wr32(g, E1000_RCTL,
		 E1000_RCTL_EN | E1000_RCTL_BAM | E1000_RCTL_MPE |
			 E1000_RCTL_SECRC);
	igb_wr32(g, E1000_TCTL,
		 E1000_TCTL_EN | E1000_TCTL_PSP | E1000_TCTL_CT |
			 E1000_TCTL_COLD_FD);
}

/* Each pair and its two ring pages, on its CPU's node. */
static int igb_alloc_pairs(struct igb *g)
{
	for (int q = 0; q < g->dev.nqueues; q++) {
		int node = g->dev.queues[q].node;
		struct igb_pair *p =
			kmalloc_node(sizeof(*p), GFP_KERNEL | __GFP_ZERO, node);
		struct page *rx, *tx;

		if (!p)
			return -1;
		g->pairs[q] = p;
		p->owner = g;
		p->q = q;
		rx = alloc_pages_node(node, __GFP_ZERO, 0);
		tx = alloc_pages_node(node, __GFP_ZERO, 0);
		if (rx)
			p->rx.desc = page_address(rx);
		if (tx)
			p->tx.desc = page_address(tx);
		if (!rx || !tx)
			return -1;
	}
	return 0;
}

/*
 * TSO's tables, on every queue or none: TSO is an optimisation, so a part
 * short of memory still comes up, sending unmerged (and without
 * NETDEV_OFF_TSO4/6: the stack then builds no large segment). Also none when they
 * would take more than 1/64 of the free memory (a 33 KiB table a queue;
 * at -m 7M, 295 pages free at the probe, the guest needs every page for
 * buffers).
 */
static void igb_alloc_tso(struct igb *g, const char *where)
{
	uint64_t need = (uint64_t)g->dev.nqueues * IGB_TSO_TABLE_BYTES;

	if (need * 64 > (uint64_t)nr_free_pages() * MM_PAGE_SIZE) {
		drv_printf("igb: %s: TSO off: its tables would take more than "
			   "1/64 of the free memory\n",
			   where);
		return;
	}
	for (int q = 0; q < g->dev.nqueues; q++) {
		if (igb_tso_alloc(g, q))
			continue;
		drv_printf("igb: %s: no memory for TSO tables, sending "
			   "unmerged\n",
			   where);
		for (int k = 0; k < q; k++)
			igb_tso_free(g, k);
		return;
	}
	/* every queue can cut large segments now, of both families */
	g->dev.offloads |= NETDEV_OFF_TSO4 | NETDEV_OFF_TSO6;
}

/* A part no netdev keeps, stopped for good: gbe_quiesce, then its rings
 * and the structure freed. Safe on a half-done set-up. */
static void igb_discard(struct igb *g, const struct pci_dev *d)
{
	gbe_quiesce(g->hw.regs, d);
	/* no DMA from here on; no buffer is posted before the first poll */
	for (int q = 0; q < IGB_MAX_QUEUES; q++) {
		if (!g->pairs[q])
			continue;
		free_pages((void *)(uintptr_t)g->pairs[q]->rx.desc, 0);
		free_pages((void *)(uintptr_t)g->pairs[q]->tx.desc, 0);
		igb_tso_free(g, q);
		kfree(g->pairs[q]);
	}
	kfree(g);
}

/* The netdev's fields and queue placement: pair q on CPU q's node. */
static void igb_init_netdev(struct igb *g, const struct pci_dev *d, int nq)
{
	g->dev.kind = "igb";
	g->dev.mtu = 1500;
	g->dev.dev_node = d->node;
	g->dev.ops = &igb_ops;
	g->dev.priv = g;
	g->dev.offloads = NETDEV_OFF_TX_CSUM | NETDEV_OFF_RX_CSUM;
	g->dev.nqueues = nq;
	for (int q = 0; q < nq; q++) {
		g->dev.queues[q].cpu = q;
		g->dev.queues[q].node = cpu_to_mem(q);
	}
}

static int igb_setup(struct igb *g, struct pci_dev *d, int nq)
{
	char where[16];

	snprintf(where, sizeof(where), "%02x:%02x.%x", d->bus, d->dev, d->fn);
	igb_init_netdev(g, d, nq);
	pci_enable(d);
	g->hw.regs = pci_map_bar(d, 0);
	if (!g->hw.regs) {
		drv_printf("igb: %s: BAR0 is not a mappable memory BAR\n",
			   where);
		return -1;
	}
	if (igb_reset(g, where) != 0) {
		drv_printf("igb: %s: reset did not complete\n", where);
		return -1;
	}
	if (igb_alloc_pairs(g) != 0) {
		drv_printf("igb: %s: no memory for the rings\n", where);
		return -1;
	}
	igb_alloc_tso(g, where);
	igb_setup_mac(g);
	igb_setup_link(g);
	for (int q = 0; q < nq; q++)
		if (igb_setup_queue(g, q) != 0)
			return -1;
	igb_start(g);
	return 0;
}

static const struct igb_model *find_model(const struct pci_dev *d)
{
	if (d->vendor != VENDOR_INTEL)
		return NULL;
	for (size_t i = 0; i < sizeof(igb_models) / sizeof(igb_models[0]); i++)
		if (igb_models[i].device == d->device)
			return &igb_models[i];
	return NULL;
}

/* A variant never run with this driver, and not allowed: named, stopped
 * (firmware may have left it receiving into memory we now own). */
static bool refuse_untested(const struct igb_model *m, const struct pci_dev *d)
{
	if (m->tested || allow_untested)
		return false;
	gbe_quiesce(pci_map_bar(d, 0), d);
	drv_printf("igb: %02x:%02x.%x 8086:%04x %s not tested with this "
		   "driver (only the 82576 under QEMU is): stopped; "
		   "igb_untested=1 drives it\n",
		   d->bus, d->dev, d->fn, d->device, m->name);
	return true;
}

static void report(const struct igb *g, const struct pci_dev *d)
{
	const uint8_t *mac = g->dev.mac;

	drv_printf("igb: %s %02x:%02x.%x %s%s mac=%02x:%02x:%02x:%02x:%02x:"
		   "%02x (%s) rx=%u tx=%u queues=%d link %s\n",
		   g->dev.name, d->bus, d->dev, d->fn, g->model->name,
		   g->model->tested ? "" : " (untested)", mac[0], mac[1],
		   mac[2], mac[3], mac[4], mac[5], g->mac_source, IGB_RX_RING,
		   IGB_TX_RING, g->dev.nqueues,
		   igb_rd32(g, E1000_STATUS) & E1000_STATUS_LU ? "up" : "down");
}

/* What one pair's RX ring holds when full. */
#define IGB_PAIR_RX_BYTES ((uint64_t)(IGB_RX_RING - 1) * IGB_RX_ALLOC)

/*
 * Queue pairs for part m on function d: one per CPU the caller allows
 * (@queues), up to what the part spreads RSS over, and up to the MSI-X
 * vectors (one per pair plus the link's). A function without MSI-X gets
 * one pair: a shared MSI or INTx vector cannot tell the queues apart.
 * And no more pairs than their full RX rings fit in a quarter of the
 * free memory (one at least): each takes 530 KiB of buffers, and the
 * rest of the boot (lwIP's pools, the other CPUs, the apps) and the
 * traffic need the other three quarters. Measured on q35 with 2 CPUs:
 * at -m 8M the probe finds 548 free pages (2.1 MiB), whose half held two
 * pairs; after a flood every page was in their rings, refills failed
 * and nothing was answered for good. A quarter holds one, as at -m 7M
 * (295 free pages); -m 12M (1532) keeps two.
 */
static int igb_queue_count(const struct igb_model *m, const struct pci_dev *d,
			   int queues)
{
	int nq = queues < m->max_queues ? queues : m->max_queues;
	int vectors = pci_msix_size(d);
	uint64_t quarter = (uint64_t)nr_free_pages() * MM_PAGE_SIZE / 4;
	int fit = (int)(quarter / IGB_PAIR_RX_BYTES);

	if (nq > IGB_MAX_QUEUES)
		nq = IGB_MAX_QUEUES;
	if (vectors - 1 < nq)
		nq = vectors - 1;
	if (fit < 1)
		fit = 1;
	if (fit < nq) {
		drv_printf("igb: %02x:%02x.%x: %d of %d queue pairs: the free "
			   "memory holds no more RX buffers\n",
			   d->bus, d->dev, d->fn, fit, nq);
		nq = fit;
	}
	return nq < 1 ? 1 : nq;
}

int igb_probe(int queues)
{
	int found = 0;

	for (int i = 0; i < pci_count(); i++) {
		struct pci_dev *d = pci_get(i);
		const struct igb_model *m = find_model(d);
		struct igb *g;

		if (!m || refuse_untested(m, d))
			continue;
		if (!netdev_room()) {
			netdev_left_out("igb", d);
			gbe_quiesce(NULL, d);
			continue;
		}
		g = kmalloc_node(sizeof(*g), GFP_KERNEL | __GFP_ZERO,
				 cpu_to_mem(0));
		if (!g) {
			drv_printf("igb: no memory for the device\n");
			gbe_quiesce(NULL, d);
			continue;
		}
		g->model = m;
		g->hw.pci = d;
		g->hw.eerd = m->mac == IGB_I211 ? EERD_NONE : EERD_82541;
		if (igb_setup(g, d, igb_queue_count(m, d, queues)) != 0 ||
		    netdev_register(&g->dev) != 0) {
			igb_discard(g, d);
			continue;
		}
		nigbs++;
		found++;
		report(g, d);
	}
	return found;
}
