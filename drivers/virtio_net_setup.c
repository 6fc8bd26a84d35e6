/*
 * virtio-net set-up: features, queue pairs, the control queue, probe.
 *
 * Multiqueue (virtio 1.x spec 5.1.6.5.5). A device that offers
 * VIRTIO_NET_F_MQ (with VIRTIO_NET_F_CTRL_VQ, which MQ requires) says in
 * max_virtqueue_pairs how many RX/TX pairs it has; until told otherwise
 * it uses only the first. We set up one pair per CPU, up to that number
 * (CPUs beyond own no queue and say so), place pair i's rings on CPU i's
 * node, set DRIVER_OK, and then send VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET with
 * the count through the control queue (which sits after all the device's
 * pairs: virtqueue 2 * max_virtqueue_pairs). The device acknowledges in a
 * byte it writes back; anything but VIRTIO_NET_OK, or no answer within a
 * second, leaves the device on one pair, and we poll only that one.
 * Without MQ the device gets exactly the single pair it always had.
 */
#include <string.h>

#include "drv_port.h"
#include "mm/mm.h"
#include "virtio_net_internal.h"

/* Control command classes and values (spec 5.1.6.5). */
#define VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET 0
#define VIRTIO_NET_CTRL_MQ_VQ_PAIRS_MIN 1
#define VIRTIO_NET_CTRL_MQ_VQ_PAIRS_MAX 0x8000

struct virtio_net_offloads vnet_allowed = {.csum = true,
					   .tso = true,
					   .mrg = true,
					   .event_idx = true,
					   .host_tso = true,
					   .tso6 = true,
					   .host_tso6 = true};

void virtio_net_allow_offloads(const struct virtio_net_offloads *o)
{
	vnet_allowed = *o;
}

/* The offload bits we ask for: what the boot switches allow. GUEST_TSO4
 * and GUEST_TSO6 need GUEST_CSUM (spec 5.1.3.1) and, here, mergeable
 * buffers: we post 2 KiB buffers only, never the 64 KiB ones a TSO frame
 * needs without. */
static uint64_t vnet_offload_want(void)
{
	bool rx_big = vnet_allowed.csum && vnet_allowed.mrg;
	uint64_t want = 0;

	if (vnet_allowed.csum)
		want |= 1ull << VIRTIO_NET_F_CSUM |
			1ull << VIRTIO_NET_F_GUEST_CSUM;
	if (vnet_allowed.mrg)
		want |= 1ull << VIRTIO_NET_F_MRG_RXBUF;
	if (vnet_allowed.tso && rx_big)
		want |= 1ull << VIRTIO_NET_F_GUEST_TSO4;
	if (vnet_allowed.tso6 && rx_big)
		want |= 1ull << VIRTIO_NET_F_GUEST_TSO6;
	/* HOST_TSO4/6 need CSUM (spec 5.1.3.1): the device fills the sums. */
	if (vnet_allowed.host_tso && vnet_allowed.csum)
		want |= 1ull << VIRTIO_NET_F_HOST_TSO4;
	if (vnet_allowed.host_tso6 && vnet_allowed.csum)
		want |= 1ull << VIRTIO_NET_F_HOST_TSO6;
	return want;
}

/* Drop what the device offered without what it depends on. */
static uint64_t vnet_offload_fixup(uint64_t f)
{
	if (!vnet_has(f, VIRTIO_NET_F_GUEST_CSUM) ||
	    !vnet_has(f, VIRTIO_NET_F_MRG_RXBUF))
		f &= ~(1ull << VIRTIO_NET_F_GUEST_TSO4 |
		       1ull << VIRTIO_NET_F_GUEST_TSO6);
	if (!vnet_has(f, VIRTIO_NET_F_CSUM))
		f &= ~(1ull << VIRTIO_NET_F_HOST_TSO4 |
		       1ull << VIRTIO_NET_F_HOST_TSO6);
	return f;
}

/* Feature negotiation (spec 3.1.1): ACK, DRIVER, features, FEATURES_OK. */
static int vnet_negotiate(struct vnet *vn)
{
	struct virtio_pci *vp = &vn->vp;
	uint64_t want = 1ull << VIRTIO_NET_F_MAC | 1ull << VIRTIO_NET_F_STATUS |
			1ull << VIRTIO_NET_F_CTRL_VQ | 1ull << VIRTIO_NET_F_MQ |
			vnet_offload_want();

	if (vnet_allowed.event_idx)
		want |= 1ull << VIRTIO_F_EVENT_IDX;
	if (vnet_allowed.rss)
		want |= 1ull << VIRTIO_NET_F_RSS;

	if (virtio_pci_reset(vp) != 0)
		return -1;
	virtio_pci_add_status(vp, VIRTIO_STATUS_ACK);
	virtio_pci_add_status(vp, VIRTIO_STATUS_DRIVER);
	if (vp->modern)
		want |= 1ull << VIRTIO_F_VERSION_1;
	vn->offered = virtio_pci_get_features(vp);
	vn->features = vn->offered & want;
	/* MQ and RSS without a control queue cannot be switched on. */
	if (!vnet_has(vn->features, VIRTIO_NET_F_CTRL_VQ))
		vn->features &=
			~(1ull << VIRTIO_NET_F_MQ | 1ull << VIRTIO_NET_F_RSS);
	vn->features = vnet_offload_fixup(vn->features);
	virtio_pci_set_features(vp, vn->features);
	if (vp->modern) {
		if (!vnet_has(vn->features, VIRTIO_F_VERSION_1))
			return -1;
		virtio_pci_add_status(vp, VIRTIO_STATUS_FEATURES_OK);
		if (!(virtio_pci_get_status(vp) & VIRTIO_STATUS_FEATURES_OK))
			return -1;
	}
	vn->tx_csum = vnet_has(vn->features, VIRTIO_NET_F_CSUM);
	vn->rx_csum = vnet_has(vn->features, VIRTIO_NET_F_GUEST_CSUM);
	vn->mrg = vnet_has(vn->features, VIRTIO_NET_F_MRG_RXBUF);
	vn->host_tso = vnet_has(vn->features, VIRTIO_NET_F_HOST_TSO4) ||
		       vnet_has(vn->features, VIRTIO_NET_F_HOST_TSO6);
	/* num_buffers is there with VERSION_1 or MRG_RXBUF (spec 5.1.6). */
	vn->hdr_len = vp->modern || vn->mrg ? 12 : 10;
	return 0;
}

/* The device's pair count: max_virtqueue_pairs with MQ, else 1. A value
 * outside the spec's range is reported and treated as "no MQ". */
static uint16_t vnet_max_pairs(struct vnet *vn)
{
	uint16_t max;

	if (!vnet_has(vn->features, VIRTIO_NET_F_MQ))
		return 1;
	max = virtio_pci_config16(&vn->vp, VNET_CFG_MAX_PAIRS);
	if (max < VIRTIO_NET_CTRL_MQ_VQ_PAIRS_MIN ||
	    max > VIRTIO_NET_CTRL_MQ_VQ_PAIRS_MAX) {
		drv_printf("virtio-net: max_virtqueue_pairs %u out of range, "
			   "using one pair\n",
			   max);
		vn->features &= ~(1ull << VIRTIO_NET_F_MQ);
		return 1;
	}
	return max;
}

static void vnet_read_mac(struct vnet *vn)
{
	for (int i = 0; i < 6; i++)
		vn->dev.mac[i] =
			vnet_has(vn->features, VIRTIO_NET_F_MAC)
				? virtio_pci_config8(&vn->vp, VNET_CFG_MAC + i)
				: (uint8_t)(i == 0 ? 0x02
						   : i); /* local admin */
}

/*
 * HOST_TSO4/6's tables for pair i: a merged header and cookie list per TX
 * slot (vnet_gso_slot, 232 bytes: 58 KiB, one order-4 block, for 256
 * slots) and the batch being held. They are an optimisation, not a
 * need: a pair without them sends one frame per segment, exactly as with
 * virtio_host_tso=0 (xmit tests tx_batch), and a device that negotiated
 * HOST_TSO4 still takes plain frames. So when memory is too short or too
 * fragmented for them, the device comes up without the merge instead of
 * not at all (it failed the whole probe before), on every pair alike: the
 * tables of the pairs set up before are freed and the report says
 * host_tso4=off(no-memory) (and host_tso6).
 */
static void vnet_pair_tso_tables(struct vnet *vn, int i, int node)
{
	struct vnet_pair *p = &vn->pairs[i];

	p->tx_gso = kmalloc_node(sizeof(*p->tx_gso) * p->txq.num,
				 __GFP_ZERO | __GFP_NOWARN, node);
	p->tx_batch = kmalloc_node(sizeof(*p->tx_batch),
				   __GFP_ZERO | __GFP_NOWARN, node);
	if (p->tx_gso && p->tx_batch)
		return;
	for (int k = 0; k <= i; k++) {
		kfree(vn->pairs[k].tx_gso);
		kfree(vn->pairs[k].tx_batch);
		vn->pairs[k].tx_gso = NULL;
		vn->pairs[k].tx_batch = NULL;
	}
	vn->host_tso = false; /* negotiated, not used: host_tso_word */
}

/* Pair i's rings and TX headers, on CPU i's node. */
static int vnet_pair_create(struct vnet *vn, int i)
{
	struct vnet_pair *p = &vn->pairs[i];
	int node = cpu_to_mem(i); /* CPU i's memory node */

	if (virtq_create(&p->rxq, &vn->vp, VNET_RXQ(i), VNET_QUEUE_MAX, node) ||
	    virtq_create(&p->txq, &vn->vp, VNET_TXQ(i), VNET_QUEUE_MAX, node))
		return -1;
	p->tx_hdrs = kmalloc_node(sizeof(*p->tx_hdrs) * p->txq.num, __GFP_ZERO,
				  node);
	if (!p->tx_hdrs) {
		drv_printf("virtio-net: no memory for TX headers\n");
		return -1;
	}
	if (vn->host_tso)
		vnet_pair_tso_tables(vn, i, node);
	vn->dev.queues[i].cpu = i;
	vn->dev.queues[i].node = node;
	return 0;
}

/*
 * Give up on a device half set up: whatever was allocated goes back. The
 * device may already know some rings, so it is reset first (it forgets
 * every queue); a device that does not finish its reset may still write
 * into the rings, so then they are left allocated (and that is said).
 * FAILED tells the device we gave up (spec 3.1.1).
 */
static void vnet_teardown(struct vnet *vn)
{
	bool reset = virtio_pci_reset(&vn->vp) == 0;
	bool kept = false;

	for (int i = 0; i < NETDEV_MAX_QUEUES; i++) {
		struct vnet_pair *p = &vn->pairs[i];

		if (reset) {
			virtq_destroy(&p->rxq);
			virtq_destroy(&p->txq);
		} else {
			kept |= p->rxq.mem || p->txq.mem;
		}
		kfree(p->tx_hdrs);
		kfree(p->tx_gso);
		kfree(p->tx_batch);
		p->tx_hdrs = NULL;
		p->tx_gso = NULL;
		p->tx_batch = NULL;
	}
	if (reset)
		virtq_destroy(&vn->ctrlq);
	else
		kept |= vn->ctrlq.mem != NULL;
	if (kept)
		drv_printf("virtio-net: device did not reset, its queue "
			   "memory stays allocated\n");
	virtio_pci_add_status(&vn->vp, VIRTIO_STATUS_FAILED);
}

/* VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET(pairs), after DRIVER_OK; refused or
 * unanswered, the device stays on its first pair (reported). */
static int vnet_set_pairs(struct vnet *vn, int pairs)
{
	uint16_t le = (uint16_t)pairs; /* little-endian, as x86 stores it */
	int ack =
		vnet_ctrl_cmd(vn, VIRTIO_NET_CTRL_MQ,
			      VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET, &le, sizeof(le));

	if (ack == VIRTIO_NET_OK)
		return 0;
	drv_printf("virtio-net: device refused %d queue pairs (ack %d), "
		   "using one\n",
		   pairs, ack);
	return -1;
}

/* Rings for min(device pairs, max_queues) pairs, the control queue when
 * more than one is wanted. Returns the pairs set up, or -1. */
static int vnet_create_queues(struct vnet *vn, int max_queues)
{
	int want;

	vn->max_pairs = vnet_max_pairs(vn);
	want = vn->max_pairs < max_queues ? vn->max_pairs : max_queues;
	if (want > NETDEV_MAX_QUEUES)
		want = NETDEV_MAX_QUEUES;
	if (want < 1)
		want = 1;
	for (int i = 0; i < want; i++)
		if (vnet_pair_create(vn, i) != 0)
			return -1;
	if (want > 1 &&
	    virtq_create(&vn->ctrlq, &vn->vp, (uint16_t)(2 * vn->max_pairs),
			 VNET_CTRL_QUEUE_MAX, numa_mem_id()) != 0)
		return -1;
	if (vnet_has(vn->features, VIRTIO_F_EVENT_IDX)) {
		for (int i = 0; i < want; i++) {
			virtq_use_event_idx(&vn->pairs[i].rxq);
			virtq_use_event_idx(&vn->pairs[i].txq);
		}
		if (want > 1)
			virtq_use_event_idx(&vn->ctrlq);
	}
	return want;
}

/* NETDEV_OFF_TSO4/6: a large segment needs the merge path (its tables,
 * which vnet_pair_tso_tables may have given up on) and its family's
 * HOST_TSO negotiated; without them xmit would refuse it. */
static unsigned int vnet_large_tso(const struct vnet *vn)
{
	if (!vn->host_tso)
		return 0;
	return (vnet_has(vn->features, VIRTIO_NET_F_HOST_TSO4) ? NETDEV_OFF_TSO4
							       : 0) |
	       (vnet_has(vn->features, VIRTIO_NET_F_HOST_TSO6) ? NETDEV_OFF_TSO6
							       : 0);
}

static int vnet_setup(struct vnet *vn, struct pci_dev *d, bool allow_modern,
		      int max_queues)
{
	if (virtio_pci_init(&vn->vp, d, allow_modern) != 0)
		return -1;
	if (vnet_negotiate(vn) != 0) {
		drv_printf("virtio-net: feature negotiation failed\n");
		goto fail;
	}
	vn->npairs = vnet_create_queues(vn, max_queues);
	if (vn->npairs < 1)
		goto fail;
	vnet_read_mac(vn);
	vn->dev.kind = vn->vp.modern ? "virtio" : "virtio-legacy";
	vn->dev.mtu = 1500;
	vn->dev.dev_node = d->node;
	vn->dev.ops = &vnet_ops;
	vn->dev.priv = vn;
	vn->dev.nqueues = 1;
	vn->dev.offloads =
		(vn->tx_csum ? NETDEV_OFF_TX_CSUM : 0) |
		(vn->rx_csum ? NETDEV_OFF_RX_CSUM : 0) |
		(vnet_has(vn->features, VIRTIO_NET_F_GUEST_TSO4) ||
				 vnet_has(vn->features, VIRTIO_NET_F_GUEST_TSO6)
			 ? NETDEV_OFF_RX_BIG
			 : 0) |
		vnet_large_tso(vn);
	virtio_pci_add_status(&vn->vp, VIRTIO_STATUS_DRIVER_OK);
	/* With RSS the RSS command sets the pair count too (spec
	 * 5.1.6.5.7.1: max_tx_vq); refused, the plain one still may. */
	if (vn->npairs > 1 &&
	    (vnet_rss_setup(vn) == 0 || vnet_set_pairs(vn, vn->npairs) == 0))
		vn->dev.nqueues = vn->npairs;
	return 0;
fail:
	vnet_teardown(vn);
	return -1;
}

/* One offload's word in the boot report: on, off (not offered), or off
 * by a boot switch. */
static const char *offload_word(const struct vnet *vn, int bit, bool allowed)
{
	if (vnet_has(vn->features, bit))
		return "on";
	if (!allowed)
		return "off(switch)";
	return vnet_has(vn->offered, bit) ? "off(needs-csum+mrg)"
					  : "off(not-offered)";
}

/* HOST_TSO4's or HOST_TSO6's word: it depends on CSUM only. */
static const char *host_tso_word(const struct vnet *vn, int bit, bool allowed)
{
	if (vnet_has(vn->features, bit))
		/* negotiated: used unless vnet_pair_tso_tables gave up */
		return vn->host_tso ? "on" : "off(no-memory)";
	if (!allowed)
		return "off(switch)";
	return vnet_has(vn->offered, bit) ? "off(needs-csum)"
					  : "off(not-offered)";
}

static void vnet_report_offloads(const struct vnet *vn)
{
	drv_printf("virtio-net: %s offloads csum=%s guest_csum=%s "
		   "guest_tso4=%s guest_tso6=%s mrg_rxbuf=%s host_tso4=%s "
		   "host_tso6=%s\n",
		   vn->dev.name,
		   offload_word(vn, VIRTIO_NET_F_CSUM, vnet_allowed.csum),
		   offload_word(vn, VIRTIO_NET_F_GUEST_CSUM, vnet_allowed.csum),
		   offload_word(vn, VIRTIO_NET_F_GUEST_TSO4, vnet_allowed.tso),
		   offload_word(vn, VIRTIO_NET_F_GUEST_TSO6, vnet_allowed.tso6),
		   offload_word(vn, VIRTIO_NET_F_MRG_RXBUF, vnet_allowed.mrg),
		   host_tso_word(vn, VIRTIO_NET_F_HOST_TSO4,
				 vnet_allowed.host_tso),
		   host_tso_word(vn, VIRTIO_NET_F_HOST_TSO6,
				 vnet_allowed.host_tso6));
	drv_printf(
		"virtio-net: %s event_idx=%s\n", vn->dev.name,
		offload_word(vn, VIRTIO_F_EVENT_IDX, vnet_allowed.event_idx));
}

/* RSS's word: on with its table, or why not (a device with one pair has
 * nothing to steer: RSS is then negotiated but not programmed). */
static void vnet_report_rss(const struct vnet *vn)
{
	const char *name = vn->dev.name;

	if (vn->rss)
		drv_printf("virtio-net: %s rss=on table=%d key=%d\n", name,
			   vn->dev.rss_table_len, NETDEV_RSS_KEY_LEN);
	else if (vn->rss_word)
		drv_printf("virtio-net: %s rss=off(%s)\n", name, vn->rss_word);
	else if (vnet_has(vn->features, VIRTIO_NET_F_RSS))
		drv_printf("virtio-net: %s rss=off(one-pair)\n", name);
	else
		drv_printf("virtio-net: %s rss=off(%s)\n", name,
			   !vnet_allowed.rss ? "switch"
			   : vnet_has(vn->offered, VIRTIO_NET_F_RSS)
				   ? "no-ctrl-vq"
				   : "not-offered");
}

/* The boot report: who polls which queue, and which CPUs poll none. */
static void vnet_report(const struct vnet *vn, const struct pci_dev *d)
{
	const struct netdev *dev = &vn->dev;
	int cpus = drv_nr_cpus();

	drv_printf("virtio-net: %s %02x:%02x.%x %s "
		   "mac=%02x:%02x:%02x:%02x:%02x:%02x queues rx=%u tx=%u "
		   "pairs=%d of %u\n",
		   dev->name, d->bus, d->dev, d->fn, dev->kind, dev->mac[0],
		   dev->mac[1], dev->mac[2], dev->mac[3], dev->mac[4],
		   dev->mac[5], vn->pairs[0].rxq.num, vn->pairs[0].txq.num,
		   dev->nqueues, vn->max_pairs);
	vnet_report_offloads(vn);
	vnet_report_rss(vn);
	for (int i = 0; i < dev->nqueues; i++)
		drv_printf("virtio-net: %s queue %d rx=%d tx=%d cpu=%d "
			   "node=%d\n",
			   dev->name, i, VNET_RXQ(i), VNET_TXQ(i),
			   dev->queues[i].cpu, dev->queues[i].node);
	if (cpus > dev->nqueues)
		drv_printf(
			"virtio-net: %s %d pairs for %d cpus: cpus %d-%d own "
			"no queue, cpus 0-%d do the packet work\n",
			dev->name, dev->nqueues, cpus, dev->nqueues, cpus - 1,
			dev->nqueues - 1);
}

static bool is_virtio_net(const struct pci_dev *d)
{
	if (d->vendor != VIRTIO_VENDOR)
		return false;
	/* 0x1041: modern-only; 0x1000 transitional with subsystem id 1. */
	return d->device == 0x1041 ||
	       (d->device == 0x1000 && d->subsys_id == 1);
}

/* A new device brought up; NULL when memory or the set-up failed
 * (reported, and the device left with bus mastering off). */
static struct vnet *vnet_bring_up(struct pci_dev *d, bool allow_modern,
				  int max_queues)
{
	struct vnet *vn = kmalloc(sizeof(*vn), GFP_KERNEL | __GFP_ZERO);

	if (!vn)
		drv_printf("virtio-net: %02x:%02x.%x: no memory for the "
			   "device\n",
			   d->bus, d->dev, d->fn);
	else if (vnet_setup(vn, d, allow_modern, max_queues) == 0)
		return vn;
	kfree(vn); /* vnet_setup tore down what it had set up */
	pci_disable_master(d);
	return NULL;
}

/* A device no netdev keeps: its queues freed (when it reset), bus
 * mastering off so it can write nowhere, its state freed. */
static void vnet_discard(struct vnet *vn, const struct pci_dev *d)
{
	vnet_teardown(vn);
	pci_disable_master(d);
	kfree(vn);
}

int virtio_net_probe(bool allow_modern, int max_queues)
{
	int found = 0;

	for (int i = 0; i < pci_count(); i++) {
		struct pci_dev *d = pci_get(i);
		struct vnet *vn;

		if (!is_virtio_net(d))
			continue;
		if (!netdev_room()) {
			netdev_left_out("virtio-net", d);
			pci_disable_master(d);
			continue;
		}
		vn = vnet_bring_up(d, allow_modern, max_queues);
		if (!vn)
			continue;
		if (netdev_register(&vn->dev) != 0) {
			vnet_discard(vn, d);
			continue;
		}
		found++;
		vnet_report(vn, d);
	}
	return found;
}
