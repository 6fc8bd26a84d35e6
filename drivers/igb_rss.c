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
 * The key: the one the RSS verification examples in Intel's and
 * Microsoft's documents use (DPDK's default too), so a hash the part
 * reports can be checked against the published vectors. It is public,
 * so a sender who wants to can aim many flows at one queue; a stack
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

static const uint8_t igb_rss_default_key[NETDEV_RSS_KEY_LEN] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67,
	0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb,
	0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30,
	0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

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
		memcpy(dev->rss_key, igb_rss_default_key, sizeof(dev->rss_key));
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
	struct igb *g = dev->priv;

	/* n divides the 128 entries exactly when it is a power of two up
	 * to 128 */
	if (n < 1 || n > IGB_RETA_ENTRIES || (n & (n - 1)))
		return -1;
	for (int i = 0; i < n; i++)
		if (table[i] >= dev->nqueues)
			return -1;
	for (int i = 0; i < IGB_RETA_ENTRIES; i++)
		dev->rss_table[i] = table[i % n];
	igb_write_reta(g);
	return 0;
}
