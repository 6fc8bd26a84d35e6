/* What the parser harnesses share: see parse_common.h. */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "parse_common.h"

uint64_t pz_ops;

static const char *pz_name = "fuzz";
static uint64_t pz_inputs;
static uint64_t pz_stop_ops;
static bool pz_summary_done;

static void pz_summary(void)
{
	if (pz_summary_done)
		return;
	pz_summary_done = true;
	fprintf(stderr,
		"%s: %llu operations in %llu inputs, 0 model mismatches\n",
		pz_name, (unsigned long long)pz_ops,
		(unsigned long long)pz_inputs);
}

void pz_init(const char *name)
{
	const char *stop = getenv("FUZZ_STOP_OPS");

	pz_name = name;
	pz_stop_ops = stop ? strtoull(stop, NULL, 10) : 0;
	atexit(pz_summary);
}

/* Past FUZZ_STOP_OPS: the summary, then SIGUSR1, libFuzzer's graceful
 * exit (which skips atexit handlers), as fuzz_common.c does. */
void pz_input(void)
{
	pz_inputs++;
	if (pz_stop_ops && pz_ops >= pz_stop_ops && !pz_summary_done) {
		pz_summary();
		raise(SIGUSR1);
	}
}

void pz_fail_at(const char *file, int line, const char *cond, const char *fmt,
		...)
{
	va_list ap;

	fprintf(stderr,
		"%s: MODEL MISMATCH at operation %llu of input %llu (%s:%d: "
		"%s): ",
		pz_name, (unsigned long long)pz_ops,
		(unsigned long long)pz_inputs, file, line, cond);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}
