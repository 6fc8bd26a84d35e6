/*
 * drivers/drv_port.h on top of the kernel: with that header, the only file
 * of drivers/ that includes kernel/ headers.
 */
#include "drv_port.h"

#include <stdarg.h>
#include <stdio.h>

#include "kernel/acpi.h"
#include "kernel/acpi_numa.h"
#include "kernel/console.h"
#include "kernel/irq.h"
#include "kernel/paging.h"
#include "kernel/percpu.h"
#include "kernel/poll.h"
#include "kernel/time.h"

void drv_printf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	kvprintf(fmt, ap);
	va_end(ap);
}

uint64_t drv_clock_ms(void)
{
	return clock_ms();
}

void *drv_map_mmio(uint64_t phys, size_t size)
{
	return map_mmio(phys, size);
}

int drv_ecam_windows(struct drv_ecam *out, int max)
{
	int n = 0;

	for (int i = 0; i < acpi.nr_mcfg && n < max; i++, n++) {
		out[n].base = acpi.mcfg[i].base;
		out[n].segment = acpi.mcfg[i].segment;
		out[n].bus_start = acpi.mcfg[i].bus_start;
		out[n].bus_end = acpi.mcfg[i].bus_end;
	}
	return n;
}

int drv_pci_bus_node(int seg, int bus)
{
	return acpi_pci_bus_node(seg, bus, NULL);
}

int drv_nr_cpus(void)
{
	return nr_cpus;
}

int drv_irq_line(uint8_t line, int cpu, drv_irq_fn fn, void *arg)
{
	return irq_request_line(line, cpu, fn, arg);
}

int drv_irq_msi(int cpu, drv_irq_fn fn, void *arg, uint64_t *addr,
		uint32_t *data)
{
	int v = irq_alloc_vector(fn, arg);

	if (v < 0)
		return -1;
	if (irq_msi_message(v, cpu, addr, data) != 0) {
		irq_free_vector(v);
		return -1;
	}
	return v;
}

void drv_irq_free(int vector)
{
	irq_free_vector(vector);
}

void drv_irq_wake(int cpu)
{
	poll_wake(cpu);
}
