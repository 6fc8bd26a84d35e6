/*
 * The boot report (format in kernel/boot_report.h and docs/boot.md).
 * Sizes are rounded UP to whole MiB so they match what QEMU was told:
 * with -m 512 the firmware keeps the 640 KiB-1 MiB hole and a few KiB at
 * the top, leaving 511.5 MiB of available RAM, reported as 512MiB.
 */
#include "kernel/boot_report.h"
#include "kernel/acpi.h"
#include "kernel/acpi_numa.h"
#include "kernel/apic.h"
#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/direct_map.h"
#include "kernel/memmap.h"
#include "kernel/mm_boot.h"
#include "kernel/percpu.h"
#include "kernel/time.h"
#include "libc/strbuf.h"
#include <string.h>

static uint64_t mib(uint64_t bytes)
{
	return (bytes + (1ULL << 20) - 1) >> 20;
}

/* "0-1,4" for the CPUs on node; "none" if there are none. */
static void cpu_list(int node, char *buf, size_t size)
{
	struct strbuf sb;
	int i = 0;

	strbuf_init(&sb, buf, size);
	while (i < nr_cpus) {
		int j;

		if (cpus[i].node != node) {
			i++;
			continue;
		}
		for (j = i; j + 1 < nr_cpus && cpus[j + 1].node == node; j++)
			;
		strbuf_printf(&sb, j > i ? "%s%d-%d" : "%s%d",
			      sb.len ? "," : "", i, j);
		i = j + 1;
	}
	if (!sb.len)
		strbuf_printf(&sb, "none");
	strbuf_done(&sb);
}

/* Folded domains listed by name in the line; the rest are summed. */
#define FOLDED_NAMED 8

/*
 * One line when SRAT lists more proximity domains than MAX_NODES: each
 * domain beyond them, its memory and CPUs, and the node it was folded
 * into with the SLIT distance that chose it (kernel/acpi_srat.c).
 */
static void report_folded_domains(void)
{
	char line[640];
	struct strbuf sb;
	uint64_t rest_bytes = 0;
	int rest = 0, rest_cpus = 0;

	if (acpi.nr_domains <= acpi.nr_nodes)
		return;
	strbuf_init(&sb, line, sizeof(line));
	for (int i = acpi.nr_nodes; i < acpi.nr_domains; i++) {
		const struct acpi_domain *d = &acpi.domains[i];

		if (i - acpi.nr_nodes >= FOLDED_NAMED) {
			rest++;
			rest_bytes += d->bytes;
			rest_cpus += d->cpus;
			continue;
		}
		strbuf_printf(
			&sb, "%spxm %u (memory=%lluMiB cpus=%d) -> node %d",
			sb.len ? ", " : "", d->pxm,
			(unsigned long long)mib(d->bytes), d->cpus, d->node);
		if (d->distance)
			strbuf_printf(&sb, " (distance %u)", d->distance);
		else
			strbuf_printf(&sb, " (no SLIT distance)");
	}
	if (rest)
		strbuf_printf(&sb, ", %d more (memory=%lluMiB cpus=%d)", rest,
			      (unsigned long long)mib(rest_bytes), rest_cpus);
	strbuf_done(&sb);
	kprintf("acpi: %d proximity domains, MAX_NODES=%d: %d folded into "
		"the nearest node: %s\n",
		acpi.nr_domains, MAX_NODES, acpi.nr_domains - acpi.nr_nodes,
		line);
}

static void report_nodes(void)
{
	const struct mm_range *r;
	int n = memmap_ram_ranges(&r);
	char list[128];

	report_folded_domains();
	if (acpi.srat_entries_lost)
		kprintf("acpi: %d SRAT entries past %d domains or %d memory "
			"ranges: their CPUs and memory are on node 0\n",
			acpi.srat_entries_lost, ACPI_MAX_DOMAINS, ACPI_MAX_MEM);
	for (int node = 0; node < acpi.nr_nodes; node++) {
		char dist[8 * MAX_NODES];
		struct strbuf sb;

		cpu_list(node, list, sizeof(list));
		kprintf("node %d: cpus=%s memory=%lluMiB\n", node, list,
			(unsigned long long)mib(memmap_node_bytes(node)));
		for (int i = 0; i < n; i++)
			if (r[i].nid == node)
				kprintf("node %d: range 0x%lx-0x%lx\n", node,
					(unsigned long)r[i].start,
					(unsigned long)r[i].end);
		strbuf_init(&sb, dist, sizeof(dist));
		for (int j = 0; j < acpi.nr_nodes; j++)
			strbuf_printf(&sb, "%s%u", j ? "," : "",
				      acpi.distance[node][j]);
		strbuf_done(&sb);
		kprintf("node %d: distance=%s%s\n", node, dist,
			acpi.has_slit ? "" : " (no SLIT: assumed)");
	}
}

/* One line per PCI host bridge the AML scan found, with the node its
 * buses get (acpi_pci_bus_node); a _PXM the scanner cannot read is said. */
static void report_host_bridges(void)
{
	for (int i = 0; i < acpi.nr_bridges; i++) {
		const struct acpi_host_bridge *b = &acpi.bridges[i];
		int node = b->has_pxm ? acpi_domain_node(b->pxm) : -1;

		if (b->has_pxm)
			kprintf("acpi: pci host bridge %s seg=%u bus=0x%02x "
				"pxm=%u node=%d%s\n",
				b->name, b->segment, b->bus, b->pxm,
				node < 0 ? 0 : node,
				node < 0 ? " (pxm not in SRAT)" : "");
		else
			kprintf("acpi: pci host bridge %s seg=%u bus=0x%02x "
				"node=0%s\n",
				b->name, b->segment, b->bus,
				b->pxm_method ? " (_PXM is a method: not "
						"supported)"
					      : "");
	}
	if (acpi.aml.fallbacks || acpi.aml.bridges_dropped || acpi.aml.too_deep)
		kprintf("acpi: aml scan: %d devices, %d unknown-opcode "
			"fallbacks, %d bridges dropped, %d too deep\n",
			acpi.aml.devices, acpi.aml.fallbacks,
			acpi.aml.bridges_dropped, acpi.aml.too_deep);
}

static void report_acpi(void)
{
	char names[ACPI_MAX_TABLES * 5 + 1];
	struct strbuf sb;

	strbuf_init(&sb, names, sizeof(names));
	for (int i = 0; i < acpi.nr_tables; i++)
		strbuf_printf(&sb, "%s%s", i ? " " : "", acpi.table_names[i]);
	strbuf_done(&sb);
	kprintf("acpi: %s rev %d tables: %s\n", acpi.found ? "rsdp" : "none",
		acpi.revision, names);
	for (int i = 0; i < acpi.nr_ioapics; i++)
		kprintf("acpi: ioapic id=%u addr=0x%lx gsi_base=%u\n",
			acpi.ioapics[i].id, (unsigned long)acpi.ioapics[i].addr,
			acpi.ioapics[i].gsi_base);
	for (int i = 0; i < acpi.nr_mcfg; i++)
		kprintf("acpi: pci ecam segment=%u buses=%u-%u base=0x%lx\n",
			acpi.mcfg[i].segment, acpi.mcfg[i].bus_start,
			acpi.mcfg[i].bus_end, (unsigned long)acpi.mcfg[i].base);
	if (acpi.nr_mcfg_dropped)
		kprintf("acpi: %d more pci ecam windows than %d: their buses "
			"are not scanned\n",
			acpi.nr_mcfg_dropped, ACPI_MAX_MCFG);
	report_host_bridges();
}

void boot_report(void)
{
	const struct mm_range *r;
	int nfree = memmap_free_ranges(&r);
	uint64_t free_bytes = 0;

	for (int i = 0; i < nfree; i++)
		free_bytes += r[i].end - r[i].start;
	kprintf("boot: cmdline=\"%s\"\n", cmdline_raw());
	kprintf("boot: console=serial,%s\n", console_screen_name());
	report_acpi();
	kprintf("boot: tsc=%lluMHz (by %s) timer=%dHz apic=%s idle=%s\n",
		(unsigned long long)(tsc_hz() / 1000000), time_calibrated_by(),
		TIMER_HZ, lapic_x2apic() ? "x2apic" : "xapic",
		timer_idle_mode());
	for (int i = 0; i < nr_cpus; i++)
		kprintf("cpu %d: apic=%u node=%d\n", i, cpus[i].apic_id,
			cpus[i].node);
	if (acpi.nr_cpus_skipped)
		kprintf("boot: %d more CPUs in the firmware's list not used "
			"(MAX_FW_CPUS=%d)\n",
			acpi.nr_cpus_skipped, MAX_FW_CPUS);
	report_nodes();
	direct_map_report();
	kprintf("boot: usable=%lluMiB in %d ranges (after reserving the kernel "
		"and boot data)\n",
		(unsigned long long)mib(free_bytes), nfree);
	mm_boot_report();
	kprintf("boot: cpus=%d nodes=%d memory=%lluMiB\n", nr_cpus,
		acpi.nr_nodes, (unsigned long long)mib(memmap_node_bytes(-1)));
	kprintf("boot: time=%llums since the kernel's entry\n",
		(unsigned long long)time_since_entry_ms());
	kprintf("boot: ready\n");
}
