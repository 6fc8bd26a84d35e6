/*
 * Building the memory lists. The memory map's available ranges are cut at
 * SRAT memory-affinity boundaries so each piece belongs to one node (RAM
 * that no SRAT entry covers goes to node 0), then reservations are cut out.
 */
#include "kernel/memmap.h"
#include "kernel/acpi.h"
#include "kernel/console.h"
#include "kernel/multiboot.h"
#include "kernel/paging.h"
#include <string.h>

extern char __kernel_start[], __kernel_end[];

static struct mm_range ram[MEMMAP_MAX_RANGES], avail[MEMMAP_MAX_RANGES];
static int nr_ram, nr_avail;

static void push(struct mm_range *list, int *n, uint64_t start, uint64_t end,
		 int nid)
{
	if (end <= start)
		return;
	if (*n == MEMMAP_MAX_RANGES) {
		kprintf("memmap: too many ranges, 0x%llx-0x%llx dropped\n",
			(unsigned long long)start, (unsigned long long)end);
		return;
	}
	list[*n].start = start;
	list[*n].end = end;
	list[*n].nid = nid;
	(*n)++;
}

/* Adds [start, end) split by SRAT node. */
static void add_ram(uint64_t start, uint64_t end)
{
	while (start < end) {
		uint64_t piece_end = end;
		int nid = 0;

		for (int i = 0; i < acpi.nr_mem; i++) {
			uint64_t s = acpi.mem[i].base, e = s + acpi.mem[i].len;

			if (start >= s && start < e) {
				nid = acpi.mem[i].node;
				if (e < piece_end)
					piece_end = e;
			} else if (s > start && s < piece_end) {
				piece_end = s; /* another node starts here */
			}
		}
		push(ram, &nr_ram, start, piece_end, nid);
		start = piece_end;
	}
}

/* Removes [rs, re) from avail[]. */
static void reserve(uint64_t rs, uint64_t re)
{
	rs &= ~(uint64_t)(MM_PAGE_SIZE - 1);
	re = (re + MM_PAGE_SIZE - 1) & ~(uint64_t)(MM_PAGE_SIZE - 1);
	for (int i = 0; i < nr_avail; i++) {
		struct mm_range r = avail[i];

		if (re <= r.start || rs >= r.end)
			continue;
		if (rs > r.start && re < r.end) {
			avail[i].end = rs;
			push(avail, &nr_avail, re, r.end, r.nid);
		} else if (rs > r.start) {
			avail[i].end = rs;
		} else if (re < r.end) {
			avail[i].start = re;
		} else {
			avail[i] = avail[--nr_avail];
			i--;
		}
	}
}

static void sort(struct mm_range *list, int n)
{
	for (int i = 1; i < n; i++) {
		struct mm_range r = list[i];
		int j = i;

		for (; j > 0 && list[j - 1].start > r.start; j--)
			list[j] = list[j - 1];
		list[j] = r;
	}
}

void memmap_init(void)
{
	const struct boot_info *bi = &boot_info_parsed;

	nr_ram = nr_avail = 0;
	for (int i = 0; i < bi->nr_mmap; i++) {
		const struct mmap_entry *e = &bi->mmap[i];

		if (e->type != MMAP_AVAILABLE)
			continue;
		add_ram(e->base, e->base + e->len);
		if (e->base + e->len > (4ULL << 30))
			map_ram(e->base, e->len);
	}
	sort(ram, nr_ram);
	for (int i = 0; i < nr_ram; i++) {
		uint64_t s = (ram[i].start + MM_PAGE_SIZE - 1) &
			     ~(uint64_t)(MM_PAGE_SIZE - 1);
		uint64_t e = ram[i].end & ~(uint64_t)(MM_PAGE_SIZE - 1);

		push(avail, &nr_avail, s, e, ram[i].nid);
	}
	reserve(0, 1ULL << 20);
	reserve((uintptr_t)__kernel_start, (uintptr_t)__kernel_end);
	for (int i = 0; i < bi->nr_keep; i++)
		reserve(bi->keep[i].start, bi->keep[i].end);
	for (int i = 0; i < acpi.nr_tables; i++)
		reserve(acpi.tables[i].start, acpi.tables[i].end);
	if (acpi.rsdp)
		reserve(acpi.rsdp, acpi.rsdp + 36);
	sort(avail, nr_avail);
}

int memmap_ram_ranges(const struct mm_range **out)
{
	*out = ram;
	return nr_ram;
}

int memmap_free_ranges(const struct mm_range **out)
{
	*out = avail;
	return nr_avail;
}

uint64_t memmap_node_bytes(int node)
{
	uint64_t sum = 0;

	for (int i = 0; i < nr_ram; i++)
		if (node < 0 || ram[i].nid == node)
			sum += ram[i].end - ram[i].start;
	return sum;
}
