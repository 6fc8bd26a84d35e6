/*
 * Local APIC and IOAPIC. The local APIC is reached through one of two
 * interfaces with the same register numbers: xAPIC memory-mapped registers
 * (offset reg) or x2APIC MSRs (0x800 + reg / 16). x2APIC is used wherever
 * the CPU offers it (real CPUs, KVM, QEMU 10's TCG; QEMU 7.2's TCG filters
 * it out), unless x2apic=off: its IPIs name 32-bit APIC ids, which is what
 * lets CPUs with ids above 254 start and take IPIs.
 *
 * Device interrupts are another matter: an IOAPIC entry or an MSI names
 * its CPU in 8 bits (255 is every CPU), and only interrupt remapping
 * (VT-d, AMD-Vi) reaches further. This kernel does not program an IOMMU;
 * a device interrupt meant for a CPU with a larger id goes to a CPU of
 * the same node that has a small one (irq_delivery_cpu), whose handler
 * wakes the intended poller with an IPI, as every handler already does
 * for a poller on another CPU (poll_wake).
 */
#include "kernel/apic.h"
#include "kernel/acpi.h"
#include "kernel/arch.h"
#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/irq.h"
#include "kernel/lapic_regs.h"
#include "kernel/paging.h"
#include "kernel/percpu.h"
#include "kernel/spinlock.h"
#include "kernel/vector.h"
#include <string.h>

#define LAPIC_ID	0x020
#define LAPIC_TPR	0x080
#define LAPIC_EOI	0x0B0
#define LAPIC_SVR	0x0F0
#define LAPIC_ICR_LO	0x300
#define LAPIC_ICR_HI	0x310
#define LAPIC_LVT_LINT0 0x350
#define LAPIC_LVT_LINT1 0x360
#define LAPIC_LVT_ERROR 0x370

static volatile uint32_t *lapic_mmio;
static bool x2apic;

CMDLINE_KEY(kernel, x2apic, "on", cmdline_valid_choice, "on|off",
	    "on: the local APIC in x2APIC mode where the CPU offers it "
	    "(needed for APIC ids above 254); off: xAPIC mode always");

/* The largest APIC id an IOAPIC entry or an MSI can name alone (8 bits;
 * 255 is the broadcast id). */
#define IRQ_DEST_MAX 254

bool lapic_x2apic(void)
{
	return x2apic;
}

uint32_t lapic_read(uint32_t reg)
{
	if (x2apic)
		return (uint32_t)rdmsr(0x800 + (reg >> 4));
	return lapic_mmio[reg / 4];
}

void lapic_write(uint32_t reg, uint32_t v)
{
	if (x2apic)
		wrmsr(0x800 + (reg >> 4), v);
	else
		lapic_mmio[reg / 4] = v;
}

void lapic_write_tsc_deadline(uint64_t tsc)
{
	/* The LVT write that selected the mode must land first (SDM
	 * 10.5.4.1: an MMIO write and WRMSR are not ordered otherwise). */
	__asm__ volatile("mfence" ::: "memory");
	wrmsr(MSR_TSC_DEADLINE, tsc);
}

uint32_t lapic_id(void)
{
	uint32_t id = lapic_read(LAPIC_ID);

	return x2apic ? id : id >> 24;
}

void lapic_eoi(void)
{
	lapic_write(LAPIC_EOI, 0);
}

static void icr_send(uint32_t apic_id, uint32_t lo)
{
	unsigned long flags = irq_save();

	if (x2apic) {
		wrmsr(0x830, ((uint64_t)apic_id << 32) | lo);
	} else {
		while (lapic_mmio[LAPIC_ICR_LO / 4] & (1u << 12))
			cpu_relax(); /* previous IPI still being delivered */
		lapic_mmio[LAPIC_ICR_HI / 4] = apic_id << 24;
		lapic_mmio[LAPIC_ICR_LO / 4] = lo;
	}
	irq_restore(flags);
}

void lapic_send_ipi(uint32_t apic_id, int vector)
{
	icr_send(apic_id, (uint32_t)vector | (1u << 14));
}

/*
 * An NMI may interrupt an icr_send on its own CPU between the write of
 * the destination (ICR high) and the write that sends (ICR low); an NMI
 * handler that sends an IPI itself (kernel/nmi.c) would leave its own
 * destination behind for the interrupted send. So this send puts the
 * destination it found back. x2APIC sends with one MSR write: nothing
 * to keep.
 */
void lapic_send_nmi(uint32_t apic_id)
{
	uint32_t lo = (4u << 8) | (1u << 14); /* delivery mode NMI, assert */
	unsigned long flags;
	uint32_t hi;

	if (x2apic) {
		wrmsr(0x830, ((uint64_t)apic_id << 32) | lo);
		return;
	}
	flags = irq_save();
	while (lapic_mmio[LAPIC_ICR_LO / 4] & (1u << 12))
		cpu_relax();
	hi = lapic_mmio[LAPIC_ICR_HI / 4];
	lapic_mmio[LAPIC_ICR_HI / 4] = apic_id << 24;
	lapic_mmio[LAPIC_ICR_LO / 4] = lo;
	while (lapic_mmio[LAPIC_ICR_LO / 4] & (1u << 12))
		cpu_relax();
	lapic_mmio[LAPIC_ICR_HI / 4] = hi;
	irq_restore(flags);
}

void lapic_broadcast_ipi(int vector)
{
	if (!x2apic && !lapic_mmio)
		return; /* a fault before the APIC is up: nobody to tell */
	/* destination shorthand 11: all excluding self */
	icr_send(0, (uint32_t)vector | (1u << 14) | (3u << 18));
}

void lapic_send_init(uint32_t apic_id)
{
	icr_send(apic_id, 0x00004500); /* INIT, level assert */
}

void lapic_send_sipi(uint32_t apic_id, uint8_t page)
{
	icr_send(apic_id, 0x00004600 | page); /* STARTUP */
}

static void lapic_enable(void)
{
	uint64_t base = rdmsr(MSR_APIC_BASE);

	/* Disabled to x2APIC in one write is an invalid transition (#GP,
	 * SDM 10.12.5): enable in xAPIC mode first. */
	if (!(base & (1u << 11))) {
		base |= 1u << 11; /* global enable */
		wrmsr(MSR_APIC_BASE, base);
	}
	if (x2apic && !(base & (1u << 10)))
		wrmsr(MSR_APIC_BASE, base | (1u << 10));
	lapic_write(LAPIC_TPR, 0);
	lapic_write(LAPIC_LVT_ERROR, LVT_MASKED);
	lapic_write(LAPIC_SVR, 0x100 | VEC_SPURIOUS);
}

void lapic_init_ap(void)
{
	lapic_enable();
	lapic_write(LAPIC_LVT_LINT0, LVT_MASKED);
	lapic_write(LAPIC_LVT_LINT1, LVT_MASKED);
}

/* Remap the 8259s to VEC_PIC_BASE (so a spurious IRQ 7 cannot look like
 * an exception) and mask every line: the IOAPIC delivers instead. */
static void pic_disable(void)
{
	outb(0x20, 0x11);
	outb(0xA0, 0x11);
	outb(0x21, VEC_PIC_BASE);
	outb(0xA1, VEC_PIC_BASE + 8);
	outb(0x21, 4);
	outb(0xA1, 2);
	outb(0x21, 1);
	outb(0xA1, 1);
	outb(0x21, 0xFF);
	outb(0xA1, 0xFF);
}

/* ---- IOAPIC ---- */

static spinlock_t ioapic_lock = SPINLOCK_INIT;

static uint32_t ioapic_read(volatile uint32_t *io, uint32_t reg)
{
	io[0] = reg;
	return io[4];
}

static void ioapic_write(volatile uint32_t *io, uint32_t reg, uint32_t v)
{
	io[0] = reg;
	io[4] = v;
}

static int ioapic_pins(volatile uint32_t *io)
{
	return (int)((ioapic_read(io, 1) >> 16) & 0xFF) + 1;
}

/* The IOAPIC serving gsi and the pin on it, or NULL. */
static volatile uint32_t *ioapic_for(uint32_t gsi, uint32_t *pin)
{
	for (int i = 0; i < acpi.nr_ioapics; i++) {
		volatile uint32_t *io =
			(volatile uint32_t *)(uintptr_t)acpi.ioapics[i].addr;
		uint32_t base = acpi.ioapics[i].gsi_base;

		if (gsi >= base && gsi < base + (uint32_t)ioapic_pins(io)) {
			*pin = gsi - base;
			return io;
		}
	}
	return NULL;
}

int ioapic_route(uint32_t gsi, int vector, uint32_t apic_id, uint16_t flags,
		 bool level_default)
{
	uint32_t pin, lo = (uint32_t)vector;
	bool low = level_default, level = level_default;
	volatile uint32_t *io = ioapic_for(gsi, &pin);
	unsigned long f;

	if (!io)
		return -1;
	if ((flags & 3) == 1)
		low = false;
	else if ((flags & 3) == 3)
		low = true;
	if (((flags >> 2) & 3) == 1)
		level = false;
	else if (((flags >> 2) & 3) == 3)
		level = true;
	lo |= (low ? 1u << 13 : 0) | (level ? 1u << 15 : 0);
	if (apic_id > IRQ_DEST_MAX)
		return -1; /* see irq_delivery_cpu */
	f = spin_lock_irqsave(&ioapic_lock);
	ioapic_write(io, 0x10 + 2 * pin + 1, apic_id << 24);
	ioapic_write(io, 0x10 + 2 * pin, lo);
	spin_unlock_irqrestore(&ioapic_lock, f);
	return 0;
}

void ioapic_mask(uint32_t gsi)
{
	uint32_t pin;
	volatile uint32_t *io = ioapic_for(gsi, &pin);
	unsigned long f;

	if (!io)
		return;
	f = spin_lock_irqsave(&ioapic_lock);
	ioapic_write(io, 0x10 + 2 * pin, LVT_MASKED);
	spin_unlock_irqrestore(&ioapic_lock, f);
}

void apic_init_bsp(void)
{
	uint32_t a, b, c, d;

	pic_disable();
	cpuid(1, 0, &a, &b, &c, &d);
	x2apic = (c >> 21) & 1;
	/* Firmware that hands over in x2APIC mode keeps it: leaving it
	 * means disabling the APIC first, and it lists ids above 254 */
	if (x2apic && !strcmp(cmdline_get("x2apic"), "off") &&
	    !(rdmsr(MSR_APIC_BASE) & (1u << 10)))
		x2apic = false;
	if (!x2apic)
		lapic_mmio = map_mmio(acpi.lapic_base, 4096);
	lapic_enable();
	for (int i = 0; i < acpi.nr_ioapics; i++) {
		volatile uint32_t *io = map_mmio(acpi.ioapics[i].addr, 4096);

		for (int pin = 0; io && pin < ioapic_pins(io); pin++)
			ioapic_write(io, 0x10 + 2 * (uint32_t)pin, LVT_MASKED);
	}
}

/* ---- driver interrupt API ---- */

static spinlock_t vector_lock = SPINLOCK_INIT;
static bool vector_used[256];

int irq_alloc_vector(irq_handler_t fn, void *arg)
{
	unsigned long f = spin_lock_irqsave(&vector_lock);
	int v;

	for (v = VEC_DEVICE_FIRST; v <= VEC_DEVICE_LAST; v++)
		if (!vector_used[v])
			break;
	if (v > VEC_DEVICE_LAST) {
		spin_unlock_irqrestore(&vector_lock, f);
		kprintf("irq: no free interrupt vector\n");
		return -1;
	}
	vector_used[v] = true;
	vector_set_handler(v, fn, arg);
	spin_unlock_irqrestore(&vector_lock, f);
	return v;
}

void irq_free_vector(int vector)
{
	unsigned long f = spin_lock_irqsave(&vector_lock);

	if (vector >= VEC_DEVICE_FIRST && vector <= VEC_DEVICE_LAST) {
		vector_set_handler(vector, NULL, NULL);
		vector_used[vector] = false;
	}
	spin_unlock_irqrestore(&vector_lock, f);
}

/* Per CPU: the CPU its device interrupts arrive on. Set by
 * irq_delivery_init. */
static int16_t delivery_cpu[MAX_CPUS];

/* Cpu c itself when an 8-bit destination names it, else the first CPU of
 * its node that one does, else the first of any node. */
static int nearest_addressable(int c)
{
	int any = -1;

	if (cpus[c].apic_id <= IRQ_DEST_MAX)
		return c;
	for (int d = 0; d < nr_cpus; d++) {
		if (cpus[d].apic_id > IRQ_DEST_MAX)
			continue;
		if (cpus[d].node == cpus[c].node)
			return d;
		if (any < 0)
			any = d;
	}
	return any < 0 ? 0 : any;
}

void irq_delivery_init(void)
{
	int far = 0;

	for (int c = 0; c < nr_cpus; c++) {
		delivery_cpu[c] = (int16_t)nearest_addressable(c);
		far += delivery_cpu[c] != c;
	}
	if (far)
		kprintf("irq: %d cpus have apic ids above %d: their device "
			"interrupts arrive on a cpu of their node with a "
			"smaller id, which wakes them (no interrupt "
			"remapping)\n",
			far, IRQ_DEST_MAX);
}

int irq_delivery_cpu(int cpu)
{
	return cpu >= 0 && cpu < nr_cpus ? delivery_cpu[cpu] : 0;
}

int irq_msi_message(int vector, int cpu, uint64_t *addr, uint32_t *data)
{
	if (cpu < 0 || cpu >= nr_cpus || vector < VEC_DEVICE_FIRST ||
	    vector > VEC_DEVICE_LAST)
		return -1;
	cpu = irq_delivery_cpu(cpu);
	if (cpus[cpu].apic_id > IRQ_DEST_MAX)
		return -1; /* no CPU an MSI can name */
	*addr = 0xFEE00000ULL | ((uint64_t)cpus[cpu].apic_id << 12);
	*data = (uint32_t)vector; /* fixed delivery, edge */
	return 0;
}

/* The GSI and INTI flags of ISA interrupt irq, after MADT overrides. */
static uint32_t isa_gsi(int irq, uint16_t *flags)
{
	uint32_t gsi = (uint32_t)irq;

	*flags = 0;
	for (int i = 0; i < acpi.nr_isos; i++) {
		if (acpi.isos[i].source == irq) {
			gsi = acpi.isos[i].gsi;
			*flags = acpi.isos[i].flags;
		}
	}
	return gsi;
}

int irq_route_isa(int irq, int vector, int cpu)
{
	uint16_t flags;
	uint32_t gsi;

	if (irq < 0 || irq > 15 || cpu < 0 || cpu >= nr_cpus)
		return -1;
	gsi = isa_gsi(irq, &flags);
	return ioapic_route(gsi, vector, cpus[irq_delivery_cpu(cpu)].apic_id,
			    flags, false);
}

void irq_mask_isa(int irq)
{
	uint16_t flags;

	if (irq >= 0 && irq <= 15)
		ioapic_mask(isa_gsi(irq, &flags));
}

int irq_route_pci_line(uint8_t line, int vector, int cpu)
{
	uint16_t flags = 0;
	uint32_t gsi = line;

	if (cpu < 0 || cpu >= nr_cpus || line == 0xFF)
		return -1;
	/* Lines 0-15 are ISA IRQ numbers the firmware routed the PCI link
	 * to; the MADT may move them and says their polarity (QEMU's PIIX
	 * board: IRQs 5, 9, 10, 11 level, active high). Above 15 the line
	 * is the GSI itself. PCI's own default: level, active low. */
	if (line < 16)
		gsi = isa_gsi(line, &flags);
	return ioapic_route(gsi, vector, cpus[irq_delivery_cpu(cpu)].apic_id,
			    flags, true);
}

int irq_route_gsi(uint32_t gsi, int vector, int cpu)
{
	if (cpu < 0 || cpu >= nr_cpus)
		return -1;
	return ioapic_route(gsi, vector, cpus[irq_delivery_cpu(cpu)].apic_id, 0,
			    true);
}
