/*
 * PCI enumeration: a brute-force walk of every bus/device/function that the
 * access method covers, done once at boot. A function is present when its
 * vendor id reads as anything but 0xffff. For each we keep the ids, the
 * class, the decoded BARs and where its MSI/MSI-X capabilities sit, and
 * print one line of the boot report.
 *
 * BAR sizes come from the classic probe: write all ones, read back which
 * bits stuck, restore. Decoding is switched off meanwhile so the device
 * never answers at the temporary all-ones address.
 */
#include "pci.h"

#include <string.h>

#include "drv_port.h"
#include "libc/stat_table.h"

#define PCI_CFG_ADDR 0xcf8
#define PCI_CFG_DATA 0xcfc

#define PCI_COMMAND	0x04
#define PCI_CMD_IO	0x1
#define PCI_CMD_MEM	0x2
#define PCI_CMD_MASTER	0x4
#define PCI_STATUS	0x06
#define PCI_STATUS_CAPS 0x10
#define PCI_HEADER_TYPE 0x0e
#define PCI_BAR0	0x10
#define PCI_SUBSYS	0x2c
#define PCI_CAP_PTR	0x34
#define PCI_IRQ_LINE	0x3c

static struct pci_dev pci_devs[PCI_MAX_DEVS];
static int pci_ndevs;
static volatile uint8_t *ecam_base; /* NULL: legacy port access */
static int ecam_bus_start, ecam_bus_end;

static volatile uint8_t *ecam_addr(int bus, int dev, int fn, unsigned int off)
{
	return ecam_base + ((uintptr_t)(bus - ecam_bus_start) << 20) +
	       ((uintptr_t)dev << 15) + ((uintptr_t)fn << 12) + off;
}

static uint32_t legacy_addr(int bus, int dev, int fn, unsigned int off)
{
	return 0x80000000u | (uint32_t)bus << 16 | (uint32_t)dev << 11 |
	       (uint32_t)fn << 8 | (off & 0xfc);
}

static uint32_t cfg_read32(int bus, int dev, int fn, unsigned int off)
{
	if (ecam_base)
		return mmio_read32(ecam_addr(bus, dev, fn, off & ~3u));
	outl(PCI_CFG_ADDR, legacy_addr(bus, dev, fn, off));
	return inl(PCI_CFG_DATA);
}

static void cfg_write32(int bus, int dev, int fn, unsigned int off, uint32_t v)
{
	if (ecam_base) {
		mmio_write32(ecam_addr(bus, dev, fn, off & ~3u), v);
		return;
	}
	outl(PCI_CFG_ADDR, legacy_addr(bus, dev, fn, off));
	outl(PCI_CFG_DATA, v);
}

uint32_t pci_read32(const struct pci_dev *d, unsigned int off)
{
	return cfg_read32(d->bus, d->dev, d->fn, off);
}

uint16_t pci_read16(const struct pci_dev *d, unsigned int off)
{
	return (uint16_t)(pci_read32(d, off) >> ((off & 2) * 8));
}

uint8_t pci_read8(const struct pci_dev *d, unsigned int off)
{
	return (uint8_t)(pci_read32(d, off) >> ((off & 3) * 8));
}

void pci_write32(const struct pci_dev *d, unsigned int off, uint32_t v)
{
	cfg_write32(d->bus, d->dev, d->fn, off, v);
}

/* Read-modify-write of the aligned dword: config writes are 32-bit here. */
void pci_write16(const struct pci_dev *d, unsigned int off, uint16_t v)
{
	unsigned int shift = (off & 2) * 8;
	uint32_t old = pci_read32(d, off & ~3u);

	old &= ~(0xffffu << shift);
	pci_write32(d, off & ~3u, old | (uint32_t)v << shift);
}

/* Size BAR i (and i+1 for a 64-bit BAR); returns how many slots it used. */
static int probe_bar(struct pci_dev *d, int i)
{
	unsigned int off = PCI_BAR0 + 4 * i;
	uint32_t lo = pci_read32(d, off), hi = 0, mask_lo, mask_hi = 0xffffffff;
	struct pci_bar *b = &d->bar[i];

	pci_write32(d, off, 0xffffffff);
	mask_lo = pci_read32(d, off);
	pci_write32(d, off, lo);
	if (mask_lo == 0 || mask_lo == 0xffffffff)
		return 1; /* not implemented */
	if (lo & 1) {
		b->io = true;
		b->addr = lo & ~3u;
		b->size = (uint16_t)(~(mask_lo & ~3u) + 1);
		return 1;
	}
	b->prefetch = lo & 8;
	b->is64 = ((lo >> 1) & 3) == 2;
	if (b->is64 && i < 5) {
		hi = pci_read32(d, off + 4);
		pci_write32(d, off + 4, 0xffffffff);
		mask_hi = pci_read32(d, off + 4);
		pci_write32(d, off + 4, hi);
	}
	b->addr = ((uint64_t)hi << 32) | (lo & ~0xfu);
	b->size = ~(((uint64_t)mask_hi << 32) | (mask_lo & ~0xfu)) + 1;
	if (!b->is64)
		b->size &= 0xffffffffu;
	return b->is64 ? 2 : 1;
}

static void probe_caps(struct pci_dev *d)
{
	d->cap_msi = (uint8_t)pci_next_cap(d, PCI_CAP_MSI, 0);
	d->cap_msix = (uint8_t)pci_next_cap(d, PCI_CAP_MSIX, 0);
}

unsigned int pci_next_cap(const struct pci_dev *d, uint8_t id,
			  unsigned int after)
{
	unsigned int off;
	int guard = 48; /* a looping list must not hang the boot */

	if (!(pci_read16(d, PCI_STATUS) & PCI_STATUS_CAPS))
		return 0;
	off = after ? pci_read8(d, after + 1) : pci_read8(d, PCI_CAP_PTR);
	while (off >= 0x40 && guard--) {
		off &= 0xfc;
		if (pci_read8(d, off) == id)
			return off;
		off = pci_read8(d, off + 1);
	}
	return 0;
}

static void add_function(int bus, int dev, int fn, uint32_t id)
{
	struct pci_dev *d;
	uint16_t cmd;
	uint32_t cls;

	if (pci_ndevs == PCI_MAX_DEVS) {
		drv_printf(
			"pci: more than %d functions, %02x:%02x.%x ignored\n",
			PCI_MAX_DEVS, bus, dev, fn);
		return;
	}
	d = &pci_devs[pci_ndevs++];
	memset(d, 0, sizeof(*d));
	d->bus = (uint8_t)bus;
	d->dev = (uint8_t)dev;
	d->fn = (uint8_t)fn;
	d->vendor = (uint16_t)id;
	d->device = (uint16_t)(id >> 16);
	cls = pci_read32(d, 0x08);
	d->revision = (uint8_t)cls;
	d->prog_if = (uint8_t)(cls >> 8);
	d->subclass = (uint8_t)(cls >> 16);
	d->class_code = (uint8_t)(cls >> 24);
	d->subsys_vendor = pci_read16(d, PCI_SUBSYS);
	d->subsys_id = pci_read16(d, PCI_SUBSYS + 2);
	d->irq_line = pci_read8(d, PCI_IRQ_LINE);
	d->node = drv_pci_bus_node(bus);
	if ((pci_read8(d, PCI_HEADER_TYPE) & 0x7f) == 0) {
		cmd = pci_read16(d, PCI_COMMAND);
		pci_write16(d, PCI_COMMAND, cmd & ~(PCI_CMD_IO | PCI_CMD_MEM));
		for (int i = 0; i < 6;)
			i += probe_bar(d, i);
		pci_write16(d, PCI_COMMAND, cmd);
	}
	probe_caps(d);
}

static void scan_bus(int bus)
{
	for (int dev = 0; dev < 32; dev++) {
		uint32_t id = cfg_read32(bus, dev, 0, 0);
		int nfn;

		if ((id & 0xffff) == 0xffff)
			continue;
		nfn = (cfg_read32(bus, dev, 0, PCI_HEADER_TYPE & ~3u) >> 16) &
				      0x80
			      ? 8
			      : 1;
		for (int fn = 0; fn < nfn; fn++) {
			if (fn)
				id = cfg_read32(bus, dev, fn, 0);
			if ((id & 0xffff) != 0xffff)
				add_function(bus, dev, fn, id);
		}
	}
}

static void print_dev(const struct pci_dev *d)
{
	drv_printf("pci: %02x:%02x.%x %04x:%04x class %02x%02x", d->bus, d->dev,
		   d->fn, d->vendor, d->device, d->class_code, d->subclass);
	for (int i = 0; i < 6; i++) {
		const struct pci_bar *b = &d->bar[i];

		if (!b->size)
			continue;
		drv_printf(" bar%d=%s%llx/%llx", i,
			   b->io ? "io:" : (b->is64 ? "m64:" : "m32:"),
			   (unsigned long long)b->addr,
			   (unsigned long long)b->size);
	}
	drv_printf("%s%s node=%d\n", d->cap_msi ? " msi" : "",
		   d->cap_msix ? " msix" : "", d->node);
}

int pci_init(void)
{
	uint64_t base;
	int last_bus = 255;

	if (drv_ecam_window(&base, &ecam_bus_start, &ecam_bus_end) == 0 &&
	    base) {
		size_t len = (size_t)(ecam_bus_end - ecam_bus_start + 1) << 20;

		/* MCFG's address is where bus 0 would be, even when the
		 * window starts at a later bus. */
		ecam_base = drv_map_mmio(
			base + ((uint64_t)ecam_bus_start << 20), len);
		last_bus = ecam_bus_end;
	}
	pci_ndevs = 0;
	for (int bus = ecam_base ? ecam_bus_start : 0; bus <= last_bus; bus++)
		scan_bus(bus);
	drv_printf("pci: %d functions via %s\n", pci_ndevs, pci_method());
	for (int i = 0; i < pci_ndevs; i++)
		print_dev(&pci_devs[i]);
	return pci_ndevs;
}

const char *pci_method(void)
{
	return ecam_base ? "ecam" : "legacy";
}

int pci_count(void)
{
	return pci_ndevs;
}

struct pci_dev *pci_get(int i)
{
	return i >= 0 && i < pci_ndevs ? &pci_devs[i] : NULL;
}

struct pci_dev *pci_find(uint16_t vendor, uint16_t device, int idx)
{
	for (int i = 0; i < pci_ndevs; i++) {
		struct pci_dev *d = &pci_devs[i];

		if (d->vendor == vendor && d->device == device && idx-- == 0)
			return d;
	}
	return NULL;
}

void pci_enable(struct pci_dev *d)
{
	uint16_t cmd = pci_read16(d, PCI_COMMAND);

	pci_write16(d, PCI_COMMAND,
		    cmd | PCI_CMD_IO | PCI_CMD_MEM | PCI_CMD_MASTER);
}

volatile void *pci_map_bar(const struct pci_dev *d, int bar)
{
	const struct pci_bar *b;

	if (bar < 0 || bar > 5)
		return NULL;
	b = &d->bar[bar];
	if (!b->size || b->io)
		return NULL;
	return drv_map_mmio(b->addr, (size_t)b->size);
}

/* The functions found, "bus:dev.fn vendor:device" each. */
static void put_functions(struct strbuf *sb, const void *src)
{
	(void)src;
	strbuf_printf(sb, "[");
	for (int i = 0; i < pci_ndevs; i++) {
		const struct pci_dev *d = &pci_devs[i];

		strbuf_printf(sb, "%s\"%02x:%02x.%x %04x:%04x\"", i ? "," : "",
			      d->bus, d->dev, d->fn, d->vendor, d->device);
	}
	strbuf_printf(sb, "]");
}

/* The section's whole value is this one list. */
static const struct stat_desc pci_stats[] = {
	STAT_FN("", put_functions, STAT_KIND_INFO, "function", "",
		"PCI functions found: bus:dev.fn vendor:device"),
};
static const struct stat_group pci_groups[] = {
	STAT_GROUP("", pci_stats),
};
const struct stat_schema pci_schema = STAT_SCHEMA(pci_groups);

int pci_json(char *buf, size_t size)
{
	struct strbuf sb;

	strbuf_init(&sb, buf, size);
	stat_json_value(&sb, &pci_stats[0], NULL);
	return strbuf_done(&sb);
}
