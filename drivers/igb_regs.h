/*
 * Intel igb family (82576, I350, I210, I211) registers and descriptors
 * beyond the 8254x set in e1000_regs.h, as the 82576 GbE Controller
 * datasheet (and the I350/I210 ones, where they agree) describes them.
 * What the family keeps at the 8254x offsets (CTRL, STATUS, EERD in the
 * 82541 layout, MDIC, ICR/IMS/IMC, RCTL, TCTL, RAL/RAH, MTA) is used from
 * e1000_regs.h. Offsets in bytes from the start of BAR0.
 */
#ifndef DRIVERS_IGB_REGS_H
#define DRIVERS_IGB_REGS_H

#include <stdint.h>

#define IGB_RXCSUM    0x5000		 /* receive checksum control */
#define IGB_MRQC      0x5818		 /* multiple receive queues command */
#define IGB_RETA(i)   (0x5c00 + 4 * (i)) /* RSS table: 32 x 4 entries */
#define IGB_RSSRK(i)  (0x5c80 + 4 * (i)) /* RSS key: 10 x 4 bytes */
#define IGB_GPIE      0x1514		 /* general purpose interrupt enable */
#define IGB_EICS      0x1520		 /* extended cause set */
#define IGB_EIMS      0x1524		 /* extended mask set (read: mask) */
#define IGB_EIMC      0x1528		 /* extended mask clear */
#define IGB_EIAC      0x152c		 /* extended auto-clear */
#define IGB_EIAM      0x1530		 /* extended auto-mask */
#define IGB_EICR      0x1580		 /* extended cause read */
#define IGB_EITR(v)   (0x1680 + 4 * (v)) /* vector v's throttle */
#define IGB_IVAR(i)   (0x1700 + 4 * (i)) /* queue -> vector table */
#define IGB_IVAR_MISC 0x1740		 /* other causes -> vector */

/* Queue q's registers (q < 16): the 82576 keeps all sixteen at these
 * offsets (queues 0-3 also at the 8254x ones). */
#define IGB_RDBAL(q)  (0xc000 + 0x40 * (q))
#define IGB_RDBAH(q)  (0xc004 + 0x40 * (q))
#define IGB_RDLEN(q)  (0xc008 + 0x40 * (q))
#define IGB_SRRCTL(q) (0xc00c + 0x40 * (q)) /* buffer sizes, format */
#define IGB_RDH(q)    (0xc010 + 0x40 * (q))
#define IGB_RDT(q)    (0xc018 + 0x40 * (q))
#define IGB_RXDCTL(q) (0xc028 + 0x40 * (q)) /* enable, thresholds */
#define IGB_TDBAL(q)  (0xe000 + 0x40 * (q))
#define IGB_TDBAH(q)  (0xe004 + 0x40 * (q))
#define IGB_TDLEN(q)  (0xe008 + 0x40 * (q))
#define IGB_TDH(q)    (0xe010 + 0x40 * (q))
#define IGB_TDT(q)    (0xe018 + 0x40 * (q))
#define IGB_TXDCTL(q) (0xe028 + 0x40 * (q))

/* SRRCTL: packet buffer size in KiB (bits 6:0); DESCTYPE 001b, the
 * advanced descriptor with one buffer (no header split); DROP_EN: a
 * queue out of buffers drops its frame rather than stalling the others. */
#define IGB_SRRCTL_BSIZEPKT_KB(kb) ((uint32_t)(kb))
#define IGB_SRRCTL_DESC_ADV_ONEBUF (1u << 25)
#define IGB_SRRCTL_DROP_EN	   (1u << 31)

/* RXDCTL/TXDCTL: prefetch (bits 4:0), host (12:8) and write-back
 * (20:16) thresholds; ENABLE, which the part confirms by reading back. */
#define IGB_DCTL_PTHRESH(n) ((uint32_t)(n))
#define IGB_DCTL_HTHRESH(n) ((uint32_t)(n) << 8)
#define IGB_DCTL_WTHRESH(n) ((uint32_t)(n) << 16)
#define IGB_DCTL_ENABLE	    (1u << 25)

/* RXCSUM: IP and TCP/UDP sums checked; PCSD puts the RSS hash where the
 * packet checksum would be (RSS needs it). */
#define IGB_RXCSUM_IPOFLD (1u << 8)
#define IGB_RXCSUM_TUOFLD (1u << 9)
#define IGB_RXCSUM_PCSD	  (1u << 13)

/* CTRL_EXT.DRV_LOAD, EECD.AUTO_RD and the PCIe master bits are the
 * 82574's, in e1000e_regs.h. */

/* ---- advanced receive descriptor (16 bytes) ---- */

/* Read format (what we post) and write-back format (what the part
 * returns in the same 16 bytes). Posting writes hdr_addr = 0, which also
 * clears a stale write-back's status: DD shares those bits. */
union igb_rx_desc {
	struct {
		uint64_t pkt_addr;
		uint64_t hdr_addr;
	} read;
	struct {
		uint16_t pkt_info; /* RSS type in bits 3:0, packet type */
		uint16_t hdr_info;
		uint32_t rss_hash; /* with RXCSUM.PCSD */
		uint32_t staterr;  /* status 19:0, errors 31:20 */
		uint16_t length;
		uint16_t vlan;
	} wb;
};
_Static_assert(sizeof(union igb_rx_desc) == 16, "advanced RX descriptor");

#define IGB_RXD_STAT_DD	   (1u << 0)
#define IGB_RXD_STAT_EOP   (1u << 1)
#define IGB_RXD_STAT_UDPCS (1u << 4)  /* the L4 sum was a UDP one */
#define IGB_RXD_STAT_L4CS  (1u << 5)  /* TCP/UDP sum checked */
#define IGB_RXD_STAT_IPCS  (1u << 6)  /* IPv4 header sum checked */
#define IGB_RXD_ERR_CE	   (1u << 24) /* CRC or alignment */
#define IGB_RXD_ERR_SE	   (1u << 25) /* symbol */
#define IGB_RXD_ERR_SEQ	   (1u << 26) /* sequence */
#define IGB_RXD_ERR_CXE	   (1u << 28) /* carrier extension */
#define IGB_RXD_ERR_L4E	   (1u << 29) /* TCP/UDP sum wrong */
#define IGB_RXD_ERR_IPE	   (1u << 30) /* IPv4 header sum wrong */
#define IGB_RXD_ERR_RXE	   (1u << 31) /* RX data error */
#define IGB_RXD_ERR_FRAME                                                      \
	(IGB_RXD_ERR_CE | IGB_RXD_ERR_SE | IGB_RXD_ERR_SEQ | IGB_RXD_ERR_CXE | \
	 IGB_RXD_ERR_RXE)
/* pkt_info bits 3:0: which fields the RSS hash covered. */
#define IGB_RSS_TYPE_MASK     0xfu
#define IGB_RSS_TYPE_TCP_IPV4 1u
#define IGB_RSS_TYPE_IPV4     2u
#define IGB_RSS_TYPE_TCP_IPV6 3u
#define IGB_RSS_TYPE_IPV6_EX  4u
#define IGB_RSS_TYPE_IPV6     5u
#define IGB_RSS_TYPE_TCP_IP6X 6u
#define IGB_RSS_TYPE_UDP_IPV4 7u
#define IGB_RSS_TYPE_UDP_IPV6 8u
#define IGB_RSS_TYPE_UDP_IP6X 9u

/* ---- advanced transmit descriptors (16 bytes) ---- */

/* A data descriptor as posted, and the status the part writes back into
 * its last dword (DD) once a descriptor with RS is done. */
union igb_tx_desc {
	struct {
		uint64_t addr;
		uint32_t cmd_type_len; /* length 15:0, type, command */
		uint32_t olinfo;       /* context index, POPTS, PAYLEN */
	} read;
	struct {
		uint64_t rsvd;
		uint32_t nxtseq_seed;
		uint32_t status;
	} wb;
};
_Static_assert(sizeof(union igb_tx_desc) == 16, "advanced TX descriptor");

/* A context descriptor, in a TX slot of its own before the frame's data
 * descriptors: where the headers are and what to do with them. */
struct igb_tx_ctx_desc {
	uint32_t vlan_macip_lens; /* IP header length 8:0, MAC 15:9 */
	uint32_t seqnum_seed;
	uint32_t type_tucmd_mlhl; /* type, TUCMD */
	uint32_t mss_l4len_idx;	  /* index 6:4, L4 length 15:8, MSS 31:16 */
};
_Static_assert(sizeof(struct igb_tx_ctx_desc) == 16, "context descriptor");

#define IGB_TXD_DTYP_CTXT  (2u << 20)
#define IGB_TXD_DTYP_DATA  (3u << 20)
#define IGB_TXD_CMD_EOP	   (1u << 24)
#define IGB_TXD_CMD_IFCS   (1u << 25)
#define IGB_TXD_CMD_RS	   (1u << 27)
#define IGB_TXD_CMD_DEXT   (1u << 29) /* advanced (not legacy) format */
#define IGB_TXD_CMD_TSE	   (1u << 31) /* segment (TSO) */
#define IGB_TXD_POPTS_TXSM (1u << 9)  /* insert the TCP/UDP sum */
#define IGB_TXD_POPTS_IXSM (1u << 8)  /* insert the IPv4 header sum */
#define IGB_TXD_PAYLEN(n)  ((uint32_t)(n) << 14)
#define IGB_TXD_STAT_DD	   (1u << 0)
#define IGB_TXD_LEN_MAX	   0xffffu
#define IGB_CTX_MACLEN(n)  ((uint32_t)(n) << 9)
#define IGB_CTX_TUCMD_IPV4 (1u << 10)
#define IGB_CTX_TUCMD_TCP  (1u << 11) /* else UDP */
#define IGB_CTX_L4LEN(n)   ((uint32_t)(n) << 8)
#define IGB_CTX_MSS(n)	   ((uint32_t)(n) << 16)

#endif /* DRIVERS_IGB_REGS_H */
