/*
 * The Intel MultiProcessor Specification 1.4 table: how a PC BIOS lists
 * its CPUs, IOAPICs and interrupt wiring when ACPI is off or absent. This
 * part reads bytes only (kernel/mptable.c; the host tests feed it tables
 * dumped from QEMU's SeaBIOS and corrupted copies); kernel/mptable_boot.c
 * finds the table in the BIOS areas and hands what it says to the rest of
 * the kernel.
 */
#ifndef KERNEL_MPTABLE_H
#define KERNEL_MPTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MP_FPS_SIZE    16  /* the floating pointer structure */
#define MP_HEADER_SIZE 44  /* the configuration table's header */
#define MP_MAX_CPUS    255 /* APIC ids are 8 bits here; 255 is broadcast */
#define MP_MAX_IOAPICS 8
#define MP_MAX_IRQS    64
#define MP_MAX_BUSES   256

/* What the floating pointer structure says. */
struct mp_fps {
	uint32_t table;	  /* physical address of the configuration table */
	uint8_t spec_rev; /* 1 (MPS 1.1) or 4 (MPS 1.4) */
	uint8_t default_config; /* non-zero: one of the spec's fixed
				   machines, and no table */
	bool imcr;		/* the IMCR is present: the machine starts in
			       PIC mode (bit 7 of feature byte 2) */
};

struct mp_cpu {
	uint8_t apic_id;
	bool boot; /* the bootstrap processor */
};

struct mp_ioapic {
	uint8_t id;
	uint32_t addr;
};

/* One I/O interrupt assignment of type INT: an interrupt source on an ISA
 * or PCI bus wired to an IOAPIC input. */
struct mp_irq {
	bool pci;	   /* source on a PCI bus, else ISA (or EISA) */
	uint8_t bus;	   /* the source bus's id */
	uint8_t source;	   /* ISA: the IRQ; PCI: device << 2 | pin (0=INTA) */
	uint8_t ioapic_id; /* 0xFF: every IOAPIC */
	uint8_t pin;	   /* the IOAPIC input (INTIN) */
	uint16_t flags;	   /* MPS INTI flags: bits 0-1 polarity, 2-3 trigger
			      (0: as the bus does) */
};

/* What the configuration table says, as far as the kernel uses it. */
struct mp_config {
	uint32_t lapic_base;
	int nr_cpus;
	struct mp_cpu cpus[MP_MAX_CPUS];
	int nr_ioapics;
	struct mp_ioapic ioapics[MP_MAX_IOAPICS];
	int nr_irqs;
	struct mp_irq irqs[MP_MAX_IRQS];
	int cpus_disabled; /* processor entries without the enabled flag */
	int dropped;	   /* entries past the arrays above, or with a
			      source bus that no bus entry declared */
};

/*
 * mp_fps_find - the floating pointer structure in area[0, len): the first
 * "_MP_" on a 16-byte boundary whose length is 1 (16 bytes), whose bytes
 * sum to 0 and whose revision is 1 or 4. Fills *fps. Returns its offset,
 * or -1 when there is none. Reads nothing past len. Any context.
 */
long mp_fps_find(const uint8_t *area, size_t len, struct mp_fps *fps);

/*
 * mp_table_parse - read the configuration table at t, of which avail
 * bytes may be read, into *out: header (signature "PCMP", base table
 * length within avail, checksum, revision 1 or 4), then the base table's
 * entries, in the order the spec gives (processors, buses, IOAPICs, I/O
 * interrupts, local interrupts). Returns NULL on success, or why the table
 * was refused (a constant sentence; *out then holds nothing usable). Never
 * reads past the table's length or avail. Any context.
 */
const char *mp_table_parse(const uint8_t *t, size_t avail,
			   struct mp_config *out);

/*
 * mptable_init - find the MP table in the BIOS areas and describe the
 * machine from it in struct acpi_info (CPUs, IOAPICs, interrupt
 * overrides; one node), switching the IMCR to symmetric I/O mode where
 * the table says there is one. Prints one "mp:" line when a table was
 * found (or why it was refused), and one "boot:" line when the machine
 * is left with one CPU and no IOAPIC. Boot CPU, after acpi_init, when it
 * found no MADT. Returns whether a table was taken.
 */
bool mptable_init(void);

#endif
