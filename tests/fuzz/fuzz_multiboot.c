/*
 * Fuzz harness of the multiboot information (kernel/multiboot.c), as QEMU
 * -kernel (multiboot 1) and GRUB (multiboot 2) leave it in memory.
 *
 * The structures go into fake physical memory (phys_window.h): every
 * byte the boot loader says is there is readable, every other byte is
 * poisoned, so reading past a structure, a tag or a string is an ASan
 * report. The pointers in them are the harness's (a boot loader's
 * pointers point at memory it filled); the rest is the fuzzer's.
 *
 * The input: one byte, bit 0 the flavour. Multiboot 1: the 120-byte info
 * structure (flags and every field; the pointer fields are then set to
 * what follows), a command line (a length byte, its bytes, a NUL added),
 * a module list (a count byte % 8, 16 bytes each), the memory map (two
 * length bytes % 1024, its bytes; mmap_length says exactly that), the
 * boot loader's name (as the command line). Multiboot 2: the tags, after
 * the 8-byte header the harness writes (total_size: exactly the bytes
 * placed).
 *
 * Checked beyond ASan: what the kernel then reads of the result is there
 * (the command line and the loader's name end within what was placed,
 * the RSDP's 20 bytes, from revision 2 36 and its length field's, as
 * acpi_init reads them), the
 * map and the kept ranges within their bounds and nonempty, the
 * multiboot 1 map exactly the entries that fit in mmap_length (the
 * reference below), and an unknown magic refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse_common.h"
#include "phys_window.h"

#include "kernel/multiboot.c"

#define MB1_INFO_SIZE 120
#define MB2_MAX	      4096

/* A string the loader left: bytes, then a NUL. */
static uint32_t place_string(struct pz_in *in)
{
	const uint8_t *s;
	size_t n = pz_take(in, pz_u8(in), &s);
	uint64_t at = pw_place(NULL, n + 1);

	memcpy(pw_ptr(at), s, n);
	return (uint32_t)at;
}

static uint32_t place_bytes(struct pz_in *in, size_t want, size_t *got)
{
	const uint8_t *b;

	*got = pz_take(in, want, &b);
	return (uint32_t)pw_place(b, *got);
}

/* The multiboot 1 map's entries, from the specification: an entry is
 * its size field and size bytes; base, length and type must lie within
 * mmap_length; an empty range is not kept. */
static int ref_mb1_map(const uint8_t *map, size_t len)
{
	int n = 0;

	for (uint64_t o = 0; o + 24 <= len;) {
		uint32_t size;
		uint64_t rlen;

		memcpy(&size, map + o, 4);
		memcpy(&rlen, map + o + 12, 8);
		n += rlen != 0 && n < MAX_MMAP;
		o += (uint64_t)size + 4;
	}
	return n;
}

static uint32_t build_mb1(struct pz_in *in, int *want_mmap)
{
	uint32_t mb[MB1_INFO_SIZE / 4] = {0};
	const uint8_t *b;
	size_t n = pz_take(in, sizeof(mb), &b), map_len, mods_len;
	uint32_t map, info;

	memcpy(mb, b, n);
	mb[4] = place_string(in);
	mb[5] = pz_u8(in) % 8;
	mb[6] = place_bytes(in, 16 * mb[5], &mods_len);
	mb[5] = (uint32_t)(mods_len / 16);
	map = place_bytes(in, pz_u16(in) % 1024, &map_len);
	mb[11] = (uint32_t)map_len;
	mb[12] = map;
	mb[16] = place_string(in);
	info = (uint32_t)pw_place(mb, sizeof(mb));
	*want_mmap = mb[0] & (1 << 6) ? ref_mb1_map(pw_ptr(map), map_len) : 0;
	return info;
}

static uint32_t build_mb2(struct pz_in *in)
{
	const uint8_t *tags;
	size_t n = pz_take(in, MB2_MAX, &tags);
	uint64_t at = pw_place(NULL, 8 + n);
	uint32_t total = (uint32_t)(8 + n);

	memcpy(pw_ptr(at), &total, 4);
	memcpy((uint8_t *)pw_ptr(at) + 8, tags, n);
	return (uint32_t)at;
}

/* Read n bytes as acpi_init would (through ASan's eyes). */
static unsigned int touch(const void *p, size_t n)
{
	const volatile uint8_t *b = p;
	unsigned int s = 0;

	for (size_t i = 0; i < n; i++)
		s += b[i];
	return s;
}

static void check(const struct boot_info *bi, int flavour, int want_mmap)
{
	PZ_CHECK(bi->flavour == flavour, "flavour %d", bi->flavour);
	/* what cmdline_init reads, what kmain prints */
	touch(bi->cmdline, strlen(bi->cmdline) + 1);
	touch(bi->loader, strlen(bi->loader) + 1);
	if (bi->rsdp) { /* as rsdp_valid reads it */
		const uint8_t *r = pw_ptr(bi->rsdp);
		uint32_t len;

		touch(r, 20);
		if (r[15] >= 2) {
			touch(r, 36);
			memcpy(&len, r + 20, 4);
			touch(r, len);
		}
	}
	PZ_CHECK(bi->nr_mmap >= 0 && bi->nr_mmap <= MAX_MMAP, "%d ranges",
		 bi->nr_mmap);
	for (int i = 0; i < bi->nr_mmap; i++)
		PZ_CHECK(bi->mmap[i].len != 0, "range %d empty", i);
	if (flavour == 1)
		PZ_CHECK(bi->nr_mmap == want_mmap, "%d ranges, not %d",
			 bi->nr_mmap, want_mmap);
	PZ_CHECK(bi->nr_keep >= 0 && bi->nr_keep <= 8, "%d kept", bi->nr_keep);
	for (int i = 0; i < bi->nr_keep; i++)
		PZ_CHECK(bi->keep[i].start < bi->keep[i].end, "keep %d", i);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool started;
	struct pz_in in = {data, size, 0};
	int flavour, want_mmap = 0;
	uint32_t info;

	if (!started) {
		pz_init("fuzz_multiboot");
		pw_map();
		started = true;
	}
	pz_input();
	pw_reset();
	flavour = (pz_u8(&in) & 1) + 1;
	info = flavour == 1 ? build_mb1(&in, &want_mmap) : build_mb2(&in);
	PZ_CHECK(multiboot_parse(flavour == 1 ? MB1_BOOT_MAGIC : MB2_BOOT_MAGIC,
				 info) == 0,
		 "multiboot%d refused", flavour);
	pz_ops++;
	check(&boot_info_parsed, flavour, want_mmap);
	PZ_CHECK(multiboot_parse(0x1BADB002, info) == -1,
		 "the header's magic taken for the loader's");
	return 0;
}
