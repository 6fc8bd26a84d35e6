/*
 * The self-test runner: one table, in the order the tests run. The
 * command line names the tests (selftest=mm,slab); each one the table
 * holds runs if named, and a test that returns failures counts as failed.
 *
 * selftests_run calls the table's functions itself, with no helper in
 * between: the fault and panic tests' backtraces name it as their caller.
 *
 * Layers above kernel/ add tests with selftest_register (kept in a second
 * table, run after the first: net/'s counters report needs the network
 * that apps_boot started).
 *
 * After boot the shell runs one test by name (selftest_run_named): every
 * test that leaves the system as it found it may, the three that end the
 * system may not.
 */
#include "kernel/selftest/selftest.h"
#include "kernel/selftest/tests.h"
#include "kernel/arch.h"
#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/power.h"
#include "libc/strbuf.h"
#include <string.h>

struct selftest {
	const char *name;
	int (*fn)(void);
	bool after_boot; /* may run again from the shell */
};

static const struct selftest selftests[] = {
	{"printf", selftest_printf, true},     /* snprintf, known answers */
	{"irq", selftest_irq, true},	       /* the PIT through the IOAPIC */
	{"stall", selftest_stall, false},      /* boot only: spins on purpose */
	{"smp", selftest_smp, true},	       /* calls, ticks and the clock */
	{"mm", selftest_mm, true},	       /* pages on every CPU at once */
	{"slab", selftest_slab, true},	       /* kmalloc, kmem_cache, bulk */
	{"frag", selftest_frag, true},	       /* napi/netdev_alloc_frag */
	{"qmempool", selftest_qmempool, true}, /* both entry points */
	{"misuse", selftest_misuse, true},     /* mm_debug=1: each misuse */
	{"panic", panic_here, false},	       /* ends the system */
	{"fault", fault_here, false},	       /* ends the system */
	{"fault_ap", selftest_fault_ap, false}, /* ends the system */
};
#define NR_SELFTESTS (sizeof(selftests) / sizeof(selftests[0]))

/* The table's tests, net/'s (registered), and none. */
CMDLINE_KEY(kernel, selftest, "", cmdline_valid_list,
	    "fault|fault_ap|panic|mm|slab|frag|qmempool|misuse|stall|smp|irq|"
	    "printf|"
	    "net|none",
	    "boot self-tests");

static struct selftest extra[SELFTEST_MAX_EXTRA];
static unsigned int nr_extra;

int selftest_register(const char *name, int (*fn)(void), bool after_boot)
{
	if (nr_extra == SELFTEST_MAX_EXTRA)
		return -1;
	extra[nr_extra++] = (struct selftest){name, fn, after_boot};
	return 0;
}

/* The i-th test: the table's, then the registered ones; NULL past them. */
static const struct selftest *test_at(unsigned int i)
{
	if (i < NR_SELFTESTS)
		return &selftests[i];
	return i - NR_SELFTESTS < nr_extra ? &extra[i - NR_SELFTESTS] : NULL;
}

void selftests_run(void)
{
	int failed = 0;

	for (unsigned int i = 0; i < NR_SELFTESTS; i++)
		if (cmdline_has("selftest", selftests[i].name) &&
		    selftests[i].fn() != 0)
			failed++;
	for (unsigned int i = 0; i < nr_extra; i++)
		if (cmdline_has("selftest", extra[i].name) &&
		    extra[i].fn() != 0)
			failed++;
	if (cmdline_get("bench") && *cmdline_get("bench"))
		mm_bench_run();
	if (failed && exit_on_fatal) {
		kprintf("selftest: %d failed\n", failed);
		system_exit(EXIT_FAILURE_CODE);
	}
}

int selftest_run_named(const char *name)
{
	for (unsigned int i = 0; test_at(i); i++) {
		const struct selftest *t = test_at(i);
		unsigned long flags;
		int failed;

		if (strcmp(t->name, name) != 0)
			continue;
		if (!t->after_boot)
			return SELFTEST_BOOT_ONLY;
		/* as at boot: interrupts masked except where the test lets
		 * them in (irq_enable_for_ms, which masks them again) */
		flags = irq_save();
		failed = t->fn();
		irq_restore(flags);
		return failed;
	}
	return SELFTEST_UNKNOWN;
}

int selftest_names(char *buf, size_t size, bool after_boot)
{
	struct strbuf sb;

	strbuf_init(&sb, buf, size);
	for (unsigned int i = 0; test_at(i); i++) {
		if (test_at(i)->after_boot != after_boot)
			continue;
		strbuf_printf(&sb, "%s%s", sb.len ? " " : "", test_at(i)->name);
	}
	return strbuf_done(&sb);
}
