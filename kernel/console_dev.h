/*
 * The console's devices: COM1 (serial.c), VGA text mode (vga.c) and the
 * linear framebuffer (fbcon.c). Only kernel/console.c writes to them; it
 * serialises the writes, so none of them takes a lock. COM1 also receives,
 * for the shell (kernel/shell.c), which alone reads it.
 */
#ifndef KERNEL_CONSOLE_DEV_H
#define KERNEL_CONSOLE_DEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The screen the boot loader left us, from the multiboot information. */
struct screen_info {
	enum { SCREEN_NONE, SCREEN_VGA_TEXT, SCREEN_FRAMEBUFFER } kind;
	uint64_t addr; /* physical from the loader; mapped for the console */
	uint32_t pitch, width, height; /* bytes per line; cells or pixels */
	uint8_t bpp;
	uint8_t red_pos, green_pos, blue_pos;
};

void serial_init(void);
/* True if a UART answered at COM1 (its scratch register keeps a value). */
bool serial_present(void);
/* Writes n bytes, LF as CR LF, waiting (bounded) for the transmitter. */
void serial_write(const char *s, size_t n);
/* Writes what the transmitter takes without waiting; returns how many of
 * the n bytes went (a LF goes with its CR or not at all). */
size_t serial_write_some(const char *s, size_t n);

/* One received byte (0-255), or -1 when none is waiting. Poll context of
 * the shell's CPU: the only reader. Line errors are counted. */
int serial_read_byte(void);
/* Turns on the receive interrupt (IRQ 4 on a PC): route it first. */
void serial_rx_irq_enable(void);
/* The interrupt handler's acknowledgement (reads the UART's IIR). */
void serial_irq_ack(void);

struct serial_rx_stats {
	uint64_t bytes;	   /* bytes read */
	uint64_t errors;   /* line status errors seen (any kind) */
	uint64_t overruns; /* bytes the UART lost: read too late */
};
void serial_rx_stats_read(struct serial_rx_stats *out);

void vga_init(uintptr_t base, int cols, int rows);
void vga_write(const char *s, size_t n);
/* Returns 0, or -1 when the mode or the font is unusable. */
int fbcon_init(const struct screen_info *si);
void fbcon_write(const char *s, size_t n);

#endif
