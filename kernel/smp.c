/*
 * Starting the other CPUs. Each AP is started alone: the boot CPU writes
 * its stack into the trampoline's parameter block, sends INIT, waits
 * 10 ms, sends STARTUP (twice if needed, as the MP specification asks),
 * and waits for the AP to say it is online before starting the next.
 * CPU ids are dense: 0 is the boot CPU, the rest in MADT order.
 */
#include "kernel/smp.h"
#include "kernel/acpi.h"
#include "kernel/apic.h"
#include "kernel/arch.h"
#include "kernel/console.h"
#include "kernel/gdt.h"
#include "kernel/paging.h"
#include "kernel/percpu.h"
#include "kernel/poll.h"
#include "kernel/time.h"
#include "kernel/trampoline.h"
#include "kernel/trap.h"
#include <string.h>

static uint8_t kstacks[MAX_CPUS][KSTACK_SIZE] __attribute__((aligned(16)));
static volatile int booting_id;

void smp_prepare(void)
{
	uint32_t me = lapic_id();
	int n = 1;

	cpus[0].apic_id = me;
	cpus[0].node = 0;
	for (int i = 0; i < acpi.nr_cpus; i++) {
		if (acpi.apic_ids[i] == me) {
			cpus[0].node = acpi.cpu_node[i];
			continue;
		}
		cpus[n].id = n;
		cpus[n].apic_id = acpi.apic_ids[i];
		cpus[n].node = acpi.cpu_node[i];
		n++;
	}
	nr_cpus = n;
	atomic_store(&cpus[0].online, true);
}

static void ap_main(void)
{
	int id = booting_id;

	percpu_init(id);
	gdt_init_cpu(id);
	idt_load();
	lapic_init_ap();
	timer_start_cpu();
	atomic_store(&cpus[id].online, true);
	poll_loop();
}

static bool wait_online(int id, uint64_t us)
{
	uint64_t end = clock_us() + us;

	while (clock_us() < end) {
		if (atomic_load(&cpus[id].online))
			return true;
		cpu_relax();
	}
	return atomic_load(&cpus[id].online);
}

static bool start_ap(int id, uint32_t apic_id)
{
	struct trampoline_params *tp =
		phys_ptr(TRAMPOLINE_PHYS + ((uintptr_t)trampoline_params -
					    (uintptr_t)trampoline_start));

	cpus[id].stack_top = (uintptr_t)kstacks[id] + KSTACK_SIZE;
	tp->cr3 = read_cr3();
	tp->stack = cpus[id].stack_top;
	tp->entry = (uintptr_t)ap_main;
	booting_id = id;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	lapic_send_init(apic_id);
	delay_us(10000);
	lapic_send_sipi(apic_id, TRAMPOLINE_PHYS >> 12);
	if (wait_online(id, 2000))
		return true;
	lapic_send_sipi(apic_id, TRAMPOLINE_PHYS >> 12);
	/* generous: under TCG on a loaded host a vCPU thread can go
	 * unscheduled for seconds; real CPUs answer in microseconds */
	return wait_online(id, 10000000);
}

void smp_boot_aps(int max_cpus)
{
	int online = 1, total = nr_cpus;
	static uint32_t apic_ids[MAX_CPUS];
	static int nodes[MAX_CPUS];

	for (int i = 0; i < total; i++) {
		apic_ids[i] = cpus[i].apic_id;
		nodes[i] = cpus[i].node;
	}
	memcpy(phys_ptr(TRAMPOLINE_PHYS), trampoline_start,
	       (size_t)((uintptr_t)trampoline_end -
			(uintptr_t)trampoline_start));
	for (int i = 1; i < total; i++) {
		if (apic_ids[i] > 255 && !lapic_x2apic()) {
			kprintf("smp: cpu with apic id %u needs x2APIC, not "
				"started\n",
				apic_ids[i]);
			continue;
		}
		if (online >= max_cpus) {
			kprintf("smp: cpu with apic id %u not started "
				"(smp=%d)\n",
				apic_ids[i], max_cpus);
			continue;
		}
		/* dense ids: a CPU that fails does not leave a hole */
		cpus[online].id = online;
		cpus[online].apic_id = apic_ids[i];
		cpus[online].node = nodes[i];
		atomic_store(&cpus[online].online, false);
		nr_cpus = online + 1;
		if (start_ap(online, apic_ids[i])) {
			online++;
		} else {
			kprintf("smp: cpu with apic id %u did not start\n",
				apic_ids[i]);
		}
	}
	nr_cpus = online;
}
