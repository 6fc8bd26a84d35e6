/*
 * Leaving the kernel. Under QEMU the isa-debug-exit device (which
 * tools/qemu-run always adds at port 0xf4) ends the process with a status
 * derived from the code. On a real PC that write goes nowhere, and we try
 * ACPI S5 (soft off), then the FADT reset register, then the 8042 reset
 * line, and finally halt.
 */
#include "kernel/power.h"
#include "kernel/acpi.h"
#include "kernel/arch.h"
#include "kernel/console.h"
#include "kernel/time.h"

bool exit_on_fatal;

static void acpi_poweroff(void)
{
	if (!acpi.has_s5 || !acpi.pm1a_cnt)
		return;
	/* firmware still owning ACPI: hand it over first (SCI_EN set) */
	if (acpi.smi_cmd && acpi.acpi_enable &&
	    !(inw((uint16_t)acpi.pm1a_cnt) & 1)) {
		outb((uint16_t)acpi.smi_cmd, acpi.acpi_enable);
		delay_us(100000);
	}
	outw((uint16_t)acpi.pm1a_cnt,
	     (uint16_t)(acpi.slp_typa << 10 | 1 << 13));
	if (acpi.pm1b_cnt)
		outw((uint16_t)acpi.pm1b_cnt,
		     (uint16_t)(acpi.slp_typb << 10 | 1 << 13));
	delay_us(100000);
}

static void reset(void)
{
	if (acpi.has_reset) {
		if (acpi.reset_space == 1)
			outb((uint16_t)acpi.reset_addr, acpi.reset_value);
		else if (acpi.reset_space == 0 &&
			 acpi.reset_addr < (4ULL << 30))
			*(volatile uint8_t *)(uintptr_t)acpi.reset_addr =
				acpi.reset_value;
		delay_us(100000);
	}
	outb(0x64, 0xFE); /* 8042: pulse the CPU reset line */
	delay_us(100000);
}

void system_exit(int code)
{
	irq_disable();
	outl(DEBUG_EXIT_PORT, (uint32_t)code);
	/* still here: not QEMU with isa-debug-exit */
	if (code == EXIT_SUCCESS_CODE)
		acpi_poweroff();
	else
		reset();
	kprintf("system: power-off failed, halting\n");
	halt_forever();
}

void system_reboot(void)
{
	irq_disable();
	reset();
	kprintf("system: reset failed, halting\n");
	halt_forever();
}
