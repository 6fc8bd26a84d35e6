/*
 * gbe_hw: the register-level ground the e1000, e1000e and igb drivers
 * share (gbe_hw.h). Everything here waits by the clock, never by a spin
 * count, so a bound does not depend on how fast a register read is (and a
 * simulated part in a host test can answer from the clock); the spin
 * caps only keep a stopped clock from hanging the boot.
 */
#include "gbe_hw.h"

#include <stdio.h>
#include <string.h>

#include "e1000e_regs.h"
#include "netdev.h"

/* EERD: a word takes microseconds; MDIC: a PHY access about 64 us. */
#define GBE_NVM_MS 10
#define GBE_PHY_MS 10

void gbe_delay_ms(uint64_t ms)
{
	uint64_t end = drv_clock_ms() + ms;

	for (unsigned long spins = 0; drv_clock_ms() < end && spins < 100000000;
	     spins++)
		__builtin_ia32_pause();
}

bool gbe_wait_reg(struct gbe_hw *hw, unsigned int reg, uint32_t mask,
		  uint32_t want, uint64_t ms)
{
	uint64_t end = drv_clock_ms() + ms;

	do {
		if ((gbe_rd32(hw, reg) & mask) == want)
			return true;
	} while (drv_clock_ms() <= end);
	return false;
}

/*
 * Global reset (8254x manual 14.5, and the same steps in the 82574 and
 * 82576 datasheets): stop both DMA engines, give transfers in flight a
 * moment, set CTRL.RST and wait for it to clear; the part then reloads
 * its NVM defaults (the MAC into RAL0/RAH0 among them). Interrupts are
 * masked before and after, since reset unmasks nothing but a stale cause
 * could still be latched.
 */
int gbe_reset(struct gbe_hw *hw)
{
	gbe_wr32(hw, E1000_IMC, 0xffffffffu);
	gbe_wr32(hw, E1000_RCTL, 0);
	gbe_wr32(hw, E1000_TCTL, E1000_TCTL_PSP);
	(void)gbe_rd32(hw, E1000_STATUS); /* flush the posted writes */
	gbe_delay_ms(10);
	gbe_wr32(hw, E1000_CTRL, gbe_rd32(hw, E1000_CTRL) | E1000_CTRL_RST);
	gbe_delay_ms(
		1); /* the manual asks for >= 1 us before the next access */
	if (!gbe_wait_reg(hw, E1000_CTRL, E1000_CTRL_RST, 0, 100))
		return -1;
	gbe_delay_ms(10); /* NVM auto-load after reset */
	gbe_wr32(hw, E1000_IMC, 0xffffffffu);
	(void)gbe_rd32(hw, E1000_ICR);
	return 0;
}

bool gbe_stop_master(struct gbe_hw *hw)
{
	gbe_wr32(hw, E1000_CTRL,
		 gbe_rd32(hw, E1000_CTRL) | E1000E_CTRL_GIO_MASTER_DISABLE);
	return gbe_wait_reg(hw, E1000_STATUS, E1000E_STATUS_GIO_MASTER_EN, 0,
			    10);
}

int gbe_nvm_read(struct gbe_hw *hw, unsigned int word, uint16_t *out)
{
	bool old = hw->eerd == EERD_8254X;
	uint32_t done = old ? E1000_EERD_DONE : E1000_EERD_DONE_82541;
	unsigned int shift =
		old ? E1000_EERD_ADDR_SHIFT : E1000_EERD_ADDR_SHIFT_82541;
	uint64_t end;

	if (hw->eerd == EERD_NONE)
		return -1;
	end = drv_clock_ms() + GBE_NVM_MS;
	gbe_wr32(hw, E1000_EERD, word << shift | E1000_EERD_START);
	do {
		uint32_t v = gbe_rd32(hw, E1000_EERD);

		if (v & done) {
			*out = (uint16_t)(v >> E1000_EERD_DATA_SHIFT);
			return 0;
		}
	} while (drv_clock_ms() <= end);
	return -1;
}

static bool mac_valid(const uint8_t *mac)
{
	static const uint8_t zero[6];

	return !(mac[0] & 1) && memcmp(mac, zero, 6) != 0; /* unicast, set */
}

bool gbe_mac_from_nvm(struct gbe_hw *hw, unsigned int first, uint8_t *mac)
{
	uint16_t sum = 0, w;

	for (unsigned int i = 0; i < E1000_EEPROM_CHECKSUM_WORDS; i++) {
		if (gbe_nvm_read(hw, first + i, &w) != 0)
			return false;
		if (i < 3) {
			mac[2 * i] = (uint8_t)w;
			mac[2 * i + 1] = (uint8_t)(w >> 8);
		}
		sum = (uint16_t)(sum + w);
	}
	return sum == E1000_EEPROM_CHECKSUM_SUM && mac_valid(mac);
}

bool gbe_mac_from_ral(struct gbe_hw *hw, uint8_t *mac)
{
	uint32_t lo = gbe_rd32(hw, E1000_RAL0), hi = gbe_rd32(hw, E1000_RAH0);

	if (!(hi & E1000_RAH_AV))
		return false;
	for (int i = 0; i < 4; i++)
		mac[i] = (uint8_t)(lo >> (8 * i));
	mac[4] = (uint8_t)hi;
	mac[5] = (uint8_t)(hi >> 8);
	return mac_valid(mac);
}

void gbe_mac_local(uint8_t *mac, int index)
{
	static const uint8_t local[5] = {0x02, 0x00, 0x00, 0x10, 0x00};

	memcpy(mac, local, 5);
	mac[5] = (uint8_t)index;
}

void gbe_set_mac(struct gbe_hw *hw, const uint8_t *mac)
{
	for (int i = 1; i < 16; i++) {
		gbe_wr32(hw, E1000_RAH0 + 8 * i, 0);
		gbe_wr32(hw, E1000_RAL0 + 8 * i, 0);
	}
	gbe_wr32(hw, E1000_RAL0,
		 (uint32_t)mac[0] | (uint32_t)mac[1] << 8 |
			 (uint32_t)mac[2] << 16 | (uint32_t)mac[3] << 24);
	gbe_wr32(hw, E1000_RAH0,
		 (uint32_t)mac[4] | (uint32_t)mac[5] << 8 | E1000_RAH_AV);
}

/* One MDIC access (op with the register and, for a write, the data);
 * returns MDIC's final value, or 0 with ERROR set on timeout. */
static uint32_t mdic(struct gbe_hw *hw, uint32_t op, unsigned int reg,
		     uint16_t data)
{
	uint64_t end = drv_clock_ms() + GBE_PHY_MS;

	gbe_wr32(hw, E1000_MDIC,
		 op | (reg & 31u) << E1000_MDIC_REG_SHIFT |
			 (uint32_t)E1000_PHY_ADDR << E1000_MDIC_PHY_SHIFT |
			 data);
	do {
		uint32_t v = gbe_rd32(hw, E1000_MDIC);

		if (v & (E1000_MDIC_READY | E1000_MDIC_ERROR))
			return v;
	} while (drv_clock_ms() <= end);
	return E1000_MDIC_ERROR;
}

int gbe_phy_read(struct gbe_hw *hw, unsigned int reg, uint16_t *val)
{
	uint32_t v = mdic(hw, E1000_MDIC_OP_READ, reg, 0);

	if (v & E1000_MDIC_ERROR)
		return -1;
	*val = (uint16_t)(v & E1000_MDIC_DATA_MASK);
	return 0;
}

int gbe_phy_write(struct gbe_hw *hw, unsigned int reg, uint16_t val)
{
	return mdic(hw, E1000_MDIC_OP_WRITE, reg, val) & E1000_MDIC_ERROR ? -1
									  : 0;
}

bool gbe_link_up(struct gbe_hw *hw, struct netdev *dev)
{
	static const int mbps[4] = {10, 100, 1000, 1000};
	uint32_t status;
	bool up;

	/* Cleared before the read: a change after it interrupts again. */
	atomic_store_explicit(&hw->link_event, false, memory_order_relaxed);
	atomic_thread_fence(memory_order_seq_cst);
	status = gbe_rd32(hw, E1000_STATUS);
	up = status & E1000_STATUS_LU;
	if (up == hw->link)
		return up;
	hw->link = up;
	dev->queues[0].stats.link_changes++;
	if (up)
		drv_printf("%s: %s link up %d Mb/s %s duplex\n", dev->kind,
			   dev->name,
			   mbps[(status >> E1000_STATUS_SPEED_SHIFT) & 3],
			   status & E1000_STATUS_FD ? "full" : "half");
	else
		drv_printf("%s: %s link down\n", dev->kind, dev->name);
	return up;
}

void gbe_link_event(struct gbe_hw *hw, struct netdev *dev)
{
	dev->queues[0].stats.link_interrupts++;
	atomic_store_explicit(&hw->link_event, true, memory_order_release);
}

bool gbe_link_changed(struct gbe_hw *hw)
{
	return atomic_load_explicit(&hw->link_event, memory_order_acquire);
}

void gbe_quiesce(volatile uint8_t *regs, const struct pci_dev *d)
{
	if (regs) {
		mmio_write32(regs + E1000_IMC, 0xffffffffu);
		mmio_write32(regs + E1000_RCTL, 0);
		mmio_write32(regs + E1000_TCTL, 0);
		(void)mmio_read32(regs + E1000_STATUS); /* flush the writes */
	}
	pci_disable_master(d);
}
