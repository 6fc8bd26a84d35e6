/*
 * Identity mapping. RAM and device memory are mapped at their physical
 * address, so a pointer is a physical (DMA) address, as the mm seam
 * promises. boot/header.S maps the first 4 GiB before C runs; these
 * functions add the rest, up to 128 TiB (the lower canonical half).
 */
#ifndef KERNEL_PAGING_H
#define KERNEL_PAGING_H

#include <stdbool.h>
#include <stdint.h>

/*
 * map_ram - identity-map [phys, phys+size) as normal write-back memory:
 * 1 GiB pages for whole aligned GiBs when the CPU has them, else 2 MiB
 * pages (rounded out to 2 MiB). Boot CPU, before the APs start (it edits
 * the shared page tables and flushes only the local TLB). Returns 0, or
 * -1 when a page table cannot be had or the range lies beyond the
 * identity map's reach (said on the console); what was mapped before the
 * failure stays mapped.
 */
int map_ram(uint64_t phys, uint64_t size);

/*
 * map_mmio - identity-map device registers [phys, phys+size) uncached
 * (PCD|PWT) with 2 MiB pages and return a pointer to phys, or NULL when a
 * page table cannot be had or the range lies beyond the reach (said on
 * the console). Any CPU, any time after boot: takes the paging lock and
 * flushes the local TLB; a device region is mapped before any CPU uses
 * it, so other CPUs have no stale entries for it. The first 2 MiB are
 * never remapped (a region within them is returned as it is): that huge
 * page holds the kernel image and stays cached (the firmware's MTRRs keep
 * the legacy hole uncached).
 */
void *map_mmio(uint64_t phys, uint64_t size);

/* Whether the CPU maps 1 GiB pages (CPUID 0x80000001 EDX bit 26). */
bool paging_has_1g_pages(void);

/* Page tables made since boot (the boot report's "page_tables="). */
unsigned long paging_tables(void);

/* A pointer to identity-mapped physical address phys. The empty asm hides
 * the constant from gcc, which otherwise rejects accesses to small fixed
 * addresses (the BIOS data area, the AP trampoline) as out of bounds. */
static inline void *phys_ptr(uint64_t phys)
{
	uintptr_t p = (uintptr_t)phys;

	__asm__("" : "+r"(p));
	return (void *)p;
}

#endif
