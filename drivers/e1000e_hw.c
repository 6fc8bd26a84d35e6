/*
 * e1000e: bringing an Intel 82574L (PCIe) up, following the 82574 GbE
 * Controller Family datasheet, onto the same struct e1000 and per-packet
 * path (e1000.c) as the 8254x.
 *
 * What is the same, and so shared with e1000_hw.c and gbe_hw.c: the
 * global reset (CTRL.RST, then the NVM auto-load), stopping PCIe master
 * requests before it, the MAC read through EERD in the
 * layout the 82541 introduced (address at bit 2, done at bit 1; words
 * 0..0x3f sum to 0xBABA), RAL0/RAH0 and the multicast table, the link
 * (SLU + ASDE: the MAC follows the PHY's auto-negotiation), and the
 * queue-0 ring registers and RCTL/TCTL, all at the 8254x offsets.
 *
 * What the 82574L adds, done here:
 *  - before the reset, PCIe master requests are stopped (CTRL.GIO_MASTER_
 *    DISABLE, wait for STATUS.GIO_MASTER_EN to clear) so no DMA is in
 *    flight across it; after it, EECD.AUTO_RD says the NVM load is done;
 *  - CTRL_EXT.DRV_LOAD tells the part's firmware a driver owns it;
 *  - RFCTL.EXSTEN cleared: legacy RX descriptors, the 16-byte layout
 *    e1000.c already reads (docs/e1000e.md says why not the extended
 *    ones); RXCSUM.TUOFL when e1000e_rx_csum= allows it (on by default),
 *    so each descriptor says whether the TCP/UDP sum, IPv4 or IPv6, was
 *    right and the stack skips checking it again; else RXCSUM 0;
 *  - TXDCTL bit 22 (required on this family) and descriptor granularity;
 *  - interrupt routing, every cause still masked: IVAR maps RX queue 0,
 *    TX queue 0 and the other causes (link) to MSI-X entries 0, 1, 2
 *    (e1000_irq.c uses them); ITR caps the MSI rate; IAM and EIAC
 *    (auto-mask, auto-clear) start empty.
 *
 * Which parts: the 82574L and 82574LA (one silicon for Linux's e1000e).
 * The rest of the e1000e family is listed, stopped (refuse(): receive,
 * transmit and bus mastering off) and refused with a boot line saying
 * why: the PCH-attached parts (ICH8-10, 82577-82579, I217, I218,
 * I219) put the PHY behind the chipset and need PHY, flash-NVM and ULP
 * handling that QEMU cannot test; the 82571/2/3, 82583 and 80003ES2LAN
 * differ in NVM, PHY or errata we have not written or tested.
 */
#include "e1000_internal.h"
#include "e1000e.h"
#include "e1000e_regs.h"

#include <string.h>

#include "mm/mm.h"

#define VENDOR_INTEL 0x8086

/* The driven parts. EERD has the 82541 layout on the 82574. */
static const struct e1000_model e1000e_models[] = {
	{0x10d3, "82574L", EERD_82541, false},
	{0x10f6, "82574LA", EERD_82541, false},
};

static const char why_pch[] = "a PCH part: its PHY needs PHY, flash NVM and "
			      "ULP handling QEMU cannot test";
static const char why_other[] = "an e1000e-family part whose NVM, PHY and "
				"errata this driver does not handle";

/* e1000e-family ids we know and do not drive (Linux's e1000e list). */
static const struct refused {
	uint16_t device;
	const char *name;
	const char *why;
} refused[] = {
	{0x105e, "82571EB", why_other},
	{0x105f, "82571EB-fiber", why_other},
	{0x1060, "82571EB-serdes", why_other},
	{0x10a4, "82571EB-quad", why_other},
	{0x10d5, "82571PT-quad", why_other},
	{0x10a5, "82571EB-quad-fiber", why_other},
	{0x10bc, "82571EB-quad-lp", why_other},
	{0x10d9, "82571EB-serdes-dual", why_other},
	{0x10da, "82571EB-serdes-quad", why_other},
	{0x107d, "82572EI", why_other},
	{0x107e, "82572EI-fiber", why_other},
	{0x107f, "82572EI-serdes", why_other},
	{0x10b9, "82572EI", why_other},
	{0x108b, "82573E", why_other},
	{0x108c, "82573E-IAMT", why_other},
	{0x109a, "82573L", why_other},
	{0x150c, "82583V", why_other},
	{0x1096, "80003ES2LAN", why_other},
	{0x1098, "80003ES2LAN-serdes", why_other},
	{0x10ba, "80003ES2LAN", why_other},
	{0x10bb, "80003ES2LAN-serdes", why_other},
	{0x1501, "82567V-3", why_pch},
	{0x1049, "ICH8-IGP-M-AMT", why_pch},
	{0x104a, "ICH8-IGP-AMT", why_pch},
	{0x104b, "ICH8-IGP-C", why_pch},
	{0x104c, "ICH8-IFE", why_pch},
	{0x10c4, "ICH8-IFE-GT", why_pch},
	{0x10c5, "ICH8-IFE-G", why_pch},
	{0x104d, "ICH8-IGP-M", why_pch},
	{0x10bd, "ICH9-IGP-AMT", why_pch},
	{0x10e5, "ICH9-BM", why_pch},
	{0x10f5, "ICH9-IGP-M-AMT", why_pch},
	{0x10bf, "ICH9-IGP-M", why_pch},
	{0x10cb, "ICH9-IGP-M-V", why_pch},
	{0x294c, "ICH9-IGP-C", why_pch},
	{0x10c0, "ICH9-IFE", why_pch},
	{0x10c3, "ICH9-IFE-GT", why_pch},
	{0x10c2, "ICH9-IFE-G", why_pch},
	{0x10cc, "ICH10-R-BM-LM", why_pch},
	{0x10cd, "ICH10-R-BM-LF", why_pch},
	{0x10ce, "ICH10-R-BM-V", why_pch},
	{0x10de, "ICH10-D-BM-LM", why_pch},
	{0x10df, "ICH10-D-BM-LF", why_pch},
	{0x1525, "ICH10-D-BM-V", why_pch},
	{0x10ea, "82577LM", why_pch},
	{0x10eb, "82577LC", why_pch},
	{0x10ef, "82578DM", why_pch},
	{0x10f0, "82578DC", why_pch},
	{0x1502, "82579LM", why_pch},
	{0x1503, "82579V", why_pch},
	{0x153a, "I217-LM", why_pch},
	{0x153b, "I217-V", why_pch},
	{0x155a, "I218-LM", why_pch},
	{0x1559, "I218-V", why_pch},
	{0x15a0, "I218-LM2", why_pch},
	{0x15a1, "I218-V2", why_pch},
	{0x15a2, "I218-LM3", why_pch},
	{0x15a3, "I218-V3", why_pch},
	{0x156f, "I219-LM", why_pch},
	{0x1570, "I219-V", why_pch},
	{0x15b7, "I219-LM2", why_pch},
	{0x15b8, "I219-V2", why_pch},
	{0x15b9, "I219-LM3", why_pch},
	{0x15d7, "I219-LM4", why_pch},
	{0x15d8, "I219-V4", why_pch},
	{0x15e3, "I219-LM5", why_pch},
	{0x15d6, "I219-V5", why_pch},
	{0x15bd, "I219-LM6", why_pch},
	{0x15be, "I219-V6", why_pch},
	{0x15bb, "I219-LM7", why_pch},
	{0x15bc, "I219-V7", why_pch},
	{0x15df, "I219-LM8", why_pch},
	{0x15e0, "I219-V8", why_pch},
	{0x15e1, "I219-LM9", why_pch},
	{0x15e2, "I219-V9", why_pch},
	{0x0d4e, "I219-LM10", why_pch},
	{0x0d4f, "I219-V10", why_pch},
	{0x0d4c, "I219-LM11", why_pch},
	{0x0d4d, "I219-V11", why_pch},
	{0x0d53, "I219-LM12", why_pch},
	{0x0d55, "I219-V12", why_pch},
	{0x15fb, "I219-LM13", why_pch},
	{0x15fc, "I219-V13", why_pch},
	{0x15f9, "I219-LM14", why_pch},
	{0x15fa, "I219-V14", why_pch},
	{0x15f4, "I219-LM15", why_pch},
	{0x15f5, "I219-V15", why_pch},
	{0x1a1e, "I219-LM16", why_pch},
	{0x1a1f, "I219-V16", why_pch},
	{0x1a1c, "I219-LM17", why_pch},
	{0x1a1d, "I219-V17", why_pch},
};

static int ne1000es; /* parts brought up: the local MAC's last byte */

/*
 * Reset: stop PCIe mastering first so no DMA crosses the reset (the part
 * clears GIO_MASTER_EN once its requests have completed; we wait 10 ms and
 * reset anyway if it has not, as the datasheet allows), then the global
 * reset (gbe_hw.c), then wait for the NVM auto-read. Return: 0, or -1.
 */
static int e1000e_reset(struct e1000 *e, const char *where)
{
	if (!gbe_stop_master(&e->hw))
		drv_printf("e1000e: %s: master requests still pending, "
			   "resetting anyway\n",
			   where);
	if (gbe_reset(&e->hw) != 0)
		return -1;
	e1000_wr32(e, E1000_CTRL,
		   e1000_rd32(e, E1000_CTRL) & ~E1000E_CTRL_GIO_MASTER_DISABLE);
	if (!gbe_wait_reg(&e->hw, E1000E_EECD, E1000E_EECD_AUTO_RD,
			  E1000E_EECD_AUTO_RD, 10))
		drv_printf("e1000e: %s: NVM auto-read not reported done\n",
			   where);
	e1000_wr32(e, E1000E_CTRL_EXT,
		   e1000_rd32(e, E1000E_CTRL_EXT) | E1000E_CTRL_EXT_DRV_LOAD);
	return 0;
}

static struct e1000e_offloads e1000e_allowed = {.rx_csum = true};

void e1000e_allow_offloads(const struct e1000e_offloads *o)
{
	e1000e_allowed = *o;
}

/* Legacy RX descriptors, and TCP/UDP checksum offload when allowed,
 * before RCTL.EN. Nothing else of RXCSUM is wanted: the IPv4 header sum
 * is lwIP's (three loads), the packet checksum field is unused. */
static void e1000e_setup_rx_format(struct e1000 *e)
{
	e1000_wr32(e, E1000E_RFCTL,
		   e1000_rd32(e, E1000E_RFCTL) & ~E1000E_RFCTL_EXTEN);
	e->rx_csum = e1000e_allowed.rx_csum;
	e1000_wr32(e, E1000E_RXCSUM, e->rx_csum ? E1000E_RXCSUM_TUOFL : 0);
	e->dev.offloads = e->rx_csum ? NETDEV_OFF_RX_CSUM : 0;
}

static void e1000e_setup_tx_control(struct e1000 *e)
{
	e1000_wr32(e, E1000E_TXDCTL,
		   E1000E_TXDCTL_RESERVED_ONE | E1000E_TXDCTL_GRAN);
}

/*
 * Interrupts, routed but masked: IVAR sends RX queue 0, TX queue 0 and
 * the other causes to MSI-X entries 0, 1 and 2. e1000_irq.c enables
 * MSI-X (or MSI) and the causes when net_irq=on.
 */
static void e1000e_setup_irq(struct e1000 *e)
{
	e->ivar = true;
	e1000_wr32(e, E1000E_IVAR,
		   E1000E_IVAR_RX0(0) | E1000E_IVAR_TX0(1) |
			   E1000E_IVAR_OTHER(2));
	e1000_wr32(e, E1000E_ITR, E1000E_ITR_DEFAULT);
	e1000_wr32(e, E1000E_IAM, 0);
	e1000_wr32(e, E1000E_EIAC, 0);
	e1000_wr32(e, E1000_IMC, 0xffffffffu);
	(void)e1000_rd32(e, E1000_ICR);
}

static int e1000e_setup(struct e1000 *e, struct pci_dev *d, int node)
{
	char where[16];

	snprintf(where, sizeof(where), "%02x:%02x.%x", d->bus, d->dev, d->fn);
	pci_enable(d);
	e->hw.regs = pci_map_bar(d, 0);
	if (!e->hw.regs) {
		drv_printf("e1000e: %s: BAR0 is not a mappable memory BAR\n",
			   where);
		return -1;
	}
	if (e1000e_reset(e, where) != 0) {
		drv_printf("e1000e: %s: reset did not complete\n", where);
		return -1;
	}
	if (e1000_alloc_rings(e, node) != 0) {
		drv_printf("e1000e: %s: no memory for the rings\n", where);
		return -1;
	}
	/* 0x80 + n: a locally made MAC never equals an 8254x's (n). */
	e1000_setup_mac(e, 0x80 + ne1000es);
	e1000_setup_link(e);
	e1000e_setup_irq(e);
	e1000e_setup_rx_format(e);
	e1000_setup_rx(e);
	e1000e_setup_tx_control(e);
	e1000_setup_tx(e);
	e1000_init_netdev(e, "e1000e", node, d);
	return 0;
}

static const struct e1000_model *find_82574(const struct pci_dev *d)
{
	for (size_t i = 0; i < sizeof(e1000e_models) / sizeof(e1000e_models[0]);
	     i++)
		if (e1000e_models[i].device == d->device)
			return &e1000e_models[i];
	return NULL;
}

/*
 * A family part we do not drive: say so, once per function, and stop it.
 * Firmware (a PXE boot ROM, a management engine's pre-boot driver) may
 * have left it receiving into a ring of its own in memory the allocator
 * now hands out: receive and transmit go off through the registers every
 * family part keeps at the 8254x offsets, and bus mastering off, which
 * ends its DMA even if those registers were not what we think.
 */
static bool refuse(const struct pci_dev *d)
{
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		if (refused[i].device != d->device)
			continue;
		gbe_quiesce(pci_map_bar(d, 0), d);
		drv_printf("e1000e: %02x:%02x.%x 8086:%04x %s not driven: %s "
			   "(only the 82574L is); stopped: receive, transmit "
			   "and bus mastering off\n",
			   d->bus, d->dev, d->fn, d->device, refused[i].name,
			   refused[i].why);
		return true;
	}
	return false;
}

static void report(const struct e1000 *e, const struct pci_dev *d)
{
	const uint8_t *mac = e->dev.mac;

	drv_printf("e1000e: %s %02x:%02x.%x %s "
		   "mac=%02x:%02x:%02x:%02x:%02x:%02x (%s) rx=%u tx=%u "
		   "link %s\n",
		   e->dev.name, d->bus, d->dev, d->fn, e->model->name, mac[0],
		   mac[1], mac[2], mac[3], mac[4], mac[5], e->mac_source,
		   E1000_RX_RING, E1000_TX_RING,
		   e1000_rd32(e, E1000_STATUS) & E1000_STATUS_LU ? "up"
								 : "down");
	drv_printf("e1000e: %s offloads rx_csum=%s\n", e->dev.name,
		   e->rx_csum ? "on" : "off(switch)");
}

int e1000e_probe(int node)
{
	int found = 0;

	for (int i = 0; i < pci_count(); i++) {
		struct pci_dev *d = pci_get(i);
		const struct e1000_model *m;
		struct e1000 *e;

		if (d->vendor != VENDOR_INTEL || refuse(d))
			continue;
		m = find_82574(d);
		if (!m)
			continue;
		if (!netdev_room()) {
			netdev_left_out("e1000e", d);
			gbe_quiesce(NULL, d);
			continue;
		}
		e = e1000_alloc("e1000e", d, node);
		if (!e) {
			gbe_quiesce(NULL, d);
			continue;
		}
		e->model = m;
		e->hw.pci = d;
		e->hw.eerd = m->eerd;
		if (e1000e_setup(e, d, node) != 0 ||
		    netdev_register(&e->dev) != 0) {
			e1000_discard(e, d);
			continue;
		}
		ne1000es++;
		found++;
		report(e, d);
	}
	return found;
}
