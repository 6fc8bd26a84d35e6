/* Where the AP trampoline (boot/trampoline.S) runs, and its parameters. */
#ifndef KERNEL_TRAMPOLINE_H
#define KERNEL_TRAMPOLINE_H

/* Page-aligned, below 1 MiB, and outside the BIOS data areas. */
#define TRAMPOLINE_PHYS 0x8000

#ifndef __ASSEMBLER__
#include <stdint.h>

/* The parameter block at the end of the trampoline, filled per AP. */
struct trampoline_params {
	uint64_t cr3;
	uint64_t stack;
	uint64_t entry;
};

extern const char trampoline_start[], trampoline_end[];
extern const char trampoline_params[];
#endif

#endif
