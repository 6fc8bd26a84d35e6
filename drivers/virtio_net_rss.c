/*
 * virtio-net receive-side scaling (virtio 1.2 spec 5.1.6.5.7): with
 * VIRTIO_NET_F_RSS the device hashes each frame's flow with the Toeplitz
 * function under a key the driver gives, over the IP addresses and, for
 * TCP and UDP, the ports -- exactly as igb does -- and the hash's low
 * bits pick an entry of the driver's redirection table, which names the
 * receive queue. QEMU offers it with `rss=on` (in its own code, or an
 * eBPF program on the tap that picks the tap queue).
 *
 * Without it a multiqueue virtio-net sends a flow wherever its backend
 * chooses (a tap: the queue the guest last sent that flow on), so the
 * stack cannot know beforehand which CPU a connection's segments reach.
 * With it the driver fills the netdev's rss_key and rss_table as igb
 * does and the stack's steering works unchanged: a connection the guest
 * opens takes a local port whose hash the table sends back to the
 * opening CPU (net/rss_steer.c).
 *
 * One command, VIRTIO_NET_CTRL_MQ_RSS_CONFIG, carries the hash kinds,
 * the table (as queue numbers, little-endian 16-bit), the queue for
 * frames of no hashed kind, the pair count (max_tx_vq: it replaces
 * VQ_PAIRS_SET) and the key. A table change sends it again.
 *
 * Not used: VIRTIO_NET_F_HASH_REPORT (the hash in every RX header). It
 * lengthens every header from 12 to 20 bytes, both ways; the stack does
 * not need the device's hash to steer, only the key and the table.
 */
#include <string.h>

#include "drv_port.h"
#include "virtio_net_internal.h"

#define VIRTIO_NET_CTRL_MQ_RSS_CONFIG 1

/* Hash kinds (spec 5.1.6.4.3.1): addresses, and ports for TCP and UDP,
 * over IPv4 and IPv6 -- the fields igb hashes. */
#define VNET_HASH_IPV4	(1u << 0)
#define VNET_HASH_TCPV4 (1u << 1)
#define VNET_HASH_UDPV4 (1u << 2)
#define VNET_HASH_IPV6	(1u << 3)
#define VNET_HASH_TCPV6 (1u << 4)
#define VNET_HASH_UDPV6 (1u << 5)
#define VNET_HASH_WANT                                                         \
	(VNET_HASH_IPV4 | VNET_HASH_TCPV4 | VNET_HASH_UDPV4 | VNET_HASH_IPV6 | \
	 VNET_HASH_TCPV6 | VNET_HASH_UDPV6)

/* The command's data: the fixed head, the table, then max_tx_vq, the
 * key's length and the key. */
#define RSS_CMD_MAX (8 + 2 * NETDEV_RSS_TABLE_MAX + 3 + NETDEV_RSS_KEY_LEN)

static void rss_put_le16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

/* dev's key and table, as one RSS_CONFIG, to the device: its ack. */
static int vnet_rss_send(struct vnet *vn)
{
	const struct netdev *dev = &vn->dev;
	uint8_t cmd[RSS_CMD_MAX];
	uint32_t n;

	rss_put_le16(cmd, VNET_HASH_WANT);
	rss_put_le16(cmd + 2, VNET_HASH_WANT >> 16);
	rss_put_le16(cmd + 4, (uint32_t)dev->rss_table_len - 1); /* the mask */
	rss_put_le16(cmd + 6, 0); /* unhashed frames (ARP, ...) to queue 0 */
	n = 8;
	for (int i = 0; i < dev->rss_table_len; i++, n += 2)
		rss_put_le16(cmd + n, dev->rss_table[i]);
	rss_put_le16(cmd + n, (uint32_t)vn->npairs); /* max_tx_vq */
	cmd[n + 2] = NETDEV_RSS_KEY_LEN;
	memcpy(cmd + n + 3, dev->rss_key, NETDEV_RSS_KEY_LEN);
	n += 3 + NETDEV_RSS_KEY_LEN;
	return vnet_ctrl_cmd(vn, VIRTIO_NET_CTRL_MQ,
			     VIRTIO_NET_CTRL_MQ_RSS_CONFIG, cmd, n);
}

/* The table length: the device's most, capped at ours, a power of two
 * (the command gives it as a mask). 0 when the device takes none. */
static int vnet_rss_table_len(struct vnet *vn)
{
	uint32_t max = virtio_pci_config16(&vn->vp, VNET_CFG_RSS_MAX_TABLE);
	int len = 1;

	if (max > NETDEV_RSS_TABLE_MAX)
		max = NETDEV_RSS_TABLE_MAX;
	if (max == 0)
		return 0;
	while ((uint32_t)len * 2 <= max)
		len *= 2;
	return len;
}

/* Why the device cannot steer as the stack needs, or NULL. */
static const char *vnet_rss_unusable(struct vnet *vn, int table_len)
{
	uint32_t types = virtio_pci_config16(&vn->vp, VNET_CFG_RSS_HASH_TYPES) |
			 (uint32_t)virtio_pci_config16(
				 &vn->vp, VNET_CFG_RSS_HASH_TYPES + 2)
				 << 16;

	if (virtio_pci_config8(&vn->vp, VNET_CFG_RSS_MAX_KEY) <
	    NETDEV_RSS_KEY_LEN)
		return "key too short";
	if (table_len < vn->npairs)
		return "table too short";
	if ((types & VNET_HASH_WANT) != VNET_HASH_WANT)
		return "hash kinds missing";
	return NULL;
}

int vnet_rss_setup(struct vnet *vn)
{
	struct netdev *dev = &vn->dev;
	int len;
	const char *why;

	if (!vnet_has(vn->features, VIRTIO_NET_F_RSS))
		return -1;
	len = vnet_rss_table_len(vn);
	why = vnet_rss_unusable(vn, len);
	if (why) {
		vn->rss_word = why;
		return -1;
	}
	memcpy(dev->rss_key, netdev_rss_default_key, sizeof(dev->rss_key));
	/* nqueues is still 1 here: the table names the pairs set up */
	for (int i = 0; i < len; i++)
		dev->rss_table[i] = (uint8_t)(i % vn->npairs);
	dev->rss_table_len = len;
	if (vnet_rss_send(vn) != VIRTIO_NET_OK) {
		dev->rss_table_len = 0;
		vn->rss_word = "refused";
		return -1;
	}
	vn->rss = true;
	return 0;
}

int vnet_set_rss_table(struct netdev *dev, const uint8_t *table, int n)
{
	struct vnet *vn = dev->priv;
	uint8_t old[NETDEV_RSS_TABLE_MAX];

	if (!vn->rss)
		return -1;
	memcpy(old, dev->rss_table, sizeof(old));
	if (netdev_rss_table_fill(dev, table, n) != 0)
		return -1;
	if (vnet_rss_send(vn) != VIRTIO_NET_OK) { /* it keeps the old one */
		memcpy(dev->rss_table, old, sizeof(old));
		return -1;
	}
	return 0;
}
