/*
 * Identity mapping with 2 MiB pages. The early tables (boot/header.S) are
 * one PML4, one PDPT and four page directories for the first 4 GiB. More
 * page directories (and PDPTs past 512 GiB) come from a static pool in the
 * kernel image while the page allocator does not exist yet: 64 tables map
 * 64 GiB of RAM beyond the first 4 GiB, plenty for a QEMU guest or a small
 * PC; RAM past that is reported and skipped. Once the page allocator runs,
 * further tables come from it.
 */
#include "kernel/paging.h"
#include "kernel/arch.h"
#include "kernel/console.h"
#include "kernel/spinlock.h"
#include "mm/page_alloc.h"
#include <string.h>

#define PTE_P	 (1ULL << 0)
#define PTE_W	 (1ULL << 1)
#define PTE_PWT	 (1ULL << 3)
#define PTE_PCD	 (1ULL << 4)
#define PTE_PS	 (1ULL << 7)
#define PTE_ADDR 0x000FFFFFFFFFF000ULL

#define HUGE	    (2ULL << 20)
#define POOL_TABLES 64

extern uint64_t early_pml4[512], early_pdpt[512];
static uint64_t pool[POOL_TABLES][512] __attribute__((aligned(4096)));
static int pool_used;
static spinlock_t paging_lock = SPINLOCK_INIT;

/* A zeroed table: from the static pool while there is one (the RAM above
 * 4 GiB is mapped before the page allocator exists), then from the page
 * allocator, so mappings made after boot (MMIO far up) are not limited by
 * the pool. Tables are never freed. Called under paging_lock. */
static uint64_t *table_alloc(void)
{
	struct page *p;

	if (pool_used < POOL_TABLES) {
		memset(pool[pool_used], 0, sizeof(pool[0]));
		return pool[pool_used++];
	}
	if (!mm_is_ready())
		return NULL;
	p = alloc_pages(GFP_ATOMIC | __GFP_ZERO, 0);
	return p ? page_address(p) : NULL;
}

/* The page directory entry slot for addr, creating tables as needed. */
static uint64_t *pde_slot(uint64_t addr)
{
	uint64_t *pml4e = &early_pml4[(addr >> 39) & 511];
	uint64_t *pdpt, *pdpte, *pd;

	if (!(*pml4e & PTE_P)) {
		pdpt = table_alloc();
		if (!pdpt)
			return NULL;
		*pml4e = (uintptr_t)pdpt | PTE_P | PTE_W;
	}
	pdpt = (uint64_t *)(uintptr_t)(*pml4e & PTE_ADDR);
	pdpte = &pdpt[(addr >> 30) & 511];
	if (!(*pdpte & PTE_P)) {
		pd = table_alloc();
		if (!pd)
			return NULL;
		*pdpte = (uintptr_t)pd | PTE_P | PTE_W;
	}
	pd = (uint64_t *)(uintptr_t)(*pdpte & PTE_ADDR);
	return &pd[(addr >> 21) & 511];
}

static int map_range(uint64_t phys, uint64_t size, uint64_t attr)
{
	uint64_t start = phys & ~(HUGE - 1);
	uint64_t end = (phys + size + HUGE - 1) & ~(HUGE - 1);
	static int warned;

	for (uint64_t a = start; a < end; a += HUGE) {
		uint64_t *pde = pde_slot(a);

		if (!pde) {
			if (!warned++)
				kprintf("paging: page table pool exhausted, "
					"0x%llx and above not mapped\n",
					(unsigned long long)a);
			return -1;
		}
		*pde = a | PTE_P | PTE_W | PTE_PS | attr;
		invlpg((uintptr_t)a);
	}
	return 0;
}

int map_ram(uint64_t phys, uint64_t size)
{
	unsigned long flags = spin_lock_irqsave(&paging_lock);
	int r = map_range(phys, size, 0);

	spin_unlock_irqrestore(&paging_lock, flags);
	return r;
}

void *map_mmio(uint64_t phys, uint64_t size)
{
	unsigned long flags;
	int r;

	/* Legacy devices in the first 2 MiB (VGA, BIOS) share a huge page
	 * with the kernel image, which must stay cached: the firmware's MTRRs
	 * already make that hole uncached. */
	if (phys + size <= HUGE)
		return (void *)(uintptr_t)phys;
	flags = spin_lock_irqsave(&paging_lock);
	r = map_range(phys, size, PTE_PCD | PTE_PWT);

	spin_unlock_irqrestore(&paging_lock, flags);
	return r ? NULL : (void *)(uintptr_t)phys;
}
