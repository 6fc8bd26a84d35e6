/*
 * Interrupt descriptor table and the one C entry point for every vector.
 * Exceptions print a report (name, error code, registers, backtrace) and
 * stop the CPU; other vectors run the handler registered for them and are
 * acknowledged at the local APIC.
 */
#include "kernel/trap.h"
#include "kernel/apic.h"
#include "kernel/arch.h"
#include "kernel/console.h"
#include "kernel/gdt.h"
#include "kernel/ksyms.h"
#include "kernel/percpu.h"
#include "kernel/power.h"
#include <stdatomic.h>
#include <stddef.h>

struct idt_entry {
	uint16_t off_lo;
	uint16_t sel;
	uint8_t ist;
	uint8_t type;
	uint16_t off_mid;
	uint32_t off_hi;
	uint32_t zero;
} __attribute__((packed));

extern char isr_stubs[];
extern char __kernel_start[], __kernel_end[];
static struct idt_entry idt[256] __attribute__((aligned(16)));
static struct {
	irq_handler_t fn;
	void *arg;
} handlers[256];
static atomic_int panicking;

static const char *const exception_names[32] = {"divide error",
						"debug",
						"NMI",
						"breakpoint",
						"overflow",
						"bound range exceeded",
						"invalid opcode",
						"device not available",
						"double fault",
						"coprocessor segment overrun",
						"invalid TSS",
						"segment not present",
						"stack-segment fault",
						"general protection fault",
						"page fault",
						"reserved 15",
						"x87 floating-point error",
						"alignment check",
						"machine check",
						"SIMD floating-point error",
						"virtualization exception",
						"control protection exception",
						"reserved 22",
						"reserved 23",
						"reserved 24",
						"reserved 25",
						"reserved 26",
						"reserved 27",
						"hypervisor injection",
						"VMM communication",
						"security exception",
						"reserved 31"};

static void idt_set(int vec, int ist)
{
	uint64_t addr = (uintptr_t)isr_stubs + 16 * (uint64_t)vec;

	idt[vec].off_lo = (uint16_t)addr;
	idt[vec].sel = KERNEL_CS;
	idt[vec].ist = (uint8_t)ist;
	idt[vec].type = 0x8E; /* present, ring 0, interrupt gate */
	idt[vec].off_mid = (uint16_t)(addr >> 16);
	idt[vec].off_hi = (uint32_t)(addr >> 32);
	idt[vec].zero = 0;
}

void idt_init(void)
{
	for (int v = 0; v < 256; v++)
		idt_set(v, 0);
	idt_set(2, IST_NMI);
	idt_set(8, IST_DOUBLE_FAULT);
	idt_set(18, IST_MCE);
}

void idt_load(void)
{
	struct {
		uint16_t limit;
		uint64_t base;
	} __attribute__((packed)) ptr = {sizeof(idt) - 1, (uintptr_t)idt};

	__asm__ volatile("lidt %0" : : "m"(ptr));
}

void trap_set_handler(int vector, irq_handler_t fn, void *arg)
{
	handlers[vector].arg = arg;
	handlers[vector].fn = fn;
}

/* A frame pointer we may follow: aligned, inside the identity map of the
 * first 4 GiB where the kernel image and its stacks live. */
static int frame_ok(uint64_t rbp)
{
	return rbp >= 0x1000 && rbp < (4ULL << 30) - 16 && !(rbp & 7);
}

/* "  #N 0xADDR function+0xOFF" (the function when the table knows it).
 * A return address is looked up one byte back: after a call to a
 * noreturn function such as panic() it is already the first byte of the
 * next function. */
static void print_frame(int n, uint64_t addr, bool return_address)
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
		print_frame(i, fp[1], true);
		if (fp[0] <= rbp)
			break; /* stacks grow down: callers are higher */
		rbp = fp[0];
	}
}

/* Stops this CPU after a fatal error: the first CPU to get here asks the
 * others to stop too, and under exit_after_boot=1 ends QEMU with the
 * failure status so scripts see it at once. */
static __attribute__((noreturn)) void fatal_stop(void)
{
	if (atomic_exchange(&panicking, 1) == 0) {
		lapic_broadcast_ipi(VEC_STOP);
		if (exit_on_fatal)
			system_exit(EXIT_FAILURE_CODE);
	}
	halt_forever();
}

static void exception_report(const struct trap_frame *f)
{
	int cpu = this_cpu_id();

	console_break_lock();
	kprintf("\nexception: %s (vector %llu) on cpu %d, error code 0x%llx\n",
		exception_names[f->vector], (unsigned long long)f->vector, cpu,
		(unsigned long long)f->error);
	if (f->vector == 14)
		kprintf("  cr2 0x%016llx (%s, %s)\n",
			(unsigned long long)read_cr2(),
			(f->error & 1) ? "protection" : "not present",
			(f->error & 2) ? "write" : "read");
	kprintf("  rip %016lx  cs %04lx  rflags %016lx\n", f->rip, f->cs,
		f->rflags);
	kprintf("  rsp %016lx  ss %04lx\n", f->rsp, f->ss);
	kprintf("  rax %016lx  rbx %016lx  rcx %016lx\n", f->rax, f->rbx,
		f->rcx);
	kprintf("  rdx %016lx  rsi %016lx  rdi %016lx\n", f->rdx, f->rsi,
		f->rdi);
	kprintf("  rbp %016lx  r8  %016lx  r9  %016lx\n", f->rbp, f->r8, f->r9);
	kprintf("  r10 %016lx  r11 %016lx  r12 %016lx\n", f->r10, f->r11,
		f->r12);
	kprintf("  r13 %016lx  r14 %016lx  r15 %016lx\n", f->r13, f->r14,
		f->r15);
	kprintf("  cr3 %016llx\n", (unsigned long long)read_cr3());
	kprintf("faulting instruction:\n");
	print_frame(0, f->rip, false);
	backtrace_print(f->rbp);
	kprintf("cpu %d halted\n", cpu);
}

void trap_dispatch(struct trap_frame *f)
{
	int vec = (int)f->vector;

	if (vec < 32) {
		exception_report(f);
		fatal_stop();
	}
	if (vec == VEC_STOP)
		halt_forever();
	if (vec == VEC_SPURIOUS ||
	    (vec >= VEC_PIC_BASE && vec < VEC_PIC_BASE + 16))
		return; /* no EOI for spurious interrupts */
	if (handlers[vec].fn)
		handlers[vec].fn(handlers[vec].arg);
	lapic_eoi();
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
