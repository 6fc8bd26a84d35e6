/*
 * selftest=fault writes to an unmapped address to prove the exception
 * report works, selftest=fault_ap does the same on the last CPU, and
 * selftest=panic calls panic(). Each ends the boot: the report, the
 * backtrace and (under exit_after_boot=1) the failure exit status are
 * what the tests check.
 */
#include "kernel/selftest/tests.h"
#include "kernel/console.h"
#include "kernel/paging.h"
#include "kernel/percpu.h"
#include "kernel/poll.h"
#include "kernel/panic.h"

__attribute__((noinline)) int fault_here(void)
{
	/* 512 GiB: beyond anything the identity map covers */
	volatile uint64_t *p = phys_ptr(512ULL << 30);

	kprintf("selftest: fault: writing to %p\n", (void *)p);
	*p = 0xdead;
	return 1; /* not reached: the page fault stops the CPU */
}

__attribute__((noinline)) int panic_here(void)
{
	panic("selftest: panic requested on the command line");
}

static void fault_on_ap(void *arg)
{
	(void)arg;
	fault_here();
}

/* Needs a second CPU; with one, there is nothing to test. */
int selftest_fault_ap(void)
{
	if (nr_cpus < 2)
		return 0;
	smp_call_async(nr_cpus - 1, fault_on_ap, NULL);
	irq_enable_for_ms(1000); /* the STOP IPI or the exit ends this */
	kprintf("selftest: fault_ap FAIL (cpu %d did not fault)\n",
		nr_cpus - 1);
	return 1;
}
