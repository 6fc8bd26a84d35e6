/*
 * selftest=irq: the IOAPIC path, with the PIT as the device. ISA IRQ 0
 * (QEMU's MADT overrides it to GSI 2) is routed to a vector from
 * irq_alloc_vector on the last CPU, and the interrupts must arrive there,
 * or on the CPU that takes that CPU's device interrupts when its APIC id
 * is too large for an IOAPIC entry (irq_delivery_cpu).
 */
#include "kernel/selftest/tests.h"
#include "kernel/arch.h"
#include "kernel/console.h"
#include "kernel/irq.h"
#include "kernel/percpu.h"
#include "kernel/poll.h"
#include "kernel/time.h"
#include <stdatomic.h>

static atomic_int irq_count, irq_cpu = -1;

static void pit_irq(void *arg)
{
	(void)arg;
	atomic_fetch_add(&irq_count, 1);
	atomic_store(&irq_cpu, this_cpu_id());
	poll_wake(this_cpu_id());
}

/* Routes ISA IRQ 0 (the PIT; QEMU's MADT overrides it to GSI 2) to a
 * vector from irq_alloc_vector on the last CPU, runs the PIT at 1 kHz until
 * ten interrupts came (or 5 s), and checks they arrived there. */
int selftest_irq(void)
{
	int target = nr_cpus - 1, vec = irq_alloc_vector(pit_irq, NULL), n;
	int arrive = irq_delivery_cpu(target);
	uint16_t div = 1193182 / 1000;

	/* the shell may run this again after boot: count afresh */
	atomic_store(&irq_count, 0);
	atomic_store(&irq_cpu, -1);
	if (vec < 0 || irq_route_isa(0, vec, target) < 0) {
		kprintf("selftest: irq FAIL (no vector or no IOAPIC route)\n");
		return 1;
	}
	outb(0x43, 0x34); /* channel 0, lo/hi byte, mode 2 (rate generator) */
	outb(0x40, (uint8_t)div);
	outb(0x40, (uint8_t)(div >> 8));
	for (uint64_t t0 = clock_ms(); atomic_load(&irq_count) < 10 &&
				       clock_ms() - t0 < SELFTEST_WAIT_MS;)
		irq_enable_for_ms(10);
	irq_mask_isa(0);
	n = atomic_load(&irq_count);
	irq_free_vector(vec);
	if (n == 0 || atomic_load(&irq_cpu) != arrive) {
		kprintf("selftest: irq FAIL interrupts=%d on cpu %d (wanted "
			"%d)\n",
			n, atomic_load(&irq_cpu), arrive);
		return 1;
	}
	kprintf("selftest: irq PASS vector=0x%x cpu=%d interrupts=%d%s\n", vec,
		arrive, n,
		arrive != target ? " (for the last cpu, whose apic id is "
				   "too large)"
				 : "");
	return 0;
}
