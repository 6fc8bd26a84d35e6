/*
 * The MP table, read from bytes (MultiProcessor Specification 1.4,
 * chapter 4). A BIOS leaves a 16-byte floating pointer structure ("_MP_")
 * on a 16-byte boundary in one of three places, which points at the
 * configuration table ("PCMP"): a 44-byte header, then entries whose size
 * follows from their type alone (processor 20 bytes; bus, IOAPIC, I/O and
 * local interrupt assignment 8 each). Both structures carry a checksum
 * (their bytes sum to 0), and a table whose checksum, signature, length
 * or entries do not hold is refused whole: an entry of unknown type has
 * no known size, so nothing after it can be read. Everything is bounded by
 * the length the caller may read and the table's own length, whichever is
 * smaller; no entry is trusted to fit until checked.
 */
#include "kernel/mptable.h"

#include <string.h>

enum {
	MP_ENTRY_CPU = 0,
	MP_ENTRY_BUS = 1,
	MP_ENTRY_IOAPIC = 2,
	MP_ENTRY_IRQ = 3,
	MP_ENTRY_LOCAL_IRQ = 4,
};

enum { BUS_NONE, BUS_ISA, BUS_PCI };

static uint8_t sum_bytes(const uint8_t *p, size_t n)
{
	uint8_t s = 0;

	while (n--)
		s += *p++;
	return s;
}

static uint16_t get_u16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

long mp_fps_find(const uint8_t *area, size_t len, struct mp_fps *fps)
{
	for (size_t off = 0; off + MP_FPS_SIZE <= len; off += 16) {
		const uint8_t *p = area + off;

		if (memcmp(p, "_MP_", 4) != 0 || p[8] != 1 ||
		    sum_bytes(p, MP_FPS_SIZE) != 0 || (p[9] != 1 && p[9] != 4))
			continue;
		fps->table = get_u32(p + 4);
		fps->spec_rev = p[9];
		fps->default_config = p[11];
		fps->imcr = (p[12] & 0x80) != 0;
		return (long)off;
	}
	return -1;
}

/* The size of an entry of a base table, 0 for an unknown type. */
static size_t entry_size(uint8_t type)
{
	if (type == MP_ENTRY_CPU)
		return 20;
	return type <= MP_ENTRY_LOCAL_IRQ ? 8 : 0;
}

static void take_cpu(const uint8_t *e, struct mp_config *out)
{
	if (!(e[3] & 1)) { /* CPU flags: EN */
		out->cpus_disabled++;
		return;
	}
	if (out->nr_cpus == MP_MAX_CPUS) {
		out->dropped++;
		return;
	}
	out->cpus[out->nr_cpus].apic_id = e[1];
	out->cpus[out->nr_cpus].boot = (e[3] & 2) != 0; /* BP */
	out->nr_cpus++;
}

/* "ISA   " and "EISA  " buses carry ISA IRQs, "PCI   " PCI interrupts;
 * others (VL, XPRESS, ...) nothing the kernel routes. */
static void take_bus(const uint8_t *e, uint8_t *bus_type)
{
	if (!memcmp(e + 2, "ISA", 3) || !memcmp(e + 2, "EISA", 4))
		bus_type[e[1]] = BUS_ISA;
	else if (!memcmp(e + 2, "PCI", 3))
		bus_type[e[1]] = BUS_PCI;
}

static void take_ioapic(const uint8_t *e, struct mp_config *out)
{
	if (!(e[3] & 1)) /* I/O APIC flags: EN */
		return;
	if (out->nr_ioapics == MP_MAX_IOAPICS) {
		out->dropped++;
		return;
	}
	out->ioapics[out->nr_ioapics].id = e[1];
	out->ioapics[out->nr_ioapics].addr = get_u32(e + 4);
	out->nr_ioapics++;
}

/* Interrupt type 0 (INT, vectored through the IOAPIC) only: NMI, SMI and
 * ExtINT (the 8259 cascade) are not routed by the kernel. */
static void take_irq(const uint8_t *e, const uint8_t *bus_type,
		     struct mp_config *out)
{
	struct mp_irq *irq;

	if (e[1] != 0)
		return;
	if (bus_type[e[4]] == BUS_NONE || out->nr_irqs == MP_MAX_IRQS) {
		out->dropped++;
		return;
	}
	irq = &out->irqs[out->nr_irqs++];
	irq->pci = bus_type[e[4]] == BUS_PCI;
	irq->flags = get_u16(e + 2);
	irq->bus = e[4];
	irq->source = e[5];
	irq->ioapic_id = e[6];
	irq->pin = e[7];
}

/* The header's checks: NULL and the base table's length in *len, or why
 * the table is refused. */
static const char *check_header(const uint8_t *t, size_t avail, size_t *len)
{
	if (avail < MP_HEADER_SIZE)
		return "shorter than its header";
	if (memcmp(t, "PCMP", 4) != 0)
		return "no PCMP signature";
	*len = get_u16(t + 4);
	if (*len < MP_HEADER_SIZE || *len > avail)
		return "base table length out of bounds";
	if (sum_bytes(t, *len) != 0)
		return "bad checksum";
	if (t[6] != 1 && t[6] != 4)
		return "unknown specification revision";
	return NULL;
}

/* The entries of a base table of len bytes whose header passed. */
static const char *read_entries(const uint8_t *t, size_t len,
				struct mp_config *out)
{
	uint8_t bus_type[MP_MAX_BUSES] = {BUS_NONE};
	unsigned int count = get_u16(t + 34);
	size_t off = MP_HEADER_SIZE;

	for (unsigned int i = 0; i < count; i++) {
		const uint8_t *e = t + off;
		size_t size;

		if (off >= len)
			return "entry count runs past the table";
		size = entry_size(e[0]);
		if (size == 0)
			return "entry of unknown type";
		if (off + size > len)
			return "entry runs past the table";
		if (e[0] == MP_ENTRY_CPU)
			take_cpu(e, out);
		else if (e[0] == MP_ENTRY_BUS)
			take_bus(e, bus_type);
		else if (e[0] == MP_ENTRY_IOAPIC)
			take_ioapic(e, out);
		else if (e[0] == MP_ENTRY_IRQ)
			take_irq(e, bus_type, out);
		off += size;
	}
	return out->nr_cpus ? NULL : "no enabled processor";
}

const char *mp_table_parse(const uint8_t *t, size_t avail,
			   struct mp_config *out)
{
	size_t len = 0;
	const char *why = check_header(t, avail, &len);

	memset(out, 0, sizeof(*out));
	if (!why) {
		out->lapic_base = get_u32(t + 36);
		why = read_entries(t, len, out);
	}
	if (why)
		memset(out, 0, sizeof(*out));
	return why;
}
