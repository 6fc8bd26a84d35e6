/*
 * PCI enumeration: a brute-force walk of every bus/device/function that the
 * access method covers, done once at boot: every bus of every ECAM window
 * ACPI's MCFG lists (each segment group it names, each window its own),
 * or buses 0-255 of segment 0 through the legacy ports when there is no
 * window. A function is present when its vendor id reads as anything but
 * 0xffff (nothing answered) or 0x0000 (no vendor has it; some bridges
 * return it for an empty slot). For each we keep the ids, the class, the
 * decoded BARs and where its MSI/MSI-X capabilities sit, and print one
 * line of the boot report.
 *
 * The table of functions is a kmalloc'd array that doubles when full, so
 * a machine with thousands of functions (a q35 with a hundred root ports,
 * a server's segments) is described whole; only running out of memory
 * stops it, and that is said in a line naming the first function left.
 *
 * BAR sizes come from the classic probe: write all ones, read back which
 * bits stuck, restore. Decoding is switched off meanwhile so the device
 * never answers at the temporary all-ones address.
 */
#include "pci.h"

#include <string.h>

#include "drv_port.h"
#include "libc/stat_table.h"
#include "mm/mm.h"

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

/* ECAM windows scanned at most (MCFG entries); ACPI keeps as many. */
#define PCI_MAX_WINDOWS 16
/* Entries of the first table; it doubles from there. */
#define PCI_TABLE_FIRST 64

static struct pci_dev *pci_devs; /* pci_cap entries, pci_ndevs used */
static int pci_ndevs, pci_cap;
static int pci_lost;	/* functions found with no room left */
static int pci_windows; /* ECAM windows mapped; 0: legacy ports */

static uint32_t legacy_addr(const struct pci_dev *d, unsigned int off)
{
	return 0x80000000u | (uint32_t)d->bus << 16 | (uint32_t)d->dev << 11 |
	       (uint32_t)d->fn << 8 | (off & 0xfc);
}

uint32_t pci_read32(const struct pci_dev *d, unsigned int off)
{
	if (d->cfg)
		return mmio_read32(d->cfg + (off & 0xffcu));
	outl(PCI_CFG_ADDR, legacy_addr(d, off));
	return inl(PCI_CFG_DATA);
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
	if (d->cfg) {
		mmio_write32(d->cfg + (off & 0xffcu), v);
		return;
	}
	outl(PCI_CFG_ADDR, legacy_addr(d, off));
	outl(PCI_CFG_DATA, v);
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

/* Room for one more function: the table doubles when full. False when
 * memory ran out (the table stays as it was). */
static bool table_room(void)
{
	struct pci_dev *bigger;
	int cap = pci_cap ? 2 * pci_cap : PCI_TABLE_FIRST;

	if (pci_ndevs < pci_cap)
		return true;
	bigger = kmalloc((size_t)cap * sizeof(*bigger), GFP_KERNEL);
	if (!bigger)
		return false;
	if (pci_ndevs)
		memcpy(bigger, pci_devs, (size_t)pci_ndevs * sizeof(*bigger));
	kfree(pci_devs);
	pci_devs = bigger;
	pci_cap = cap;
	return true;
}

/* Ids, class, BARs and capabilities of the function at where (its
 * segment, bus, dev, fn and cfg set), added to the table. */
static void add_function(const struct pci_dev *where, uint32_t id)
{
	struct pci_dev *d;
	uint16_t cmd;
	uint32_t cls;

	if (!table_room()) {
		if (!pci_lost++)
			drv_printf("pci: no memory for more than %d functions: "
				   "%04x:%02x:%02x.%x and those after it "
				   "ignored\n",
				   pci_ndevs, where->segment, where->bus,
				   where->dev, where->fn);
		return;
	}
	d = &pci_devs[pci_ndevs++];
	*d = *where;
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
	d->node = drv_pci_bus_node(d->segment, d->bus);
	if ((pci_read8(d, PCI_HEADER_TYPE) & 0x7f) == 0) {
		cmd = pci_read16(d, PCI_COMMAND);
		pci_write16(d, PCI_COMMAND, cmd & ~(PCI_CMD_IO | PCI_CMD_MEM));
		for (int i = 0; i < 6;)
			i += probe_bar(d, i);
		pci_write16(d, PCI_COMMAND, cmd);
	}
	probe_caps(d);
}

static bool present(uint32_t id)
{
	uint16_t vendor = (uint16_t)id;

	return vendor != 0xffff && vendor != 0x0000;
}

/*
 * Every function of one bus. ecam is the bus's 1 MiB of ECAM (NULL:
 * legacy ports). Functions 1-7 are looked at only where function 0 says
 * the device has several (header type bit 7): a single-function device
 * may answer at every function number with function 0's registers.
 */
static void scan_bus(uint16_t seg, int bus, volatile uint8_t *ecam)
{
	for (int dev = 0; dev < 32; dev++) {
		struct pci_dev at = {.segment = seg,
				     .bus = (uint8_t)bus,
				     .dev = (uint8_t)dev};
		int nfn = 1;

		for (int fn = 0; fn < nfn; fn++) {
			uint32_t id;

			at.fn = (uint8_t)fn;
			at.cfg = ecam ? ecam + ((uintptr_t)dev << 15) +
						 ((uintptr_t)fn << 12)
				      : NULL;
			id = pci_read32(&at, 0);
			if (fn == 0 && !present(id))
				break;
			if (fn == 0 && (pci_read8(&at, PCI_HEADER_TYPE) & 0x80))
				nfn = 8;
			if (present(id))
				add_function(&at, id);
		}
	}
}

/* Every bus of one MCFG window, mapped first (its address is where bus 0
 * of the segment would be, even when the window starts at a later bus).
 * Returns false when the window cannot be mapped (reported). */
static bool scan_window(const struct drv_ecam *w)
{
	size_t len = (size_t)(w->bus_end - w->bus_start + 1) << 20;
	volatile uint8_t *base =
		drv_map_mmio(w->base + ((uint64_t)w->bus_start << 20), len);

	if (!base || w->bus_end < w->bus_start) {
		drv_printf("pci: ecam segment %u buses %u-%u at 0x%llx cannot "
			   "be mapped, not scanned\n",
			   w->segment, w->bus_start, w->bus_end,
			   (unsigned long long)w->base);
		return false;
	}
	for (int bus = w->bus_start; bus <= w->bus_end; bus++)
		scan_bus(w->segment, bus,
			 base + ((uintptr_t)(bus - w->bus_start) << 20));
	return true;
}

static void print_dev(const struct pci_dev *d)
{
	if (d->segment)
		drv_printf("pci: %04x:", d->segment);
	else
		drv_printf("pci: ");
	drv_printf("%02x:%02x.%x %04x:%04x class %02x%02x", d->bus, d->dev,
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
	struct drv_ecam w[PCI_MAX_WINDOWS];
	int nw = drv_ecam_windows(w, PCI_MAX_WINDOWS);

	pci_ndevs = pci_lost = pci_windows = 0;
	for (int i = 0; i < nw; i++)
		pci_windows += scan_window(&w[i]);
	if (!pci_windows)
		for (int bus = 0; bus <= 255; bus++)
			scan_bus(0, bus, NULL);
	drv_printf("pci: %d functions via %s\n", pci_ndevs, pci_method());
	if (pci_lost)
		drv_printf("pci: %d more functions found, not kept (no "
			   "memory)\n",
			   pci_lost);
	for (int i = 0; i < pci_ndevs; i++)
		print_dev(&pci_devs[i]);
	return pci_ndevs;
}

const char *pci_method(void)
{
	return pci_windows ? "ecam" : "legacy";
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

void pci_disable_master(const struct pci_dev *d)
{
	uint16_t cmd = pci_read16(d, PCI_COMMAND);

	pci_write16(d, PCI_COMMAND, cmd & ~PCI_CMD_MASTER);
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

/* The functions found, "[ssss:]bus:dev.fn vendor:device" each. */
static void put_functions(struct strbuf *sb, const void *src)
{
	(void)src;
	strbuf_printf(sb, "[");
	for (int i = 0; i < pci_ndevs; i++) {
		const struct pci_dev *d = &pci_devs[i];

		strbuf_printf(sb, "%s\"", i ? "," : "");
		if (d->segment)
			strbuf_printf(sb, "%04x:", d->segment);
		strbuf_printf(sb, "%02x:%02x.%x %04x:%04x\"", d->bus, d->dev,
			      d->fn, d->vendor, d->device);
	}
	strbuf_printf(sb, "]");
}

/* The section's whole value is this one list. */
static const struct stat_desc pci_stats[] = {
	STAT_FN("", put_functions, STAT_KIND_INFO, "function", "",
		"PCI functions found: [segment:]bus:dev.fn vendor:device"),
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
