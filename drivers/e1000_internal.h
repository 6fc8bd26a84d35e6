/*
 * What the two halves of the e1000 driver share: the device structure,
 * register access and the netdev operations. e1000.c has the rings, the
 * poll and transmit (the per-packet path); e1000_hw.c brings the part up
 * (models, EEPROM MAC, link, ring registers, probe) on the register-level
 * steps every Intel gigabit part shares (gbe_hw.h: reset, NVM, PHY, link
 * state). e1000e_hw.c brings up the PCIe 82574L on the same structure and
 * per-packet path.
 */
#ifndef DRIVERS_E1000_INTERNAL_H
#define DRIVERS_E1000_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "drv_port.h"
#include "e1000.h"
#include "e1000_regs.h"
#include "gbe_hw.h"
#include "netdev.h"
#include "pci.h"

struct e1000_model {
	uint16_t device;
	const char *name;
	enum gbe_eerd eerd;
	bool dual_port; /* 82546: port B's MAC is port A's with bit 0 flipped */
};

struct e1000 {
	struct netdev dev;
	struct gbe_hw hw; /* BAR0, the PCI function, the link report */
	const struct e1000_model *model;
	const char *mac_source; /* "eeprom", "ral" or "local" */
	bool ivar;	 /* causes routed to MSI-X entries by IVAR (82574L) */
	bool msix;	 /* interrupts by MSI-X (e1000_irq.c) */
	int msix_vec[3]; /* vectors of the RX0, TX0 and other entries */
	uint64_t stats_due_ms; /* next read of the missed-packet counter */

	volatile struct e1000_rx_desc *rx_ring;
	void *rx_buf[E1000_RX_RING]; /* buffer in each slot, NULL if none */
	uint16_t rx_next;	     /* oldest slot the device owns */
	uint16_t rx_tail;	     /* next slot to fill (RDT's value) */
	uint16_t rx_posted;	     /* slots the device owns */
	bool rx_discard;	     /* dropping a frame's remaining buffers */
	/* RXCSUM.TUOFL set (82574L, e1000e_rx_csum=1): a descriptor may
	 * vouch for the frame's TCP/UDP sum */
	bool rx_csum;

	volatile struct e1000_tx_desc *tx_ring;
	void *tx_cookie[E1000_TX_RING];	 /* on a frame's last slot */
	uint16_t tx_last[E1000_TX_RING]; /* on a frame's first slot */
	uint16_t tx_clean;		 /* first slot of the oldest frame */
	uint16_t tx_tail;		 /* next free slot */
	uint16_t tx_tdt;		 /* TDT's value: tx_tail once flushed */
	uint16_t tx_used;		 /* slots the device owns */
};

static inline uint32_t e1000_rd32(const struct e1000 *e, unsigned int reg)
{
	return gbe_rd32(&e->hw, reg);
}

static inline void e1000_wr32(struct e1000 *e, unsigned int reg, uint32_t v)
{
	gbe_wr32(&e->hw, reg, v);
}

/* e1000.c: xmit, poll and link state, for netdev_register. */
extern const struct netdev_ops e1000_ops;

/* e1000_irq.c: the netdev interrupt operations (see netdev.h). */
int e1000_irq_setup(struct netdev *dev);
bool e1000_irq_arm(struct netdev *dev, int q);
void e1000_irq_disarm(struct netdev *dev, int q);
bool e1000_link_changed(struct netdev *dev);

/*
 * e1000_hw.c's bring-up steps, shared with e1000e_hw.c (the 82574L keeps
 * these registers where the 8254x has them). Context: probe. See each
 * definition for what it programs.
 */
void e1000_setup_mac(struct e1000 *e, int index); /* EEPROM/RAL/local */
void e1000_setup_link(struct e1000 *e);
void e1000_setup_rx(struct e1000 *e); /* legacy descriptors */
void e1000_setup_tx(struct e1000 *e);
int e1000_alloc_rings(struct e1000 *e, int node); /* 0, or -1 */
/* Fill e->dev for a part that is up (one queue, e1000_ops). */
void e1000_init_netdev(struct e1000 *e, const char *kind, int node,
		       const struct pci_dev *d);
/*
 * A part no netdev keeps (its set-up failed, or the registry refused it),
 * stopped for good: gbe_quiesce, then its rings freed and e itself.
 * Safe on a half-done set-up (NULL regs or rings).
 */
void e1000_discard(struct e1000 *e, const struct pci_dev *d);
/* A new struct e1000, zeroed, on @node; NULL (reported) without memory. */
struct e1000 *e1000_alloc(const char *kind, const struct pci_dev *d, int node);

#endif /* DRIVERS_E1000_INTERNAL_H */
