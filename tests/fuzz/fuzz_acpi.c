/*
 * Fuzz harness of the ACPI table walk (kernel/acpi.c): MADT, SRAT, SLIT,
 * MCFG, FADT and HPET, and the DSDT and SSDTs through the AML scanner
 * (kernel/acpi_aml.c), read in place through the kernel's identity map
 * as acpi_init reads them.
 *
 * The tables go into fake physical memory (phys_window.h): each table's
 * bytes, as many as its header's length says, are readable, every other
 * byte is poisoned, so reading past a table is an ASan report. The
 * harness is the firmware: it writes the RSDP (revision 0 with an RSDT,
 * or 2 with an XSDT) and the root table pointing at the tables, each
 * table's length field (the bytes placed: never less than the 8 that
 * hold it) and, unless told not to, its checksum, and the FADT's DSDT
 * and X_DSDT pointers (to the input's DSDT). Everything else is the
 * fuzzer's.
 *
 * The input: one flag byte (bit 0: revision 2 and an XSDT; bit 1: leave
 * the checksums as they come), then tables, each two length bytes (at
 * most 16 KiB) and its bytes. A table whose signature is DSDT is not
 * listed in the root; the FADT points at it.
 *
 * Checked beyond ASan: every count within its array, the CPUs' and
 * memory ranges' nodes existing nodes, proximity domains sorted and
 * unique, each node 10 from itself, every bus's node (acpi_pci_bus_node)
 * an existing one.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse_common.h"
#include "phys_window.h"

#include "kernel/acpi.c"
#include "kernel/acpi_aml.c"
#include "kernel/acpi_numa.c"

#define MAX_TABLES   16
#define TABLE_MAX    16384
#define F_XSDT	     1
#define F_BAD_CHKSUM 2

/* The kernel's map of RAM above 4 GiB: the window is below. */
int map_ram(uint64_t phys, uint64_t size)
{
	(void)phys;
	(void)size;
	return 0;
}

/* The kernel's messages: formatted (their arguments must be sound),
 * kept nowhere. */
int kprintf(const char *fmt, ...)
{
	char line[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	return n;
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

/* The command line: every key at its default (acpi=on: the tables are
 * read). */
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

static void set_checksum(uint8_t *t, size_t len, size_t at)
{
	uint8_t s = 0;

	t[at] = 0;
	for (size_t i = 0; i < len; i++)
		s += t[i];
	t[at] = (uint8_t)-s;
}

/* One table from the input into the window; 0 when the input is over. */
static uint64_t place_table(struct pz_in *in, bool fix_sum)
{
	const uint8_t *b;
	size_t n;
	uint32_t len;
	uint64_t at;
	uint8_t *t;

	if (!pz_more(in))
		return 0;
	n = pz_take(in, pz_u16(in) % (TABLE_MAX + 1), &b);
	len = (uint32_t)(n < 8 ? 8 : n);
	at = pw_place(NULL, len);
	t = pw_ptr(at);
	memcpy(t, b, n);
	memcpy(t + 4, &len, 4);
	if (fix_sum && len > 9)
		set_checksum(t, len, 9);
	return at;
}

/* The FADT's pointers at the DSDT, where the FADT has them. */
static void point_fadt(uint64_t fadt, uint64_t dsdt, bool fix_sum)
{
	uint8_t *f = pw_ptr(fadt);
	uint32_t len, d32 = (uint32_t)dsdt;

	memcpy(&len, f + 4, 4);
	if (len >= 44)
		memcpy(f + 40, &d32, 4);
	if (len >= 148)
		memcpy(f + 140, &dsdt, 8);
	if (fix_sum && len > 9)
		set_checksum(f, len, 9);
}

/* The root table (RSDT or XSDT) and the RSDP; returns the RSDP. */
static uint64_t place_root(const uint64_t *tab, int n, bool xsdt)
{
	uint32_t esz = xsdt ? 8 : 4, len = 36 + esz * (uint32_t)n;
	uint64_t root = pw_place(NULL, len), rsdp;
	uint8_t *r = pw_ptr(root), p[36] = "RSD PTR ";

	memcpy(r, xsdt ? "XSDT" : "RSDT", 4);
	memcpy(r + 4, &len, 4);
	r[8] = 1;
	for (int i = 0; i < n; i++)
		memcpy(r + 36 + esz * (uint32_t)i, &tab[i], esz);
	set_checksum(r, len, 9);
	memcpy(p + 9, "BOCHS ", 6);
	p[15] = xsdt ? 2 : 0;
	if (xsdt) {
		len = 36;
		memcpy(p + 20, &len, 4);
		memcpy(p + 24, &root, 8);
	} else {
		uint32_t r32 = (uint32_t)root;

		memcpy(p + 16, &r32, 4);
	}
	set_checksum(p, 20, 8);
	if (xsdt)
		set_checksum(p, 36, 32);
	rsdp = pw_place(p, xsdt ? 36 : 20);
	return rsdp;
}

static void check(void)
{
	const struct acpi_info *a = &acpi;

	PZ_CHECK(a->found, "the RSDP the harness wrote was not found");
	PZ_CHECK(a->nr_cpus >= 1 && a->nr_cpus <= MAX_CPUS, "%d CPUs",
		 a->nr_cpus);
	PZ_CHECK(a->nr_ioapics <= ACPI_MAX_IOAPICS &&
			 a->nr_isos <= ACPI_MAX_ISOS &&
			 a->nr_mem <= ACPI_MAX_MEM &&
			 a->nr_mcfg <= ACPI_MAX_MCFG &&
			 a->nr_tables <= ACPI_MAX_TABLES &&
			 a->nr_bridges <= ACPI_MAX_BRIDGES,
		 "a count past its array");
	PZ_CHECK(a->nr_nodes >= 1 && a->nr_nodes <= MAX_NODES, "%d nodes",
		 a->nr_nodes);
	for (int c = 0; c < a->nr_cpus; c++)
		PZ_CHECK(a->cpu_node[c] >= 0 && a->cpu_node[c] < a->nr_nodes,
			 "CPU %d on node %d", c, a->cpu_node[c]);
	for (int i = 0; i < a->nr_mem; i++)
		PZ_CHECK(a->mem[i].node >= 0 && a->mem[i].node < a->nr_nodes,
			 "range %d on node %d", i, a->mem[i].node);
	for (int i = 0; i < a->nr_nodes; i++) {
		PZ_CHECK(a->distance[i][i] == 10, "node %d %u from itself", i,
			 a->distance[i][i]);
		if (a->has_srat && i > 0)
			PZ_CHECK(a->domains[i - 1].pxm < a->domains[i].pxm,
				 "domains out of order at node %d", i);
	}
	for (int bus = 0; bus < 256; bus += 17) {
		int node = acpi_pci_bus_node(0, bus, NULL);

		PZ_CHECK(node >= 0 && node < a->nr_nodes, "bus %d on node %d",
			 bus, node);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool started;
	struct pz_in in = {data, size, 0};
	uint64_t tab[MAX_TABLES], dsdt = 0, at;
	uint8_t flags;
	int n = 0;

	if (!started) {
		pz_init("fuzz_acpi");
		pw_map();
		started = true;
	}
	pz_input();
	pw_reset();
	flags = pz_u8(&in);
	while (n < MAX_TABLES &&
	       (at = place_table(&in, !(flags & F_BAD_CHKSUM))) != 0) {
		const char *sig = pw_ptr(at);

		if (!memcmp(sig, "DSDT", 4)) {
			dsdt = at;
			continue;
		}
		tab[n++] = at;
	}
	for (int i = 0; i < n; i++) /* every FADT, if there are several */
		if (!memcmp(pw_ptr(tab[i]), "FACP", 4))
			point_fadt(tab[i], dsdt, !(flags & F_BAD_CHKSUM));
	acpi_init(place_root(tab, n, flags & F_XSDT));
	acpi_numa_init();
	pz_ops++;
	check();
	return 0;
}
