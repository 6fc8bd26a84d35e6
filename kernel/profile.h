/*
 * The sampling profiler: every CPU's LAPIC timer interrupt records the
 * interrupted PC and a short frame-pointer stack into that CPU's own
 * sample buffer; a report folds the samples into stacks of function names
 * (the kernel's symbol table, kernel/ksyms.h) as text or JSON.
 * docs/profiling.md says how to use it and what it cannot see.
 *
 * Sessions: profile_start() opens a new session (a new rate, empty
 * buffers), profile_stop() ends sampling and keeps the samples until the
 * next start; a report can be taken at any time. Started at boot by
 * profile=1 (rate profile_hz=, buffer profile_samples=), or over HTTP
 * (apps/http_profile.c).
 */
#ifndef KERNEL_PROFILE_H
#define KERNEL_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct trap_frame;

/* Sampling rates a session may ask for, in Hz per CPU. */
#define PROFILE_HZ_MIN 10
#define PROFILE_HZ_MAX 5000

/*
 * profile_tick - take one sample of the code the timer interrupted.
 * @frame: the interrupted registers (this CPU's irq_frame).
 * Context: this CPU's timer interrupt, interrupts masked; no locks taken.
 * Returns the timer rate the profiler wants on this CPU while a session
 * samples, 0 when it wants none (the timer keeps its own rate).
 */
unsigned int profile_tick(const struct trap_frame *frame);

/*
 * profile_start - open a new sampling session at hz samples per second on
 * every CPU (each CPU switches at its next timer tick). The per-CPU
 * buffers are allocated at the first start (profile_samples= each) and
 * kept. Context: poll context, any CPU. Returns 0, -1 for a rate outside
 * PROFILE_HZ_MIN..PROFILE_HZ_MAX (nothing changes), -2 when the buffers
 * cannot be allocated (reported, counted; nothing changes).
 */
int profile_start(unsigned int hz);

/* profile_stop - stop sampling; the samples stay for reports until the
 * next profile_start. Poll context, any CPU. */
void profile_stop(void);

/* Is a session sampling? Then idle CPUs keep their periodic tick (the
 * timer is the sampler). Any context. */
bool profile_sampling(void);

/* profile_boot - profile=1 on the command line: start a session at
 * profile_hz=. Boot CPU, once, at the end of the boot. */
void profile_boot(void);

/*
 * profile_report_text / profile_report_json - the current session's
 * samples folded into stacks, as "folded stack" text (one line per
 * distinct stack: "cpu0;root;...;leaf COUNT", with '#' header lines) or
 * as JSON. snprintf semantics: writes at most size bytes (buf may be
 * NULL with size 0) and returns the length the whole report needs.
 * Context: poll context, any CPU (serialised by a lock; never from an
 * interrupt handler).
 */
int profile_report_text(char *buf, size_t size);
int profile_report_json(char *buf, size_t size);

#endif
