/*
 * Intel 82574L (PCIe gigabit, "e1000e") registers and bits beyond the
 * 8254x set in e1000_regs.h, as the 82574 GbE Controller Family datasheet
 * describes them. Everything the 82574L shares with the 8254x (CTRL,
 * STATUS, EERD in the 82541 layout, RCTL/TCTL, the queue-0 ring registers,
 * RAL/RAH, MTA, the legacy descriptors) is used from e1000_regs.h at the
 * same offset. Offsets in bytes from the start of BAR0.
 */
#ifndef DRIVERS_E1000E_REGS_H
#define DRIVERS_E1000E_REGS_H

#define E1000E_EECD	0x0010 /* EEPROM/flash control */
#define E1000E_CTRL_EXT 0x0018 /* extended device control */
#define E1000E_ITR	0x00c4 /* interrupt throttling, 256 ns units */
#define E1000E_EIAC	0x00dc /* MSI-X: causes auto-cleared on a vector */
#define E1000E_IAM	0x00e0 /* causes auto-masked when ICR is read */
#define E1000E_IVAR	0x00e4 /* cause -> MSI-X vector allocation */
#define E1000E_RXDCTL	0x2828 /* RX queue 0 descriptor thresholds */
#define E1000E_TXDCTL	0x3828 /* TX queue 0 descriptor thresholds */
#define E1000E_RXCSUM	0x5000 /* RX checksum offload control */
#define E1000E_RFCTL	0x5008 /* RX filter control: descriptor format */

/* CTRL: stop issuing PCIe master requests (before a reset). */
#define E1000E_CTRL_GIO_MASTER_DISABLE (1u << 2)
/* STATUS: the function still has master requests outstanding. */
#define E1000E_STATUS_GIO_MASTER_EN    (1u << 19)
/* EECD: the NVM auto-read after reset is complete. */
#define E1000E_EECD_AUTO_RD	       (1u << 9)

/* CTRL_EXT */
#define E1000E_CTRL_EXT_DRV_LOAD (1u << 28) /* a driver owns the part */
#define E1000E_CTRL_EXT_PBA_CLR	 (1u << 31) /* MSI-X: clear PBA on read */

/* RXCSUM.TUOFL: check each received frame's TCP/UDP sum and say so in
 * its descriptor (IPv6 frames too while RFCTL.IPV6_XSUM_DIS is clear). */
#define E1000E_RXCSUM_TUOFL (1u << 9)
/* RFCTL.EXSTEN: extended RX descriptors. Cleared: legacy ones. */
#define E1000E_RFCTL_EXTEN  (1u << 15)

/*
 * IVAR (datasheet 10.2.4.x): a 3-bit MSI-X vector and a valid bit per
 * cause. Ours: RX queue 0 on table entry 0, TX queue 0 on 1, the other
 * causes (link) on 2; the RX1/TX1 fields stay invalid (one queue pair).
 */
#define E1000E_IVAR_VALID    (1u << 3)
#define E1000E_IVAR_RX0(v)   ((uint32_t)(v) | E1000E_IVAR_VALID)
#define E1000E_IVAR_TX0(v)   (((uint32_t)(v) | E1000E_IVAR_VALID) << 8)
#define E1000E_IVAR_OTHER(v) (((uint32_t)(v) | E1000E_IVAR_VALID) << 16)
#define E1000E_IVAR_VECTORS  3

/* TXDCTL: bit 22 must be set on the 82571 family, the 82574 among them
 * (Linux's e1000e sets it at init); GRAN counts thresholds in
 * descriptors. */
#define E1000E_TXDCTL_RESERVED_ONE (1u << 22)
#define E1000E_TXDCTL_GRAN	   (1u << 24)

/* Interrupt causes (ICR/IMS bits) beyond the 8254x's: in MSI-X mode
 * the part reports queue 0's work as RXQ0/TXQ0 (not RXT0/TXDW) and sets
 * OTHER beside any other cause (LSC among them). ICR bits clear when 1
 * is written to them. */
#define E1000E_ICR_RXQ0	 (1u << 20) /* MSI-X: RX queue 0 */
#define E1000E_ICR_TXQ0	 (1u << 22) /* MSI-X: TX queue 0 */
#define E1000E_ICR_OTHER (1u << 24) /* MSI-X: other causes */

/* ITR: at most ~20000 interrupts a second (50 us = 195 x 256 ns), the
 * figure Linux's e1000e starts from; ignored while every cause is masked. */
#define E1000E_ITR_DEFAULT 195

#endif /* DRIVERS_E1000E_REGS_H */
