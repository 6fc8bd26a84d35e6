/*
 * The multiboot information (kernel/multiboot.c) as a boot loader may
 * leave it, bent where tests/fuzz/fuzz_multiboot.c found the parser
 * reading past it: a multiboot 1 map entry cut by mmap_length, an entry
 * size near 2^32, a multiboot 2 tag longer than the information, a
 * string tag without its NUL, tags too short for their fields, an RSDP
 * copy longer than its tag. The information lies below 4 GiB (MAP_32BIT)
 * where the kernel's 32-bit physical addresses can point.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "kernel/multiboot.c"

static uint8_t *low; /* 64 KiB below 4 GiB */

static uint32_t at(size_t off)
{
	return (uint32_t)(uintptr_t)(low + off);
}

static int map_low(void **state)
{
	(void)state;
	low = mmap(NULL, 65536, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	return low == MAP_FAILED;
}

static void put32(size_t off, uint32_t v)
{
	memcpy(low + off, &v, 4);
}

static void put64(size_t off, uint64_t v)
{
	memcpy(low + off, &v, 8);
}

/* A multiboot 1 structure at 0 whose map is at 4096, len bytes. */
static void mb1_with_map(uint32_t len)
{
	memset(low, 0, 65536);
	put32(0, 1 << 6);
	put32(44, len);
	put32(48, at(4096));
}

/* A map entry at 4096 + off: size field, base, length, type. */
static void mb1_entry(size_t off, uint32_t size, uint64_t base, uint64_t len)
{
	put32(4096 + off, size);
	put64(4096 + off + 4, base);
	put64(4096 + off + 12, len);
	put32(4096 + off + 20, MMAP_AVAILABLE);
}

static void test_mb1_entry_cut_by_mmap_length_is_not_read(void **state)
{
	(void)state;
	mb1_with_map(24 + 20); /* the second entry lacks its type */
	mb1_entry(0, 20, 0, 0x9fc00);
	mb1_entry(24, 20, 0x100000, 0x7ee0000);
	assert_int_equal(multiboot_parse(MB1_BOOT_MAGIC, at(0)), 0);
	assert_int_equal(boot_info_parsed.nr_mmap, 1);
}

static void test_mb1_entry_size_near_4g_ends_the_map(void **state)
{
	(void)state;
	mb1_with_map(48);
	mb1_entry(0, 0xfffffffcu, 0, 0x9fc00); /* size + 4 wraps to 0 */
	alarm(5);			       /* it used to loop forever */
	assert_int_equal(multiboot_parse(MB1_BOOT_MAGIC, at(0)), 0);
	alarm(0);
	assert_int_equal(boot_info_parsed.nr_mmap, 1);
}

/* Multiboot 2 information at 0, total bytes, tags from offset 8. */
static void mb2_info(uint32_t total)
{
	put32(0, total);
	put32(4, 0);
}

static void test_mb2_tag_past_the_information_ends_the_list(void **state)
{
	(void)state;
	memset(low, 0, 65536);
	mb2_info(8 + 40);
	put32(8, 6); /* a memory map that says it is 1000 bytes */
	put32(12, 1000);
	put32(16, 24);
	put64(24 + 24 + 8, 0x1000); /* an entry beyond the information */
	assert_int_equal(multiboot_parse(MB2_BOOT_MAGIC, at(0)), 0);
	assert_int_equal(boot_info_parsed.nr_mmap, 0);
}

static void test_mb2_string_without_nul_is_not_taken(void **state)
{
	(void)state;
	memset(low, 0, 65536);
	mb2_info(8 + 16 + 8);
	put32(8, 1); /* command line, 8 bytes of text, no NUL */
	put32(12, 16);
	memcpy(low + 16, "smp=2abc", 8);
	put32(24, 2); /* the loader's name right behind it */
	put32(28, 8);
	assert_int_equal(multiboot_parse(MB2_BOOT_MAGIC, at(0)), 0);
	assert_string_equal(boot_info_parsed.cmdline, "");
}

static void test_mb2_short_framebuffer_tag_is_skipped(void **state)
{
	(void)state;
	memset(low, 0, 65536);
	mb2_info(8 + 32 + 8);
	put32(8, 8); /* framebuffer, common part only: no colour fields */
	put32(12, 32);
	low[8 + 29] = 1; /* RGB */
	put32(40, 0);
	put32(44, 8);
	assert_int_equal(multiboot_parse(MB2_BOOT_MAGIC, at(0)), 0);
	assert_int_equal(boot_info_parsed.screen.kind, SCREEN_NONE);
}

static void test_mb2_ega_text_tag_of_grubs_size_is_taken(void **state)
{
	(void)state;
	memset(low, 0, 65536);
	mb2_info(8 + 32 + 8);
	put32(8, 8); /* GRUB's EGA text tag: the common part, 32 bytes */
	put32(12, 32);
	put64(16, 0xb8000);
	put32(24, 160);
	put32(28, 80);
	put32(32, 25);
	low[8 + 28] = 16;
	low[8 + 29] = 2;
	put32(40, 0);
	put32(44, 8);
	assert_int_equal(multiboot_parse(MB2_BOOT_MAGIC, at(0)), 0);
	assert_int_equal(boot_info_parsed.screen.kind, SCREEN_VGA_TEXT);
	assert_int_equal(boot_info_parsed.screen.width, 80);
}

static void test_mb2_rsdp_longer_than_its_tag_is_not_taken(void **state)
{
	(void)state;
	memset(low, 0, 65536);
	mb2_info(8 + 44 + 4 + 8);
	put32(8, 15);
	put32(12, 44);
	memcpy(low + 16, "RSD PTR ", 8);
	low[16 + 15] = 2;
	put32(16 + 20, 4096); /* its length: far past the tag */
	assert_int_equal(multiboot_parse(MB2_BOOT_MAGIC, at(0)), 0);
	assert_int_equal(boot_info_parsed.rsdp, 0);
	put32(16 + 20, 36);
	assert_int_equal(multiboot_parse(MB2_BOOT_MAGIC, at(0)), 0);
	assert_int_equal(boot_info_parsed.rsdp, at(16));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mb1_entry_cut_by_mmap_length_is_not_read),
		cmocka_unit_test(test_mb1_entry_size_near_4g_ends_the_map),
		cmocka_unit_test(
			test_mb2_tag_past_the_information_ends_the_list),
		cmocka_unit_test(test_mb2_string_without_nul_is_not_taken),
		cmocka_unit_test(test_mb2_short_framebuffer_tag_is_skipped),
		cmocka_unit_test(test_mb2_ega_text_tag_of_grubs_size_is_taken),
		cmocka_unit_test(
			test_mb2_rsdp_longer_than_its_tag_is_not_taken),
	};

	return cmocka_run_group_tests(tests, map_low, NULL);
}
