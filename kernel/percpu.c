/*
 * The per-CPU areas (kernel/percpu.h): one struct cpu per CPU, found
 * through the GS base. kernel/smp.c fills in which CPUs exist.
 */
#include "kernel/percpu.h"
#include "kernel/arch.h"

_Static_assert(offsetof(struct cpu, id) == MM_PORT_CPU_ID_OFFSET,
	       "mm_port.h reads the CPU id at this offset");

struct cpu cpus[MAX_CPUS];
int nr_cpus = 1;

void percpu_init(int id)
{
	cpus[id].self = &cpus[id];
	cpus[id].id = id;
	wrmsr(MSR_GS_BASE, (uintptr_t)&cpus[id]);
}
