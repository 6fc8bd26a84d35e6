/*
 * The kernel's shell commands. The statistics commands print the
 * allocators' own *_text functions, which keep Linux's layouts where
 * Linux has the file (buddyinfo, zoneinfo, slabinfo 2.1, numastat), so a
 * script written against /proc reads them unchanged.
 */
#include "kernel/shell_cmds.h"
#include "kernel/console.h"
#include "kernel/power.h"
#include "kernel/selftest/selftest.h"
#include "kernel/shell.h"
#include "kernel/trace_shell.h"
#include "mm/mm.h"

/* A command that prints one text function, with no arguments. */
#define TEXT_CMD(cname, fn, what)                                      \
	static int run_##cname(int argc, char **argv)                  \
	{                                                              \
		(void)argc;                                            \
		(void)argv;                                            \
		(void)shell_print_text(fn); /* refusal is printed */   \
		return 0;                                              \
	}                                                              \
	static const struct shell_cmd cmd_##cname = {#cname, "", what, \
						     0,	     0,	 run_##cname}

TEXT_CMD(buddyinfo, buddyinfo_text,
	 "free blocks per order per node (/proc/buddyinfo)");
TEXT_CMD(zoneinfo, zoneinfo_text,
	 "zones, per-CPU page lists and counters (/proc/zoneinfo)");
TEXT_CMD(numastat, numastat_text,
	 "NUMA hit/miss/foreign/local/other "
	 "(numastat)");
TEXT_CMD(pcp, pcp_text, "per-CPU page lists: length/high/batch per order");
TEXT_CMD(slabinfo, slabinfo_text, "slab caches (/proc/slabinfo 2.1)");
TEXT_CMD(qmempool, qmempool_stats_text, "qmempool pools and counters");
TEXT_CMD(frag, page_frag_stats_text, "page_frag counters");

static int run_selftest(int argc, char **argv)
{
	char names[160];
	int r;

	(void)argc;
	r = selftest_run_named(argv[1]);
	if (r == SELFTEST_BOOT_ONLY) {
		shell_printf("selftest: '%s' ends the system: boot only "
			     "(selftest=%s on the command line)\n",
			     argv[1], argv[1]);
		return -1;
	}
	if (r == SELFTEST_UNKNOWN) {
		selftest_names(names, sizeof(names), true);
		shell_printf("selftest: unknown test '%s' (after boot: %s)\n",
			     argv[1], names);
		return -1;
	}
	return 0; /* the test printed its PASS or FAIL line */
}

static const struct shell_cmd cmd_selftest = {
	"selftest", "NAME", "run a boot self-test again (printf, smp, mm...)",
	1,	    1,	    run_selftest};

static void reboot_now(void)
{
	system_reboot();
}

static void poweroff_now(void)
{
	system_exit(EXIT_SUCCESS_CODE);
}

static int run_reboot(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	shell_printf("shell: rebooting\n");
	shell_after_output(reboot_now);
	return 0;
}

static int run_poweroff(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	shell_printf("shell: powering off\n");
	shell_after_output(poweroff_now);
	return 0;
}

static const struct shell_cmd cmd_reboot = {"reboot", "", "reset the machine",
					    0,	      0,  run_reboot};
static const struct shell_cmd cmd_poweroff = {
	"poweroff", "", "power off (under QEMU: exit)", 0, 0, run_poweroff};

void shell_cmds_register(void)
{
	static const struct shell_cmd *const all[] = {
		&cmd_buddyinfo, &cmd_zoneinfo, &cmd_numastat, &cmd_pcp,
		&cmd_slabinfo,	&cmd_qmempool, &cmd_frag,     &cmd_selftest,
		&cmd_reboot,	&cmd_poweroff,
	};

	for (unsigned int i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		shell_register(all[i]);
	trace_shell_register();
}
