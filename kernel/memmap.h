/*
 * Physical memory as the kernel sees it, and the early boot allocator:
 * the boot loader's memory map, cut by NUMA node (SRAT), minus what the
 * boot itself occupies. Until the page allocator takes the free list over
 * (mm_init, through mm_platform_ranges in kernel/mm_port/platform.c),
 * memmap_alloc_early() hands out pages straight from it, as Linux's
 * memblock does.
 *
 * All of it runs on the boot CPU before the other CPUs start.
 */
#ifndef KERNEL_MEMMAP_H
#define KERNEL_MEMMAP_H

#include <stdint.h>
#include "mm/platform.h"

#define MEMMAP_MAX_RANGES MM_MAX_RANGES

/* First thing after the command line: both lists from the boot loader's
 * map, all of it node 0; the first MiB, the kernel image and the boot
 * loader's information reserved. */
void memmap_init(void);

/* memmap_reserve - keep [start, end) out of the free list (rounded out to
 * whole pages). ACPI reserves its tables with it. */
void memmap_reserve(uint64_t start, uint64_t end);

/* memmap_set_node - RAM in [start, end) belongs to node nid (an SRAT
 * memory entry). Both lists are cut at start and end; RAM that no call
 * names stays node 0's. */
void memmap_set_node(uint64_t start, uint64_t end, int nid);

/*
 * memmap_drop_from - forget all RAM at and above addr, in both lists: it
 * will be neither reported as a node's memory nor handed to the page
 * allocator. Returns the bytes of RAM dropped and sets *lowest to the
 * lowest address dropped (untouched when nothing was).
 */
uint64_t memmap_drop_from(uint64_t addr, uint64_t *lowest);

/*
 * memmap_alloc_early - one page of the free list below limit, taken from
 * the top of the highest range that has one (low memory stays for what
 * needs it), or 0 when none is left. The page is not zeroed: the caller
 * maps limit. Before mm_init only: the page allocator gets the free list
 * as it is then. memmap_early_pages() counts the pages handed out.
 */
uint64_t memmap_alloc_early(uint64_t limit);

/*
 * memmap_alloc_early_node - bytes (rounded up to whole pages) of physically
 * contiguous free RAM below limit, from node nid when it has them and from
 * any node when not; 0 when no range has room. Not zeroed; mapped only
 * once direct_map_init() has run. For what each CPU needs before the page
 * allocator exists (its stacks), on the CPU's own node.
 */
uint64_t memmap_alloc_early_node(uint64_t bytes, int nid, uint64_t limit);
unsigned long memmap_early_pages(void);

/* Available RAM per node, before reservations (what the boot report
 * counts as a node's memory). Returns the number of ranges. */
int memmap_ram_ranges(const struct mm_range **out);
/* RAM free for the page allocator: the above minus the first MiB, the
 * kernel image, boot information, ACPI tables and early allocations;
 * page aligned, sorted by address. */
int memmap_free_ranges(const struct mm_range **out);
/* The node of the RAM at physical address pa, or -1 when pa is not RAM. */
int memmap_node_of(uint64_t pa);
/* Bytes of available RAM on node (-1: all nodes). */
uint64_t memmap_node_bytes(int node);

#endif
