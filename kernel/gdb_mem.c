/*
 * The memory gdb reads and writes, and the breakpoint table.
 *
 * Memory is probed before it is touched: a read of an address nobody
 * mapped must come back to gdb as an error, not as a page fault on the
 * stopped machine. The probe walks the page tables CR3 points at (4
 * levels; a 1 GiB or 2 MiB page ends the walk early), so it answers for
 * the kernel's identity map and for anything mapped later alike. Pages
 * mapped uncached are device registers (kernel/paging.c maps MMIO that
 * way), and reading one can change the device (a read-to-clear interrupt
 * cause): they are refused too.
 *
 * A breakpoint is an int3 (0xCC) over the first byte of an instruction.
 * The table keeps each address and the byte it covers; the bytes are in
 * memory only while the machine runs (kernel/gdb_stop.c takes them all
 * out when it stops, so gdb reads the real code, and puts them back on
 * resume), except one a CPU is stepping over (gdb_bp_lift). One lock
 * keeps the table and memory in step between the serving CPU and CPUs
 * stepping over.
 */
#include "kernel/arch.h"
#include "kernel/gdb_internal.h"
#include "kernel/paging.h"
#include "kernel/spinlock.h"

#define PTE_P	 (1ULL << 0)
#define PTE_W	 (1ULL << 1)
#define PTE_PCD	 (1ULL << 4)
#define PTE_PS	 (1ULL << 7)
#define PTE_ADDR 0x000FFFFFFFFFF000ULL
#define INT3	 0xCC

/* linker.ld: the text of the trap path and of the stub, kept together */
extern char __gdb_nobp_start[], __gdb_nobp_end[];
extern char __kernel_start[], __text_end[];

/*
 * The last-level entry that maps va: false when va is not canonical or a
 * level is not present; else *end is the end of its page and *writable
 * says whether every level allows writes (CR0.WP makes that binding on
 * the kernel too).
 */
static bool page_lookup(uint64_t va, uint64_t *leaf, uint64_t *end,
			bool *writable)
{
	const uint64_t *table = phys_ptr(read_cr3() & PTE_ADDR);
	int64_t top = (int64_t)va >> 47;

	if (top != 0 && top != -1)
		return false;
	*writable = true;
	for (int shift = 39; shift >= 12; shift -= 9) {
		uint64_t e = table[(va >> shift) & 511];

		if (!(e & PTE_P))
			return false;
		*writable = *writable && (e & PTE_W);
		if (shift == 12 || (shift <= 30 && (e & PTE_PS))) {
			*leaf = e;
			*end = (va | ((1ULL << shift) - 1)) + 1;
			return true;
		}
		table = phys_ptr(e & PTE_ADDR);
	}
	return false;
}

/* Bytes from addr (at most n) that lie on accessible pages. */
static size_t accessible(uint64_t addr, size_t n, bool write)
{
	size_t ok = 0;

	while (ok < n) {
		uint64_t leaf, end;
		bool writable;

		if (!page_lookup(addr + ok, &leaf, &end, &writable) ||
		    (leaf & PTE_PCD) || (write && !writable))
			break;
		ok = end - addr >= n ? n : (size_t)(end - addr);
	}
	return ok;
}

size_t gdb_mem_read(uint64_t addr, void *buf, size_t n)
{
	size_t ok = accessible(addr, n, false);
	const volatile uint8_t *p = (const volatile uint8_t *)(uintptr_t)addr;

	for (size_t i = 0; i < ok; i++)
		((uint8_t *)buf)[i] = p[i];
	return ok;
}

size_t gdb_mem_write(uint64_t addr, const void *buf, size_t n)
{
	size_t ok = accessible(addr, n, true);
	volatile uint8_t *p = (volatile uint8_t *)(uintptr_t)addr;

	for (size_t i = 0; i < ok; i++)
		p[i] = ((const uint8_t *)buf)[i];
	return ok;
}

/* ---- breakpoints ---- */

static struct breakpoint {
	uint64_t addr;
	uint8_t saved;	/* the byte the int3 covers */
	bool used;	/* in the table */
	bool in_memory; /* the int3 is written */
} bps[GDB_MAX_BREAKPOINTS];
static spinlock_t bp_lock = SPINLOCK_INIT;
static bool all_out; /* the machine is stopped: nothing goes back in */

bool gdb_no_breakpoint(uint64_t addr)
{
	return addr >= (uintptr_t)__gdb_nobp_start &&
	       addr < (uintptr_t)__gdb_nobp_end;
}

static struct breakpoint *bp_find(uint64_t addr)
{
	for (int i = 0; i < GDB_MAX_BREAKPOINTS; i++)
		if (bps[i].used && bps[i].addr == addr)
			return &bps[i];
	return NULL;
}

static void bp_write(struct breakpoint *b)
{
	volatile uint8_t *p = (volatile uint8_t *)(uintptr_t)b->addr;

	b->saved = *p;
	*p = INT3;
	b->in_memory = true;
}

static void bp_unwrite(struct breakpoint *b)
{
	*(volatile uint8_t *)(uintptr_t)b->addr = b->saved;
	b->in_memory = false;
}

int gdb_bp_add(uint64_t addr)
{
	if (bp_find(addr))
		return 0; /* gdb may set one twice */
	if (addr < (uintptr_t)__kernel_start || addr >= (uintptr_t)__text_end ||
	    gdb_no_breakpoint(addr) || accessible(addr, 1, true) != 1)
		return -1;
	for (int i = 0; i < GDB_MAX_BREAKPOINTS; i++) {
		if (!bps[i].used) {
			bps[i] =
				(struct breakpoint){.addr = addr, .used = true};
			return 0;
		}
	}
	return -1;
}

int gdb_bp_remove(uint64_t addr)
{
	struct breakpoint *b = bp_find(addr);

	if (!b)
		return -1;
	b->used = false;
	return 0;
}

bool gdb_bp_at(uint64_t addr)
{
	return bp_find(addr) != NULL;
}

void gdb_bp_insert_all(void)
{
	unsigned long f = spin_lock_irqsave(&bp_lock);

	for (int i = 0; i < GDB_MAX_BREAKPOINTS; i++)
		if (bps[i].used && !bps[i].in_memory)
			bp_write(&bps[i]);
	all_out = false;
	spin_unlock_irqrestore(&bp_lock, f);
}

void gdb_bp_remove_all(void)
{
	unsigned long f = spin_lock_irqsave(&bp_lock);

	for (int i = 0; i < GDB_MAX_BREAKPOINTS; i++)
		if (bps[i].in_memory)
			bp_unwrite(&bps[i]);
	all_out = true;
	spin_unlock_irqrestore(&bp_lock, f);
}

void gdb_bp_clear(void)
{
	for (int i = 0; i < GDB_MAX_BREAKPOINTS; i++)
		bps[i].used = false;
}

void gdb_bp_lift(uint64_t addr)
{
	unsigned long f = spin_lock_irqsave(&bp_lock);
	struct breakpoint *b = bp_find(addr);

	if (b && b->in_memory)
		bp_unwrite(b);
	spin_unlock_irqrestore(&bp_lock, f);
}

void gdb_bp_restore(uint64_t addr)
{
	unsigned long f = spin_lock_irqsave(&bp_lock);
	struct breakpoint *b = bp_find(addr);

	if (b && !b->in_memory && !all_out)
		bp_write(b);
	spin_unlock_irqrestore(&bp_lock, f);
}
