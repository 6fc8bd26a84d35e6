/*
 * e1000/e1000e interrupts, NAPI style: one interrupt per queue pair,
 * delivered to the CPU that polls the pair, whose handler only masks
 * every cause (IMC) and wakes that CPU's poller. The poller works with
 * the interrupt masked and unmasks it (irq_arm) only when a round finds
 * the rings idle.
 *
 * Delivery: MSI when the function has it (the 82574L), else its INTx line
 * (QEMU's 82540EM has no MSI), which other functions may share, so the
 * handler reads ICR first — reading clears it and deasserts the pin — and
 * leaves at once when none of our causes is set. With MSI the read is
 * the acknowledgement. The 82574L's MSI-X (its IVAR, programmed at reset)
 * would give RX and TX vectors of their own; with one pair and one CPU
 * there is nothing to gain, so MSI it is.
 *
 * No lost wake-up (irq_arm): it reads ICR (dropping causes latched while
 * the poller worked, which would otherwise fire a useless interrupt the
 * moment IMS is written), writes IMS, then looks at the RX slot the next
 * frame lands in and at the oldest TX frame. The device writes a
 * descriptor back before it sets the cause. So a frame written back
 * before the ICR read is seen by the look; one written back after it sets
 * a cause that, once IMS is written, raises the interrupt (at once if the
 * cause came first). Either way the poller runs again.
 */
#include "e1000_internal.h"

#include "e1000_regs.h"

#define E1000_IRQ_CAUSES (E1000_ICR_RXT0 | E1000_ICR_RXO | E1000_ICR_TXDW)

/* Interrupt context, on the pair's CPU. */
static void e1000_irq(void *arg)
{
	struct e1000 *e = arg;

	if (!(rd32(e, E1000_ICR) & E1000_IRQ_CAUSES))
		return; /* a shared line's other device, or a stale cause */
	wr32(e, E1000_IMC, 0xffffffffu);
	e->dev.queues[0].stats.interrupts++;
	drv_irq_wake(e->dev.queues[0].cpu);
}

int e1000_irq_setup(struct netdev *dev)
{
	struct e1000 *e = dev->priv;
	struct netdev_queue *nq = &dev->queues[0];
	uint64_t addr;
	uint32_t data;
	int v;

	if (e->pci->cap_msi) {
		v = drv_irq_msi(nq->cpu, e1000_irq, e, &addr, &data);
		if (v >= 0 && pci_msi_enable(e->pci, addr, data) == 0)
			nq->irq_mode = "msi";
	} else {
		v = drv_irq_line(e->pci->irq_line, nq->cpu, e1000_irq, e);
		if (v >= 0)
			nq->irq_mode = "intx";
	}
	if (!nq->irq_mode) {
		drv_printf("%s: %s: no interrupt, polled\n", dev->kind,
			   dev->name);
		return -1;
	}
	nq->irq_vector = v;
	drv_printf("%s: %s queue 0: %s vector 0x%x cpu %d%s\n", dev->kind,
		   dev->name, nq->irq_mode, v, nq->cpu,
		   e->pci->cap_msi ? "" : " (line shared, level)");
	return 0;
}

bool e1000_irq_arm(struct netdev *dev, int q)
{
	struct e1000 *e = dev->priv;

	(void)rd32(e, E1000_ICR);
	wr32(e, E1000_IMS, E1000_IRQ_CAUSES);
	return (e->rx_posted &&
		(e->rx_ring[e->rx_next].status & E1000_RXD_STAT_DD)) ||
	       dev->ops->tx_pending(dev, q);
}

void e1000_irq_disarm(struct netdev *dev, int q)
{
	struct e1000 *e = dev->priv;

	(void)q;
	wr32(e, E1000_IMC, 0xffffffffu);
}
