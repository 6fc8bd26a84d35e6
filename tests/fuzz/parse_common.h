/*
 * What the parser fuzz harnesses share (fuzz_rx_frame.c, fuzz_shell.c,
 * fuzz_cmdline.c, fuzz_acpi.c, fuzz_aml.c, fuzz_multiboot.c): reading the
 * fuzzer's bytes, counting what was parsed, and the one way to report a
 * wrong answer. Each harness compiles the kernel, driver or net sources it
 * fuzzes into itself (#include), as the host unit tests do, so that their
 * static functions and state are reachable, and feeds them input as the
 * machine, the firmware or the wire would.
 *
 * Beside AddressSanitizer and UBSan (any report aborts), each harness
 * checks the answers it can judge (a sum against a reference, a log line
 * whole on the wire, a count within its bound); a wrong one prints "MODEL
 * MISMATCH", the harness, the operation and what was wrong, then aborts
 * (libFuzzer keeps the input). At exit each prints what it executed, in
 * the allocator harnesses' words (tools/run-fuzz reads that line):
 * "fuzz_acpi: 1234 operations in 56 inputs, 0 model mismatches".
 */
#ifndef FUZZ_PARSE_COMMON_H
#define FUZZ_PARSE_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The input being read; reading past its end yields zero bytes. */
struct pz_in {
	const uint8_t *p;
	size_t n, pos;
};

static inline bool pz_more(const struct pz_in *in)
{
	return in->pos < in->n;
}

static inline uint8_t pz_u8(struct pz_in *in)
{
	return in->pos < in->n ? in->p[in->pos++] : 0;
}

static inline unsigned int pz_u16(struct pz_in *in)
{
	unsigned int lo = pz_u8(in);

	return lo | (unsigned int)pz_u8(in) << 8;
}

/* Up to n of the bytes left (fewer at the end): returns how many, and
 * points *at at them. */
static inline size_t pz_take(struct pz_in *in, size_t n, const uint8_t **at)
{
	size_t left = in->n - in->pos;

	if (n > left)
		n = left;
	*at = in->p + in->pos;
	in->pos += n;
	return n;
}

/* Operations executed (frames, lines, tables...): the harness counts. */
extern uint64_t pz_ops;

/* Once, from LLVMFuzzerInitialize or the first input: the harness's name
 * for the exit line ("fuzz_acpi"); FUZZ_STOP_OPS as the allocator
 * harnesses read it. */
void pz_init(const char *name);

/* At the start of every input (counts it; stops after FUZZ_STOP_OPS). */
void pz_input(void);

__attribute__((format(printf, 4, 5), noreturn)) void
pz_fail_at(const char *file, int line, const char *cond, const char *fmt, ...);

/* The harness's judgement: cond must hold, else a MODEL MISMATCH. */
#define PZ_CHECK(cond, ...)                                                 \
	do {                                                                \
		if (!(cond))                                                \
			pz_fail_at(__FILE__, __LINE__, #cond, __VA_ARGS__); \
	} while (0)

#endif
