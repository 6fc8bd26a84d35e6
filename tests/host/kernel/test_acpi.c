/*
 * The ACPI table walk (kernel/acpi.c) on tables the firmware got wrong,
 * where tests/fuzz/fuzz_acpi.c found it reading past them: a table whose
 * length does not cover its own header, a MADT entry shorter than its
 * fields, a FADT shorter than ACPI 1.0's. Each table here is followed by
 * bytes that would change the answer if they were read. On the host a
 * physical address is the pointer (the kernel's identity map), so the
 * tables live in one buffer of the test's, behind an XSDT.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "kernel/acpi.c"

int map_ram(uint64_t phys, uint64_t size)
{
	(void)phys;
	(void)size;
	return 0;
}

int kprintf(const char *fmt, ...)
{
	(void)fmt;
	return 0;
}

/* The memory map: what acpi_memmap_update tells it is not checked here. */
void memmap_set_node(uint64_t start, uint64_t end, int nid)
{
	(void)start;
	(void)end;
	(void)nid;
}

void memmap_reserve(uint64_t start, uint64_t end)
{
	(void)start;
	(void)end;
}

/* The command line: every key at its default (acpi=on). */
const char *cmdline_get(const char *key)
{
	(void)key;
	return "on";
}

bool cmdline_valid_choice(const char *value, const char *allowed)
{
	(void)value;
	(void)allowed;
	return true;
}

/* aml_parse's scanner: these tests have no DSDT. */
int aml_find_host_bridges(const uint8_t *aml, size_t len,
			  struct acpi_host_bridge *out, int max,
			  struct aml_scan_stats *st)
{
	(void)aml;
	(void)len;
	(void)out;
	(void)max;
	memset(st, 0, sizeof(*st));
	return 0;
}

static uint8_t mem[8192] __attribute__((aligned(16)));

static void checksum(uint8_t *t, size_t len, size_t at)
{
	uint8_t s = 0;

	t[at] = 0;
	for (size_t i = 0; i < len; i++)
		s += t[i];
	t[at] = (uint8_t)-s;
}

/* A table of len bytes at mem + off (sum fixed); the 64 bytes after it
 * are 0xff, what a parser reading past it would see. */
static uint8_t *table(size_t off, const char *sig, uint32_t len,
		      const uint8_t *body, size_t body_len)
{
	uint8_t *t = mem + off;

	memset(t, 0, len);
	memset(t + len, 0xff, 64);
	memcpy(t, sig, 4);
	memcpy(t + 4, &len, 4);
	if (body)
		memcpy(t + 36, body, body_len);
	checksum(t, len, 9);
	return t;
}

/* The RSDP (revision 2) and an XSDT listing the tables given. */
static uint64_t boot_tables(uint8_t **tabs, int n)
{
	uint8_t *x = mem + 4096, *r = mem + 6144;
	uint32_t len = 36 + 8 * (uint32_t)n;
	uint64_t xa = (uintptr_t)x;

	memset(x, 0, len);
	memcpy(x, "XSDT", 4);
	memcpy(x + 4, &len, 4);
	for (int i = 0; i < n; i++) {
		uint64_t a = (uintptr_t)tabs[i];

		memcpy(x + 36 + 8 * i, &a, 8);
	}
	checksum(x, len, 9);
	memset(r, 0, 36);
	memcpy(r, "RSD PTR ", 8);
	r[15] = 2;
	len = 36;
	memcpy(r + 20, &len, 4);
	memcpy(r + 24, &xa, 8);
	checksum(r, 20, 8);
	checksum(r, 36, 32);
	return (uintptr_t)r;
}

static void test_table_shorter_than_its_header_is_skipped(void **state)
{
	uint8_t *t;

	(void)state;
	/* 10 bytes: signature, length, revision, checksum; the LAPIC
	 * address and flags would be the 0xff after it */
	t = table(0, "APIC", 10, NULL, 0);
	acpi_init(boot_tables(&t, 1));
	assert_int_equal(acpi.lapic_base, 0xFEE00000);
	assert_int_equal(acpi.nr_cpus, 1);
	assert_int_equal(acpi.nr_tables, 1); /* only the XSDT */
}

static void test_madt_entry_shorter_than_its_fields_is_skipped(void **state)
{
	/* LAPIC address, flags; CPU 0 (local APIC, enabled); an x2APIC
	 * entry cut after its id: its flags would be the 0xff after it */
	static const uint8_t madt[] = {
		0, 0, 0xe0, 0xfe, 1, 0, 0, 0, 0, 8, 0, 0,
		1, 0, 0,    0,	  9, 8, 0, 0, 7, 0, 0, 0,
	};
	uint8_t *t;

	(void)state;
	t = table(0, "APIC", 36 + sizeof(madt), madt, sizeof(madt));
	acpi_init(boot_tables(&t, 1));
	assert_int_equal(acpi.nr_cpus, 1);
	assert_int_equal(acpi.apic_ids[0], 0);
}

static void test_fadt_shorter_than_acpi_1_is_ignored(void **state)
{
	uint8_t *t;

	(void)state;
	t = table(0, "FACP", 64, NULL, 0); /* PM1 control blocks past it */
	acpi_init(boot_tables(&t, 1));
	assert_int_equal(acpi.pm1a_cnt, 0);
	assert_int_equal(acpi.pm1b_cnt, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_shorter_than_its_header_is_skipped),
		cmocka_unit_test(
			test_madt_entry_shorter_than_its_fields_is_skipped),
		cmocka_unit_test(test_fadt_shorter_than_acpi_1_is_ignored),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
