/*
 * kmain: the boot CPU's path from the 64-bit entry to its poll loop.
 * Order matters: console first (so every later failure is visible), then
 * the boot information and the memory map (the early allocator for page
 * tables), command line, descriptor tables, ACPI, the direct map,
 * interrupts and time, the other CPUs, the allocators, and the report;
 * then the layers above the kernel (apps_boot: the network and the apps),
 * the boot self-tests and the serial shell.
 */
#include "kernel/acpi.h"
#include "kernel/acpi_numa.h"
#include "kernel/apic.h"
#include "kernel/arch.h"
#include "kernel/boot_report.h"
#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/direct_map.h"
#include "kernel/gdb_stub.h"
#include "kernel/gdt.h"
#include "kernel/irq.h"
#include "kernel/memmap.h"
#include "kernel/stall.h"
#include "kernel/mm_boot.h"
#include "kernel/mptable.h"
#include "kernel/multiboot.h"
#include "kernel/paging.h"
#include "kernel/percpu.h"
#include "kernel/tls.h"
#include "kernel/poll.h"
#include "kernel/power.h"
#include "kernel/profile.h"
#include "kernel/selftest/selftest.h"
#include "kernel/shell.h"
#include "kernel/shell_cmds.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "kernel/trace.h"
#include "kernel/trap.h"

void kmain(uint32_t magic, uint32_t info);

CMDLINE_KEY(kernel, exit_after_boot, "0", cmdline_valid_choice, "0|1",
	    "leave QEMU (isa-debug-exit) after the boot report");
#define STRINGIFY(x)	   #x
#define STRINGIFY_VALUE(x) STRINGIFY(x)
CMDLINE_KEY(kernel, smp, "", cmdline_valid_uint, "1-" STRINGIFY_VALUE(MAX_CPUS),
	    "start at most this many CPUs, chosen node by node (default: "
	    "all)");

/* Weak hook for the network stack, linked in when present. */
__attribute__((weak)) void apps_boot(void)
{
}

/* The screen the loader left, handed to the console mapped: a
 * framebuffer is device memory, mapped uncached; VGA text mode sits in the
 * first MiB, which is mapped already. */
static void screen_init(void)
{
	struct screen_info si = boot_info_parsed.screen;

	if (si.kind == SCREEN_FRAMEBUFFER) {
		void *fb = map_mmio(si.addr, (uint64_t)si.pitch * si.height);

		if (!fb)
			si.kind = SCREEN_NONE; /* reported by map_mmio */
		si.addr = (uintptr_t)fb;
	}
	console_screen_init(&si);
}

void kmain(uint32_t magic, uint32_t info)
{
	time_mark_entry();
	percpu_init(0);
	console_early_init();
	if (multiboot_parse(magic, info) < 0) {
		kprintf("boot: unknown boot loader (magic 0x%x), halting\n",
			magic);
		halt_forever();
	}
	memmap_init(); /* the early allocator: page tables from here on */
	screen_init();
	kprintf("boot: x86_64 unikernel starting (multiboot%d%s%s)\n",
		boot_info_parsed.flavour,
		boot_info_parsed.loader[0] ? ", " : "",
		boot_info_parsed.loader);
	cmdline_init(boot_info_parsed.cmdline);
	exit_on_fatal = cmdline_get_bool("exit_after_boot");
	tls_init_cpu(0); /* before the other CPUs start, and before lwIP */
	gdt_init_cpu(0, 0);
	idt_init();
	idt_load();
	acpi_init(boot_info_parsed.rsdp);
	if (!acpi.has_madt) /* no ACPI, or acpi=off: the MP table, if any */
		mptable_init();
	acpi_numa_init();
	acpi_memmap_update();
	direct_map_init();
	apic_init_bsp();
	time_init();
	stall_init(tsc_hz());
	smp_prepare(cmdline_given("smp") ? (int)cmdline_get_long("smp")
					 : MAX_CPUS);
	timer_start_cpu();
	smp_boot_aps();
	irq_delivery_init();
	gdb_com2_start();
	mm_boot();
	boot_report();
	shell_cmds_register(); /* before apps_boot adds the network's */
	apps_boot();
	selftests_run();
	profile_boot();
	trace_boot();
	mm_boot_arm_faults(); /* the set-up above is not what is tested */
	if (exit_on_fatal) {
		kprintf("boot: exit_after_boot=1, exiting\n");
		system_exit(EXIT_SUCCESS_CODE);
	}
	shell_start();
	poll_loop();
}
