/*
 * Per-CPU poll loop statistics, in the project's one shape for statistics
 * (snprintf semantics: the length that would have been written; never
 * overflows buf). For the boot report, shells and /stats.json.
 *
 *   cpustat_text: "cpu N: node=M polls=P idle_halts=H ticks=T pollers=K
 *                  halted_ns=NS timer_reprograms=R"
 *   cpustat_json: {"cpu0":{"node":0,"polls":..,"idle_halts":..,
 *                  "ticks":..,"pollers":..,"halted_ns":..,
 *                  "timer_reprograms":..},...}
 *   cpustat_schema: the description of a CPU's members
 *                  (libc/stat_table.h).
 */
#ifndef KERNEL_CPU_STATS_H
#define KERNEL_CPU_STATS_H

#include <stddef.h>

int cpustat_text(char *buf, size_t size);
int cpustat_json(char *buf, size_t size);
struct stat_schema;
extern const struct stat_schema cpustat_schema;

#endif
