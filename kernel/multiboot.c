/*
 * Multiboot 1 and 2 information, boiled down to struct boot_info. The
 * memory map comes only from the memory map (mb1 mmap_* fields, mb2 tag 6):
 * the "basic meminfo" fields are wrong under UEFI (under OVMF its upper
 * memory said ~7 MiB).
 */
#include "kernel/multiboot.h"
#include <stdbool.h>
#include <string.h>

struct boot_info boot_info_parsed;
static const char empty[] = "";

static void add_mmap(struct boot_info *bi, uint64_t base, uint64_t len,
		     uint32_t type)
{
	if (bi->nr_mmap == MAX_MMAP || len == 0)
		return;
	bi->mmap[bi->nr_mmap].base = base;
	bi->mmap[bi->nr_mmap].len = len;
	bi->mmap[bi->nr_mmap].type = type;
	bi->nr_mmap++;
}

static void add_keep(struct boot_info *bi, uint64_t start, uint64_t end)
{
	if (bi->nr_keep < 8 && end > start) {
		bi->keep[bi->nr_keep].start = start;
		bi->keep[bi->nr_keep].end = end;
		bi->nr_keep++;
	}
}

/* Multiboot 1 (QEMU -kernel): fixed structure with flag bits. */
static void parse_mb1(struct boot_info *bi, uint32_t info)
{
	const uint32_t *mb = (const uint32_t *)(uintptr_t)info;
	uint32_t flags = mb[0];

	add_keep(bi, info, info + 120);
	if (flags & (1 << 2)) {
		bi->cmdline = (const char *)(uintptr_t)mb[4];
		add_keep(bi, mb[4], mb[4] + strlen(bi->cmdline) + 1);
	}
	if (flags & (1 << 3) && mb[5]) {
		const uint32_t *mod = (const uint32_t *)(uintptr_t)mb[6];

		add_keep(bi, mb[6], mb[6] + 16ULL * mb[5]);
		for (uint32_t i = 0; i < mb[5]; i++)
			add_keep(bi, mod[4 * i], mod[4 * i + 1]);
	}
	if (flags & (1 << 6)) {
		uint64_t p = mb[12], end = (uint64_t)mb[12] + mb[11];

		add_keep(bi, p, end);
		/* An entry is its size field and size more bytes. Only one
		 * whose base, length and type lie within mmap_length is read,
		 * and the step is 64-bit: a size near 2^32 cannot wrap it
		 * back onto the same entry forever. */
		while (p + 24 <= end) {
			const uint8_t *e = (const uint8_t *)(uintptr_t)p;
			uint32_t size, type;
			uint64_t base, len;

			memcpy(&size, e, 4);
			memcpy(&base, e + 4, 8);
			memcpy(&len, e + 12, 8);
			memcpy(&type, e + 20, 4);
			add_mmap(bi, base, len, type);
			p += (uint64_t)size + 4;
		}
	}
	if (flags & (1 << 9))
		bi->loader = (const char *)(uintptr_t)mb[16];
	/* QEMU's -kernel leaves the machine in VGA text mode. */
	bi->screen.kind = SCREEN_VGA_TEXT;
	bi->screen.addr = 0xB8000;
	bi->screen.width = 80;
	bi->screen.height = 25;
}

/* The framebuffer tag: its common part (mb2_tag_min), then for RGB the
 * fields' positions, up to the blue one at byte 36 (an RGB tag without
 * them is skipped: the console could not draw on it). */
static void mb2_framebuffer(struct boot_info *bi, const uint8_t *t,
			    uint32_t size)
{
	uint64_t addr;
	uint32_t pitch, width, height;
	uint8_t bpp = t[28], type = t[29];

	if (type == 1 && size < 37)
		return;
	memcpy(&addr, t + 8, 8);
	memcpy(&pitch, t + 16, 4);
	memcpy(&width, t + 20, 4);
	memcpy(&height, t + 24, 4);
	bi->screen.addr = addr;
	bi->screen.pitch = pitch;
	bi->screen.width = width;
	bi->screen.height = height;
	bi->screen.bpp = bpp;
	if (type == 2) {
		bi->screen.kind = SCREEN_VGA_TEXT; /* EGA text */
	} else if (type == 1) {
		bi->screen.kind = SCREEN_FRAMEBUFFER;
		bi->screen.red_pos = t[32];
		bi->screen.green_pos = t[34];
		bi->screen.blue_pos = t[36];
	}
}

static void mb2_mmap(struct boot_info *bi, const uint8_t *t, uint32_t size)
{
	uint32_t esize;

	memcpy(&esize, t + 8, 4);
	for (const uint8_t *e = t + 16; esize && e + 24 <= t + size;
	     e += esize) {
		uint64_t base, len;
		uint32_t type;

		memcpy(&base, e, 8);
		memcpy(&len, e + 8, 8);
		memcpy(&type, e + 16, 4);
		add_mmap(bi, base, len, type);
	}
}

/* The bytes a tag of this type must hold for what is read of it: the
 * fields, an RSDP copy's 20 (ACPI 1.0) or 36 bytes. */
static uint32_t mb2_tag_min(uint32_t type)
{
	switch (type) {
	case 3: /* module: start, end */
	case 6: /* memory map: entry size, version */
		return 16;
	case 8: /* framebuffer: its common part, up to the type (EGA text
		 * has no more; RGB's colour fields: mb2_framebuffer) */
		return 30;
	case 14:
		return 8 + 20;
	case 15:
		return 8 + 36;
	default:
		return 8;
	}
}

/* A string tag's text, when it ends (NUL) inside the tag; else "". */
static const char *mb2_string(const uint8_t *t, uint32_t size)
{
	return memchr(t + 8, 0, size - 8) ? (const char *)(t + 8) : empty;
}

/* Does the tag hold all that acpi_init reads of its RSDP copy: 20 bytes
 * up to revision 1, else its length field's (at least 36)? */
static bool mb2_rsdp_fits(const uint8_t *t, uint32_t size)
{
	uint32_t len;

	if (t[8 + 15] < 2)
		return true; /* mb2_tag_min: 20 bytes are there */
	if (size < 8 + 36)
		return false;
	memcpy(&len, t + 8 + 20, 4);
	return len >= 36 && len <= size - 8;
}

/* One tag of size bytes (at least 8, all inside the information). */
static void mb2_tag(struct boot_info *bi, const uint8_t *t, uint32_t type,
		    uint32_t size)
{
	uint32_t s, e;

	if (size < mb2_tag_min(type))
		return; /* too short for its fields: skipped */
	switch (type) {
	case 1:
		bi->cmdline = mb2_string(t, size);
		break;
	case 2:
		bi->loader = mb2_string(t, size);
		break;
	case 3: /* module: keep its memory */
		memcpy(&s, t + 8, 4);
		memcpy(&e, t + 12, 4);
		add_keep(bi, s, e);
		break;
	case 6:
		mb2_mmap(bi, t, size);
		break;
	case 8:
		mb2_framebuffer(bi, t, size);
		break;
	case 14: /* ACPI 1.0 RSDP copy, unless the 2.0 one came first */
		if (!bi->rsdp && mb2_rsdp_fits(t, size))
			bi->rsdp = (uintptr_t)(t + 8);
		break;
	case 15: /* ACPI 2.0 RSDP copy (with the XSDT): preferred */
		if (mb2_rsdp_fits(t, size))
			bi->rsdp = (uintptr_t)(t + 8);
		break;
	}
}

/* Multiboot 2 (GRUB): a list of 8-byte aligned tags. The RSDP copies in
 * the tags are as good as the originals, and the tag memory is kept. */
static void parse_mb2(struct boot_info *bi, uint32_t info)
{
	uint32_t total;
	const uint8_t *p = (const uint8_t *)(uintptr_t)info + 8, *end;

	memcpy(&total, (const void *)(uintptr_t)info, 4);
	end = (const uint8_t *)(uintptr_t)info + total;
	add_keep(bi, info, (uint64_t)info + total);
	bi->screen.kind = SCREEN_NONE;
	while (p + 8 <= end) {
		uint32_t type, size;

		memcpy(&type, p, 4);
		memcpy(&size, p + 4, 4);
		/* the end tag, or a tag that does not fit: the list ends */
		if (type == 0 || size < 8 || size > (uint64_t)(end - p))
			break;
		mb2_tag(bi, p, type, size);
		p += (size + 7) & ~7u;
	}
}

int multiboot_parse(uint32_t magic, uint32_t info)
{
	struct boot_info *bi = &boot_info_parsed;

	memset(bi, 0, sizeof(*bi));
	bi->cmdline = empty;
	bi->loader = empty;
	if (magic == MB1_BOOT_MAGIC) {
		bi->flavour = 1;
		parse_mb1(bi, info);
	} else if (magic == MB2_BOOT_MAGIC) {
		bi->flavour = 2;
		parse_mb2(bi, info);
	} else {
		return -1;
	}
	return 0;
}
