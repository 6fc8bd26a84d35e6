/*
 * The self-test runner: one table, in the order the tests run. The
 * command line names the tests (selftest=mm,slab); each one the table
 * holds runs if named, and a test that returns failures counts as failed.
 *
 * selftests_run calls the table's functions itself, with no helper in
 * between: the fault and panic tests' backtraces name it as their caller.
 */
#include "kernel/selftest/selftest.h"
#include "kernel/selftest/tests.h"
#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/power.h"

static const struct selftest {
	const char *name;
	int (*fn)(void);
} selftests[] = {
	{"printf", selftest_printf},	 /* snprintf against known answers */
	{"irq", selftest_irq},		 /* the PIT through the IOAPIC */
	{"smp", selftest_smp},		 /* calls, ticks and the clock */
	{"mm", selftest_mm},		 /* pages on every CPU at once */
	{"slab", selftest_slab},	 /* kmalloc, kmem_cache, bulk */
	{"frag", selftest_frag},	 /* napi/netdev_alloc_frag */
	{"qmempool", selftest_qmempool}, /* both entry points */
	{"panic", panic_here},		 /* ends the boot */
	{"fault", fault_here},		 /* ends the boot */
	{"fault_ap", selftest_fault_ap}, /* ends the boot */
};

void selftests_run(void)
{
	int failed = 0;

	for (unsigned int i = 0; i < sizeof(selftests) / sizeof(selftests[0]);
	     i++)
		if (cmdline_has("selftest", selftests[i].name) &&
		    selftests[i].fn() != 0)
			failed++;
	if (cmdline_get("bench") && *cmdline_get("bench"))
		mm_bench_run();
	if (failed && exit_on_fatal) {
		kprintf("selftest: %d failed\n", failed);
		system_exit(EXIT_FAILURE_CODE);
	}
}
