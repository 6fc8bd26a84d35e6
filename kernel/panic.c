/*
 * Fatal errors: panic(), the frame-pointer backtrace that panic and the
 * exception reports (kernel/trap.c) print, and stopping every CPU after
 * either.
 */
#include "kernel/panic.h"
#include "kernel/apic.h"
#include "kernel/arch.h"
#include "kernel/console.h"
#include "kernel/ksyms.h"
#include "kernel/percpu.h"
#include "kernel/power.h"
#include "kernel/vector.h"
#include <stdarg.h>
#include <stdatomic.h>

extern char __kernel_start[], __kernel_end[];
static atomic_int panicking;

/* A frame pointer we may follow: aligned, inside the identity map of the
 * first 4 GiB where the kernel image and its stacks live. */
static int frame_ok(uint64_t rbp)
{
	return rbp >= 0x1000 && rbp < (4ULL << 30) - 16 && !(rbp & 7);
}

/* A return address is looked up one byte back: after a call to a
 * noreturn function such as panic() it is already the first byte of the
 * next function. */
void backtrace_print_frame(int n, uint64_t addr, bool return_address)
{
	uintptr_t off;
	const char *name = ksym_lookup((uintptr_t)addr - return_address, &off);

	if (name)
		kprintf("  #%d 0x%016lx %s+0x%lx\n", n, (unsigned long)addr,
			name, (unsigned long)(off + return_address));
	else
		kprintf("  #%d 0x%016lx\n", n, (unsigned long)addr);
}

void backtrace_print(uint64_t rbp)
{
	kprintf("backtrace:\n");
	for (int i = 0; i < 16 && frame_ok(rbp); i++) {
		const uint64_t *fp = (const uint64_t *)(uintptr_t)rbp;

		if (fp[1] < (uintptr_t)__kernel_start ||
		    fp[1] >= (uintptr_t)__kernel_end)
			break; /* left the kernel: the AP trampoline, garbage */
		backtrace_print_frame(i, fp[1], true);
		if (fp[0] <= rbp)
			break; /* stacks grow down: callers are higher */
		rbp = fp[0];
	}
}

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
