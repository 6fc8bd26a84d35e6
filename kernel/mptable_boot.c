/*
 * The MP table at boot, for machines without ACPI or booted with
 * acpi=off. The floating pointer structure is searched where the
 * specification says a BIOS leaves it, in this order: the first KiB of
 * the EBDA, the last KiB of base memory, the BIOS ROM at 0xF0000-0xFFFFF
 * (UEFI machines have none of these). The table it points at is read by
 * kernel/mptable.c and described in struct acpi_info as the MADT would
 * be, so SMP and the IOAPIC code read one description: CPUs in table
 * order, IOAPICs with GSI bases counted from their pin counts (ACPI gives
 * them; the MP table numbers pins per IOAPIC), and the interrupts wired
 * other than ISA IRQ n to GSI n, edge, active high, as overrides.
 */
#include "kernel/mptable.h"
#include "kernel/acpi.h"
#include "kernel/arch.h"
#include "kernel/console.h"
#include "kernel/paging.h"

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* The pointer structure's physical address, or 0: the three areas in
 * turn, each as physical [start, start + len). */
static uint64_t fps_scan(struct mp_fps *fps)
{
	uint64_t ebda = (uint64_t)(*(const volatile uint16_t *)phys_ptr(0x40E))
			<< 4;
	uint64_t base_kib = *(const volatile uint16_t *)phys_ptr(0x413);
	struct {
		uint64_t start, len;
	} areas[3] = {{0, 0}, {0, 0}, {0xF0000, 0x10000}};

	if (ebda >= 0x80000 && ebda < 0xA0000)
		areas[0].start = ebda, areas[0].len = 1024;
	if (base_kib >= 512 && base_kib <= 640)
		areas[1].start = (base_kib - 1) * 1024, areas[1].len = 1024;
	for (int i = 0; i < 3; i++) {
		long off = areas[i].len ? mp_fps_find(phys_ptr(areas[i].start),
						      areas[i].len, fps)
					: -1;

		if (off >= 0)
			return areas[i].start + (uint64_t)off;
	}
	return 0;
}

/* GSI bases: each IOAPIC's pins follow the previous one's. */
static void take_ioapics(const struct mp_config *mp)
{
	uint32_t base = 0;

	for (int i = 0; i < mp->nr_ioapics && i < ACPI_MAX_IOAPICS; i++) {
		volatile uint32_t *io = map_mmio(mp->ioapics[i].addr, 4096);

		acpi.ioapics[i].id = mp->ioapics[i].id;
		acpi.ioapics[i].addr = mp->ioapics[i].addr;
		acpi.ioapics[i].gsi_base = base;
		acpi.nr_ioapics++;
		if (!io)
			break;
		io[0] = 1; /* IOAPICVER: pins - 1 in bits 16-23 */
		base += ((io[4] >> 16) & 0xFF) + 1;
	}
}

/* The GSI of pin on the IOAPIC with id (0xFF: every IOAPIC, so the
 * first), or -1 when no IOAPIC has that id. */
static long gsi_of(uint8_t id, uint8_t pin)
{
	for (int i = 0; i < acpi.nr_ioapics; i++)
		if (acpi.ioapics[i].id == id || id == 0xFF)
			return (long)acpi.ioapics[i].gsi_base + pin;
	return -1;
}

static bool has_override(uint8_t source)
{
	for (int i = 0; i < acpi.nr_isos; i++)
		if (acpi.isos[i].source == source)
			return true;
	return false;
}

/*
 * ISA interrupts that are not on their own pin, edge and active high,
 * become overrides (the PIT's IRQ 0 on GSI 2, on PCs). PCI interrupts
 * too: the kernel routes a PCI function's INTx by its Interrupt Line
 * register, the ISA IRQ the BIOS gave its link, and PC BIOSes wire that
 * IRQ to the IOAPIC pin of the same number, so a PCI entry's pin names
 * the IRQ and its flags say the polarity (SeaBIOS: active high, as
 * QEMU's MADT says of the same IRQs). Returns the entries left out.
 */
static int take_irqs(const struct mp_config *mp)
{
	int dropped = 0;

	for (int pass = 0; pass < 2; pass++) { /* ISA first, then PCI */
		for (int i = 0; i < mp->nr_irqs; i++) {
			const struct mp_irq *q = &mp->irqs[i];
			long gsi = gsi_of(q->ioapic_id, q->pin);
			uint8_t source = q->pci ? (uint8_t)gsi : q->source;

			if (q->pci != (pass == 1))
				continue;
			if (gsi < 0 || (q->pci && gsi > 15)) {
				dropped += gsi < 0;
				continue;
			}
			if ((!q->pci && gsi == q->source && q->flags == 0) ||
			    (q->pci && has_override(source)))
				continue;
			if (acpi.nr_isos == ACPI_MAX_ISOS) {
				dropped++;
				continue;
			}
			acpi.isos[acpi.nr_isos].source = source;
			acpi.isos[acpi.nr_isos].gsi = (uint32_t)gsi;
			acpi.isos[acpi.nr_isos].flags = q->flags;
			acpi.nr_isos++;
		}
	}
	return dropped;
}

/* The table's description of the machine into acpi; false if none. */
static bool mptable_take(void)
{
	static struct mp_config mp;
	struct mp_fps fps;
	uint64_t at = fps_scan(&fps);
	const char *why;
	int dropped;

	if (!at)
		return false;
	if (fps.default_config) {
		kprintf("mp: default configuration %u (no table): not "
			"supported, ignored\n",
			fps.default_config);
		return false;
	}
	/* a base table is at most 64 KiB; the first 4 GiB are mapped */
	why = mp_table_parse(phys_ptr(fps.table),
			     (size_t)min_u64(0x10000, (4ULL << 30) - fps.table),
			     &mp);
	if (why) {
		kprintf("mp: table at 0x%x refused (%s), ignored\n", fps.table,
			why);
		return false;
	}
	if (fps.imcr) { /* IMCR: from PIC mode to symmetric I/O mode */
		outb(0x22, 0x70);
		outb(0x23, 0x01);
	}
	acpi.lapic_base = mp.lapic_base;
	acpi.pic_present = true;
	acpi.nr_cpus = 0;
	for (int i = 0; i < mp.nr_cpus; i++)
		acpi.apic_ids[acpi.nr_cpus++] = mp.cpus[i].apic_id;
	take_ioapics(&mp);
	dropped = take_irqs(&mp) + mp.dropped;
	kprintf("mp: table at 0x%x (pointer at 0x%lx, MPS 1.%u): %d cpus, %d "
		"ioapics, %d interrupts, %d entries left out\n",
		fps.table, (unsigned long)at, fps.spec_rev, acpi.nr_cpus,
		acpi.nr_ioapics, mp.nr_irqs, dropped);
	return true;
}

bool mptable_init(void)
{
	if (mptable_take())
		return true;
	kprintf("boot: no ACPI MADT and no MP table: one cpu, no IOAPIC "
		"(line interrupts polled, MSI works)\n");
	return false;
}
