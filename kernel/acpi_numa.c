/*
 * NUMA nodes from the firmware. SRAT puts each CPU (by APIC id) and each
 * memory range into a proximity domain; SLIT gives the distance between
 * any two domains (10 to itself, larger is farther); a PCI host bridge's
 * _PXM names the domain of the buses behind it.
 *
 * Node ids follow domain order: SRAT's domains are sorted and the lowest
 * MAX_NODES become nodes 0, 1, ... (a firmware's domain numbers may be
 * sparse). A domain beyond MAX_NODES is folded into the node nearest to
 * it by SLIT distance (ties: the lower node id; no usable distance: node
 * 0), and its CPUs and memory join that node. Folding rather than leaving
 * them out: the memory and the CPUs stay in use, and the nearest node is
 * where the firmware itself says they cost least to reach, so its
 * allocations stay as local as the node limit allows. The boot report
 * names every folded domain, where it went, its memory and CPUs, in one
 * line (docs/machines.md).
 *
 * The tables are read in two passes: the first collects the domains (so
 * that node ids do not depend on entry order), the second assigns CPUs
 * and memory once every domain knows its node.
 */
#include <string.h>

#include "kernel/acpi_numa.h"
#include "kernel/acpi_table.h"
#include "kernel/console.h"

#define SRAT_ENTRIES 48 /* header (36) + table revision and reserved */
#define SLIT_MATRIX  44 /* header (36) + number of localities (8) */

enum srat_kind { SRAT_OTHER, SRAT_CPU, SRAT_MEM };

/* One SRAT entry, decoded: an enabled CPU or memory range, or other. */
struct srat_entry {
	enum srat_kind kind;
	uint32_t pxm;
	uint32_t apic_id;   /* SRAT_CPU */
	uint64_t base, len; /* SRAT_MEM */
};

/* Types 0 (local APIC), 2 (x2APIC) and 1 (memory); disabled entries and
 * other types are SRAT_OTHER. */
static struct srat_entry srat_decode(const uint8_t *p)
{
	struct srat_entry e = {.kind = SRAT_OTHER};

	if (p[0] == 0 && p[1] >= 16 && (table_u32(p + 4) & 1)) {
		e.kind = SRAT_CPU;
		e.pxm = p[2] | (uint32_t)p[9] << 8 | (uint32_t)p[10] << 16 |
			(uint32_t)p[11] << 24;
		e.apic_id = p[3];
	} else if (p[0] == 2 && p[1] >= 24 && (table_u32(p + 12) & 1)) {
		e.kind = SRAT_CPU;
		e.pxm = table_u32(p + 4);
		e.apic_id = table_u32(p + 8);
	} else if (p[0] == 1 && p[1] >= 40 && (table_u32(p + 28) & 1)) {
		e.kind = SRAT_MEM;
		e.pxm = table_u32(p + 2);
		e.base = table_u64(p + 8);
		e.len = table_u64(p + 16);
	}
	return e;
}

/* Index of domain pxm in acpi.domains, or -1. */
static int domain_index(uint32_t pxm)
{
	for (int i = 0; i < acpi.nr_domains; i++)
		if (acpi.domains[i].pxm == pxm)
			return i;
	return -1;
}

/* Adds pxm in order if new; a domain past ACPI_MAX_DOMAINS is not kept
 * (its entries are counted as lost by the second pass). */
static void domain_add(uint32_t pxm)
{
	int i = acpi.nr_domains;

	if (domain_index(pxm) >= 0 || i == ACPI_MAX_DOMAINS)
		return;
	for (; i > 0 && acpi.domains[i - 1].pxm > pxm; i--)
		acpi.domains[i] = acpi.domains[i - 1];
	acpi.domains[i] = (struct acpi_domain){.pxm = pxm};
	acpi.nr_domains++;
}

/* The first pass: every enabled entry's domain; nodes are the first
 * MAX_NODES of them. */
static void collect_domains(const uint8_t *srat)
{
	const uint8_t *end = srat + table_u32(srat + 4);

	for (const uint8_t *p = srat + SRAT_ENTRIES; table_entry_at(p, end);
	     p += p[1]) {
		struct srat_entry e = srat_decode(p);

		if (e.kind != SRAT_OTHER)
			domain_add(e.pxm);
	}
	acpi.nr_nodes =
		acpi.nr_domains < MAX_NODES ? acpi.nr_domains : MAX_NODES;
	for (int i = 0; i < acpi.nr_domains; i++)
		acpi.domains[i].node = i;
}

/* SLIT's distance from domain a to domain b, 0 when it has none. */
static uint8_t slit_distance(const uint8_t *slit, uint32_t a, uint32_t b)
{
	uint64_t n = table_u64(slit + 36);

	return a < n && b < n ? slit[SLIT_MATRIX + a * n + b] : 0;
}

/* SLIT rows are indexed by proximity domain. It is used only if it is
 * sane for the nodes: 10 on the diagonal, 11-254 elsewhere; otherwise it
 * is reported and the defaults stay (10 and 20). */
static void slit_nodes(const uint8_t *slit)
{
	uint64_t n =
		table_u32(slit + 4) >= SLIT_MATRIX ? table_u64(slit + 36) : 0;
	uint8_t d[MAX_NODES][MAX_NODES] = {{0}};

	if (n == 0 || n > ACPI_MAX_DOMAINS ||
	    SLIT_MATRIX + n * n > table_u32(slit + 4)) {
		kprintf("acpi: SLIT too short, ignored\n");
		return;
	}
	for (int i = 0; i < acpi.nr_nodes; i++) {
		for (int j = 0; j < acpi.nr_nodes; j++) {
			uint8_t v = slit_distance(slit, acpi.domains[i].pxm,
						  acpi.domains[j].pxm);

			if ((i == j && v != 10) ||
			    (i != j && (v <= 10 || v == 255))) {
				kprintf("acpi: SLIT distance %u from node %d "
					"to %d is invalid, SLIT ignored\n",
					v, i, j);
				return;
			}
			d[i][j] = v;
		}
	}
	memcpy(acpi.distance, d, sizeof(d));
	acpi.has_slit = true;
}

/* Each domain beyond MAX_NODES joins the nearest node: the smallest
 * valid SLIT distance (11-254; the lower node id on a tie), else node 0
 * with distance 0 (no SLIT, or none for this domain). */
static void fold_domains(const uint8_t *slit)
{
	for (int i = acpi.nr_nodes; i < acpi.nr_domains; i++) {
		struct acpi_domain *dm = &acpi.domains[i];

		dm->folded = true;
		dm->node = 0;
		dm->distance = 0;
		for (int node = 0; acpi.has_slit && node < acpi.nr_nodes;
		     node++) {
			uint8_t v = slit_distance(slit, dm->pxm,
						  acpi.domains[node].pxm);

			if (v > 10 && v < 255 &&
			    (dm->distance == 0 || v < dm->distance)) {
				dm->node = node;
				dm->distance = v;
			}
		}
	}
}

/* A CPU entry: the MADT's CPU with that APIC id goes to the domain's
 * node (an entry for a CPU the MADT does not list changes nothing). */
static void assign_cpu(const struct srat_entry *e, struct acpi_domain *dm)
{
	for (int c = 0; c < acpi.nr_cpus; c++) {
		if (acpi.apic_ids[c] != e->apic_id)
			continue;
		acpi.cpu_node[c] = dm->node;
		dm->cpus++;
	}
}

static void assign_mem(const struct srat_entry *e, struct acpi_domain *dm)
{
	struct acpi_mem_affinity *m;

	if (acpi.nr_mem == ACPI_MAX_MEM) {
		acpi.srat_entries_lost++;
		return;
	}
	m = &acpi.mem[acpi.nr_mem++];
	m->base = e->base;
	m->len = e->len;
	m->node = dm->node;
	dm->bytes += e->len;
}

/* The second pass: CPUs and memory to their domain's node. */
static void assign_entries(const uint8_t *srat)
{
	const uint8_t *end = srat + table_u32(srat + 4);

	for (const uint8_t *p = srat + SRAT_ENTRIES; table_entry_at(p, end);
	     p += p[1]) {
		struct srat_entry e = srat_decode(p);
		int i = e.kind == SRAT_OTHER ? -1 : domain_index(e.pxm);

		if (e.kind != SRAT_OTHER && i < 0)
			acpi.srat_entries_lost++;
		else if (e.kind == SRAT_CPU)
			assign_cpu(&e, &acpi.domains[i]);
		else if (e.kind == SRAT_MEM)
			assign_mem(&e, &acpi.domains[i]);
	}
}

/* The whole machine one node: no SRAT, or none of its entries enabled. */
static void one_node(void)
{
	acpi.has_srat = false;
	acpi.nr_nodes = 1;
	for (int c = 0; c < acpi.nr_cpus; c++)
		acpi.cpu_node[c] = 0;
}

/* Without a usable SLIT, what QEMU and Linux assume: 10 and 20. */
static void default_distances(void)
{
	for (int i = 0; i < acpi.nr_nodes; i++)
		for (int j = 0; j < acpi.nr_nodes; j++)
			acpi.distance[i][j] = i == j ? 10 : 20;
}

void acpi_numa_init(void)
{
	const uint8_t *srat = acpi.srat, *slit = acpi.slit;

	if (!srat && slit)
		kprintf("acpi: SLIT without SRAT, ignored\n");
	if (srat) {
		collect_domains(srat);
		if (slit && acpi.nr_nodes > 0)
			slit_nodes(slit);
		fold_domains(slit);
		assign_entries(srat);
		acpi.has_srat = acpi.nr_nodes > 0;
	}
	if (!acpi.has_srat)
		one_node();
	if (!acpi.has_slit)
		default_distances();
}

int acpi_domain_node(uint32_t dom)
{
	int i = acpi.has_srat ? domain_index(dom) : -1;

	return i < 0 ? -1 : acpi.domains[i].node;
}

/* The bridge of segment seg with the largest _BBN <= bus, or NULL. */
static const struct acpi_host_bridge *bus_bridge(int seg, int bus)
{
	const struct acpi_host_bridge *best = NULL;

	for (int i = 0; i < acpi.nr_bridges; i++) {
		const struct acpi_host_bridge *b = &acpi.bridges[i];

		if (b->segment == seg && b->bus <= bus &&
		    (!best || b->bus > best->bus))
			best = b;
	}
	return best;
}

int acpi_pci_bus_node(int seg, int bus, const struct acpi_host_bridge **bridge)
{
	const struct acpi_host_bridge *b = bus_bridge(seg, bus);
	int node = b && b->has_pxm ? acpi_domain_node(b->pxm) : -1;

	if (bridge)
		*bridge = b;
	return node < 0 ? 0 : node;
}
