/*
 * NMI reasons (kernel/nmi.h): one word per CPU, set by senders, taken
 * whole by the CPU's NMI handler.
 */
#include "kernel/nmi.h"
#include "kernel/apic.h"
#include "kernel/percpu.h"

static atomic_uint reasons[MAX_CPUS];
static atomic_bool posted[MAX_CPUS]; /* ever: a reasonless NMI is ours */
static nmi_handler_t handlers[NMI_REASONS];

void nmi_set_handler(unsigned int reason, nmi_handler_t fn)
{
	for (int i = 0; i < NMI_REASONS; i++)
		if (reason == 1u << i)
			handlers[i] = fn;
}

void nmi_send(int cpu, unsigned int reason)
{
	if (cpu < 0 || cpu >= nr_cpus || !atomic_load(&cpus[cpu].online))
		return;
	atomic_store(&posted[cpu], true);
	atomic_fetch_or(&reasons[cpu], reason);
	lapic_send_nmi(cpus[cpu].apic_id);
}

bool nmi_dispatch(struct trap_frame *f)
{
	int me = this_cpu_id();
	unsigned int r = atomic_exchange(&reasons[me], 0);

	if (!r)
		return atomic_load(&posted[me]);
	for (int i = 0; i < NMI_REASONS; i++)
		if ((r & (1u << i)) && handlers[i])
			handlers[i](f);
	return true;
}
