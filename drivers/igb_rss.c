/*
 * igb receive-side scaling (82576 datasheet 7.1.2.8): the part hashes
 * each frame's flow with the Toeplitz function under a 40-byte key
 * (RSSRK), over the IP addresses and, for TCP and UDP, the ports; the
 * hash's low 7 bits pick one of 128 entries of the redirection table
 * (RETA, a byte each, the queue in its low bits), and the frame goes to
 * that queue. The hash comes back in the write-back (RXCSUM.PCSD, set at
 * bring-up) with its kind in pkt_info, and igb.c hands both up.
 *
 * The table starts as entry i -> queue i % nqueues, so flows spread over
 * every queue; the stack may choose another (set_rss_table), to steer a
 * flow's frames to the CPU that owns its connection. netdev.rss_table
 * mirrors what the part holds, so the stack can tell which queue a hash
 * should reach (netdev_rss_queue) and count the frames that did not.
 *
 * The key: netdev_rss_default_key (netdev.h says why that one). A stack
 * that minds may write its own key to dev->rss_key and call
 * igb_rss_setup again.
 */
#include "igb_internal.h"

#include <string.h>

/* MRQC: RSS only (no VMDq); the fields hashed -- TCP and UDP over IPv4
 * and IPv6 with their ports, other IPv4 and IPv6 over the addresses. */
#define IGB_MRQC_RSS	     2u
#define IGB_MRQC_TCP_IPV4    (1u << 16)
#define IGB_MRQC_IPV4	     (1u << 17)
#define IGB_MRQC_TCP_IPV6_EX (1u << 18)
#define IGB_MRQC_IPV6	     (1u << 20)
#define IGB_MRQC_TCP_IPV6    (1u << 21)
#define IGB_MRQC_UDP_IPV4    (1u << 22)
#define IGB_MRQC_UDP_IPV6    (1u << 23)
#define IGB_MRQC_FIELDS                                             \
	(IGB_MRQC_TCP_IPV4 | IGB_MRQC_IPV4 | IGB_MRQC_TCP_IPV6_EX | \
	 IGB_MRQC_IPV6 | IGB_MRQC_TCP_IPV6 | IGB_MRQC_UDP_IPV4 |    \
	 IGB_MRQC_UDP_IPV6)
#define IGB_RETA_ENTRIES 128

/* dev->rss_table into RETA: four entries a register, entry 4i in the
 * low byte. */
static void igb_write_reta(struct igb *g)
{
	for (int i = 0; i < IGB_RETA_ENTRIES / 4; i++) {
		const uint8_t *e = &g->dev.rss_table[4 * i];

		igb_wr32(g, IGB_RETA(i),
			 (uint32_t)e[0] | (uint32_t)e[1] << 8 |
				 (uint32_t)e[2] << 16 | (uint32_t)e[3] << 24);
	}
}

void igb_rss_setup(struct igb *g)
{
	struct netdev *dev = &g->dev;

	if (dev->rss_table_len == 0) { /* first time: key and table */
		memcpy(dev->rss_key, netdev_rss_default_key,
		       sizeof(dev->rss_key));
		dev->rss_table_len = IGB_RETA_ENTRIES;
		for (int i = 0; i < IGB_RETA_ENTRIES; i++)
			dev->rss_table[i] = (uint8_t)(i % dev->nqueues);
	}
	for (int i = 0; i < NETDEV_RSS_KEY_LEN / 4; i++) {
		const uint8_t *k = &dev->rss_key[4 * i];

		igb_wr32(g, IGB_RSSRK(i),
			 (uint32_t)k[0] | (uint32_t)k[1] << 8 |
				 (uint32_t)k[2] << 16 | (uint32_t)k[3] << 24);
	}
	igb_write_reta(g);
	igb_wr32(g, IGB_MRQC, IGB_MRQC_RSS | IGB_MRQC_FIELDS);
}

int igb_set_rss_table(struct netdev *dev, const uint8_t *table, int n)
{
	if (netdev_rss_table_fill(dev, table, n) != 0)
		return -1;
	igb_write_reta(dev->priv);
	return 0;
}
