/*
 * igb interrupts, NAPI style (as e1000_irq.c): a queue's interrupt is
 * delivered to the CPU that polls the pair, and its handler only masks it
 * and wakes that CPU's poller, which unmasks it (irq_arm) when a round
 * finds the rings idle. A link change (LSC) interrupts too; the woken
 * queue-0 poller reads STATUS.LU at once (link_changed).
 *
 * Delivery, best first (82576 datasheet 7.3):
 *  - MSI-X, GPIE in MSI-X mode: vector q for queue pair q (IVAR routes
 *    both RX q and TX q to it), aimed at CPU q, and one more vector for
 *    the other causes (IVAR_MISC; LSC is the one enabled in IMS), aimed
 *    at queue 0's CPU. EIAC auto-clears a vector's EICR bit when its
 *    message goes out, so a queue handler writes one register (EIMC, its
 *    bit); the other handler reads ICR (GPIE.NSICR: the read clears it)
 *    and masks nothing, so link changes interrupt while queues are
 *    polled. EITR caps each vector's rate.
 *  - MSI (one message), else the INTx line, which other functions may
 *    share: the part then has one cause set (ICR: RXDW, TXDW, LSC) for
 *    every queue, so the handler masks them all and wakes every queue's
 *    CPU; a queue that finds nothing arms again. irq_disarm masks nothing
 *    here: the mask is shared, and a busy queue must not mask it under
 *    a sleeping one.
 *
 * No lost wake-up (irq_arm): the queue's latched cause is cleared (EICR
 * bit, or ICR read), the mask opened, then the RX slot the next frame
 * lands in and the oldest TX frame are looked at. The device writes a
 * descriptor back before it sets the cause, so a frame written back
 * before the clear is seen by the look, and one after it raises the
 * interrupt once the mask is open.
 */
#include <string.h>

#include "igb_internal.h"

/* One vector for every queue (MSI, INTx): the causes it unmasks. */
#define IGB_SHARED_CAUSES \
	(E1000_ICR_RXT0 | E1000_ICR_RXO | E1000_ICR_TXDW | E1000_ICR_LSC)
/* GPIE: MSI-X mode, clear ICR on read, PBA support. */
#define IGB_GPIE_NSICR	 (1u << 0)
#define IGB_GPIE_MSIX	 (1u << 4)
#define IGB_GPIE_PBA	 (1u << 31)
#define IGB_IVAR_VALID	 0x80u
/* EITR: interval in bits 14:2; 196 is ~20000 interrupts a second, the
 * cap e1000e uses too. */
#define IGB_EITR_DEFAULT 196u

/* ---------------------------------------------------------- handlers */

/* MSI-X vector of queue pair q: EIAC cleared its cause; mask, wake. */
static void igb_queue_irq(void *arg)
{
	struct igb_pair *p = arg;
	struct igb *g = p->owner;
	int q = p->q;

	igb_wr32(g, IGB_EIMC, 1u << q);
	g->dev.queues[q].stats.interrupts++;
	drv_irq_wake(g->dev.queues[q].cpu);
}

/* MSI-X other vector: a link change (or a cause the poller sees for
 * itself). Left unmasked. */
static void igb_other_irq(void *arg)
{
	struct igb *g = arg;

	if (igb_rd32(g, E1000_ICR) & E1000_ICR_LSC)
		gbe_link_event(&g->hw, &g->dev);
	drv_irq_wake(g->dev.queues[0].cpu);
}

/* MSI or INTx: one vector for every queue, on queue 0's CPU. */
static void igb_shared_irq(void *arg)
{
	struct igb *g = arg;
	uint32_t icr = igb_rd32(g, E1000_ICR); /* the read clears it */

	if (!(icr & IGB_SHARED_CAUSES))
		return; /* a shared line's other device, or a stale cause */
	igb_wr32(g, E1000_IMC, 0xffffffffu);
	if (icr & E1000_ICR_LSC)
		gbe_link_event(&g->hw, &g->dev);
	for (int q = 0; q < g->dev.nqueues; q++) {
		g->dev.queues[q].stats.interrupts++;
		drv_irq_wake(g->dev.queues[q].cpu);
	}
}

/* ----------------------------------------------------------- routing */

/* IVAR: RX and TX of queue q to MSI-X vector v. The 82576 keeps queue q
 * in register q % 8, RX in byte 0 (q < 8) or 2, TX one byte above; the
 * I350 and I210/I211 keep it in register q / 2, RX in byte 0 (q even)
 * or 2. */
static void igb_ivar_queue(struct igb *g, int q, int v)
{
	unsigned int reg, shift;
	uint32_t ivar;

	if (g->model->mac == IGB_82576) {
		reg = (unsigned int)q & 7u;
		shift = q & 8 ? 16 : 0;
	} else {
		reg = (unsigned int)q >> 1;
		shift = q & 1 ? 16 : 0;
	}
	ivar = igb_rd32(g, IGB_IVAR(reg));
	ivar &= ~(0xffffu << shift);
	ivar |= ((uint32_t)v | IGB_IVAR_VALID) << shift;       /* RX */
	ivar |= ((uint32_t)v | IGB_IVAR_VALID) << (shift + 8); /* TX */
	igb_wr32(g, IGB_IVAR(reg), ivar);
}

/* Give back the MSI-X vectors taken so far (MSI or INTx gets its own). */
static void igb_msix_release(struct igb *g, int taken)
{
	for (int i = 0; i < taken; i++)
		drv_irq_free(g->msix_vec[i]);
}

/*
 * MSI-X: a vector per queue pair on its CPU, and the other vector on
 * queue 0's CPU. Returns 0, or -1 before enabling anything, so MSI or
 * INTx can still be had.
 */
static int igb_msix_setup(struct igb *g)
{
	int nq = g->dev.nqueues, n = nq + 1;
	volatile uint32_t *table;

	if (pci_msix_size(g->hw.pci) < n)
		return -1;
	table = pci_msix_map(g->hw.pci);
	if (!table)
		return -1;
	for (int i = 0; i < n; i++) {
		g->msix_vec[i] =
			i < nq ? pci_msix_vector(table, i, g->dev.queues[i].cpu,
						 igb_queue_irq, g->pairs[i])
			       : pci_msix_vector(table, i, g->dev.queues[0].cpu,
						 igb_other_irq, g);
		if (g->msix_vec[i] < 0) {
			igb_msix_release(g, i);
			return -1;
		}
	}
	igb_wr32(g, IGB_GPIE, IGB_GPIE_MSIX | IGB_GPIE_NSICR | IGB_GPIE_PBA);
	for (int q = 0; q < nq; q++)
		igb_ivar_queue(g, q, q);
	igb_wr32(g, IGB_IVAR_MISC, ((uint32_t)nq | IGB_IVAR_VALID) << 8);
	for (int i = 0; i < n; i++)
		igb_wr32(g, IGB_EITR(i), IGB_EITR_DEFAULT << 2);
	pci_msix_enable(g->hw.pci);
	igb_wr32(g, IGB_EIAC, (1u << n) - 1);
	(void)igb_rd32(g, E1000_ICR);
	igb_wr32(g, IGB_EICR, 0xffffffffu);
	igb_wr32(g, E1000_IMS, E1000_ICR_LSC);
	igb_wr32(g, IGB_EIMS, 1u << nq); /* link, from now on */
	g->msix = true;
	return 0;
}

/* MSI, else the INTx line: one vector. Returns it, or -1. */
static int igb_shared_setup(struct igb *g, const char **mode)
{
	int cpu = g->dev.queues[0].cpu;
	uint64_t addr;
	uint32_t data;
	int v;

	if (g->hw.pci->cap_msi) {
		v = drv_irq_msi(cpu, igb_shared_irq, g, &addr, &data);
		if (v >= 0 && pci_msi_enable(g->hw.pci, addr, data) == 0) {
			*mode = "msi";
			return v;
		}
		if (v >= 0)
			drv_irq_free(v);
	}
	v = drv_irq_line(g->hw.pci->irq_line, cpu, igb_shared_irq, g);
	*mode = "intx";
	return v;
}

static void igb_report_msix(const struct igb *g)
{
	const struct netdev *dev = &g->dev;

	for (int q = 0; q < dev->nqueues; q++)
		drv_printf("igb: %s queue %d: msix vector 0x%x cpu %d\n",
			   dev->name, q, g->msix_vec[q], dev->queues[q].cpu);
	drv_printf("igb: %s link: msix vector 0x%x cpu %d\n", dev->name,
		   g->msix_vec[dev->nqueues], dev->queues[0].cpu);
}

int igb_irq_setup(struct netdev *dev)
{
	struct igb *g = dev->priv;
	const char *mode = NULL;
	int v;

	if (igb_msix_setup(g) == 0) {
		for (int q = 0; q < dev->nqueues; q++) {
			dev->queues[q].irq_mode = "msix";
			dev->queues[q].irq_vector = g->msix_vec[q];
		}
		igb_report_msix(g);
		return 0;
	}
	if (g->hw.pci->cap_msix)
		drv_printf("igb: %s: MSI-X not usable (%d entries for %d "
			   "vectors), falling back\n",
			   dev->name, pci_msix_size(g->hw.pci),
			   dev->nqueues + 1);
	v = igb_shared_setup(g, &mode);
	if (v < 0) {
		drv_printf("igb: %s: no interrupt, polled\n", dev->name);
		return -1;
	}
	for (int q = 0; q < dev->nqueues; q++) {
		dev->queues[q].irq_mode = mode;
		dev->queues[q].irq_vector = v;
	}
	drv_printf("igb: %s queues 0-%d: %s vector 0x%x cpu %d%s\n", dev->name,
		   dev->nqueues - 1, mode, v, dev->queues[0].cpu,
		   !strcmp(mode, "intx") ? " (line shared, level)" : "");
	return 0;
}

/* ------------------------------------------------------- arm, disarm */

bool igb_irq_arm(struct netdev *dev, int q)
{
	struct igb *g = dev->priv;
	const struct igb_rx_ring *r = &g->pairs[q]->rx;

	if (g->msix) {
		igb_wr32(g, IGB_EICR,
			 1u << q); /* a cause latched while masked */
		igb_wr32(g, IGB_EIMS, 1u << q);
	} else {
		if (igb_rd32(g, E1000_ICR) & E1000_ICR_LSC)
			gbe_link_event(&g->hw, dev); /* the read cleared it */
		igb_wr32(g, E1000_IMS, IGB_SHARED_CAUSES);
	}
	return (r->posted && (r->desc[r->next].wb.staterr & IGB_RXD_STAT_DD)) ||
	       dev->ops->tx_pending(dev, q);
}

void igb_irq_disarm(struct netdev *dev, int q)
{
	struct igb *g = dev->priv;

	if (g->msix)
		igb_wr32(g, IGB_EIMC, 1u << q);
}

bool igb_link_changed(struct netdev *dev)
{
	struct igb *g = dev->priv;

	return gbe_link_changed(&g->hw);
}
