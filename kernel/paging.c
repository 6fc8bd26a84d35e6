/*
 * The identity map. boot/header.S maps the first 4 GiB with 2 MiB pages
 * before C runs; everything above is mapped here, on demand: RAM by the
 * direct map (kernel/direct_map.c) and ACPI, device memory by drivers.
 *
 * Page sizes: RAM gets a 1 GiB page for every whole, aligned GiB of it
 * when the CPU has them (CPUID 0x80000001 EDX bit 26, pdpe1gb), and 2 MiB
 * pages elsewhere: 256 GiB then takes 1 page table instead of 257. Device
 * memory always gets 2 MiB pages, uncached; a 1 GiB page in the way is
 * split into 2 MiB pages first.
 *
 * Page tables come from the memory map's free list (memmap_alloc_early,
 * below 4 GiB, which the boot tables map) until the page allocator runs,
 * then from it. They are never freed. The reach is the lower canonical
 * half of 4-level paging, 128 TiB: an identity-mapped address above it
 * would not be canonical.
 */
#include "kernel/paging.h"
#include "kernel/arch.h"
#include "kernel/console.h"
#include "kernel/memmap.h"
#include "kernel/spinlock.h"
#include "mm/page_alloc.h"
#include <stdbool.h>
#include <string.h>

#define PTE_P	 (1ULL << 0)
#define PTE_W	 (1ULL << 1)
#define PTE_PWT	 (1ULL << 3)
#define PTE_PCD	 (1ULL << 4)
#define PTE_PS	 (1ULL << 7)
#define PTE_ADDR 0x000FFFFFFFFFF000ULL
#define PTE_UC	 (PTE_PCD | PTE_PWT)

#define SIZE_2M	  (2ULL << 20)
#define SIZE_1G	  (1ULL << 30)
#define LOW_4G	  (4ULL << 30)
#define MAP_REACH (1ULL << 47)

extern uint64_t early_pml4[512];
static spinlock_t paging_lock = SPINLOCK_INIT;
static unsigned long tables;

bool paging_has_1g_pages(void)
{
	uint32_t a, b, c, d;

	cpuid(0x80000000, 0, &a, &b, &c, &d);
	if (a < 0x80000001)
		return false;
	cpuid(0x80000001, 0, &a, &b, &c, &d);
	return d & (1u << 26);
}

unsigned long paging_tables(void)
{
	return tables;
}

/* A zeroed table: from the memory map before the page allocator runs,
 * then from it (mappings made after boot: MMIO far up). NULL when there
 * is none. Called under paging_lock. */
static uint64_t *table_alloc(void)
{
	uint64_t *t = NULL;

	if (mm_is_ready()) {
		struct page *p = alloc_pages(GFP_ATOMIC | __GFP_ZERO, 0);

		t = p ? page_address(p) : NULL;
	} else {
		uint64_t phys = memmap_alloc_early(LOW_4G);

		if (phys) {
			t = phys_ptr(phys);
			memset(t, 0, MM_PAGE_SIZE);
		}
	}
	if (t)
		tables++;
	return t;
}

static uint64_t *entry_table(uint64_t entry)
{
	return phys_ptr(entry & PTE_ADDR);
}

/* The PDPT entry for addr, with a PDPT created as needed; NULL when none
 * can be had. */
static uint64_t *pdpte_slot(uint64_t addr)
{
	uint64_t *pml4e = &early_pml4[(addr >> 39) & 511];

	if (!(*pml4e & PTE_P)) {
		uint64_t *pdpt = table_alloc();

		if (!pdpt)
			return NULL;
		*pml4e = (uintptr_t)pdpt | PTE_P | PTE_W;
	}
	return &entry_table(*pml4e)[(addr >> 30) & 511];
}

/* A 1 GiB page becomes a page directory of 512 2 MiB pages with the same
 * attributes, so part of it can be mapped otherwise. */
static bool split_1g(uint64_t *pdpte)
{
	uint64_t *pd = table_alloc();
	uint64_t base = *pdpte & PTE_ADDR & ~(SIZE_1G - 1);
	uint64_t attr = *pdpte & PTE_UC;

	if (!pd)
		return false;
	for (int i = 0; i < 512; i++)
		pd[i] = (base + i * SIZE_2M) | PTE_P | PTE_W | PTE_PS | attr;
	*pdpte = (uintptr_t)pd | PTE_P | PTE_W;
	for (int i = 0; i < 512; i++)
		invlpg((uintptr_t)(base + i * SIZE_2M));
	return true;
}

/* The page directory entry for addr, creating tables (and splitting a
 * 1 GiB page) as needed; NULL when a table cannot be had. */
static uint64_t *pde_slot(uint64_t addr)
{
	uint64_t *pdpte = pdpte_slot(addr);

	if (!pdpte)
		return NULL;
	if ((*pdpte & PTE_PS) && !split_1g(pdpte))
		return NULL;
	if (!(*pdpte & PTE_P)) {
		uint64_t *pd = table_alloc();

		if (!pd)
			return NULL;
		*pdpte = (uintptr_t)pd | PTE_P | PTE_W;
	}
	return &entry_table(*pdpte)[(addr >> 21) & 511];
}

/* RAM's GiB at addr as one 1 GiB page, if its slot is free (a page
 * directory there already, from an earlier 2 MiB mapping, stays). */
static int map_1g(uint64_t addr, bool *done)
{
	uint64_t *pdpte = pdpte_slot(addr);

	if (!pdpte)
		return -1;
	*done = !(*pdpte & PTE_P) || (*pdpte & PTE_PS);
	if (!(*pdpte & PTE_P))
		*pdpte = addr | PTE_P | PTE_W | PTE_PS;
	return 0;
}

/* [start, end) with 2 MiB pages of attributes attr. */
static int map_2m(uint64_t start, uint64_t end, uint64_t attr)
{
	for (uint64_t a = start; a < end; a += SIZE_2M) {
		uint64_t *pde = pde_slot(a);

		if (!pde)
			return -1;
		*pde = a | PTE_P | PTE_W | PTE_PS | attr;
		invlpg((uintptr_t)a);
	}
	return 0;
}

/* Says which mapping failed and why; returns -1. */
static int map_failed(uint64_t addr, const char *why)
{
	kprintf("paging: %s: 0x%llx not mapped\n", why,
		(unsigned long long)addr);
	return -1;
}

/* RAM: whole aligned GiBs as 1 GiB pages where the CPU has them, the
 * rest (rounded out to 2 MiB) as 2 MiB pages. Under paging_lock. */
static int map_ram_locked(uint64_t phys, uint64_t end)
{
	bool gb = paging_has_1g_pages();
	uint64_t a = phys & ~(SIZE_2M - 1);

	while (a < end) {
		uint64_t next = (a & ~(SIZE_1G - 1)) + SIZE_1G;
		bool done = false;

		if (next > end)
			next = (end + SIZE_2M - 1) & ~(SIZE_2M - 1);
		if (gb && !(a & (SIZE_1G - 1)) && a + SIZE_1G <= end &&
		    map_1g(a, &done) < 0)
			return map_failed(a, "no memory for a page table");
		if (!done && map_2m(a, next, 0) < 0)
			return map_failed(a, "no memory for a page table");
		a = next;
	}
	return 0;
}

int map_ram(uint64_t phys, uint64_t size)
{
	unsigned long flags;
	int r;

	if (phys + size > MAP_REACH || phys + size < phys)
		return map_failed(phys, "beyond the identity map's reach");
	flags = spin_lock_irqsave(&paging_lock);
	r = map_ram_locked(phys, phys + size);
	spin_unlock_irqrestore(&paging_lock, flags);
	return r;
}

void *map_mmio(uint64_t phys, uint64_t size)
{
	uint64_t start = phys & ~(SIZE_2M - 1);
	uint64_t end = (phys + size + SIZE_2M - 1) & ~(SIZE_2M - 1);
	unsigned long flags;
	int r;

	/* Legacy devices in the first 2 MiB (VGA, BIOS) share a huge page
	 * with the kernel image, which must stay cached: the firmware's MTRRs
	 * already make that hole uncached. A region reaching past it leaves
	 * that page as it is too. */
	if (phys + size <= SIZE_2M)
		return (void *)(uintptr_t)phys;
	if (start < SIZE_2M)
		start = SIZE_2M;
	if (end > MAP_REACH || end < start) {
		map_failed(phys, "beyond the identity map's reach");
		return NULL;
	}
	flags = spin_lock_irqsave(&paging_lock);
	r = map_2m(start, end, PTE_UC);
	spin_unlock_irqrestore(&paging_lock, flags);
	if (r)
		map_failed(phys, "no memory for a page table");
	return r ? NULL : (void *)(uintptr_t)phys;
}
