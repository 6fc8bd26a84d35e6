/*
 * Shared PCI interrupt lines (INTx). A PCI function without MSI signals
 * on one of four level-triggered pins that the board wires, several
 * functions to a wire, to an IOAPIC input. So one vector serves a line
 * and every driver on it installs a handler; on each interrupt all of
 * them run, each reads its own device's cause register (e1000 ICR, virtio
 * ISR), which also deasserts the device's pin, and returns at once when
 * the cause is zero. The dispatcher's LAPIC EOI comes after the handlers:
 * with the line deasserted by then the IOAPIC does not fire again.
 */
#include "kernel/console.h"
#include "kernel/irq.h"
#include "kernel/spinlock.h"

#define IRQ_LINES	  8 /* distinct lines in use */
#define IRQ_LINE_HANDLERS 4 /* devices sharing one line */

struct irq_line {
	uint8_t line;
	int vector, cpu, n;
	struct {
		irq_handler_t fn;
		void *arg;
	} h[IRQ_LINE_HANDLERS];
};

static struct irq_line lines[IRQ_LINES];
static int nlines;

/* Interrupt context: every handler on the line, in registration order. */
static void line_irq(void *arg)
{
	struct irq_line *l = arg;
	int n = __atomic_load_n(&l->n, __ATOMIC_ACQUIRE);

	for (int i = 0; i < n; i++)
		l->h[i].fn(l->h[i].arg);
}

static struct irq_line *line_find(uint8_t line)
{
	for (int i = 0; i < nlines; i++)
		if (lines[i].line == line)
			return &lines[i];
	return NULL;
}

static struct irq_line *line_new(uint8_t line, int cpu)
{
	struct irq_line *l;

	if (nlines == IRQ_LINES)
		return NULL;
	l = &lines[nlines];
	*l = (struct irq_line){.line = line, .cpu = cpu};
	l->vector = irq_alloc_vector(line_irq, l);
	if (l->vector < 0)
		return NULL;
	if (irq_route_pci_line(line, l->vector, cpu) != 0) {
		irq_free_vector(l->vector);
		return NULL;
	}
	nlines++;
	return l;
}

int irq_request_line(uint8_t line, int cpu, irq_handler_t fn, void *arg)
{
	struct irq_line *l = line_find(line);

	if (!l)
		l = line_new(line, cpu);
	if (!l || l->n == IRQ_LINE_HANDLERS) {
		kprintf("irq: cannot route PCI interrupt line %u\n", line);
		return -1;
	}
	l->h[l->n].fn = fn;
	l->h[l->n].arg = arg;
	__atomic_store_n(&l->n, l->n + 1, __ATOMIC_RELEASE);
	return l->vector;
}
