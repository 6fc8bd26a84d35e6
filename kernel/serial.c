/*
 * COM1 at 115200 8N1. The UART is the console tests read, so it comes up
 * before anything else can fail.
 *
 * Transmit: serial_write waits (bounded) for the transmitter before each
 * byte: log lines are short and must leave whole. serial_write_some never
 * waits: it writes only what the transmit FIFO takes now (16 bytes on a
 * 16550A whenever the holding register is empty; under QEMU the FIFO
 * drains at once, so it takes everything offered), which lets the shell
 * send a long answer a slice per poll round without stalling its CPU at
 * 115200 baud (11.5 bytes per millisecond on a real line).
 *
 * Receive: serial_read_byte takes one byte if the UART holds one. The
 * receive interrupt (serial_rx_irq_enable) only tells a poller to look:
 * the handler calls serial_irq_ack and wakes it; the poller reads.
 */
#include "kernel/console_dev.h"
#include "kernel/arch.h"
#include "kernel/uart_regs.h"

#define COM1 0x3F8

static bool present;
static int tx_fifo = 1; /* bytes the transmitter takes once it is empty */
static struct serial_rx_stats rx_stats;

/* A UART keeps what is written to its scratch register; an empty I/O
 * port reads back 0xFF whatever was written. */
static bool scratch_answers(void)
{
	outb(COM1 + UART_SCR, 0x5A);
	if (inb(COM1 + UART_SCR) != 0x5A)
		return false;
	outb(COM1 + UART_SCR, 0xA5);
	return inb(COM1 + UART_SCR) == 0xA5;
}

void serial_init(void)
{
	outb(COM1 + UART_IER, 0x00); /* no UART interrupts until asked */
	outb(COM1 + UART_LCR, UART_LCR_DLAB); /* divisor follows */
	outb(COM1 + 0, 0x01);		      /* 115200 = 115200 / 1 */
	outb(COM1 + 1, 0x00);
	outb(COM1 + UART_LCR, UART_LCR_8N1);
	/* FIFOs on and cleared, receive interrupt at 1 byte: a key press
	 * should wake the poller at once, not after 4 more bytes or the
	 * FIFO's 4-character timeout. */
	outb(COM1 + UART_IIR, UART_FCR_ENABLE);
	outb(COM1 + UART_MCR, UART_MCR_DTR_RTS);
	present = scratch_answers();
	/* IIR bits 7:6 read 11 when the FIFOs are really on (16550A) */
	tx_fifo = present && (inb(COM1 + UART_IIR) & 0xC0) == 0xC0 ? 16 : 1;
}

bool serial_present(void)
{
	return present;
}

static void serial_putc(char c)
{
	/* Bounded wait for the transmit holding register: a missing UART on a
	 * real PC must not hang the boot. */
	for (int i = 0;
	     i < 100000 && !(inb(COM1 + UART_LSR) & UART_LSR_THR_EMPTY); i++)
		cpu_relax();
	outb(COM1, (uint8_t)c);
}

void serial_write(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n')
			serial_putc('\r');
		serial_putc(s[i]);
	}
}

size_t serial_write_some(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && (inb(COM1 + UART_LSR) & UART_LSR_THR_EMPTY)) {
		int room = tx_fifo;

		while (i < n && room > 0) {
			if (s[i] == '\n') {
				if (room < 2 && tx_fifo > 1)
					break; /* CR LF go together */
				/* no FIFO: the LF waits one character time */
				serial_putc('\r');
				room--;
			}
			serial_putc(s[i++]);
			room--;
		}
	}
	return i;
}

int serial_read_byte(void)
{
	uint8_t lsr;

	if (!present)
		return -1;
	lsr = inb(COM1 + UART_LSR);
	if (lsr & UART_LSR_ERRORS) {
		rx_stats.errors++;
		if (lsr & UART_LSR_OVERRUN)
			rx_stats.overruns++;
	}
	if (!(lsr & UART_LSR_DATA))
		return -1;
	rx_stats.bytes++;
	return inb(COM1 + UART_RBR);
}

void serial_rx_irq_enable(void)
{
	if (!present)
		return;
	outb(COM1 + UART_MCR, UART_MCR_DTR_RTS | UART_MCR_OUT2);
	outb(COM1 + UART_IER, UART_IER_RX);
}

void serial_irq_ack(void)
{
	/* Reading IIR acknowledges what it reports; a "data available"
	 * condition stays until the poller has read the bytes. */
	(void)inb(COM1 + UART_IIR);
}

void serial_rx_stats_read(struct serial_rx_stats *out)
{
	*out = rx_stats;
}
