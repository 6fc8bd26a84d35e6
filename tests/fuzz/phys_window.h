/*
 * Fake physical memory for the harnesses of code that reads what the
 * firmware or the boot loader left in memory through the kernel's
 * identity map (kernel/multiboot.c, kernel/acpi.c): a window mapped at
 * the same fixed address in the harness, below 4 GiB so that 32-bit
 * physical addresses work, where a physical address is the pointer.
 *
 * The whole window is poisoned for AddressSanitizer, and each structure
 * the harness places in it (pw_place) is unpoisoned exactly: a parser
 * that reads one byte past what the firmware said is there is reported
 * like a heap overflow. Structures start 8-byte aligned (ASan's shadow
 * granule) with a poisoned gap between them. Included by one harness per
 * binary (the window is a few static variables).
 */
#ifndef FUZZ_PHYS_WINDOW_H
#define FUZZ_PHYS_WINDOW_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <sanitizer/asan_interface.h>

#define PW_BASE 0x10000000ull /* 256 MiB: free in a PIE ASan process */
#define PW_SIZE (16ull << 20)
#define PW_GAP	64

static uint64_t pw_next = PW_BASE;

/* Once: map the window (a failure ends the harness: nothing can run). */
static void pw_map(void)
{
	void *p = mmap(
		(void *)(uintptr_t)PW_BASE, PW_SIZE, PROT_READ | PROT_WRITE,
		MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	if (p != (void *)(uintptr_t)PW_BASE) {
		perror("phys_window: mmap at 0x10000000");
		exit(2);
	}
	ASAN_POISON_MEMORY_REGION(p, PW_SIZE);
}

/* Before each input: everything placed so far is gone. */
static void pw_reset(void)
{
	ASAN_POISON_MEMORY_REGION((void *)(uintptr_t)PW_BASE,
				  pw_next - PW_BASE);
	pw_next = PW_BASE;
}

/* len bytes (a copy of src, or zeros when src is NULL) at a fresh place
 * in the window; returns its physical address (0 when the window is
 * full: the harness never places that much). */
static uint64_t pw_place(const void *src, size_t len)
{
	uint64_t at = pw_next;

	if (at + len + PW_GAP > PW_BASE + PW_SIZE)
		return 0;
	ASAN_UNPOISON_MEMORY_REGION((void *)(uintptr_t)at, len);
	if (src)
		memcpy((void *)(uintptr_t)at, src, len);
	else
		memset((void *)(uintptr_t)at, 0, len);
	pw_next = (at + len + PW_GAP + 7) & ~7ull;
	return at;
}

static inline void *pw_ptr(uint64_t phys)
{
	return (void *)(uintptr_t)phys;
}

#endif
