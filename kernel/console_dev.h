/*
 * The console's devices: COM1 (serial.c), VGA text mode (vga.c) and the
 * linear framebuffer (fbcon.c). Only kernel/console.c writes to them; it
 * serialises the writes, so none of them takes a lock.
 */
#ifndef KERNEL_CONSOLE_DEV_H
#define KERNEL_CONSOLE_DEV_H

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
void serial_write(const char *s, size_t n);
void vga_init(uintptr_t base, int cols, int rows);
void vga_write(const char *s, size_t n);
/* Returns 0, or -1 when the mode or the font is unusable. */
int fbcon_init(const struct screen_info *si);
void fbcon_write(const char *s, size_t n);

#endif
