/*
 * What the boot loader told us, in one loader-neutral form: the memory
 * map, the command line, the screen, the ACPI RSDP and the memory the
 * information itself occupies (so it is not handed out as free).
 */
#ifndef KERNEL_MULTIBOOT_H
#define KERNEL_MULTIBOOT_H

#include <stdint.h>
#include "kernel/config.h"
#include "kernel/console_dev.h"

#define MB1_BOOT_MAGIC 0x2BADB002
#define MB2_BOOT_MAGIC 0x36D76289

/* e820-style types, as both multiboot flavours report them. */
#define MMAP_AVAILABLE	  1
#define MMAP_RESERVED	  2
#define MMAP_ACPI_RECLAIM 3
#define MMAP_ACPI_NVS	  4
#define MMAP_BAD	  5

struct mmap_entry {
	uint64_t base, len;
	uint32_t type;
};

struct boot_info {
	int flavour;	    /* 1 or 2 */
	const char *loader; /* boot loader name, or "" */
	const char *cmdline;
	struct mmap_entry mmap[MAX_MMAP];
	int nr_mmap;
	uint64_t rsdp; /* physical address from an ACPI tag, or 0 */
	struct screen_info screen;
	/* physical ranges to keep: the information structure, modules */
	struct {
		uint64_t start, end;
	} keep[8];
	int nr_keep;
};

extern struct boot_info boot_info_parsed;

/*
 * multiboot_parse - read the loader's information at info (physical, below
 * 4 GiB) according to magic into boot_info_parsed. Boot CPU, once.
 * Returns 0, or -1 for an unknown magic (nothing is filled in then).
 */
int multiboot_parse(uint32_t magic, uint32_t info);

#endif
