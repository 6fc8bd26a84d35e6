/*
 * The MP table reader (kernel/mptable.c) on a real table and on broken
 * copies of it.
 *
 * Real: data/qemu-pc-4sockets.mptable is what QEMU 7.2's SeaBIOS left at
 * physical 0xf5b60 for
 *   qemu-system-x86_64 -machine pc -smp 4,sockets=4 -m 256M
 *     -netdev user,id=n0 -device e1000,netdev=n0
 * copied out of guest memory with the monitor's pmemsave: the 16-byte
 * floating pointer structure, and right after it (0xf5b70) the 268-byte
 * configuration table. Four processors (APIC ids 0-3, 0 the bootstrap
 * one), buses 0 PCI and 1 ISA, IOAPIC 0 at 0xfec00000, ISA IRQ 0 on
 * INTIN 2, the other ISA IRQs on their own pins except 2 (the cascade) and
 * the PCI ones (5, 9, 10, 11 are left out), and two PCI entries: 00:01 INTA (the PIIX4's
 * power management) on INTIN 9 and 00:02 INTA (the e1000) on INTIN 10,
 * both active high. SeaBIOS lists one processor per package, so a
 * -smp 4 of one socket and four cores has a one-processor table.
 *
 * Broken: the same bytes with one field changed (and the checksum fixed
 * where the test is not about the checksum), cut short, or each byte in
 * turn flipped: the reader refuses what does not hold and never reads
 * past what it was given (the ASan build checks that).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kernel/mptable.c"

#define FIXTURE_PHYS 0xf5b60u
#define TABLE_OFF    16 /* the table follows the pointer structure */

static uint8_t real[512];
static size_t real_len;

static void load_fixture(void)
{
	char path[512];
	const char *slash = strrchr(__FILE__, '/');
	FILE *f;

	snprintf(path, sizeof(path), "%.*s/data/qemu-pc-4sockets.mptable",
		 (int)(slash - __FILE__), __FILE__);
	f = fopen(path, "rb");
	assert_non_null(f);
	real_len = fread(real, 1, sizeof(real), f);
	fclose(f);
	assert_int_equal(real_len, 284);
}

static int setup(void **state)
{
	(void)state;
	load_fixture();
	return 0;
}

/* A copy of the real table (without the pointer) in a buffer of exactly
 * its length, so ASan sees any read past it. */
static uint8_t *table_copy(size_t *len)
{
	uint8_t *t;

	*len = real_len - TABLE_OFF;
	t = malloc(*len);
	memcpy(t, real + TABLE_OFF, *len);
	return t;
}

/* Set the checksum byte so the first len bytes sum to 0 again. */
static void fix_checksum(uint8_t *t, size_t len, size_t sum_at)
{
	t[sum_at] = 0;
	t[sum_at] = (uint8_t)-sum_bytes(t, len);
}

static const struct mp_irq *irq_for(const struct mp_config *c, int pci,
				    uint8_t source)
{
	for (int i = 0; i < c->nr_irqs; i++)
		if (c->irqs[i].pci == pci && c->irqs[i].source == source)
			return &c->irqs[i];
	return NULL;
}

static void test_pointer_found_and_points_at_the_table(void **state)
{
	struct mp_fps fps;

	(void)state;
	assert_int_equal(mp_fps_find(real, real_len, &fps), 0);
	assert_int_equal(fps.table, FIXTURE_PHYS + TABLE_OFF);
	assert_int_equal(fps.spec_rev, 4);
	assert_int_equal(fps.default_config, 0);
	assert_false(fps.imcr);
}

static void test_real_table_lists_cpus_ioapic_and_irqs(void **state)
{
	struct mp_config c;
	const struct mp_irq *irq;

	(void)state;
	assert_null(mp_table_parse(real + TABLE_OFF, real_len - TABLE_OFF, &c));
	assert_int_equal(c.lapic_base, 0xfee00000u);
	assert_int_equal(c.nr_cpus, 4);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(c.cpus[i].apic_id, i);
		assert_int_equal(c.cpus[i].boot, i == 0);
	}
	assert_int_equal(c.nr_ioapics, 1);
	assert_int_equal(c.ioapics[0].id, 0);
	assert_int_equal(c.ioapics[0].addr, 0xfec00000u);
	assert_int_equal(c.nr_irqs, 13);
	irq = irq_for(&c, 0, 0); /* the PIT */
	assert_non_null(irq);
	assert_int_equal(irq->pin, 2);
	assert_int_equal(irq->flags, 0);
	assert_null(irq_for(&c, 0, 10)); /* a PCI link's IRQ */
	irq = irq_for(&c, 1, 2 << 2);	 /* 00:02 INTA, the e1000 */
	assert_non_null(irq);
	assert_int_equal(irq->pin, 10);
	assert_int_equal(irq->flags, 1); /* active high, bus trigger */
	assert_int_equal(c.cpus_disabled, 0);
	assert_int_equal(c.dropped, 0);
}

static void test_pointer_with_bad_checksum_is_not_found(void **state)
{
	uint8_t area[64] = {0};
	struct mp_fps fps;

	(void)state;
	memcpy(area + 16, real, 16);
	assert_int_equal(mp_fps_find(area, sizeof(area), &fps), 16);
	area[16 + 4] ^= 1; /* the table's address */
	assert_int_equal(mp_fps_find(area, sizeof(area), &fps), -1);
}

static void test_pointer_off_a_16_byte_boundary_is_not_found(void **state)
{
	uint8_t area[64] = {0};
	struct mp_fps fps;

	(void)state;
	memcpy(area + 8, real, 16);
	assert_int_equal(mp_fps_find(area, sizeof(area), &fps), -1);
}

static void test_pointer_cut_by_the_area_end_is_not_read(void **state)
{
	uint8_t *area = malloc(24);
	struct mp_fps fps;

	(void)state;
	memset(area, 0, 24);
	memcpy(area + 16, real, 8); /* "_MP_" and the address only */
	assert_int_equal(mp_fps_find(area, 24, &fps), -1);
	free(area);
}

static void test_pointer_of_other_length_is_not_found(void **state)
{
	uint8_t area[16];
	struct mp_fps fps;

	(void)state;
	memcpy(area, real, 16);
	area[8] = 2;
	fix_checksum(area, 16, 10);
	assert_int_equal(mp_fps_find(area, 16, &fps), -1);
}

static void test_table_with_bad_checksum_is_refused(void **state)
{
	size_t len;
	uint8_t *t = table_copy(&len);
	struct mp_config c;

	(void)state;
	t[44 + 1] = 9; /* the first processor's APIC id */
	assert_string_equal(mp_table_parse(t, len, &c), "bad checksum");
	assert_int_equal(c.nr_cpus, 0);
	free(t);
}

static void test_table_without_signature_is_refused(void **state)
{
	size_t len;
	uint8_t *t = table_copy(&len);
	struct mp_config c;

	(void)state;
	t[0] = 'X';
	fix_checksum(t, len, 7);
	assert_string_equal(mp_table_parse(t, len, &c), "no PCMP signature");
	free(t);
}

static void test_table_longer_than_readable_is_refused(void **state)
{
	size_t len;
	uint8_t *t = table_copy(&len);
	struct mp_config c;

	(void)state;
	assert_string_equal(mp_table_parse(t, len - 1, &c),
			    "base table length out of bounds");
	assert_string_equal(mp_table_parse(t, 20, &c),
			    "shorter than its header");
	free(t);
}

static void test_entry_count_past_the_length_is_refused(void **state)
{
	size_t len;
	uint8_t *t = table_copy(&len);
	struct mp_config c;

	(void)state;
	t[34] += 1; /* one entry more than the 268 bytes hold */
	fix_checksum(t, len, 7);
	assert_string_equal(mp_table_parse(t, len, &c),
			    "entry count runs past the table");
	free(t);
}

static void test_entry_cut_by_the_length_is_refused(void **state)
{
	size_t len;
	uint8_t *t = table_copy(&len);
	struct mp_config c;

	(void)state;
	/* the length ends 4 bytes into the last entry */
	t[4] = (uint8_t)(len - 4);
	fix_checksum(t, len - 4, 7);
	assert_string_equal(mp_table_parse(t, len, &c),
			    "entry runs past the table");
	free(t);
}

static void test_entry_of_unknown_type_is_refused(void **state)
{
	size_t len;
	uint8_t *t = table_copy(&len);
	struct mp_config c;

	(void)state;
	t[44 + 4 * 20] = 7; /* the PCI bus entry */
	fix_checksum(t, len, 7);
	assert_string_equal(mp_table_parse(t, len, &c),
			    "entry of unknown type");
	free(t);
}

static void test_disabled_processor_is_counted_not_listed(void **state)
{
	size_t len;
	uint8_t *t = table_copy(&len);
	struct mp_config c;

	(void)state;
	t[44 + 2 * 20 + 3] &= (uint8_t)~1; /* APIC id 2: not enabled */
	fix_checksum(t, len, 7);
	assert_null(mp_table_parse(t, len, &c));
	assert_int_equal(c.nr_cpus, 3);
	assert_int_equal(c.cpus[2].apic_id, 3);
	assert_int_equal(c.cpus_disabled, 1);
	free(t);
}

static void test_interrupt_from_an_undeclared_bus_is_dropped(void **state)
{
	size_t len;
	uint8_t *t = table_copy(&len);
	struct mp_config c;
	size_t first_irq = 44 + 4 * 20 + 2 * 8 + 8;

	(void)state;
	assert_int_equal(t[first_irq], 3);
	t[first_irq + 4] = 5; /* source bus 5: no such bus */
	fix_checksum(t, len, 7);
	assert_null(mp_table_parse(t, len, &c));
	assert_int_equal(c.nr_irqs, 12);
	assert_int_equal(c.dropped, 1);
	free(t);
}

/* Every byte flipped in turn, checksum fixed or not: the reader answers
 * (a refusal or a table) without reading past the buffer, and what it
 * accepts stays within its arrays. */
static void test_every_single_byte_corruption_is_read_safely(void **state)
{
	size_t len;
	uint8_t *t = table_copy(&len);
	struct mp_config c;
	int accepted = 0, refused = 0;

	(void)state;
	for (size_t i = 0; i < len; i++) {
		for (int fix = 0; fix < 2; fix++) {
			uint8_t *u = table_copy(&len);
			const char *why;

			u[i] ^= 0xA5;
			if (fix && i != 7)
				fix_checksum(u, len, 7);
			why = mp_table_parse(u, len, &c);
			if (why) {
				refused++;
				assert_int_equal(c.nr_cpus, 0);
			} else {
				accepted++;
				assert_in_range(c.nr_cpus, 1, MP_MAX_CPUS);
				assert_in_range(c.nr_irqs, 0, MP_MAX_IRQS);
			}
			free(u);
		}
	}
	/* unfixed checksums refuse every change; some fixed ones pass */
	assert_true(refused >= (int)len);
	assert_true(accepted > 0);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pointer_found_and_points_at_the_table),
		cmocka_unit_test(test_real_table_lists_cpus_ioapic_and_irqs),
		cmocka_unit_test(test_pointer_with_bad_checksum_is_not_found),
		cmocka_unit_test(
			test_pointer_off_a_16_byte_boundary_is_not_found),
		cmocka_unit_test(test_pointer_cut_by_the_area_end_is_not_read),
		cmocka_unit_test(test_pointer_of_other_length_is_not_found),
		cmocka_unit_test(test_table_with_bad_checksum_is_refused),
		cmocka_unit_test(test_table_without_signature_is_refused),
		cmocka_unit_test(test_table_longer_than_readable_is_refused),
		cmocka_unit_test(test_entry_count_past_the_length_is_refused),
		cmocka_unit_test(test_entry_cut_by_the_length_is_refused),
		cmocka_unit_test(test_entry_of_unknown_type_is_refused),
		cmocka_unit_test(test_disabled_processor_is_counted_not_listed),
		cmocka_unit_test(
			test_interrupt_from_an_undeclared_bus_is_dropped),
		cmocka_unit_test(
			test_every_single_byte_corruption_is_read_safely),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
