/*
 * Identity mapping. RAM and device memory are mapped at their physical
 * address with 2 MiB pages, so a pointer is a physical (DMA) address, as
 * the mm seam promises. boot/header.S maps the first 4 GiB before C runs;
 * these functions add the rest.
 */
#ifndef KERNEL_PAGING_H
#define KERNEL_PAGING_H

#include <stdint.h>

/*
 * map_ram - identity-map [phys, phys+size) as normal write-back memory.
 * Boot CPU, before the APs start (it edits the shared page tables without
 * a lock and flushes only the local TLB). Returns 0, or -1 when the page
 * table pool is exhausted (reported once).
 */
int map_ram(uint64_t phys, uint64_t size);

/*
 * map_mmio - identity-map device registers [phys, phys+size) uncached
 * (PCD|PWT) and return a pointer to phys, or NULL when the page table pool
 * is exhausted. Any CPU, any time after boot: takes the paging lock and
 * flushes the local TLB; a device region is mapped before any CPU uses it,
 * so other CPUs have no stale entries for it. Regions may lie above 4 GiB
 * (64-bit PCI BARs, ECAM) — up to 512 GiB.
 */
void *map_mmio(uint64_t phys, uint64_t size);

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
