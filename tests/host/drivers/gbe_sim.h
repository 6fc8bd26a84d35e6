/*
 * The simulated Intel gigabit part the e1000e and igb host tests share:
 * BAR0 as plain memory, a PCI bus of up to three functions, the NVM
 * behind EERD, and the console the driver prints to. Time is the
 * device's clock: gbe_sim_tick() is one millisecond in which the part
 * completes what the driver asked -- a reset clears CTRL.RST, PCIe
 * master requests drain, an EERD read returns its NVM word (the
 * 82541-and-later layout) -- unless the test made it stuck
 * (reset_stuck, master_stuck). Each test's drv_clock_ms() calls it and
 * adds what only its part does (the 82574's EECD auto-read, the 82576's
 * PHY through MDIC).
 *
 * Include once, after the driver sources (it needs gbe_hw.h's register
 * names and pci.h); gbe_sim_reset() belongs in setup, free(regs) in
 * teardown.
 */
#ifndef TESTS_HOST_DRIVERS_GBE_SIM_H
#define TESTS_HOST_DRIVERS_GBE_SIM_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/drv_port.h"
#include "drivers/pci.h"

#define BAR0_SIZE   0x20000
#define NVM_WORDS   0x40
#define GBE_SIM_PCI 3

static uint8_t *regs;
static uint64_t fake_ms;
static struct pci_dev fake_pci[GBE_SIM_PCI];
static int nfake_pci;
static uint16_t nvm[NVM_WORDS];
static bool reset_stuck;   /* CTRL.RST never clears */
static bool master_stuck;  /* PCIe master requests never drain */
static char console[4096]; /* everything the driver printed */
/* Each fake function's command register bus-master bit (as firmware or
 * the driver left it). */
static bool bus_master[GBE_SIM_PCI];

void drv_printf(const char *fmt, ...)
{
	size_t n = strlen(console);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(console + n, sizeof(console) - n, fmt, ap);
	va_end(ap);
}

static uint32_t *reg(unsigned int off)
{
	return (uint32_t *)(regs + off);
}

/* One millisecond of the part's common life. Returns true when it
 * completed a reset in it (the test's part may load more then). */
static bool gbe_sim_tick(void)
{
	uint32_t eerd = *reg(E1000_EERD);
	bool reset_done = false;

	if ((*reg(E1000_CTRL) & E1000_CTRL_RST) && !reset_stuck) {
		*reg(E1000_CTRL) &= ~E1000_CTRL_RST;
		reset_done = true;
	}
	if ((*reg(E1000_CTRL) & E1000E_CTRL_GIO_MASTER_DISABLE) &&
	    !master_stuck)
		*reg(E1000_STATUS) &= ~E1000E_STATUS_GIO_MASTER_EN;
	if ((eerd & E1000_EERD_START) && !(eerd & E1000_EERD_DONE_82541)) {
		unsigned int word =
			(eerd >> E1000_EERD_ADDR_SHIFT_82541) & 0x3fff;

		*reg(E1000_EERD) = (uint32_t)(word < NVM_WORDS ? nvm[word] : 0)
					   << E1000_EERD_DATA_SHIFT |
				   E1000_EERD_DONE_82541;
	}
	fake_ms++;
	return reset_done;
}

int pci_count(void)
{
	return nfake_pci;
}

struct pci_dev *pci_get(int i)
{
	return i >= 0 && i < nfake_pci ? &fake_pci[i] : NULL;
}

void pci_enable(struct pci_dev *d)
{
	bus_master[d - fake_pci] = true;
}

void pci_disable_master(const struct pci_dev *d)
{
	bus_master[d - fake_pci] = false;
}

volatile void *pci_map_bar(const struct pci_dev *d, int bar)
{
	(void)d;
	return bar == 0 ? regs : NULL;
}

/* An Intel function of id @device at slot @slot on the bus. */
static void add_pci(uint16_t device, uint8_t slot)
{
	fake_pci[nfake_pci++] = (struct pci_dev){
		.vendor = 0x8086, .device = device, .dev = slot};
}

/* The NVM: words 0..2 @mac, a word the part keeps for itself, and word
 * 0x3f making the 0..0x3f sum 0xBABA -- or one off when !good_checksum. */
static void gbe_sim_nvm_fill(const uint8_t mac[6], bool good_checksum)
{
	uint16_t sum = 0;

	memset(nvm, 0, sizeof(nvm));
	for (int i = 0; i < 3; i++)
		nvm[i] = (uint16_t)(mac[2 * i] | mac[2 * i + 1] << 8);
	nvm[0x10] = 0x1234;
	for (int i = 0; i < NVM_WORDS - 1; i++)
		sum = (uint16_t)(sum + nvm[i]);
	nvm[NVM_WORDS - 1] = (uint16_t)(0xbaba - sum + (good_checksum ? 0 : 1));
}

/* A fresh part on an empty bus, as it comes out of its power-on reset:
 * the NVM holds @nvm_mac, receive address 0 holds @ral_mac (valid), the
 * link is up at 1000 Mb/s full duplex, PCIe mastering on. */
static void gbe_sim_reset(const uint8_t nvm_mac[6], const uint8_t ral_mac[6])
{
	regs = calloc(1, BAR0_SIZE);
	assert_non_null(regs);
	memset(bus_master, 0, sizeof(bus_master));
	nfake_pci = 0;
	reset_stuck = false;
	master_stuck = false;
	console[0] = '\0';
	gbe_sim_nvm_fill(nvm_mac, true);
	*reg(E1000_RAL0) = (uint32_t)ral_mac[0] | (uint32_t)ral_mac[1] << 8 |
			   (uint32_t)ral_mac[2] << 16 |
			   (uint32_t)ral_mac[3] << 24;
	*reg(E1000_RAH0) =
		(uint32_t)ral_mac[4] | (uint32_t)ral_mac[5] << 8 | E1000_RAH_AV;
	*reg(E1000_STATUS) = E1000_STATUS_LU | E1000_STATUS_FD |
			     2u << E1000_STATUS_SPEED_SHIFT |
			     E1000E_STATUS_GIO_MASTER_EN;
}

#endif /* TESTS_HOST_DRIVERS_GBE_SIM_H */
