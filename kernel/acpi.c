/*
 * ACPI table walk. The RSDP points at the RSDT (32-bit entries) or, from
 * revision 2, the XSDT (64-bit entries); each entry is a table with a
 * common header whose bytes sum to zero. Tables are read in place (they
 * lie in the identity map; ones above 4 GiB are mapped first).
 */
#include "kernel/acpi.h"
#include "kernel/acpi_table.h"
#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/memmap.h"
#include "kernel/paging.h"
#include <string.h>

struct acpi_info acpi;

CMDLINE_KEY(kernel, acpi, "on", cmdline_valid_choice, "on|off",
	    "off: ignore the ACPI tables; CPUs, IOAPICs and interrupt "
	    "wiring come from the BIOS's MP table (one node)");

struct sdt_header {
	char sig[4];
	uint32_t length;
	uint8_t revision;
	uint8_t checksum;
	char oem[6];
	char oem_table[8];
	uint32_t oem_rev, creator, creator_rev;
} __attribute__((packed));

static uint8_t sum_bytes(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint8_t s = 0;

	while (n--)
		s += *b++;
	return s;
}

static int rsdp_valid(const uint8_t *p)
{
	if (memcmp(p, "RSD PTR ", 8) != 0 || sum_bytes(p, 20) != 0)
		return 0;
	if (p[15] >= 2 && sum_bytes(p, table_u32(p + 20)) != 0)
		return 0;
	return 1;
}

/* The BIOS way: the first KiB of the EBDA, then 0xE0000-0xFFFFF, on
 * 16-byte boundaries. UEFI machines have no such areas (the boot loader's
 * tag is used there). */
static uint64_t rsdp_scan(void)
{
	uint64_t ebda = (uint64_t)(*(const volatile uint16_t *)phys_ptr(0x40E))
			<< 4;

	if (ebda >= 0x80000 && ebda < 0xA0000) {
		for (uint64_t a = ebda; a < ebda + 1024; a += 16)
			if (rsdp_valid(phys_ptr(a)))
				return a;
	}
	for (uint64_t a = 0xE0000; a < 0x100000; a += 16)
		if (rsdp_valid(phys_ptr(a)))
			return a;
	return 0;
}

/* Maps a table that may lie above the early 4 GiB map; then checks its
 * checksum. Returns the header or NULL (reported). */
static const struct sdt_header *table_get(uint64_t phys)
{
	const struct sdt_header *h;

	if (phys >= (4ULL << 30))
		map_ram(phys, 2ULL << 20);
	h = (const struct sdt_header *)(uintptr_t)phys;
	if (phys >= (4ULL << 30))
		map_ram(phys, h->length);
	if (h->length < sizeof(*h)) {
		kprintf("acpi: table %.4s at 0x%llx is shorter than "
			"its header, skipped\n",
			h->sig, (unsigned long long)phys);
		return NULL;
	}
	if (sum_bytes(h, h->length) != 0) {
		kprintf("acpi: table %.4s at 0x%llx has a bad checksum, "
			"skipped\n",
			h->sig, (unsigned long long)phys);
		return NULL;
	}
	if (acpi.nr_tables < ACPI_MAX_TABLES) {
		acpi.tables[acpi.nr_tables].start = phys;
		acpi.tables[acpi.nr_tables].end = phys + h->length;
		memcpy(acpi.table_names[acpi.nr_tables], h->sig, 4);
		acpi.table_names[acpi.nr_tables][4] = 0;
		acpi.nr_tables++;
	}
	return h;
}

static void madt_ioapic(const uint8_t *p)
{
	struct acpi_ioapic *io;

	if (acpi.nr_ioapics == ACPI_MAX_IOAPICS)
		return;
	io = &acpi.ioapics[acpi.nr_ioapics++];
	io->id = p[2];
	io->addr = table_u32(p + 4);
	io->gsi_base = table_u32(p + 8);
}

static void madt_override(const uint8_t *p)
{
	struct acpi_iso *iso;

	if (acpi.nr_isos == ACPI_MAX_ISOS)
		return;
	iso = &acpi.isos[acpi.nr_isos++];
	iso->source = p[3];
	iso->gsi = table_u32(p + 4);
	iso->flags = (uint16_t)(p[8] | p[9] << 8);
}

/* An enabled CPU (local APIC or x2APIC entry); disabled and merely
 * hot-pluggable ones are left out. */
static void madt_cpu(uint32_t apic_id, uint32_t flags)
{
	if (!(flags & 1))
		return;
	/* some firmware lists a CPU both as local APIC and as x2APIC: an
	 * INIT to a CPU that already runs would reset it */
	for (int i = 0; i < acpi.nr_cpus; i++)
		if (acpi.apic_ids[i] == apic_id)
			return;
	if (acpi.nr_cpus == MAX_FW_CPUS) {
		acpi.nr_cpus_skipped++;
		return;
	}
	acpi.apic_ids[acpi.nr_cpus++] = apic_id;
}

static void madt_parse(const struct sdt_header *h)
{
	const uint8_t *p = (const uint8_t *)h + 44;
	const uint8_t *end = (const uint8_t *)h + h->length;

	if (h->length < 44)
		return; /* no local APIC address and flags: defaults kept */
	acpi.lapic_base = table_u32((const uint8_t *)h + 36);
	acpi.pic_present = table_u32((const uint8_t *)h + 40) & 1;
	acpi.has_madt = true;
	acpi.nr_cpus = 0;
	for (; table_entry_at(p, end); p += p[1]) {
		if (p[0] == 0 && p[1] >= 8) /* processor local APIC */
			madt_cpu(p[3], table_u32(p + 4));
		else if (p[0] == 9 && p[1] >= 16) /* processor local x2APIC */
			madt_cpu(table_u32(p + 4), table_u32(p + 8));
		else if (p[0] == 1 && p[1] >= 12)
			madt_ioapic(p);
		else if (p[0] == 2 && p[1] >= 10) /* source override */
			madt_override(p);
		else if (p[0] == 5 && p[1] >= 12) /* 64-bit local APIC */
			acpi.lapic_base = table_u64(p + 4);
	}
}

static void mcfg_parse(const struct sdt_header *h)
{
	const uint8_t *p = (const uint8_t *)h + 44,
		      *end = (const uint8_t *)h + h->length;

	if (h->length < 44)
		return;
	for (; end - p >= 16; p += 16) {
		struct acpi_mcfg *m = &acpi.mcfg[acpi.nr_mcfg];

		if (acpi.nr_mcfg == ACPI_MAX_MCFG) {
			acpi.nr_mcfg_dropped++;
			continue;
		}
		acpi.nr_mcfg++;

		m->base = table_u64(p);
		m->segment = (uint16_t)(p[8] | p[9] << 8);
		m->bus_start = p[10];
		m->bus_end = p[11];
	}
}

/* AML for \_S5 in the DSDT: NameOp "_S5_" PackageOp PkgLength NumElements
 * then SLP_TYPa and SLP_TYPb as integers (BytePrefix 0x0A + byte, or the
 * ZeroOp/OneOp constants). Enough for the firmware QEMU and PCs ship. */
static void dsdt_find_s5(const struct sdt_header *h)
{
	const uint8_t *p = (const uint8_t *)h + 36,
		      *end = (const uint8_t *)h + h->length;
	uint16_t typ[2];

	/* 15 bytes: the name, PackageOp, a PkgLength of up to 4 bytes,
	 * NumElements, two integers of up to 2 bytes each. */
	for (; end - p >= 15; p++) {
		if (memcmp(p, "_S5_", 4) != 0 || p[4] != 0x12)
			continue;
		p += 5;
		p += ((*p >> 6) & 3) + 1; /* PkgLength */
		p++;			  /* NumElements */
		for (int i = 0; i < 2; i++) {
			if (*p == 0x0A) {
				typ[i] = p[1];
				p += 2;
			} else {
				typ[i] = (*p == 0x01) ? 1 : 0;
				p++;
			}
		}
		acpi.slp_typa = typ[0];
		acpi.slp_typb = typ[1];
		acpi.has_s5 = true;
		return;
	}
}

/* Host bridges of a DSDT or SSDT (kernel/acpi_aml.c), appended. */
static void aml_parse(const struct sdt_header *h)
{
	struct aml_scan_stats st;
	int n;

	if (h->length <= sizeof(*h))
		return;
	n = aml_find_host_bridges((const uint8_t *)(h + 1),
				  h->length - sizeof(*h),
				  acpi.bridges + acpi.nr_bridges,
				  ACPI_MAX_BRIDGES - acpi.nr_bridges, &st);
	acpi.nr_bridges += n;
	acpi.aml.devices += st.devices;
	acpi.aml.bridges_dropped += st.bridges_dropped;
	acpi.aml.fallbacks += st.fallbacks;
	acpi.aml.too_deep += st.too_deep;
}

static void fadt_parse(const struct sdt_header *h)
{
	const uint8_t *f = (const uint8_t *)h;
	uint64_t dsdt;
	const struct sdt_header *d;

	if (h->length < 116) { /* ACPI 1.0's FADT: all read below */
		kprintf("acpi: FADT of %u bytes, shorter than ACPI 1.0's, "
			"ignored\n",
			h->length);
		return;
	}
	dsdt = table_u32(f + 40);
	acpi.smi_cmd = table_u32(f + 48);
	acpi.acpi_enable = f[52];
	acpi.pm1a_cnt = table_u32(f + 64);
	acpi.pm1b_cnt = table_u32(f + 68);
	if (h->length >= 129 && (table_u32(f + 112) & (1 << 10))) {
		acpi.reset_space = f[116];
		acpi.reset_addr = table_u64(f + 120);
		acpi.reset_value = f[128];
		acpi.has_reset = true;
	}
	if (h->length >= 148 && table_u64(f + 140))
		dsdt = table_u64(f + 140);
	if (dsdt && (d = table_get(dsdt)) != NULL) {
		dsdt_find_s5(d);
		aml_parse(d);
	}
}

static void table_parse(uint64_t phys)
{
	const struct sdt_header *h = table_get(phys);

	if (!h)
		return;
	if (!memcmp(h->sig, "APIC", 4))
		madt_parse(h);
	else if (!memcmp(h->sig, "SRAT", 4))
		acpi.srat = h;
	else if (!memcmp(h->sig, "SLIT", 4))
		acpi.slit = h;
	else if (!memcmp(h->sig, "MCFG", 4))
		mcfg_parse(h);
	else if (!memcmp(h->sig, "FACP", 4))
		fadt_parse(h);
	else if (!memcmp(h->sig, "SSDT", 4))
		aml_parse(h);
	else if (!memcmp(h->sig, "HPET", 4) && h->length >= 56 &&
		 ((const uint8_t *)h)[40] == 0) /* GAS in memory space */
		acpi.hpet_base = table_u64((const uint8_t *)h + 44);
}

/* The MADT first, SRAT and SLIT next (kept for acpi_numa_init), then
 * the rest. */
static void tables_walk(const struct sdt_header *root, int entry_size)
{
	static const char *const order[] = {"APIC", "SRAT", "SLIT", NULL};
	const uint8_t *e = (const uint8_t *)root + 36;
	int n = (int)((root->length - 36) / (uint32_t)entry_size);

	for (int o = 0; o <= 3; o++) {
		for (int i = 0; i < n; i++) {
			uint64_t a = entry_size == 8 ? table_u64(e + 8 * i)
						     : table_u32(e + 4 * i);
			const char *sig = (const char *)(uintptr_t)a;
			int known = 0;

			if (a >= (4ULL << 30))
				map_ram(a, 2ULL << 20);
			for (int k = 0; order[k]; k++)
				known |= !memcmp(sig, order[k], 4);
			if (o < 3 ? !memcmp(sig, order[o], 4) : !known)
				table_parse(a);
		}
	}
}

static void acpi_defaults(void)
{
	acpi.nr_cpus = 1;
	acpi.apic_ids[0] = 0;
	acpi.lapic_base = 0xFEE00000;
	acpi.pic_present = true;
}

/* The memory map learns which node owns which RAM (SRAT, as
 * acpi_numa_init assigned it), and keeps the tables out of the page
 * allocator. */
void acpi_memmap_update(void)
{
	for (int i = 0; i < acpi.nr_mem; i++)
		memmap_set_node(acpi.mem[i].base,
				acpi.mem[i].base + acpi.mem[i].len,
				acpi.mem[i].node);
	for (int i = 0; i < acpi.nr_tables; i++)
		memmap_reserve(acpi.tables[i].start, acpi.tables[i].end);
	if (acpi.rsdp)
		memmap_reserve(acpi.rsdp, acpi.rsdp + 36);
}

/* The tables from the RSDP on (rsdp_hint, else the BIOS areas). */
static void acpi_read(uint64_t rsdp_hint)
{
	const uint8_t *rsdp;
	const struct sdt_header *root;

	if (!rsdp_hint || !rsdp_valid((const uint8_t *)(uintptr_t)rsdp_hint))
		rsdp_hint = rsdp_scan();
	if (!rsdp_hint) {
		kprintf("acpi: no RSDP found\n");
		return;
	}
	rsdp = (const uint8_t *)(uintptr_t)rsdp_hint;
	acpi.found = true;
	acpi.rsdp = rsdp_hint;
	acpi.revision = rsdp[15];
	if (rsdp[15] >= 2 && table_u64(rsdp + 24)) {
		root = table_get(table_u64(rsdp + 24));
		if (root)
			tables_walk(root, 8);
	} else {
		root = table_get(table_u32(rsdp + 16));
		if (root)
			tables_walk(root, 4);
	}
}

void acpi_init(uint64_t rsdp_hint)
{
	memset(&acpi, 0, sizeof(acpi));
	acpi_defaults();
	if (strcmp(cmdline_get("acpi"), "off") != 0)
		acpi_read(rsdp_hint);
	else
		kprintf("acpi: off (acpi=off)\n");
	if (acpi.nr_cpus == 0)
		acpi_defaults();
}
