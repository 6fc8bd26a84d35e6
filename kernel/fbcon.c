/*
 * Framebuffer console for UEFI machines, where there is no VGA text mode:
 * glyphs from a PC Screen Font (PSF1 or PSF2) drawn into the linear
 * framebuffer GRUB hands over. The font is not in the source tree: the
 * build takes Lat15-Fixed16 from Debian's console-setup-linux package and
 * links it in with objcopy (mk/kernel.mk), as _binary_font_psf_start/end.
 */
#include "kernel/console_dev.h"
#include <string.h>

extern const uint8_t _binary_font_psf_start[], _binary_font_psf_end[];

static struct {
	uint8_t *fb;
	uint32_t pitch, width, height, bytespp;
	uint32_t fg, bg;
	const uint8_t *glyphs;
	uint32_t nglyphs, gw, gh, gbytes; /* glyph width/height, bytes each */
	uint16_t ascii[128];		  /* glyph index per ASCII character */
	int cols, rows, x, y;
} fc;

/* PSF1: 2-byte magic, mode, height; 8 pixels wide, 256 or 512 glyphs, then
 * an optional table of UCS-2 values per glyph ending in 0xFFFF. */
static int psf1_load(const uint8_t *p, const uint8_t *end)
{
	const uint8_t *t;

	fc.nglyphs = (p[2] & 1) ? 512 : 256;
	fc.gw = 8;
	fc.gh = p[3];
	fc.gbytes = p[3];
	fc.glyphs = p + 4;
	t = fc.glyphs + fc.nglyphs * fc.gbytes;
	if (t > end)
		return -1;
	if (!(p[2] & 2))
		return 0; /* no table: glyph index is the character */
	for (uint32_t g = 0; g < fc.nglyphs && t + 1 < end; g++) {
		for (; t + 1 < end; t += 2) {
			uint16_t u = (uint16_t)(t[0] | t[1] << 8);

			if (u == 0xFFFF) {
				t += 2;
				break;
			}
			if (u < 128 && fc.ascii[u] == 0)
				fc.ascii[u] = (uint16_t)g;
		}
	}
	return 0;
}

static uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* PSF2: 32-byte header with sizes; the optional table is UTF-8 here, and
 * ASCII characters are single bytes in it. */
static int psf2_load(const uint8_t *p, const uint8_t *end)
{
	const uint8_t *t;

	fc.nglyphs = le32(p + 16);
	fc.gbytes = le32(p + 20);
	fc.gh = le32(p + 24);
	fc.gw = le32(p + 28);
	fc.glyphs = p + le32(p + 8);
	t = fc.glyphs + fc.nglyphs * fc.gbytes;
	if (t > end || fc.gw == 0 || fc.gh == 0)
		return -1;
	if (!(le32(p + 12) & 1))
		return 0;
	for (uint32_t g = 0; g < fc.nglyphs && t < end; g++) {
		for (; t < end && *t != 0xFF; t++) {
			if (*t < 128 && fc.ascii[*t] == 0)
				fc.ascii[*t] = (uint16_t)g;
		}
		t++;
	}
	return 0;
}

static int font_load(void)
{
	const uint8_t *p = _binary_font_psf_start, *end = _binary_font_psf_end;
	size_t size = (uintptr_t)end - (uintptr_t)p;

	for (int i = 0; i < 128; i++)
		fc.ascii[i] = 0;
	if (size > 4 && p[0] == 0x36 && p[1] == 0x04)
		return psf1_load(p, end);
	if (size > 32 && le32(p) == 0x864AB572)
		return psf2_load(p, end);
	return -1;
}

/*
 * fbcon_init - start drawing on the framebuffer si describes (already
 * identity-mapped). Boot CPU, once. Returns 0, or -1 when the pixel format
 * or the font is unusable (the console then stays serial-only).
 */
int fbcon_init(const struct screen_info *si)
{
	if (si->bpp != 32 && si->bpp != 24)
		return -1;
	if (font_load() < 0)
		return -1;
	for (int c = 0; c < 128; c++) {
		if (fc.ascii[c] == 0 && c != 0)
			fc.ascii[c] = (uint16_t)c; /* font without table */
	}
	fc.fb = (uint8_t *)(uintptr_t)si->addr;
	fc.pitch = si->pitch;
	fc.width = si->width;
	fc.height = si->height;
	fc.bytespp = si->bpp / 8;
	fc.fg = (0xAAu << si->red_pos) | (0xAAu << si->green_pos) |
		(0xAAu << si->blue_pos);
	fc.bg = 0;
	fc.cols = (int)(fc.width / fc.gw);
	fc.rows = (int)(fc.height / fc.gh);
	fc.x = fc.y = 0;
	for (uint32_t y = 0; y < fc.height; y++)
		memset(fc.fb + y * fc.pitch, 0, fc.width * fc.bytespp);
	return 0;
}

static void put_pixel(uint32_t x, uint32_t y, uint32_t color)
{
	uint8_t *p = fc.fb + y * fc.pitch + x * fc.bytespp;

	p[0] = (uint8_t)color;
	p[1] = (uint8_t)(color >> 8);
	p[2] = (uint8_t)(color >> 16);
	if (fc.bytespp == 4)
		p[3] = 0;
}

static void draw_glyph(int col, int row, unsigned char c)
{
	uint32_t g = c < 128 ? fc.ascii[c] : fc.ascii['?'];
	const uint8_t *bits = fc.glyphs + (g < fc.nglyphs ? g : 0) * fc.gbytes;
	uint32_t stride = (fc.gw + 7) / 8;

	for (uint32_t y = 0; y < fc.gh; y++) {
		for (uint32_t x = 0; x < fc.gw; x++) {
			int on = bits[y * stride + x / 8] & (0x80 >> (x % 8));

			put_pixel(col * fc.gw + x, row * fc.gh + y,
				  on ? fc.fg : fc.bg);
		}
	}
}

/* Scrolling moves the whole framebuffer, which is slow under TCG (MiBs per
 * move), so the console scrolls by half a screen at a time: one move per
 * rows/2 lines instead of one per line. */
static void fb_newline(void)
{
	uint32_t line = fc.gh * fc.pitch;
	int keep = fc.rows / 2;

	fc.x = 0;
	if (++fc.y < fc.rows)
		return;
	memmove(fc.fb, fc.fb + (size_t)(fc.rows - keep) * line,
		(size_t)keep * line);
	memset(fc.fb + (size_t)keep * line, 0, (size_t)(fc.rows - keep) * line);
	fc.y = keep;
}

void fbcon_write(const char *s, size_t n)
{
	if (!fc.fb)
		return;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n') {
			fb_newline();
			continue;
		}
		if (s[i] == '\r') {
			fc.x = 0;
			continue;
		}
		draw_glyph(fc.x, fc.y, (unsigned char)s[i]);
		if (++fc.x == fc.cols)
			fb_newline();
	}
}
