/*
 * The direct map: the RAM the kernel will use, decided (the RAM ceiling)
 * and identity-mapped before the page allocator takes it over.
 */
#ifndef KERNEL_DIRECT_MAP_H
#define KERNEL_DIRECT_MAP_H

/*
 * direct_map_init - drop RAM at and above the ceiling from the memory map,
 * map the rest above 4 GiB (page tables from the early allocator), and
 * drop whatever could not be mapped. Boot CPU, after acpi_init (which
 * tells the memory map the nodes) and before the APs start.
 */
void direct_map_init(void);

/* Its boot-report lines: the ceiling and what set it, the page size,
 * the page tables made; and, if any RAM was skipped, how much and from
 * where (docs/boot.md). */
void direct_map_report(void);

#endif
