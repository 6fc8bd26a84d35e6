/*
 * The GDB stub's serial transport: COM2 (0x2F8, IRQ 3), 115200 8N1, for
 * a null-modem cable or a USB serial adapter from the debugging machine
 * (docs/observe.md). It needs nothing but the UART, so it works when the
 * network does not, and the CPU serving gdb drives the UART itself: no
 * CPU keeps running while the machine is stopped.
 *
 * While the machine runs, the receive interrupt watches for gdb asking:
 * Ctrl-C (0x03) or the '$' of a packet (gdb attaching) stops the machine
 * right there, on the CPU the interrupt came to, with the interrupted
 * code as its registers. Other bytes ('+' acknowledgements of a session
 * that ended) are dropped.
 *
 * This file also declares the boot key gdb=; apps/gdb_tcp.c reads its
 * tcp:PORT form.
 */
#include <stdlib.h>
#include <string.h>

#include "kernel/arch.h"
#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/gdb_stub.h"
#include "kernel/irq.h"
#include "kernel/percpu.h"
#include "kernel/uart_regs.h"

#define COM2	 0x2F8
#define COM2_IRQ 3

/* off, com2, or tcp:PORT (1-65535). */
static bool gdb_key_valid(const char *v, const char *allowed)
{
	char *end;
	unsigned long port;

	(void)allowed;
	if (!strcmp(v, "off") || !strcmp(v, "com2"))
		return true;
	if (strncmp(v, "tcp:", 4) || v[4] < '0' || v[4] > '9')
		return false;
	port = strtoul(v + 4, &end, 10);
	return *end == '\0' && port >= 1 && port <= 65535;
}

CMDLINE_KEY(kernel, gdb, "off", gdb_key_valid, "off|com2|tcp:PORT",
	    "the GDB stub: off, on COM2 (115200 8N1) or on a TCP port; it can "
	    "stop the machine and read and write all of it");

static int com2_read_byte(void)
{
	if (!(inb(COM2 + UART_LSR) & UART_LSR_DATA))
		return -1;
	return inb(COM2 + UART_RBR);
}

static void com2_write(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		/* bounded like the console's: a dead UART must not hang */
		for (int w = 0;
		     w < 100000 && !(inb(COM2 + UART_LSR) & UART_LSR_THR_EMPTY);
		     w++)
			cpu_relax();
		outb(COM2 + UART_RBR, (uint8_t)s[i]);
	}
}

static const struct gdb_transport com2 = {
	.name = "com2",
	.read_byte = com2_read_byte,
	.write = com2_write,
};

/* The receive interrupt: stop the machine if gdb asks for it. */
static void com2_irq(void *arg)
{
	int c;

	(void)arg;
	(void)inb(COM2 + UART_IIR); /* acknowledges what it reports */
	while ((c = com2_read_byte()) >= 0) {
		if (c == 0x03 || c == '$') {
			gdb_break_in_here(this_cpu()->irq_frame, c);
			return;
		}
	}
}

/* 115200 8N1, FIFOs on; false when no UART answers at COM2. */
static bool com2_init(void)
{
	outb(COM2 + UART_IER, 0);
	outb(COM2 + UART_LCR, UART_LCR_DLAB);
	outb(COM2 + 0, 1); /* divisor 1: 115200 baud */
	outb(COM2 + 1, 0);
	outb(COM2 + UART_LCR, UART_LCR_8N1);
	outb(COM2 + UART_IIR, UART_FCR_ENABLE);
	outb(COM2 + UART_MCR, UART_MCR_DTR_RTS);
	outb(COM2 + UART_SCR, 0x5A);
	if (inb(COM2 + UART_SCR) != 0x5A)
		return false;
	while (com2_read_byte() >= 0) /* whatever waited from before */
		;
	return true;
}

void gdb_com2_start(void)
{
	int vec;

	if (strcmp(cmdline_get("gdb"), "com2"))
		return;
	if (!com2_init()) {
		kprintf("gdb: no UART answers at COM2: the stub stays off\n");
		return;
	}
	vec = irq_alloc_vector(com2_irq, NULL);
	if (vec < 0 || irq_route_isa(COM2_IRQ, vec, 0) != 0) {
		kprintf("gdb: COM2's interrupt cannot be routed: the stub "
			"stays off\n");
		return;
	}
	gdb_transport_register(&com2);
	outb(COM2 + UART_MCR, UART_MCR_DTR_RTS | UART_MCR_OUT2);
	outb(COM2 + UART_IER, UART_IER_RX);
	kprintf("gdb: stub on COM2 (115200 8N1, IRQ %d): gdb attaches with "
		"target remote DEVICE (docs/observe.md)\n",
		COM2_IRQ);
}
