/* Waiting in a self-test, with interrupts let in (tests.h). */
#include "kernel/selftest/tests.h"
#include "kernel/time.h"

void irq_enable_for_ms(uint64_t ms)
{
	uint64_t end = clock_ms() + ms;

	__asm__ volatile("sti");
	while (clock_ms() < end)
		__asm__ volatile("hlt");
	__asm__ volatile("cli");
}
