/*
 * Local APIC and IOAPIC. The local APIC is reached through one of two
 * interfaces with the same register numbers: xAPIC memory-mapped registers
 * (offset reg) or x2APIC MSRs (0x800 + reg / 16). QEMU's TCG offers only
 * xAPIC; real CPUs and KVM usually offer x2APIC, which also lifts the
 * 255-CPU APIC id limit.
 */
#include "kernel/apic.h"
#include "kernel/acpi.h"
#include "kernel/arch.h"
#include "kernel/console.h"
#include "kernel/irq.h"
#include "kernel/lapic_regs.h"
#include "kernel/paging.h"
#include "kernel/percpu.h"
#include "kernel/spinlock.h"
#include "kernel/vector.h"

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

	base |= 1u << 11; /* global enable */
	if (x2apic)
		base |= 1u << 10;
	wrmsr(MSR_APIC_BASE, base);
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

int irq_msi_message(int vector, int cpu, uint64_t *addr, uint32_t *data)
{
	if (cpu < 0 || cpu >= nr_cpus || vector < VEC_DEVICE_FIRST ||
	    vector > VEC_DEVICE_LAST)
		return -1;
	*addr = 0xFEE00000ULL | ((uint64_t)(cpus[cpu].apic_id & 0xFF) << 12);
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
	return ioapic_route(gsi, vector, cpus[cpu].apic_id, flags, false);
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
	return ioapic_route(gsi, vector, cpus[cpu].apic_id, flags, true);
}

int irq_route_gsi(uint32_t gsi, int vector, int cpu)
{
	if (cpu < 0 || cpu >= nr_cpus)
		return -1;
	return ioapic_route(gsi, vector, cpus[cpu].apic_id, 0, true);
}
