/*
 * The direct map: every byte of RAM the kernel uses, identity-mapped
 * before the page allocator sees it. RAM below 4 GiB is mapped by the
 * boot tables already; the rest is mapped here, one GiB at a time, in
 * address order (kernel/paging.c picks the page size).
 *
 * What cannot be used is dropped from the memory map (memmap_drop_from),
 * so it is neither counted as a node's memory nor handed to the page
 * allocator, and said in one report line: RAM at or above the ceiling
 * (RAM_CEILING in kernel/config.h, lowered by mem_max= or by the CPU's
 * physical address width), and RAM from the first GiB a page table could
 * not be had for.
 */
#include "kernel/direct_map.h"
#include "kernel/arch.h"
#include "kernel/cmdline.h"
#include "kernel/config.h"
#include "kernel/console.h"
#include "kernel/memmap.h"
#include "kernel/paging.h"
#include <stdlib.h>

#define SIZE_1G	   (1ULL << 30)
#define LOW_4G	   (4ULL << 30)
#define MEM_MAX_LO (16ULL << 20)

/* A size: digits, then K, M, G or T; *ok says whether it parsed. */
static uint64_t parse_size(const char *v, bool *ok)
{
	char *end;
	uint64_t n = strtoul(v, &end, 10);
	int shift = 0;

	switch (*end) {
	case 'K':
		shift = 10;
		break;
	case 'M':
		shift = 20;
		break;
	case 'G':
		shift = 30;
		break;
	case 'T':
		shift = 40;
		break;
	}
	*ok = end != v && shift && end[1] == '\0' &&
	      n <= (RAM_CEILING >> shift);
	return n << shift;
}

static bool valid_mem_max(const char *v, const char *allowed)
{
	bool ok;
	uint64_t n = parse_size(v, &ok);

	(void)allowed;
	return ok && n >= MEM_MAX_LO;
}

CMDLINE_KEY(kernel, mem_max, "", valid_mem_max, "16M-64T (K, M, G or T)",
	    "lower the RAM ceiling: RAM at or above this address is skipped");

static struct {
	uint64_t ceiling;
	const char *why; /* what set the ceiling */
	uint64_t skipped, skipped_from;
	const char *skipped_why;
} dm;

/* The CPU's physical address width (CPUID 0x80000008 EAX[7:0]; 36 bits
 * on CPUs without the leaf). */
static int phys_bits(void)
{
	uint32_t a, b, c, d;

	cpuid(0x80000000, 0, &a, &b, &c, &d);
	if (a < 0x80000008)
		return 36;
	cpuid(0x80000008, 0, &a, &b, &c, &d);
	return a & 0xff;
}

static void choose_ceiling(void)
{
	uint64_t cpu = 1ULL << phys_bits();
	bool ok;

	dm.ceiling = RAM_CEILING;
	dm.why = "design limit";
	if (cpu < dm.ceiling) {
		dm.ceiling = cpu;
		dm.why = "the CPU's address width";
	}
	if (cmdline_given("mem_max")) {
		uint64_t m = parse_size(cmdline_get("mem_max"), &ok);

		if (m < dm.ceiling) {
			dm.ceiling = m;
			dm.why = "mem_max";
		}
	}
}

/* Drops RAM from addr up for reason why; keeps the lowest start. */
static void skip_from(uint64_t addr, const char *why)
{
	uint64_t from = 0, bytes = memmap_drop_from(addr, &from);

	if (!bytes)
		return;
	if (!dm.skipped || from < dm.skipped_from) {
		dm.skipped_from = from;
		dm.skipped_why = why;
	}
	dm.skipped += bytes;
}

/* Maps RAM above 4 GiB a GiB at a time; returns the first address a page
 * table could not be had for, or 0 when everything is mapped. */
static uint64_t map_all_ram(void)
{
	const struct mm_range *r;
	int n = memmap_ram_ranges(&r);

	for (int i = 0; i < n; i++) {
		uint64_t a = r[i].start > LOW_4G ? r[i].start : LOW_4G;

		while (a < r[i].end) {
			uint64_t next = (a & ~(SIZE_1G - 1)) + SIZE_1G;

			if (next > r[i].end)
				next = r[i].end;
			if (map_ram(a, next - a) < 0)
				return a;
			a = next;
		}
	}
	return 0;
}

void direct_map_init(void)
{
	uint64_t failed;

	choose_ceiling();
	skip_from(dm.ceiling, "past the ceiling");
	failed = map_all_ram();
	if (failed)
		skip_from(failed, "no memory for its page tables");
}

static uint64_t mib(uint64_t bytes)
{
	return (bytes + (1ULL << 20) - 1) >> 20;
}

void direct_map_report(void)
{
	kprintf("boot: ram ceiling=%lluMiB (%s) direct_map=%s pages "
		"page_tables=%lu\n",
		(unsigned long long)mib(dm.ceiling), dm.why,
		paging_has_1g_pages() ? "1GiB" : "2MiB", paging_tables());
	if (dm.skipped)
		kprintf("boot: ram skipped=%lluMiB from 0x%llx (%s): never "
			"given to the allocator\n",
			(unsigned long long)mib(dm.skipped),
			(unsigned long long)dm.skipped_from, dm.skipped_why);
}
