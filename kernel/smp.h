/* SMP bring-up: start every CPU the MADT lists. */
#ifndef KERNEL_SMP_H
#define KERNEL_SMP_H

/* Boot CPU: cpus[] from the ACPI CPU list, boot CPU as cpu 0. */
void smp_prepare(void);
/* Boot CPU: INIT-SIPI-SIPI each other CPU in turn and wait for it to
 * reach its poll loop. CPUs that do not answer are reported and dropped. */
void smp_boot_aps(int max_cpus);

#endif
