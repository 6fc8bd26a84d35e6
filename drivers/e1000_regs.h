/*
 * Intel 8254x (PCI/PCI-X gigabit, "e1000") registers, bits and the legacy
 * descriptor layouts, as the 8254x Family Software Developer's Manual
 * describes them. Only what drivers/e1000.c uses. Register offsets are in
 * bytes from the start of BAR0; every register is 32 bits wide.
 */
#ifndef DRIVERS_E1000_REGS_H
#define DRIVERS_E1000_REGS_H

#include <stdint.h>

/* General */
#define E1000_CTRL   0x0000 /* device control */
#define E1000_STATUS 0x0008 /* device status (read-only) */
#define E1000_EERD   0x0014 /* EEPROM read (82540 and later) */
#define E1000_MDIC   0x0020 /* MDI control: the PHY's registers */
#define E1000_FCAL   0x0028 /* flow control address low */
#define E1000_FCAH   0x002c /* flow control address high */
#define E1000_FCT    0x0030 /* flow control type */
#define E1000_FCTTV  0x0170 /* flow control transmit timer value */

/* Interrupts (e1000_irq.c; masked at reset) */
#define E1000_ICR      0x00c0 /* cause read (reading clears it) */
#define E1000_IMS      0x00d0 /* mask set */
#define E1000_IMC      0x00d8 /* mask clear */
/* Interrupt causes (ICR/IMS bits) the driver enables: a frame received
 * (RXT0, immediately with RDTR = 0), the RX ring overrun (RXO: buffers
 * ran out, the poller must refill), a transmit finished (TXDW). */
#define E1000_ICR_TXDW (1u << 0)
#define E1000_ICR_LSC  (1u << 2) /* link status change */
#define E1000_ICR_RXO  (1u << 6)
#define E1000_ICR_RXT0 (1u << 7)

/* Receive */
#define E1000_RCTL  0x0100
#define E1000_RDBAL 0x2800 /* ring base, low 32 bits */
#define E1000_RDBAH 0x2804 /* ring base, high 32 bits */
#define E1000_RDLEN 0x2808 /* ring length in bytes, a multiple of 128 */
#define E1000_RDH   0x2810 /* head: next slot the device fills */
#define E1000_RDT   0x2818 /* tail: one past the last slot it may fill */
#define E1000_RDTR  0x2820 /* receive delay timer (interrupt moderation) */
#define E1000_MTA   0x5200 /* multicast table: 128 32-bit entries */
#define E1000_RAL0  0x5400 /* receive address 0, low: MAC bytes 0-3 */
#define E1000_RAH0  0x5404 /* receive address 0, high: bytes 4-5 + AV */

/* Transmit */
#define E1000_TCTL  0x0400
#define E1000_TIPG  0x0410 /* inter-packet gap */
#define E1000_TDBAL 0x3800
#define E1000_TDBAH 0x3804
#define E1000_TDLEN 0x3808
#define E1000_TDH   0x3810 /* head: next slot the device reads */
#define E1000_TDT   0x3818 /* tail: one past the last slot queued */
#define E1000_TIDV  0x3820 /* transmit interrupt delay */

/* Statistics (read clears): missed packets = frames dropped because the
 * RX ring had no free descriptor. */
#define E1000_MPC 0x4010

/* CTRL */
#define E1000_CTRL_FD	   (1u << 0)  /* full duplex */
#define E1000_CTRL_LRST	   (1u << 3)  /* link reset */
#define E1000_CTRL_ASDE	   (1u << 5)  /* auto-speed detection enable */
#define E1000_CTRL_SLU	   (1u << 6)  /* set link up */
#define E1000_CTRL_ILOS	   (1u << 7)  /* invert loss-of-signal */
#define E1000_CTRL_FRCSPD  (1u << 11) /* force speed */
#define E1000_CTRL_FRCDPLX (1u << 12) /* force duplex */
#define E1000_CTRL_RST	   (1u << 26) /* global reset, self-clearing */
#define E1000_CTRL_VME	   (1u << 30) /* VLAN mode */
#define E1000_CTRL_PHY_RST (1u << 31) /* PHY reset */

/* STATUS */
#define E1000_STATUS_FD		 (1u << 0)
#define E1000_STATUS_LU		 (1u << 1)
#define E1000_STATUS_FUNC_SHIFT	 2 /* 82546: which port of the pair */
#define E1000_STATUS_FUNC_MASK	 (3u << E1000_STATUS_FUNC_SHIFT)
#define E1000_STATUS_SPEED_SHIFT 6 /* 0: 10, 1: 100, 2 or 3: 1000 Mb/s */

/* EERD. The 82541 and 82547 moved the fields: the two layouts. */
#define E1000_EERD_START	    (1u << 0)
#define E1000_EERD_DONE		    (1u << 4)
#define E1000_EERD_ADDR_SHIFT	    8
#define E1000_EERD_DONE_82541	    (1u << 1)
#define E1000_EERD_ADDR_SHIFT_82541 2
#define E1000_EERD_DATA_SHIFT	    16

/* EEPROM words: MAC in 0..2; words 0..0x3f sum to 0xbaba. */
#define E1000_EEPROM_MAC	    0x00
#define E1000_EEPROM_CHECKSUM_WORDS 0x40
#define E1000_EEPROM_CHECKSUM_SUM   0xbaba

#define E1000_RAH_AV (1u << 31) /* address valid */

/* MDIC: one PHY register read or written per access (manual 13.4.7). */
#define E1000_MDIC_DATA_MASK 0xffffu
#define E1000_MDIC_REG_SHIFT 16
#define E1000_MDIC_PHY_SHIFT 21
#define E1000_MDIC_OP_WRITE  (1u << 26)
#define E1000_MDIC_OP_READ   (2u << 26)
#define E1000_MDIC_READY     (1u << 28)
#define E1000_MDIC_ERROR     (1u << 30)
#define E1000_PHY_ADDR	     1 /* the MDIO address of every copper PHY here */

/* PHY registers every copper part's PHY has (IEEE 802.3 clause 22). */
#define MII_BMCR	   0x00	     /* basic mode control */
#define MII_ANAR	   0x04	     /* auto-negotiation advertisement */
#define MII_CTRL1000	   0x09	     /* 1000BASE-T control */
#define MII_BMCR_ANRESTART (1u << 9) /* restart auto-negotiation */
#define MII_BMCR_ISOLATE   (1u << 10)
#define MII_BMCR_PDOWN	   (1u << 11) /* powered down */
#define MII_BMCR_AUTOEN	   (1u << 12) /* auto-negotiation on */
#define MII_BMCR_LOOPBACK  (1u << 14)
/* ANAR: selector 802.3, 10/100 half and full; CTRL1000: 1000 full. */
#define MII_ANAR_ALL	   0x01e1u
#define MII_CTRL1000_FULL  (1u << 9)

/* RCTL */
#define E1000_RCTL_EN	      (1u << 1)
#define E1000_RCTL_SBP	      (1u << 2)	 /* store bad packets: off */
#define E1000_RCTL_UPE	      (1u << 3)	 /* unicast promiscuous */
#define E1000_RCTL_MPE	      (1u << 4)	 /* multicast promiscuous */
#define E1000_RCTL_LPE	      (1u << 5)	 /* long packets: off */
#define E1000_RCTL_LBM_MASK   (3u << 6)	 /* loopback: 00 = none */
#define E1000_RCTL_RDMTS_HALF (0u << 8)	 /* min threshold: 1/2 ring */
#define E1000_RCTL_MO_MASK    (3u << 12) /* multicast offset: 00 */
#define E1000_RCTL_BAM	      (1u << 15) /* accept broadcast */
#define E1000_RCTL_BSIZE_2048 (0u << 16) /* with BSEX = 0 */
#define E1000_RCTL_BSIZE_MASK (3u << 16)
#define E1000_RCTL_BSEX	      (1u << 25) /* buffer size x16 */
#define E1000_RCTL_SECRC      (1u << 26) /* strip the Ethernet CRC */

/* TCTL */
#define E1000_TCTL_EN	      (1u << 1)
#define E1000_TCTL_PSP	      (1u << 3) /* pad short packets to 64 bytes */
#define E1000_TCTL_CT_SHIFT   4		/* collision threshold */
#define E1000_TCTL_COLD_SHIFT 12	/* collision distance */
#define E1000_TCTL_CT	      (0x0fu << E1000_TCTL_CT_SHIFT)
#define E1000_TCTL_COLD_FD    (0x40u << E1000_TCTL_COLD_SHIFT)

/* TIPG for IEEE 802.3 copper: IPGT 10, IPGR1 8, IPGR2 6 (manual 13.4.34) */
#define E1000_TIPG_COPPER (10u | 8u << 10 | 6u << 20)

/*
 * Legacy receive descriptor: the driver writes addr, the device writes the
 * rest when it has stored a frame (or the piece of one) in the buffer.
 */
struct e1000_rx_desc {
	uint64_t addr;
	uint16_t length;   /* bytes stored in this buffer */
	uint16_t checksum; /* packet checksum (unused here) */
	uint8_t status;	   /* E1000_RXD_STAT_* */
	uint8_t errors;	   /* E1000_RXD_ERR_*, valid with EOP */
	uint16_t special;  /* VLAN tag (unused) */
};

#define E1000_RXD_STAT_DD    (1u << 0) /* descriptor done */
#define E1000_RXD_STAT_EOP   (1u << 1) /* last buffer of the frame */
/* Checksum offload (RXCSUM.TUOFL, the 82574L here): TCPCS or UDPCS, the
 * device checked the frame's TCP or UDP sum (ERR_TCPE: it was wrong);
 * IXSM, ignore the checksum bits. */
#define E1000_RXD_STAT_IXSM  (1u << 2)
#define E1000_RXD_STAT_UDPCS (1u << 4)
#define E1000_RXD_STAT_TCPCS (1u << 5)

#define E1000_RXD_ERR_CE   (1u << 0) /* CRC or alignment error */
#define E1000_RXD_ERR_SE   (1u << 1) /* symbol error */
#define E1000_RXD_ERR_SEQ  (1u << 2) /* sequence error */
#define E1000_RXD_ERR_CXE  (1u << 4) /* carrier extension error */
#define E1000_RXD_ERR_TCPE (1u << 5) /* TCP/UDP checksum (offload only) */
#define E1000_RXD_ERR_IPE  (1u << 6) /* IP checksum (offload only) */
#define E1000_RXD_ERR_RXE  (1u << 7) /* RX data error */
/* The errors that make the frame itself bad (the checksum-offload bits do
 * not: a frame with a wrong sum goes up unvouched and lwIP drops it). */
#define E1000_RXD_ERR_FRAME                                        \
	(E1000_RXD_ERR_CE | E1000_RXD_ERR_SE | E1000_RXD_ERR_SEQ | \
	 E1000_RXD_ERR_CXE | E1000_RXD_ERR_RXE)

/* Legacy transmit descriptor: one buffer of a frame. */
struct e1000_tx_desc {
	uint64_t addr;
	uint16_t length;
	uint8_t cso;	/* checksum offset (unused: no offload) */
	uint8_t cmd;	/* E1000_TXD_CMD_* */
	uint8_t status; /* E1000_TXD_STAT_*, written back with RS */
	uint8_t css;	/* checksum start (unused) */
	uint16_t special;
};

#define E1000_TXD_CMD_EOP  (1u << 0) /* last descriptor of the frame */
#define E1000_TXD_CMD_IFCS (1u << 1) /* device appends the Ethernet CRC */
#define E1000_TXD_CMD_RS   (1u << 3) /* report status (write back DD) */

#define E1000_TXD_STAT_DD (1u << 0) /* descriptor done */
#define E1000_TXD_STAT_EC (1u << 1) /* excess collisions (half duplex) */
#define E1000_TXD_STAT_LC (1u << 2) /* late collision (half duplex) */

/* A legacy descriptor may carry at most this many bytes (manual 3.3.3). */
#define E1000_TXD_MAX_LEN 16288

_Static_assert(sizeof(struct e1000_rx_desc) == 16, "legacy RX descriptor");
_Static_assert(sizeof(struct e1000_tx_desc) == 16, "legacy TX descriptor");

#endif /* DRIVERS_E1000_REGS_H */
