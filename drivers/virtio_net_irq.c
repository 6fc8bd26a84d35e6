/*
 * virtio-net interrupts, NAPI style: each queue pair's interrupt goes to
 * the CPU that polls the pair, and its handler only turns the pair's
 * interrupts off (VIRTQ_AVAIL_F_NO_INTERRUPT on both rings, or with
 * VIRTIO_F_EVENT_IDX a used_event the device has already passed) and
 * wakes that CPU's poller. The poller turns them back on (irq_arm) only when a
 * round finds the rings idle.
 *
 * Delivery. Modern transport with MSI-X: table entry 0 for configuration
 * changes (the link), entry 1 + i for pair i (its RX and TX rings share
 * it), each a vector of its own on the pair's CPU; no ISR read is needed.
 * The control queue stays without a vector: it is used at boot only, and
 * polled then. Legacy transport (and a modern device with fewer MSI-X
 * entries than pairs + 1): the function's INTx line, shared and
 * level-triggered, so the handler reads the ISR byte (which acknowledges
 * and deasserts it), leaves when it is 0, and else turns every pair off
 * and wakes every pair's CPU.
 *
 * No lost wake-up (irq_arm): virtq_irq_enable clears the flag (with
 * EVENT_IDX: publishes used_event = the last used index it has seen),
 * fences, then reads the used index again. The device publishes a used
 * index, fences, then reads the flag or used_event. So either the device
 * reads after our store and interrupts, or our read comes after its store
 * and sees the chain; irq_arm then returns true and the poller polls
 * again (the full argument is above virtq_irq_enable, virtqueue.c).
 */
#include "drv_port.h"
#include "virtio_net_internal.h"

#define VNET_MSIX_CONFIG 0 /* MSI-X entry for configuration changes */
#define VNET_MSIX_PAIR0	 1 /* pair i uses entry 1 + i */

static void pair_irq_off(struct vnet *vn, int q)
{
	virtq_irq_disable(&vn->pairs[q].rxq);
	virtq_irq_disable(&vn->pairs[q].txq);
}

/* MSI-X, interrupt context on pair q's CPU. */
static void vnet_pair_irq(void *arg)
{
	struct vnet_irq *vi = arg;
	struct netdev_queue *nq = &vi->vn->dev.queues[vi->q];

	pair_irq_off(vi->vn, vi->q);
	nq->stats.interrupts++;
	drv_irq_wake(nq->cpu);
}

/* MSI-X configuration change: queue 0's poller reads the link. */
static void vnet_config_irq(void *arg)
{
	struct vnet *vn = arg;

	drv_irq_wake(vn->dev.queues[0].cpu);
}

/* INTx (shared line), interrupt context on queue 0's CPU. */
static void vnet_intx_irq(void *arg)
{
	struct vnet *vn = arg;

	if (!virtio_pci_isr(&vn->vp))
		return; /* another device on the line */
	for (int q = 0; q < vn->dev.nqueues; q++) {
		pair_irq_off(vn, q);
		vn->dev.queues[q].stats.interrupts++;
		drv_irq_wake(vn->dev.queues[q].cpu);
	}
}

/*
 * Undo a half-done MSI-X set-up so that INTx can take over: the device
 * told to use no vector, MSI-X off and the INTx pin on again, and every
 * vector taken so far given back. Without this a device that refuses a
 * vector once MSI-X is on stays with MSI-X on and INTx off, and no queue
 * gets an interrupt again.
 */
static void vnet_msix_undo(struct vnet *vn, int config_vec, int queues_done)
{
	struct netdev *dev = &vn->dev;

	(void)virtio_pci_config_vector(&vn->vp, VIRTIO_MSI_NO_VECTOR);
	for (int q = 0; q < dev->nqueues; q++) {
		(void)virtio_pci_queue_vector(&vn->vp, VNET_RXQ(q),
					      VIRTIO_MSI_NO_VECTOR);
		(void)virtio_pci_queue_vector(&vn->vp, VNET_TXQ(q),
					      VIRTIO_MSI_NO_VECTOR);
	}
	pci_msix_disable(vn->vp.pci);
	pci_intx_enable(vn->vp.pci);
	if (config_vec >= 0)
		drv_irq_free(config_vec);
	for (int q = 0; q < queues_done; q++) {
		drv_irq_free(dev->queues[q].irq_vector);
		dev->queues[q].irq_vector = -1;
	}
}

/* The table's vectors: entry 0 for the configuration, 1 + q for pair q.
 * Returns the vectors taken for pairs (all of them on success), and the
 * configuration's vector in *config_vec (-1: none). */
static int vnet_msix_vectors(struct vnet *vn, volatile uint32_t *table,
			     int *config_vec)
{
	struct netdev *dev = &vn->dev;

	*config_vec = pci_msix_vector(table, VNET_MSIX_CONFIG,
				      dev->queues[0].cpu, vnet_config_irq, vn);
	if (*config_vec < 0)
		return 0;
	for (int q = 0; q < dev->nqueues; q++) {
		vn->irq[q] = (struct vnet_irq){vn, q};
		dev->queues[q].irq_vector = pci_msix_vector(
			table, VNET_MSIX_PAIR0 + q, dev->queues[q].cpu,
			vnet_pair_irq, &vn->irq[q]);
		if (dev->queues[q].irq_vector < 0)
			return q;
	}
	return dev->nqueues;
}

/* Tell the device which entry signals what; false when it refuses one
 * (reads back VIRTIO_MSI_NO_VECTOR: out of vectors). */
static bool vnet_msix_route(struct vnet *vn)
{
	if (virtio_pci_config_vector(&vn->vp, VNET_MSIX_CONFIG) != 0)
		return false;
	for (int q = 0; q < vn->dev.nqueues; q++) {
		uint16_t e = (uint16_t)(VNET_MSIX_PAIR0 + q);

		if (virtio_pci_queue_vector(&vn->vp, VNET_RXQ(q), e) != 0 ||
		    virtio_pci_queue_vector(&vn->vp, VNET_TXQ(q), e) != 0)
			return false;
	}
	return true;
}

static int vnet_msix_setup(struct vnet *vn)
{
	struct netdev *dev = &vn->dev;
	volatile uint32_t *table;
	int config_vec, done;

	if (!vn->vp.modern ||
	    pci_msix_size(vn->vp.pci) < VNET_MSIX_PAIR0 + dev->nqueues)
		return -1;
	table = pci_msix_map(vn->vp.pci);
	if (!table)
		return -1;
	done = vnet_msix_vectors(vn, table, &config_vec);
	if (done < dev->nqueues) {
		vnet_msix_undo(vn, config_vec, done);
		return -1;
	}
	pci_msix_enable(vn->vp.pci);
	if (!vnet_msix_route(vn)) {
		vnet_msix_undo(vn, config_vec, done);
		return -1;
	}
	for (int q = 0; q < dev->nqueues; q++)
		dev->queues[q].irq_mode = "msix";
	return 0;
}

static int vnet_intx_setup(struct vnet *vn)
{
	struct netdev *dev = &vn->dev;
	int v;

	/* Acknowledge what came before the handler: QEMU interrupts for a
	 * queue's first used entry whatever used_event says, so with
	 * EVENT_IDX the control queue's answer at boot (multiqueue) left
	 * the ISR set and the line asserted, and the queues then took no
	 * interrupt at all (legacy, 4 pairs: 0 interrupts; with this read,
	 * 16 per queue in the same run). */
	(void)virtio_pci_isr(&vn->vp);
	v = drv_irq_line(vn->vp.pci->irq_line, dev->queues[0].cpu,
			 vnet_intx_irq, vn);

	if (v < 0)
		return -1;
	for (int q = 0; q < dev->nqueues; q++) {
		dev->queues[q].irq_mode = "intx";
		dev->queues[q].irq_vector = v;
	}
	return 0;
}

int vnet_irq_setup(struct netdev *dev)
{
	struct vnet *vn = dev->priv;

	if (vnet_msix_setup(vn) != 0) {
		for (int q = 0; q < dev->nqueues; q++)
			dev->queues[q].irq_mode = NULL;
		if (vn->vp.modern && vn->vp.pci->cap_msix)
			drv_printf("virtio-net: %s: MSI-X not usable (%d "
				   "entries for %d pairs + config, or a "
				   "vector refused), INTx\n",
				   dev->name, pci_msix_size(vn->vp.pci),
				   dev->nqueues);
		if (vnet_intx_setup(vn) != 0) {
			drv_printf("virtio-net: %s: no interrupt, polled\n",
				   dev->name);
			return -1;
		}
	}
	for (int q = 0; q < dev->nqueues; q++)
		drv_printf("virtio-net: %s queue %d: %s vector 0x%x cpu %d\n",
			   dev->name, q, dev->queues[q].irq_mode,
			   dev->queues[q].irq_vector, dev->queues[q].cpu);
	return 0;
}

bool vnet_irq_arm(struct netdev *dev, int q)
{
	struct vnet *vn = dev->priv;
	bool rx = virtq_irq_enable(&vn->pairs[q].rxq);

	return virtq_irq_enable(&vn->pairs[q].txq) || rx;
}

void vnet_irq_disarm(struct netdev *dev, int q)
{
	pair_irq_off(dev->priv, q);
}
