/*
 * VGA text mode console: 80x25 cells of (character, attribute) at 0xB8000,
 * scrolled by moving rows up. Light grey on black.
 */
#include "kernel/console_dev.h"
#include "kernel/arch.h"
#include <string.h>

static volatile uint16_t *vga;
static int vga_cols, vga_rows, vga_x, vga_y;

#define VGA_ATTR 0x0700

void vga_init(uintptr_t base, int cols, int rows)
{
	vga = (volatile uint16_t *)base;
	vga_cols = cols;
	vga_rows = rows;
	vga_x = vga_y = 0;
	for (int i = 0; i < cols * rows; i++)
		vga[i] = VGA_ATTR | ' ';
}

static void vga_newline(void)
{
	vga_x = 0;
	if (++vga_y < vga_rows)
		return;
	for (int i = 0; i < (vga_rows - 1) * vga_cols; i++)
		vga[i] = vga[i + vga_cols];
	for (int i = 0; i < vga_cols; i++)
		vga[(vga_rows - 1) * vga_cols + i] = VGA_ATTR | ' ';
	vga_y = vga_rows - 1;
}

/* The blinking hardware cursor follows the text (CRTC registers 14/15). */
static void vga_cursor(void)
{
	uint16_t pos = (uint16_t)(vga_y * vga_cols + vga_x);

	outb(0x3D4, 14);
	outb(0x3D5, (uint8_t)(pos >> 8));
	outb(0x3D4, 15);
	outb(0x3D5, (uint8_t)pos);
}

void vga_write(const char *s, size_t n)
{
	if (!vga)
		return;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (c == '\n') {
			vga_newline();
			continue;
		}
		if (c == '\r') {
			vga_x = 0;
			continue;
		}
		vga[vga_y * vga_cols + vga_x] = VGA_ATTR | (uint8_t)c;
		if (++vga_x == vga_cols)
			vga_newline();
	}
	vga_cursor();
}
