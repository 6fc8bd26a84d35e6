/*
 * e1000/e1000e interrupts, NAPI style: queue 0's interrupt is delivered
 * to the CPU that polls the pair, and its handler only masks the queue's
 * causes and wakes that CPU's poller. The poller works with them masked
 * and unmasks them (irq_arm) only when a round finds the rings idle. A
 * link change (LSC) interrupts too: the handler notes it, and the woken
 * poller reads STATUS.LU and tells the stack at once (link_changed),
 * rather than at its next periodic link look.
 *
 * Delivery, best first:
 *  - MSI-X (the 82574L: five table entries, causes routed by IVAR,
 *    programmed in e1000e_hw.c): entry 0 for RX queue 0, entry 1 for TX
 *    queue 0, both aimed at queue 0's CPU; entry 2 for the other causes
 *    (link). EIAC auto-clears RXQ0/TXQ0 in ICR when their message is
 *    sent, so the queue handlers touch one register (IMC); the other
 *    handler clears OTHER and LSC itself (written 1s clear ICR bits) and
 *    masks nothing, so link changes interrupt even while the queue is
 *    polled.
 *  - MSI (one message for every cause);
 *  - else the INTx line (QEMU's 82540EM has no MSI), which other
 *    functions may share, so the handler reads ICR first -- reading
 *    clears it and deasserts the pin -- and leaves at once when none of
 *    our causes is set. With one vector for all causes it masks them all.
 *
 * No lost wake-up (irq_arm): it clears the queue's causes latched while
 * the poller worked (reading ICR, or writing the MSI-X queue bits; else
 * they would fire a useless interrupt the moment IMS is written), writes
 * IMS, then looks at the RX slot the next frame lands in and at the
 * oldest TX frame. The device writes a descriptor back before it sets
 * the cause. So a frame written back before the clear is seen by the
 * look; one written back after it sets a cause that, once IMS is
 * written, raises the interrupt (at once if the cause came first).
 * Either way the poller runs again.
 */
#include <string.h>

#include "e1000_internal.h"

#include "e1000_regs.h"
#include "e1000e_regs.h"

/* One vector for everything (MSI, INTx): what it unmasks and masks. */
#define E1000_IRQ_CAUSES \
	(E1000_ICR_RXT0 | E1000_ICR_RXO | E1000_ICR_TXDW | E1000_ICR_LSC)
/* MSI-X: queue 0's causes, and the always-enabled other ones. */
#define E1000E_QUEUE_CAUSES (E1000E_ICR_RXQ0 | E1000E_ICR_TXQ0)
#define E1000E_OTHER_CAUSES (E1000E_ICR_OTHER | E1000_ICR_LSC)
/* MSI-X table entries, as IVAR routes the causes to them. */
#define MSIX_RX0	    0
#define MSIX_TX0	    1
#define MSIX_OTHER	    2

/* One vector for all causes (MSI, INTx), on the pair's CPU. */
static void e1000_irq(void *arg)
{
	struct e1000 *e = arg;
	uint32_t icr = e1000_rd32(e, E1000_ICR);

	if (!(icr & E1000_IRQ_CAUSES))
		return; /* a shared line's other device, or a stale cause */
	e1000_wr32(e, E1000_IMC, 0xffffffffu);
	if (icr & E1000_ICR_LSC)
		gbe_link_event(&e->hw, &e->dev);
	e->dev.queues[0].stats.interrupts++;
	drv_irq_wake(e->dev.queues[0].cpu);
}

/* MSI-X RX0 and TX0 entries: queue 0's work. EIAC cleared the cause. */
static void e1000e_queue_irq(void *arg)
{
	struct e1000 *e = arg;

	e1000_wr32(e, E1000_IMC, E1000E_QUEUE_CAUSES);
	e->dev.queues[0].stats.interrupts++;
	drv_irq_wake(e->dev.queues[0].cpu);
}

/* MSI-X other entry: link (or another non-queue cause, such as an RX
 * overrun, which the poller sees for itself). Left unmasked. */
static void e1000e_other_irq(void *arg)
{
	struct e1000 *e = arg;
	uint32_t icr = e1000_rd32(e, E1000_ICR);

	e1000_wr32(e, E1000_ICR, E1000E_OTHER_CAUSES);
	if (icr & E1000_ICR_LSC)
		gbe_link_event(&e->hw, &e->dev);
	drv_irq_wake(e->dev.queues[0].cpu);
}

/*
 * MSI-X on a part with IVAR: three vectors on queue 0's CPU. Returns 0
 * (vectors in e->msix_vec[]), or -1 before enabling anything, so MSI or
 * INTx can still be had.
 */
static int e1000e_msix_setup(struct e1000 *e)
{
	int cpu = e->dev.queues[0].cpu;
	volatile uint32_t *table;

	if (!e->ivar || pci_msix_size(e->hw.pci) < E1000E_IVAR_VECTORS)
		return -1;
	table = pci_msix_map(e->hw.pci);
	if (!table)
		return -1;
	e->msix_vec[MSIX_RX0] =
		pci_msix_vector(table, MSIX_RX0, cpu, e1000e_queue_irq, e);
	e->msix_vec[MSIX_TX0] =
		pci_msix_vector(table, MSIX_TX0, cpu, e1000e_queue_irq, e);
	e->msix_vec[MSIX_OTHER] =
		pci_msix_vector(table, MSIX_OTHER, cpu, e1000e_other_irq, e);
	for (int i = 0; i < E1000E_IVAR_VECTORS; i++) {
		if (e->msix_vec[i] >= 0)
			continue;
		/* give back the ones taken: MSI or INTx gets its own */
		for (int j = 0; j < E1000E_IVAR_VECTORS; j++)
			if (e->msix_vec[j] >= 0)
				drv_irq_free(e->msix_vec[j]);
		return -1;
	}
	pci_msix_enable(e->hw.pci);
	e1000_wr32(e, E1000E_EIAC, E1000E_QUEUE_CAUSES);
	e1000_wr32(e, E1000_ICR, 0xffffffffu);
	e1000_wr32(e, E1000_IMS, E1000E_OTHER_CAUSES); /* link, from now on */
	e->msix = true;
	return 0;
}

/* MSI, else the INTx line: one vector. Returns it, or -1. An MSI
 * vector the function cannot use (no 64-bit address) is given back and
 * the line is tried instead. */
static int e1000_single_setup(struct e1000 *e)
{
	struct netdev_queue *nq = &e->dev.queues[0];
	uint64_t addr;
	uint32_t data;
	int v;

	if (e->hw.pci->cap_msi) {
		v = drv_irq_msi(nq->cpu, e1000_irq, e, &addr, &data);
		if (v >= 0 && pci_msi_enable(e->hw.pci, addr, data) == 0) {
			nq->irq_mode = "msi";
			return v;
		}
		if (v >= 0)
			drv_irq_free(v);
	}
	v = drv_irq_line(e->hw.pci->irq_line, nq->cpu, e1000_irq, e);
	if (v >= 0)
		nq->irq_mode = "intx";
	return v;
}

int e1000_irq_setup(struct netdev *dev)
{
	struct e1000 *e = dev->priv;
	struct netdev_queue *nq = &dev->queues[0];

	if (e1000e_msix_setup(e) == 0) {
		nq->irq_mode = "msix";
		nq->irq_vector = e->msix_vec[MSIX_RX0];
		drv_printf("%s: %s queue 0: msix vector 0x%x cpu %d (rx 0x%x "
			   "tx 0x%x link 0x%x)\n",
			   dev->kind, dev->name, nq->irq_vector, nq->cpu,
			   e->msix_vec[MSIX_RX0], e->msix_vec[MSIX_TX0],
			   e->msix_vec[MSIX_OTHER]);
		return 0;
	}
	if (e->ivar && e->hw.pci->cap_msix)
		drv_printf("%s: %s: MSI-X not usable (%d entries), falling "
			   "back\n",
			   dev->kind, dev->name, pci_msix_size(e->hw.pci));
	nq->irq_vector = e1000_single_setup(e);
	if (nq->irq_vector < 0) {
		drv_printf("%s: %s: no interrupt, polled\n", dev->kind,
			   dev->name);
		return -1;
	}
	drv_printf("%s: %s queue 0: %s vector 0x%x cpu %d%s\n", dev->kind,
		   dev->name, nq->irq_mode, nq->irq_vector, nq->cpu,
		   !strcmp(nq->irq_mode, "intx") ? " (line shared, level)"
						 : "");
	return 0;
}

bool e1000_irq_arm(struct netdev *dev, int q)
{
	struct e1000 *e = dev->priv;

	if (e->msix) {
		e1000_wr32(e, E1000_ICR, E1000E_QUEUE_CAUSES);
		e1000_wr32(e, E1000_IMS, E1000E_QUEUE_CAUSES);
	} else if (e1000_rd32(e, E1000_ICR) & E1000_ICR_LSC) {
		/* a link change while masked: the read cleared it */
		gbe_link_event(&e->hw, &e->dev);
		e1000_wr32(e, E1000_IMS, E1000_IRQ_CAUSES);
	} else {
		e1000_wr32(e, E1000_IMS, E1000_IRQ_CAUSES);
	}
	return (e->rx_posted &&
		(e->rx_ring[e->rx_next].status & E1000_RXD_STAT_DD)) ||
	       dev->ops->tx_pending(dev, q);
}

void e1000_irq_disarm(struct netdev *dev, int q)
{
	struct e1000 *e = dev->priv;

	(void)q;
	e1000_wr32(e, E1000_IMC, e->msix ? E1000E_QUEUE_CAUSES : 0xffffffffu);
}

bool e1000_link_changed(struct netdev *dev)
{
	struct e1000 *e = dev->priv;

	return gbe_link_changed(&e->hw);
}
