/*
 * Interrupt descriptor table and the one C entry point for every vector.
 * Exceptions print a report (name, error code, registers, backtrace) and
 * stop the CPU (kernel/panic.c), except what the GDB stub takes (its
 * steps and breakpoints: kernel/gdb_stop.c) and NMIs another CPU sent
 * with a reason (kernel/nmi.c); other vectors run the handler registered
 * for them (kernel/vector.c) and are acknowledged at the local APIC.
 */
#include "kernel/trap.h"
#include "kernel/apic.h"
#include "kernel/arch.h"
#include "kernel/backtrace.h"
#include "kernel/console.h"
#include "kernel/gdb_stub.h"
#include "kernel/gdt.h"
#include "kernel/nmi.h"
#include "kernel/panic.h"
#include "kernel/percpu.h"
#include "kernel/stall.h"
#include "kernel/vector.h"
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
static struct idt_entry idt[256] __attribute__((aligned(16)));

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
	backtrace_print_frame(0, f->rip, false);
	backtrace_print(f->rbp);
	kprintf("cpu %d halted\n", cpu);
}

void trap_dispatch(struct trap_frame *f)
{
	int vec = (int)f->vector;

	if (vec < 32) {
		if ((vec == 1 || vec == 3) && gdb_trap(f))
			return;
		if (vec == 2 && nmi_dispatch(f))
			return;
		exception_report(f);
		fatal_stop();
	}
	if (vec == VEC_STOP)
		halt_forever();
	if (vec == VEC_SPURIOUS ||
	    (vec >= VEC_PIC_BASE && vec < VEC_PIC_BASE + 16))
		return; /* no EOI for spurious interrupts */
	/* the profiler's tick and the stall detector read it, the GDB
	 * stub's COM2 interrupt stops the machine with it */
	this_cpu()->irq_frame = f;
	stall_irq_begin(this_cpu());
	vector_call(vec);
	stall_irq_end(this_cpu());
	lapic_eoi();
}
