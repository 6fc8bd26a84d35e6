/*
 * gbe_hw: what every Intel gigabit controller this kernel drives does the
 * same way at the same offsets -- the 8254x (e1000), the 82574L (e1000e)
 * and the 82576, I350, I210 and I211 (igb). Register access, the global
 * reset, the NVM read through EERD and the MAC address it (or RAL0)
 * holds, the PHY through MDIC, the link state in STATUS, and stopping a
 * part nobody keeps. Each driver keeps its rings, descriptors and
 * interrupts; this is only the register-level ground they stand on. The
 * registers are the 8254x's (e1000_regs.h), which every successor keeps.
 */
#ifndef DRIVERS_GBE_HW_H
#define DRIVERS_GBE_HW_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "drv_port.h"
#include "e1000_regs.h"
#include "pci.h"

struct netdev;

/* How a part reads its NVM words (if at all through EERD). */
enum gbe_eerd {
	EERD_NONE,  /* 82544, I211: no EERD; the MAC comes from RAL0/RAH0 */
	EERD_8254X, /* 82540/82545/82546: addr at bit 8, done at bit 4 */
	EERD_82541, /* 82541/82547, 82574, 82576, I350, I210: addr at bit
		       2, done at bit 1 */
};

/* One part's register window and the state its link report keeps. */
struct gbe_hw {
	volatile uint8_t *regs; /* BAR0 */
	const struct pci_dev *pci;
	enum gbe_eerd eerd;
	bool link; /* last STATUS.LU seen, to report changes */
	/* An interrupt said the link changed; gbe_link_up has not looked
	 * yet. Set in interrupt context, cleared by the poller. */
	atomic_bool link_event;
};

static inline uint32_t gbe_rd32(const struct gbe_hw *hw, unsigned int reg)
{
	return mmio_read32(hw->regs + reg);
}

static inline void gbe_wr32(struct gbe_hw *hw, unsigned int reg, uint32_t v)
{
	mmio_write32(hw->regs + reg, v);
}

/* Busy-wait ms milliseconds: probe time only, where a few are fine. */
void gbe_delay_ms(uint64_t ms);

/* Waits up to ms milliseconds for (reg & mask) == want; true if seen. */
bool gbe_wait_reg(struct gbe_hw *hw, unsigned int reg, uint32_t mask,
		  uint32_t want, uint64_t ms);

/**
 * gbe_reset - global reset: every cause masked, receive and transmit
 * stopped, CTRL.RST set and waited for, the NVM auto-load given 10 ms,
 * every cause masked again. Context: probe.
 * Return: 0, or -1 when CTRL.RST never clears.
 */
int gbe_reset(struct gbe_hw *hw);

/**
 * gbe_stop_master - PCIe parts: CTRL.GIO_MASTER_DISABLE, and up to 10 ms
 * for STATUS.GIO_MASTER_EN to clear (no DMA in flight across a reset).
 * Return: true when it cleared (the caller may reset anyway, as the
 * datasheets allow, and says so).
 */
bool gbe_stop_master(struct gbe_hw *hw);

/* One NVM word through EERD (10 ms at most). 0, or -1 (none, timeout). */
int gbe_nvm_read(struct gbe_hw *hw, unsigned int word, uint16_t *out);

/*
 * The MAC in the NVM section at @first: its words first..first + 0x3f
 * must sum to 0xBABA (the checksum every one of these parts keeps), the
 * address is in the first three. False when there is no EERD, a read
 * times out, the sum is wrong or the address is not a unicast one.
 */
bool gbe_mac_from_nvm(struct gbe_hw *hw, unsigned int first, uint8_t *mac);

/* The address the part loaded into receive address 0 (RAL0/RAH0) at
 * reset; false when it is not marked valid or not unicast. */
bool gbe_mac_from_ral(struct gbe_hw *hw, uint8_t *mac);

/* A locally administered address, 02:00:00:10:00:@index. */
void gbe_mac_local(uint8_t *mac, int index);

/* Program @mac as receive address 0 (valid) and clear filters 1-15. */
void gbe_set_mac(struct gbe_hw *hw, const uint8_t *mac);

/**
 * gbe_phy_read / gbe_phy_write - a register of the PHY at MDIO address 1
 * (the internal or board PHY of every copper part here) through MDIC,
 * waited for by the clock (10 ms). Context: probe, or the poller.
 * Return: 0, or -1 when MDIC reports an error or never gets ready.
 */
int gbe_phy_read(struct gbe_hw *hw, unsigned int reg, uint16_t *val);
int gbe_phy_write(struct gbe_hw *hw, unsigned int reg, uint16_t val);

/**
 * gbe_link_up - the link as STATUS.LU says, for the netdev op link_up:
 * the pending link event cleared first (a change after the read
 * interrupts again), a change from the last look printed ("KIND: ethN
 * link up 1000 Mb/s full duplex", "... link down") and counted in queue
 * 0's link_changes. Context: queue 0's poller, under the stack's TX guard.
 */
bool gbe_link_up(struct gbe_hw *hw, struct netdev *dev);

/* An interrupt saw a link change: counted (queue 0's link_interrupts)
 * and left for gbe_link_changed. Interrupt context. */
void gbe_link_event(struct gbe_hw *hw, struct netdev *dev);

/* Has a link event come that gbe_link_up has not read? Any context. */
bool gbe_link_changed(struct gbe_hw *hw);

/*
 * gbe_quiesce - every interrupt cause masked, receive and transmit off
 * (through @regs, at the offsets every family part shares; skipped when
 * NULL), then bus mastering off, so no DMA whatever a register still
 * says. For parts left behind: refused, past the limit, or failed.
 */
void gbe_quiesce(volatile uint8_t *regs, const struct pci_dev *d);

#endif /* DRIVERS_GBE_HW_H */
