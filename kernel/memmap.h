/*
 * Physical memory as the kernel sees it: the boot loader's memory map,
 * split by NUMA node (SRAT), minus what the boot itself occupies. The page
 * allocator gets the result through mm_platform_ranges
 * (kernel/mm_port/platform.c).
 */
#ifndef KERNEL_MEMMAP_H
#define KERNEL_MEMMAP_H

#include <stdint.h>
#include "mm/platform.h"

#define MEMMAP_MAX_RANGES MM_MAX_RANGES

/* Boot CPU, after acpi_init: builds both lists, maps RAM above 4 GiB. */
void memmap_init(void);

/* Available RAM per node, before reservations (what the boot report
 * counts as a node's memory). Returns the number of ranges. */
int memmap_ram_ranges(const struct mm_range **out);
/* RAM free for the page allocator: the above minus the first MiB, the
 * kernel image, boot information and ACPI tables; page aligned. */
int memmap_free_ranges(const struct mm_range **out);
/* Bytes of available RAM on node (-1: all nodes). */
uint64_t memmap_node_bytes(int node);

#endif
