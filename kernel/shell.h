/*
 * The serial shell on COM1 (docs/shell.md). It runs as one poller on CPU
 * 0, beside the network: each round it edits at most SHELL_RX_BUDGET
 * received bytes, runs at most one command and writes at most
 * SHELL_OUT_SLICE bytes of output, so a paste or a long answer never
 * holds up the poll loop for long.
 *
 * Commands live in one table. kernel/shell_cmds.c adds the kernel's own
 * (allocator statistics, selftest, reboot, poweroff); a layer above the
 * kernel adds its own with shell_register at boot (apps/shell_net.c adds
 * ifconfig, netstat, stats and ping), since kernel/ may not call up into
 * net/.
 */
#ifndef KERNEL_SHELL_H
#define KERNEL_SHELL_H

#include <stdbool.h>
#include <stddef.h>

struct shell_cmd {
	const char *name;
	const char *usage; /* its arguments, e.g. "HOST [COUNT]"; "" if none */
	const char *help;  /* one line for `help` */
	int min_args, max_args; /* words after the name the shell accepts */
	/* Runs in the shell's poll round (poll context, CPU 0). argv[0] is
	 * the name. Returns 0, or -1 after printing one line saying which
	 * argument is bad (counted). Output goes through shell_printf and
	 * shell_print_text; a command that must wait (ping) returns at once
	 * and continues as a job (shell_job_start). */
	int (*run)(int argc, char **argv);
};

/*
 * shell_register - add cmd (kept by pointer: static storage) to the
 * table. Boot, before the poll loops start. Returns 0, or -1 when the
 * table is full or the name is taken (reported).
 */
int shell_register(const struct shell_cmd *cmd);

/*
 * shell_printf / shell_print_text - queue output for the terminal. The
 * text function has snprintf semantics (buddyinfo_text, stats_json):
 * it is called once to size and once to fill. Shell commands and jobs
 * only. Returns 0, or -1 when the output would pass SHELL_OUTPUT_MAX or
 * no memory is left (one line says so instead).
 */
__attribute__((format(printf, 1, 2))) int shell_printf(const char *fmt, ...);
int shell_print_text(int (*text)(char *buf, size_t size));

/*
 * shell_job_start - keep a command running after its run() returned:
 * fn(arg, interrupted) is called every shell poll round until it returns
 * SHELL_JOB_DONE. SHELL_JOB_WAIT lets the CPU sleep until the next tick
 * or interrupt; SHELL_JOB_SPIN keeps the poll loop turning (say, while a
 * reply is due: the network is polled, not interrupt driven, so a
 * sleeping CPU would see it only at its next tick). interrupted is true
 * once, when the user typed Ctrl-C; fn must then finish (print its
 * summary, free what it holds) and return SHELL_JOB_DONE. The prompt
 * comes back after the job and its output. From a command's run() only.
 */
enum shell_job { SHELL_JOB_DONE, SHELL_JOB_WAIT, SHELL_JOB_SPIN };
typedef enum shell_job (*shell_job_fn)(void *arg, bool interrupted);
void shell_job_start(shell_job_fn fn, void *arg);

/* shell_after_output - run fn once the queued output has left (reboot
 * and poweroff print their line first). From a command's run() only. */
void shell_after_output(void (*fn)(void));

/*
 * shell_start - start the shell if shell=1 (the default) and a UART
 * answers at COM1: its poller on CPU 0, the UART's receive interrupt
 * routed to it. Boot CPU, after apps_boot, before the poll loop. Prints
 * one line saying what it did.
 */
void shell_start(void);

/* The shell's counters (commands, refusals, input, output, timings) and
 * COM1's line discipline counters, as JSON. snprintf semantics. Any
 * context. shell_stats_schema describes its members (libc/stat_table.h). */
int shell_stats_json(char *buf, size_t size);
struct stat_schema;
extern const struct stat_schema shell_stats_schema;

#endif
