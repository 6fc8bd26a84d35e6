/* Where the AP trampoline (boot/trampoline.S) runs, and its parameters. */
#ifndef KERNEL_TRAMPOLINE_H
#define KERNEL_TRAMPOLINE_H

/* Page-aligned, below 1 MiB, and outside the BIOS data areas. */
#define TRAMPOLINE_PHYS 0x8000

#ifndef __ASSEMBLER__
#include <stdint.h>

/* The parameter block at the end of the trampoline, filled per AP (see
 * boot/trampoline.S for the handshake on ticket). */
struct trampoline_params {
	uint64_t cr3;
	uint64_t stack;
	uint64_t entry;	  /* void entry(uint64_t cpu_id) */
	uint64_t ticket;  /* non-zero: a start is open; 0: claimed or closed */
	uint64_t cpu_id;  /* the slot the start is for */
	uint32_t apic_id; /* the CPU the start is for */
	uint32_t parked;  /* APs that found no start for them and halted */
};

extern const char trampoline_start[], trampoline_end[];
extern const char trampoline_params[];
#endif

#endif
