/* SMP bring-up: start the CPUs the firmware lists. */
#ifndef KERNEL_SMP_H
#define KERNEL_SMP_H

#include <stdint.h>

/* Boot CPU: cpus[] from the firmware's CPU list (acpi.apic_ids, from the
 * MADT or the MP table), boot CPU as cpu 0, at most max_cpus of them
 * (chosen node by node: kernel/cpu_pick.h; one line says how many were
 * left out, from which nodes). */
void smp_prepare(int max_cpus);
/* Boot CPU: INIT-SIPI-SIPI each other CPU in turn and wait for it to
 * reach its poll loop. CPUs that do not answer are reported and dropped. */
void smp_boot_aps(void);

/**
 * smp_check_this_cpu - is the calling CPU the one its slot says: its
 * LAPIC id that of cpus[this_cpu_id()], and its stack that slot's stack?
 * Context: any CPU, poll context. Return: 0, or -1 with the mismatch
 * printed.
 */
int smp_check_this_cpu(void);

/**
 * smp_check_late_cpus - the CPUs the boot CPU gave up on stay out: waits
 * up to wait_ms for each of them to park itself, then checks that none
 * came online in a slot past nr_cpus. Prints "smp: late=N parked=M".
 * Context: boot CPU, after smp_boot_aps(). Return: problems found.
 */
int smp_check_late_cpus(uint64_t wait_ms);

#endif
