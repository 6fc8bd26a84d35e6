/*
 * The modern virtio PCI transport (drivers/virtio_pci.c, compiled into
 * this file) against a simulated device whose capabilities may lie: the
 * PCI configuration space is a byte array the test fills with vendor
 * capabilities, and BAR4 is plain host memory. The device chooses each
 * capability's BAR, offset and length, and each queue's notify offset;
 * the driver must keep every access inside the BAR and the window the
 * capability gives, and refuse (and report) what does not fit.
 *
 * Registers are plain memory here (a write reads back as written), which
 * is all these checks need; the queue and ring logic is tested against a
 * simulated device in test_virtqueue.c.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "drivers/virtio_pci.c"

/* ------------------------------------------------ the simulated device */

#define BAR_SIZE   0x4000
#define CAP_FIRST  0x40
#define CAP_STRIDE 0x14

static uint8_t config[256];
static uint8_t *bar4; /* BAR_SIZE bytes, plus a guard page's worth */
static unsigned int ncaps;
static struct pci_dev fake_pci = {.vendor = VIRTIO_VENDOR, .device = 0x1041};
static char printed[4096];
static bool status_sticks; /* the device never finishes a reset */
static uint64_t fake_ms;

void drv_printf(const char *fmt, ...)
{
	size_t n = strlen(printed);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(printed + n, sizeof(printed) - n, fmt, ap);
	va_end(ap);
}

/* A device that never completes its reset: the status byte is non-zero
 * again whenever the driver looks at the clock. */
uint64_t drv_clock_ms(void)
{
	if (status_sticks)
		bar4[VC_STATUS] = VIRTIO_STATUS_FAILED;
	return fake_ms += 10;
}

uint8_t pci_read8(const struct pci_dev *d, unsigned int off)
{
	(void)d;
	return off < sizeof(config) ? config[off] : 0xff;
}

uint16_t pci_read16(const struct pci_dev *d, unsigned int off)
{
	return (uint16_t)(pci_read8(d, off) | pci_read8(d, off + 1) << 8);
}

uint32_t pci_read32(const struct pci_dev *d, unsigned int off)
{
	return (uint32_t)pci_read16(d, off) | (uint32_t)pci_read16(d, off + 2)
						      << 16;
}

unsigned int pci_next_cap(const struct pci_dev *d, uint8_t id,
			  unsigned int after)
{
	unsigned int off = after ? config[after + 1] : config[0x34];

	(void)d;
	for (int guard = 48; off >= 0x40 && guard--; off = config[off + 1])
		if (config[off] == id)
			return off;
	return 0;
}

void pci_enable(struct pci_dev *d)
{
	(void)d;
}

volatile void *pci_map_bar(const struct pci_dev *d, int bar)
{
	(void)d;
	return bar == 4 ? bar4 : NULL;
}

static void put32(unsigned int off, uint32_t v)
{
	memcpy(&config[off], &v, 4);
}

/* Append one vendor capability: type, BAR, window [off, off + len). */
static void add_cap(uint8_t type, uint8_t bar, uint32_t off, uint32_t len)
{
	unsigned int c = CAP_FIRST + ncaps * CAP_STRIDE;

	assert_true(c + CAP_STRIDE <= sizeof(config));
	if (ncaps)
		config[c - CAP_STRIDE + 1] = (uint8_t)c;
	else
		config[0x34] = (uint8_t)c;
	config[c] = PCI_CAP_VENDOR;
	config[c + 1] = 0;
	config[c + 2] = CAP_STRIDE;
	config[c + VCAP_CFG_TYPE] = type;
	config[c + VCAP_BAR] = bar;
	put32(c + VCAP_OFFSET, off);
	put32(c + VCAP_LENGTH, len);
	if (type == VIRTIO_PCI_CAP_NOTIFY_CFG)
		put32(c + VCAP_NOTIFY_MULT, 4);
	ncaps++;
}

/* The usual layout: a page each for common, ISR, device, notify. */
static void add_good_caps(void)
{
	add_cap(VIRTIO_PCI_CAP_COMMON_CFG, 4, 0x0000, 0x1000);
	add_cap(VIRTIO_PCI_CAP_ISR_CFG, 4, 0x1000, 0x1000);
	add_cap(VIRTIO_PCI_CAP_DEVICE_CFG, 4, 0x2000, 0x1000);
	add_cap(VIRTIO_PCI_CAP_NOTIFY_CFG, 4, 0x3000, 0x1000);
}

static void on_alarm(int sig)
{
	static const char msg[] = "test_virtio_pci: driver hung (alarm)\n";

	(void)sig;
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(2);
	_exit(1);
}

static struct virtio_pci vp;

static int setup(void **state)
{
	(void)state;
	alarm(10);
	memset(config, 0, sizeof(config));
	ncaps = 0;
	printed[0] = '\0';
	status_sticks = false;
	bar4 = calloc(1, 2 * BAR_SIZE);
	assert_non_null(bar4);
	fake_pci.bar[4] = (struct pci_bar){
		.addr = 0xfe000000, .size = BAR_SIZE, .is64 = true};
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(bar4);
	alarm(0);
	return 0;
}

/* --------------------------------------------------------- the tests */

static void test_good_capabilities_map_inside_the_bar(void **state)
{
	(void)state;
	add_good_caps();
	assert_int_equal(virtio_pci_init(&vp, &fake_pci, true), 0);
	assert_true(vp.modern);
	assert_ptr_equal(vp.common, bar4);
	assert_ptr_equal(vp.isr, bar4 + 0x1000);
	assert_ptr_equal(vp.device, bar4 + 0x2000);
	assert_ptr_equal(vp.notify, bar4 + 0x3000);
	assert_int_equal(vp.notify_mult, 4);
	assert_string_equal(printed, "");
}

static void test_window_past_the_end_of_the_bar_is_refused(void **state)
{
	(void)state;
	add_cap(VIRTIO_PCI_CAP_COMMON_CFG, 4, 0x0000, 0x1000);
	add_cap(VIRTIO_PCI_CAP_NOTIFY_CFG, 4, 0x3000, 0x1000);
	add_cap(VIRTIO_PCI_CAP_DEVICE_CFG, 4, 0x3f00, 0x1000);
	/* modern-only device: without a device window there is no transport */
	assert_int_equal(virtio_pci_init(&vp, &fake_pci, true), -1);
	assert_non_null(strstr(printed, "window 0x3f00+0x1000 does not fit "
					"BAR4 (0x4000 bytes)"));
}

static void test_offset_that_wraps_32_bits_is_refused(void **state)
{
	(void)state;
	add_cap(VIRTIO_PCI_CAP_COMMON_CFG, 4, 0xffffff00u, 0x1000);
	add_cap(VIRTIO_PCI_CAP_NOTIFY_CFG, 4, 0x3000, 0x1000);
	add_cap(VIRTIO_PCI_CAP_DEVICE_CFG, 4, 0x2000, 0x1000);
	assert_int_equal(virtio_pci_init(&vp, &fake_pci, true), -1);
	assert_null(vp.common);
	assert_non_null(strstr(printed, "does not fit BAR4"));
}

static void test_bad_window_gives_way_to_the_next_of_its_type(void **state)
{
	(void)state;
	add_cap(VIRTIO_PCI_CAP_DEVICE_CFG, 4, 0x3ffc, 0x100); /* too long */
	add_good_caps();
	assert_int_equal(virtio_pci_init(&vp, &fake_pci, true), 0);
	assert_ptr_equal(vp.device, bar4 + 0x2000);
}

static void
test_common_window_shorter_than_its_registers_is_refused(void **state)
{
	(void)state;
	add_cap(VIRTIO_PCI_CAP_COMMON_CFG, 4, 0x0000, 0x20);
	add_cap(VIRTIO_PCI_CAP_NOTIFY_CFG, 4, 0x3000, 0x1000);
	add_cap(VIRTIO_PCI_CAP_DEVICE_CFG, 4, 0x2000, 0x1000);
	assert_int_equal(virtio_pci_init(&vp, &fake_pci, true), -1);
	assert_non_null(strstr(printed, "type 1 window 0x0+0x20"));
}

static void test_io_or_missing_bar_is_not_used(void **state)
{
	(void)state;
	add_cap(VIRTIO_PCI_CAP_COMMON_CFG, 7, 0x0000, 0x1000); /* no BAR 7 */
	add_cap(VIRTIO_PCI_CAP_NOTIFY_CFG, 2, 0x3000, 0x1000); /* absent */
	add_good_caps();
	assert_int_equal(virtio_pci_init(&vp, &fake_pci, true), 0);
	assert_ptr_equal(vp.common, bar4);
	assert_ptr_equal(vp.notify, bar4 + 0x3000);
}

static void test_notify_offset_outside_the_window_is_refused(void **state)
{
	uint64_t desc;
	uint16_t noff = 7;

	(void)state;
	add_good_caps();
	assert_int_equal(virtio_pci_init(&vp, &fake_pci, true), 0);
	/* 0x400 x 4 = 0x1000: the 2-byte register would start at the end */
	bar4[VC_Q_NOFF] = 0x00;
	bar4[VC_Q_NOFF + 1] = 0x04;
	assert_int_equal(virtio_pci_queue_setup(&vp, 0, 256, 0x10000, 0x11000,
						0x12000, &noff),
			 -1);
	assert_int_equal(noff, 0);
	assert_non_null(strstr(printed, "outside the notify window"));
	/* The device was told nothing about the queue. */
	memcpy(&desc, bar4 + VC_Q_DESC, 8);
	assert_int_equal(desc, 0);
	assert_int_equal(bar4[VC_Q_ENABLE], 0);
}

static void test_notify_offset_inside_the_window_is_used(void **state)
{
	uint64_t desc;
	uint16_t noff;

	(void)state;
	add_good_caps();
	assert_int_equal(virtio_pci_init(&vp, &fake_pci, true), 0);
	bar4[VC_Q_NOFF] = 0xff; /* 0x3ff x 4 + 2 = 0xffe: the last register */
	bar4[VC_Q_NOFF + 1] = 0x03;
	assert_int_equal(virtio_pci_queue_setup(&vp, 1, 256, 0x10000, 0x11000,
						0x12000, &noff),
			 0);
	assert_int_equal(noff, 0x3ff);
	memcpy(&desc, bar4 + VC_Q_DESC, 8);
	assert_int_equal(desc, 0x10000);
	assert_int_equal(bar4[VC_Q_ENABLE], 1);
	virtio_pci_notify(&vp, 1, noff);
	assert_int_equal(bar4[0x3000 + 0x3ff * 4], 1); /* queue 1 written */
}

/* A multiqueue virtio-net's control queue follows all its pairs: with 4
 * pairs it is queue 8, past any small fixed per-device table. The notify
 * offset belongs to the caller's queue, so any index the device offers
 * is set up and kicked at its own register. */
static void test_queue_index_past_eight_is_set_up_and_kicked(void **state)
{
	uint16_t noff;

	(void)state;
	add_good_caps();
	assert_int_equal(virtio_pci_init(&vp, &fake_pci, true), 0);
	bar4[VC_Q_NOFF] = 0x09;
	bar4[VC_Q_NOFF + 1] = 0x00;
	assert_int_equal(virtio_pci_queue_setup(&vp, 8, 64, 0x20000, 0x21000,
						0x22000, &noff),
			 0);
	assert_int_equal(noff, 9);
	virtio_pci_notify(&vp, 8, noff);
	assert_int_equal(bar4[0x3000 + 9 * 4], 8); /* queue 8 written */
}

static void test_device_config_past_its_window_reads_zero(void **state)
{
	(void)state;
	add_cap(VIRTIO_PCI_CAP_COMMON_CFG, 4, 0x0000, 0x1000);
	add_cap(VIRTIO_PCI_CAP_NOTIFY_CFG, 4, 0x3000, 0x1000);
	add_cap(VIRTIO_PCI_CAP_DEVICE_CFG, 4, 0x2000, 8);
	assert_int_equal(virtio_pci_init(&vp, &fake_pci, true), 0);
	memset(bar4 + 0x2000, 0xaa, 0x100);
	assert_int_equal(virtio_pci_config8(&vp, 7), 0xaa);
	assert_int_equal(virtio_pci_config16(&vp, 6), 0xaaaa);
	assert_int_equal(virtio_pci_config8(&vp, 8), 0);
	assert_int_equal(virtio_pci_config16(&vp, 7), 0);
}

static void test_reset_that_never_finishes_gives_up(void **state)
{
	(void)state;
	add_good_caps();
	assert_int_equal(virtio_pci_init(&vp, &fake_pci, true), 0);
	assert_int_equal(virtio_pci_reset(&vp), 0);
	status_sticks = true;
	assert_int_equal(virtio_pci_reset(&vp), -1);
	assert_non_null(strstr(printed, "did not reset"));
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_good_capabilities_map_inside_the_bar),
		T(test_window_past_the_end_of_the_bar_is_refused),
		T(test_offset_that_wraps_32_bits_is_refused),
		T(test_bad_window_gives_way_to_the_next_of_its_type),
		T(test_common_window_shorter_than_its_registers_is_refused),
		T(test_io_or_missing_bar_is_not_used),
		T(test_notify_offset_outside_the_window_is_refused),
		T(test_notify_offset_inside_the_window_is_used),
		T(test_queue_index_past_eight_is_set_up_and_kicked),
		T(test_device_config_past_its_window_reads_zero),
		T(test_reset_that_never_finishes_gives_up),
	};

	signal(SIGALRM, on_alarm);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
