/*
 * PCI enumeration (drivers/pci.c, compiled into this file) over simulated
 * ECAM windows: each window is host memory laid out as ECAM lays out
 * configuration space (1 MiB per bus, 32 KiB per device, 4 KiB per
 * function), mapped lazily so that an empty bus costs nothing. An empty
 * slot reads as zeros here, which the scan must take as absent just as it
 * takes the all-ones a real empty slot returns.
 *
 * Checked: every bus of a window is scanned up to its last, every window
 * of every segment group with its own base (an MCFG base is where bus 0
 * would be, also for a window that starts later), the table grows past
 * any fixed size, a window that cannot be mapped is said and skipped, and
 * functions 1-7 count only on multi-function devices.
 *
 * The legacy port path (no MCFG) needs real port I/O and is left to the
 * QEMU tests (machine pc has no MCFG).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include <cmocka.h>

#include "drivers/pci.c"
#include "mm_test.h"

/* ------------------------------------------ fake firmware and kernel */

#define MAX_FAKE     4
#define UNMAPPABLE   0xdead00000000ull /* a window base nobody can map */
#define CMD_DECODING (PCI_CMD_IO | PCI_CMD_MEM)

static struct drv_ecam fake_windows[MAX_FAKE];
static uint8_t *fake_mem[MAX_FAKE];
static size_t fake_len[MAX_FAKE];
static int nfake;
static char console[1 << 16];

void drv_printf(const char *fmt, ...)
{
	size_t n = strlen(console);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(console + n, sizeof(console) - n, fmt, ap);
	va_end(ap);
}

/* RAM and device memory are identity-mapped here too: a window's address
 * is its host memory, except the one no page table can reach. */
void *drv_map_mmio(uint64_t phys, size_t size)
{
	(void)size;
	return phys >= UNMAPPABLE ? NULL : (void *)(uintptr_t)phys;
}

int drv_ecam_windows(struct drv_ecam *out, int max)
{
	int n = nfake < max ? nfake : max;

	memcpy(out, fake_windows, (size_t)n * sizeof(*out));
	return n;
}

/* The node is asked with the segment: segment s answers node s. */
int drv_pci_bus_node(int seg, int bus)
{
	(void)bus;
	return seg;
}

/* A window of buses first..last of segment seg; returns its index. */
static int add_window(uint16_t seg, int first, int last)
{
	int i = nfake++;
	size_t len = (size_t)(last - first + 1) << 20;
	void *m = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	assert_true(m != MAP_FAILED);
	fake_mem[i] = m;
	fake_len[i] = len;
	fake_windows[i] = (struct drv_ecam){
		.base = (uintptr_t)m - ((uint64_t)first << 20),
		.segment = seg,
		.bus_start = (uint8_t)first,
		.bus_end = (uint8_t)last,
	};
	return i;
}

static uint8_t *cfg_of(int w, int bus, int dev, int fn)
{
	return fake_mem[w] + ((size_t)(bus - fake_windows[w].bus_start) << 20) +
	       ((size_t)dev << 15) + ((size_t)fn << 12);
}

/* A function: ids, a class, a subsystem id, and the multi-function bit
 * in its header type when multi. */
static void put_function(int w, int bus, int dev, int fn, uint16_t vendor,
			 uint16_t device, bool multi)
{
	uint8_t *c = cfg_of(w, bus, dev, fn);
	uint16_t subsys = (uint16_t)(bus << 8 | dev << 3 | fn);

	memcpy(c + 0, &vendor, 2);
	memcpy(c + 2, &device, 2);
	c[0x0b] = 0x02; /* network controller */
	c[0x0e] = multi ? 0x80 : 0x00;
	memcpy(c + PCI_SUBSYS + 2, &subsys, 2);
}

static int setup(void **state)
{
	(void)state;
	mm_test_boot(1, 16, 1);
	nfake = 0;
	console[0] = '\0';
	pci_devs = NULL; /* the last test's table went with its machine */
	pci_cap = 0;
	return 0;
}

static int teardown(void **state)
{
	for (int i = 0; i < nfake; i++)
		munmap(fake_mem[i], fake_len[i]);
	return mm_test_teardown(state);
}

/* ---------------------------------------------------------- the tests */

static void test_every_bus_of_a_window_is_scanned_to_its_last(void **state)
{
	int w = add_window(0, 0, 255);

	(void)state;
	put_function(w, 0x00, 0, 0, 0x8086, 0x29c0, false);
	put_function(w, 0x80, 0x1f, 0, 0x1af4, 0x1041, false);
	put_function(w, 0xff, 0x1f, 0, 0x8086, 0x10d3, true);
	put_function(w, 0xff, 0x1f, 7, 0x8086, 0x10d4, false);
	assert_int_equal(pci_init(), 4);
	assert_string_equal(pci_method(), "ecam");
	assert_non_null(strstr(console, "pci: 4 functions via ecam\n"));
	assert_int_equal(pci_find(0x1af4, 0x1041, 0)->bus, 0x80);
	assert_int_equal(pci_find(0x8086, 0x10d4, 0)->fn, 7);
	assert_non_null(strstr(console, "pci: ff:1f.7 8086:10d4 class 0200"));
}

/* 300 functions on buses 1-10: far past the 64 a fixed table once held;
 * each keeps its own place and configuration space. */
static void test_the_table_grows_with_what_is_found(void **state)
{
	int w = add_window(0, 0, 15);
	struct pci_dev *last;

	(void)state;
	for (int bus = 1; bus <= 10; bus++)
		for (int dev = 0; dev < 30; dev++)
			put_function(w, bus, dev, 0, 0x1af4, 0x1000, false);
	assert_int_equal(pci_init(), 300);
	assert_true(pci_cap >= 300);
	last = pci_find(0x1af4, 0x1000, 299);
	assert_non_null(last);
	assert_int_equal(last->bus, 10);
	assert_int_equal(last->dev, 29);
	assert_int_equal(pci_read16(last, PCI_SUBSYS + 2), 10 << 8 | 29 << 3);
	assert_null(pci_find(0x1af4, 0x1000, 300));
}

/* Three windows: segment 0, segment 1 starting at bus 0x40 (its base is
 * where bus 0 would be), segment 2. Each function is read through its own
 * window: its subsystem id (bus, dev, fn) comes back. */
static void test_each_segment_window_is_scanned_at_its_own_base(void **state)
{
	int w0 = add_window(0, 0, 1), w1 = add_window(1, 0x40, 0x41),
	    w2 = add_window(2, 0, 0);
	struct pci_dev *d;
	char json[512];

	(void)state;
	put_function(w0, 1, 0, 0, 0x1af4, 0x1041, false);
	put_function(w1, 0x41, 3, 0, 0x8086, 0x10d3, false);
	put_function(w2, 0, 2, 0, 0x8086, 0x100e, false);
	assert_int_equal(pci_init(), 3);
	d = pci_find(0x8086, 0x10d3, 0);
	assert_non_null(d);
	assert_int_equal(d->segment, 1);
	assert_int_equal(d->bus, 0x41);
	assert_int_equal(d->node, 1);
	assert_ptr_equal(d->cfg, cfg_of(w1, 0x41, 3, 0));
	assert_int_equal(pci_read16(d, PCI_SUBSYS + 2), 0x41 << 8 | 3 << 3);
	assert_int_equal(pci_find(0x8086, 0x100e, 0)->segment, 2);
	assert_int_equal(pci_find(0x1af4, 0x1041, 0)->segment, 0);
	assert_non_null(strstr(console, "pci: 0001:41:03.0 8086:10d3 class "
					"0200 node=1\n"));
	assert_non_null(strstr(console, "pci: 01:00.0 1af4:1041"));
	assert_true(pci_json(json, sizeof(json)) < (int)sizeof(json));
	assert_string_equal(json, "[\"01:00.0 1af4:1041\","
				  "\"0001:41:03.0 8086:10d3\","
				  "\"0002:00:02.0 8086:100e\"]");
}

static void test_an_unmappable_window_is_said_and_skipped(void **state)
{
	int bad = add_window(1, 0, 3), good = add_window(0, 0, 0);

	(void)state;
	fake_windows[bad].base = UNMAPPABLE;
	put_function(good, 0, 4, 0, 0x1af4, 0x1041, false);
	assert_int_equal(pci_init(), 1);
	assert_non_null(strstr(console, "pci: ecam segment 1 buses 0-3 at "
					"0xdead00000000 cannot be mapped, not "
					"scanned\n"));
}

/* A single-function device may answer at every function number with
 * function 0's registers: only a multi-function device's 1-7 count. A
 * slot of all ones is empty, as one of all zeros. */
static void test_functions_1_to_7_count_on_multifunction_devices(void **state)
{
	int w = add_window(0, 0, 0);

	(void)state;
	put_function(w, 0, 1, 0, 0x8086, 0x0001, false);
	put_function(w, 0, 1, 1, 0x8086, 0x0002, false); /* an alias */
	put_function(w, 0, 2, 0, 0x8086, 0x0003, true);
	put_function(w, 0, 2, 5, 0x8086, 0x0004, false);
	memset(cfg_of(w, 0, 3, 0), 0xff, 4096);
	assert_int_equal(pci_init(), 3);
	assert_null(pci_find(0x8086, 0x0002, 0));
	assert_non_null(pci_find(0x8086, 0x0004, 0));
	assert_null(pci_find(0xffff, 0xffff, 0));
}

static void test_disable_master_leaves_decoding_on(void **state)
{
	int w = add_window(0, 0, 0);
	struct pci_dev *d;

	(void)state;
	put_function(w, 0, 5, 0, 0x8086, 0x15b8, false);
	assert_int_equal(pci_init(), 1);
	d = pci_get(0);
	pci_enable(d);
	assert_int_equal(pci_read16(d, PCI_COMMAND),
			 CMD_DECODING | PCI_CMD_MASTER);
	pci_disable_master(d);
	assert_int_equal(pci_read16(d, PCI_COMMAND), CMD_DECODING);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_every_bus_of_a_window_is_scanned_to_its_last),
		T(test_the_table_grows_with_what_is_found),
		T(test_each_segment_window_is_scanned_at_its_own_base),
		T(test_an_unmappable_window_is_said_and_skipped),
		T(test_functions_1_to_7_count_on_multifunction_devices),
		T(test_disable_master_leaves_decoding_on),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
