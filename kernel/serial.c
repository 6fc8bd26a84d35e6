/*
 * COM1 at 115200 8N1, polled. The UART is the console tests read, so it
 * comes up before anything else can fail.
 */
#include "kernel/console_dev.h"
#include "kernel/arch.h"

#define COM1 0x3F8

void serial_init(void)
{
	outb(COM1 + 1, 0x00); /* no UART interrupts: we poll */
	outb(COM1 + 3, 0x80); /* DLAB on: divisor follows */
	outb(COM1 + 0, 0x01); /* 115200 = 115200 / 1 */
	outb(COM1 + 1, 0x00);
	outb(COM1 + 3, 0x03); /* 8 bits, no parity, one stop bit */
	outb(COM1 + 2, 0xC7); /* FIFO on, cleared, 14-byte threshold */
	outb(COM1 + 4, 0x03); /* DTR, RTS */
}

static void serial_putc(char c)
{
	/* Bounded wait for the transmit holding register: a missing UART on a
	 * real PC must not hang the boot. */
	for (int i = 0; i < 100000 && !(inb(COM1 + 5) & 0x20); i++)
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
