/*
 * The AML scanner (kernel/acpi_aml.c) on real and on constructed AML.
 *
 * Real: data/qemu-q35-pxb-numa1.dsdt is the DSDT QEMU 7.2 generated for
 *   qemu-system-x86_64 -machine q35 -smp 4 -m 512M
 *     -object memory-backend-ram,size=256M,id=m0
 *     -numa node,nodeid=0,cpus=0-1,memdev=m0
 *     -object memory-backend-ram,size=256M,id=m1
 *     -numa node,nodeid=1,cpus=2-3,memdev=m1
 *     -device pxb-pcie,bus_nr=32,id=pxb1,numa_node=1
 *     -device pcie-root-port,id=rp1,bus=pxb1,chassis=1
 *     -netdev user,id=n0 -device virtio-net-pci,netdev=n0,bus=rp1
 * copied out of guest memory with the monitor's pmemsave (it is data
 * QEMU's ACPI builder wrote, not anybody's source). It declares PCI0
 * (PNP0A08, no _BBN, no _PXM) and PC20 (_BBN 0x20, _PXM 1), and four
 * Processor objects with _PXM of their own, which are not bridges.
 *
 * Constructed: small tables built here byte by byte, for what QEMU does
 * not write: a _PXM method, string ids, truncated and lying lengths,
 * unknown opcodes, deep nesting.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kernel/acpi_aml.c"

#define HDR 36 /* ACPI table header before the AML */

static uint8_t *read_fixture(size_t *len)
{
	char path[512];
	const char *file = __FILE__;
	const char *slash = strrchr(file, '/');
	FILE *f;
	uint8_t *buf = malloc(1 << 16);

	snprintf(path, sizeof(path), "%.*s/data/qemu-q35-pxb-numa1.dsdt",
		 (int)(slash - file), file);
	f = fopen(path, "rb");
	assert_non_null(f);
	*len = fread(buf, 1, 1 << 16, f);
	fclose(f);
	assert_true(*len > HDR);
	return buf;
}

static const struct acpi_host_bridge *find(const struct acpi_host_bridge *br,
					   int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(br[i].name, name))
			return &br[i];
	return NULL;
}

static void test_qemu_dsdt_has_the_root_and_the_expander_bridge(void **s)
{
	size_t len;
	uint8_t *t = read_fixture(&len);
	struct acpi_host_bridge br[8];
	struct aml_scan_stats st;
	const struct acpi_host_bridge *pci0, *pc20;
	int n;

	(void)s;
	assert_memory_equal(t, "DSDT", 4);
	n = aml_find_host_bridges(t + HDR, len - HDR, br, 8, &st);
	assert_int_equal(n, 2);
	pci0 = find(br, n, "PCI0");
	pc20 = find(br, n, "PC20");
	assert_non_null(pci0);
	assert_non_null(pc20);
	assert_false(pci0->has_bbn);
	assert_false(pci0->has_pxm);
	assert_int_equal(pci0->bus, 0);
	assert_true(pc20->has_bbn);
	assert_int_equal(pc20->bus, 0x20);
	assert_true(pc20->has_pxm);
	assert_int_equal(pc20->pxm, 1);
	assert_false(pc20->pxm_method);
	assert_int_equal(pc20->segment, 0);
	/* QEMU's table walks without losing its way once. */
	assert_int_equal(st.fallbacks, 0);
	assert_int_equal(st.too_deep, 0);
	assert_int_equal(st.devices, 33);
	free(t);
}

/* Any cut of the real table: never a read past it (ASan checks the
 * copy's exact size), and never a bridge that is not in the table. */
static void test_every_truncation_of_the_qemu_dsdt_is_safe(void **s)
{
	size_t len;
	uint8_t *t = read_fixture(&len);

	(void)s;
	for (size_t cut = 0; cut <= len - HDR; cut += 7) {
		uint8_t *copy = malloc(cut ? cut : 1);
		struct acpi_host_bridge br[8];
		int n;

		memcpy(copy, t + HDR, cut);
		n = aml_find_host_bridges(copy, cut, br, 8, NULL);
		assert_true(n >= 0 && n <= 2);
		for (int i = 0; i < n; i++)
			assert_true(!strcmp(br[i].name, "PCI0") ||
				    !strcmp(br[i].name, "PC20"));
		free(copy);
	}
	free(t);
}

/* Flipping bytes of the real table: bounded, no crash, at most the two
 * bridges there are (possibly with wrong values: garbage in). */
static void test_corrupted_qemu_dsdt_is_safe(void **s)
{
	size_t len;
	uint8_t *t = read_fixture(&len);
	unsigned int seed = 12345;

	(void)s;
	for (int round = 0; round < 2000; round++) {
		uint8_t *copy = malloc(len - HDR);
		struct acpi_host_bridge br[8];
		struct aml_scan_stats st;

		memcpy(copy, t + HDR, len - HDR);
		for (int k = 0; k < 4; k++) {
			seed = seed * 1103515245u + 12345u;
			copy[(seed >> 8) % (len - HDR)] = (uint8_t)(seed >> 24);
		}
		assert_true(aml_find_host_bridges(copy, len - HDR, br, 8,
						  &st) <= 8);
		free(copy);
	}
	free(t);
}

/* ------------------------------------------ constructed AML, byte by byte */

struct buf {
	uint8_t b[4096];
	size_t n;
};

static void put(struct buf *o, const void *p, size_t n)
{
	assert_true(o->n + n <= sizeof(o->b));
	memcpy(o->b + o->n, p, n);
	o->n += n;
}

static void put1(struct buf *o, uint8_t v)
{
	put(o, &v, 1);
}

/* PkgLength for a body of n bytes (the length includes itself). */
static void put_pkglen(struct buf *o, size_t n)
{
	if (n + 1 < 64) {
		put1(o, (uint8_t)(n + 1));
	} else {
		size_t len = n + 2;

		assert_true(len < 4096);
		put1(o, (uint8_t)(0x40 | (len & 0x0f)));
		put1(o, (uint8_t)(len >> 4));
	}
}

/* opcode(s), PkgLength, NameSeg, then body */
static void put_block(struct buf *o, const uint8_t *op, size_t nop,
		      const char *seg, const struct buf *body)
{
	put(o, op, nop);
	put_pkglen(o, 4 + body->n);
	put(o, seg, 4);
	put(o, body->b, body->n);
}

static void put_device(struct buf *o, const char *seg, const struct buf *body)
{
	static const uint8_t op[] = {0x5B, 0x82};

	put_block(o, op, 2, seg, body);
}

static void put_scope(struct buf *o, const char *seg, const struct buf *body)
{
	static const uint8_t op[] = {0x10};

	put_block(o, op, 1, seg, body);
}

static void put_name_int(struct buf *o, const char *seg, uint8_t prefix,
			 uint32_t v)
{
	put1(o, 0x08);
	put(o, seg, 4);
	put1(o, prefix);
	if (prefix == 0x0A)
		put1(o, (uint8_t)v);
	else if (prefix == 0x0B)
		put(o, &v, 2);
	else if (prefix == 0x0C)
		put(o, &v, 4);
}

static void put_hid_eisa(struct buf *o, uint32_t id)
{
	put_name_int(o, "_HID", 0x0C, id);
}

static int scan(const struct buf *o, struct acpi_host_bridge *br, int max,
		struct aml_scan_stats *st)
{
	return aml_find_host_bridges(o->b, o->n, br, max, st);
}

static void test_a_method_pxm_is_reported_unsupported(void **s)
{
	struct buf dev = {0}, method = {0}, t = {0};
	struct acpi_host_bridge br[2];

	(void)s;
	put_hid_eisa(&dev, AML_EISAID_PNP0A08);
	put_name_int(&dev, "_BBN", 0x0A, 0x40);
	put1(&method, 0x00); /* flags */
	put1(&method, 0xA4); /* Return */
	put1(&method, 0x01); /* One */
	put_block(&dev, (const uint8_t[]){0x14}, 1, "_PXM", &method);
	put_device(&t, "PCI4", &dev);
	assert_int_equal(scan(&t, br, 2, NULL), 1);
	assert_string_equal(br[0].name, "PCI4");
	assert_int_equal(br[0].bus, 0x40);
	assert_false(br[0].has_pxm);
	assert_true(br[0].pxm_method);
}

static void test_string_hid_and_cid_mark_a_bridge(void **s)
{
	struct buf a = {0}, b = {0}, other = {0}, t = {0};
	struct acpi_host_bridge br[4];

	(void)s;
	put1(&a, 0x08);
	put(&a, "_HID\x0dPNP0A03", 13);
	put_name_int(&a, "_PXM", 0x0B, 3);
	put1(&b, 0x08);
	put(&b, "_CID\x0dPNP0A08", 13); /* with its NUL */
	put_name_int(&b, "_SEG", 0x0A, 1);
	put_hid_eisa(&other, 0x0F0CD041u); /* PNP0C0F: a link, not a bridge */
	put_name_int(&other, "_PXM", 0x0A, 1);
	put_device(&t, "PCIA", &a);
	put_device(&t, "PCIB", &b);
	put_device(&t, "LNKA", &other);
	assert_int_equal(scan(&t, br, 4, NULL), 2);
	assert_string_equal(br[0].name, "PCIA");
	assert_true(br[0].has_pxm);
	assert_int_equal(br[0].pxm, 3);
	assert_string_equal(br[1].name, "PCIB");
	assert_int_equal(br[1].segment, 1);
	assert_false(br[1].has_pxm);
}

/* Names of a child device are the child's, not its parent's; a bridge
 * inside Scope (_SB_) is found. */
static void test_a_child_device_keeps_its_own_names(void **s)
{
	struct buf child = {0}, bridge = {0}, sb = {0}, t = {0};
	struct acpi_host_bridge br[2];

	(void)s;
	put_name_int(&child, "_PXM", 0x0A, 7);
	put_name_int(&child, "_ADR", 0x00, 0);
	put_hid_eisa(&bridge, AML_EISAID_PNP0A03);
	put_device(&bridge, "S08_", &child);
	put_name_int(&bridge, "_BBN", 0x0A, 0x10);
	put_device(&sb, "PCI1", &bridge);
	put_scope(&t, "_SB_", &sb);
	assert_int_equal(scan(&t, br, 2, NULL), 1);
	assert_string_equal(br[0].name, "PCI1");
	assert_false(br[0].has_pxm);
	assert_int_equal(br[0].bus, 0x10);
}

/* A PkgLength that reaches past the table fails that term, nothing is
 * read beyond the end, and what came before is kept. */
static void test_a_length_past_the_end_is_refused(void **s)
{
	struct buf dev = {0}, t = {0};
	struct acpi_host_bridge br[2];
	uint8_t *exact;
	int n;

	(void)s;
	put_hid_eisa(&dev, AML_EISAID_PNP0A08);
	put_device(&t, "GOOD", &dev);
	put1(&t, 0x5B);
	put1(&t, 0x82);
	put1(&t, 0x4F); /* two-byte PkgLength: 0x0FFF bytes */
	put1(&t, 0xFF);
	put(&t, "BADD", 4);
	put_hid_eisa(&t, AML_EISAID_PNP0A08);
	exact = malloc(t.n); /* ASan: one byte further is out of bounds */
	memcpy(exact, t.b, t.n);
	n = aml_find_host_bridges(exact, t.n, br, 2, NULL);
	assert_int_equal(n, 1);
	assert_string_equal(br[0].name, "GOOD");
	free(exact);
}

/* An opcode the walker does not know: the rest of the range is
 * byte-scanned, so a bridge after it is still found, and counted. */
static void test_unknown_opcode_falls_back_to_a_byte_scan(void **s)
{
	struct buf dev = {0}, t = {0};
	struct acpi_host_bridge br[2];
	struct aml_scan_stats st;

	(void)s;
	put1(&t, 0x70); /* Store (...) at namespace level: not walked */
	put1(&t, 0x01);
	put(&t, "LOCL", 4);
	put_hid_eisa(&dev, AML_EISAID_PNP0A08);
	put_name_int(&dev, "_BBN", 0x0A, 0x80);
	put_name_int(&dev, "_PXM", 0x0C, 2);
	put_device(&t, "PC80", &dev);
	assert_int_equal(scan(&t, br, 2, &st), 1);
	assert_int_equal(st.fallbacks, 1);
	assert_string_equal(br[0].name, "PC80");
	assert_int_equal(br[0].bus, 0x80);
	assert_int_equal(br[0].pxm, 2);
}

/* Devices nested past the limit are skipped and counted, not recursed. */
static void test_nesting_is_bounded(void **s)
{
	static struct buf level[40];
	struct aml_scan_stats st;
	struct acpi_host_bridge br[2];

	(void)s;
	memset(level, 0, sizeof(level));
	put_hid_eisa(&level[0], AML_EISAID_PNP0A08);
	for (int i = 1; i < 40; i++) {
		char seg[5];

		snprintf(seg, sizeof(seg), "D%03u", (unsigned int)i % 1000u);
		put_device(&level[i], seg, &level[i - 1]);
	}
	assert_int_equal(scan(&level[39], br, 2, &st), 0);
	assert_true(st.too_deep >= 1);
	assert_true(st.devices <= AML_MAX_DEPTH + 1);
}

static void test_more_bridges_than_room_are_counted(void **s)
{
	struct buf dev = {0}, t = {0};
	struct acpi_host_bridge br[2];
	struct aml_scan_stats st;

	(void)s;
	put_hid_eisa(&dev, AML_EISAID_PNP0A03);
	put_device(&t, "PCIA", &dev);
	put_device(&t, "PCIB", &dev);
	put_device(&t, "PCIC", &dev);
	assert_int_equal(scan(&t, br, 2, &st), 2);
	assert_int_equal(st.bridges_dropped, 1);
	assert_int_equal(aml_find_host_bridges(t.b, t.n, NULL, 0, &st), 0);
	assert_int_equal(st.bridges_dropped, 3);
	assert_int_equal(aml_find_host_bridges(NULL, 0, br, 2, &st), 0);
}

/*
 * Real DSDTs are 100-500 KiB. A device body the walker cannot follow is
 * byte-scanned; if every byte there opens a Name() whose string has no
 * end, a scan that looks for each string's NUL anew reads the rest of
 * the table at every candidate: quadratic (1.6 s for 256 KiB). The work
 * must grow linearly: a few steps per byte, however the bytes are laid.
 */
static void test_a_byte_scan_without_string_ends_is_linear(void **s)
{
	static const uint8_t name_str[] = {0x08, 'A', 'A', 'A', 'A', 0x0D};
	const size_t body = 256 * 1024, len = 2 + 4 + 4 + 1 + body;
	uint8_t *t = malloc(len), *p = t;
	struct acpi_host_bridge br[2];
	struct aml_scan_stats st;
	size_t pkg = 4 + 4 + 1 + body; /* PkgLength, NameSeg, Store, body */

	(void)s;
	*p++ = 0x5B;
	*p++ = 0x82; /* Device */
	*p++ = (uint8_t)(0xC0 | (pkg & 0x0f));
	*p++ = (uint8_t)(pkg >> 4);
	*p++ = (uint8_t)(pkg >> 12);
	*p++ = (uint8_t)(pkg >> 20);
	memcpy(p, "DEV0", 4);
	p += 4;
	*p++ = 0x70; /* Store: not walked, so the body is byte-scanned */
	for (size_t i = 0; i < body; i++)
		*p++ = name_str[i % sizeof(name_str)];
	assert_int_equal(aml_find_host_bridges(t, len, br, 2, &st), 0);
	assert_int_equal(st.fallbacks, 1);
	assert_true(st.steps >= body);
	assert_true(st.steps <= 4 * len);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
			test_qemu_dsdt_has_the_root_and_the_expander_bridge),
		cmocka_unit_test(
			test_every_truncation_of_the_qemu_dsdt_is_safe),
		cmocka_unit_test(test_corrupted_qemu_dsdt_is_safe),
		cmocka_unit_test(test_a_method_pxm_is_reported_unsupported),
		cmocka_unit_test(test_string_hid_and_cid_mark_a_bridge),
		cmocka_unit_test(test_a_child_device_keeps_its_own_names),
		cmocka_unit_test(test_a_length_past_the_end_is_refused),
		cmocka_unit_test(test_unknown_opcode_falls_back_to_a_byte_scan),
		cmocka_unit_test(test_nesting_is_bounded),
		cmocka_unit_test(test_more_bridges_than_room_are_counted),
		cmocka_unit_test(
			test_a_byte_scan_without_string_ends_is_linear),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
