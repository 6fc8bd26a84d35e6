/*
 * Fatal errors: panic(), and stopping every CPU after it or after an
 * exception report (kernel/trap.c).
 */
#include "kernel/panic.h"
#include "kernel/backtrace.h"
#include "kernel/apic.h"
#include "kernel/arch.h"
#include "kernel/console.h"
#include "kernel/percpu.h"
#include "kernel/power.h"
#include "kernel/vector.h"
#include <stdarg.h>
#include <stdatomic.h>

static atomic_int panicking;

/* The first CPU to get here asks the others to stop too, and under
 * exit_after_boot=1 ends QEMU with the failure status so scripts see it
 * at once. */
void fatal_stop(void)
{
	if (atomic_exchange(&panicking, 1) == 0) {
		lapic_broadcast_ipi(VEC_STOP);
		if (exit_on_fatal)
			system_exit(EXIT_FAILURE_CODE);
	}
	halt_forever();
}

void panic(const char *fmt, ...)
{
	va_list ap;
	uint64_t rbp, rsp, rflags;

	__asm__ volatile("pushfq; popq %0" : "=r"(rflags));
	irq_disable();
	console_break_lock();
	kprintf("\npanic: ");
	va_start(ap, fmt);
	kvprintf(fmt, ap);
	va_end(ap);
	__asm__ volatile("movq %%rbp, %0; movq %%rsp, %1"
			 : "=r"(rbp), "=r"(rsp));
	kprintf("\n  on cpu %d\n", this_cpu_id());
	kprintf("  rsp %016lx  rbp %016lx  rflags %016lx\n", (unsigned long)rsp,
		(unsigned long)rbp, (unsigned long)rflags);
	kprintf("  cr2 %016lx  cr3 %016lx\n", (unsigned long)read_cr2(),
		(unsigned long)read_cr3());
	backtrace_print(rbp);
	kprintf("cpu %d halted\n", this_cpu_id());
	fatal_stop();
}
