/*
 * Boot self-tests. selftest=fault writes to an unmapped address to prove
 * the exception report works; selftest=panic calls panic(). Both end the
 * boot. selftest=mm lives with the allocator boot code (kernel/mm_boot.c).
 */
#include "kernel/selftest.h"
#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/paging.h"
#include "kernel/power.h"
#include "kernel/trap.h"
#include <stdint.h>

static int failures;

void selftest_failed(void)
{
	failures++;
}

/* Weak: replaced by kernel/mm_boot.c once the page allocator is in. */
__attribute__((weak)) void selftest_mm(void)
{
	kprintf("selftest: mm FAIL (no page allocator in this kernel)\n");
	selftest_failed();
}

static __attribute__((noinline)) void fault_here(void)
{
	/* 512 GiB: beyond anything the identity map covers */
	volatile uint64_t *p = phys_ptr(512ULL << 30);

	kprintf("selftest: fault: writing to %p\n", (void *)p);
	*p = 0xdead;
}

void selftests_run(void)
{
	if (cmdline_has("selftest", "mm"))
		selftest_mm();
	if (cmdline_has("selftest", "panic"))
		panic("selftest: panic requested on the command line");
	if (cmdline_has("selftest", "fault"))
		fault_here();
	if (failures && exit_on_fatal) {
		kprintf("selftest: %d failed\n", failures);
		system_exit(EXIT_FAILURE_CODE);
	}
}
