/*
 * The memory lists. ram[] is the boot loader's available RAM; avail[] is
 * the same cut to whole pages minus every reservation and every early
 * allocation. Both stay sorted by address. ACPI later cuts both at SRAT
 * boundaries (memmap_set_node), and the direct map (kernel/direct_map.c)
 * drops what lies past the RAM ceiling or cannot be mapped.
 *
 * The early allocator takes pages off the top of avail[]: the direct
 * map's page tables, before the page allocator exists. What it took is
 * simply no longer in avail[], so the page allocator never sees it.
 */
#include "kernel/memmap.h"
#include "kernel/console.h"
#include "kernel/multiboot.h"
#include <string.h>

extern char __kernel_start[], __kernel_end[];

static struct mm_range ram[MEMMAP_MAX_RANGES], avail[MEMMAP_MAX_RANGES];
static int nr_ram, nr_avail;
static unsigned long early_pages;

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

/* Removes [rs, re) from list. */
static void cut_out(struct mm_range *list, int *n, uint64_t rs, uint64_t re)
{
	for (int i = 0; i < *n; i++) {
		struct mm_range r = list[i];

		if (re <= r.start || rs >= r.end)
			continue;
		if (rs > r.start && re < r.end) {
			list[i].end = rs;
			push(list, n, re, r.end, r.nid);
		} else if (rs > r.start) {
			list[i].end = rs;
		} else if (re < r.end) {
			list[i].start = re;
		} else {
			list[i] = list[--*n];
			i--;
		}
	}
	sort(list, *n);
}

void memmap_reserve(uint64_t start, uint64_t end)
{
	start &= ~(uint64_t)(MM_PAGE_SIZE - 1);
	end = (end + MM_PAGE_SIZE - 1) & ~(uint64_t)(MM_PAGE_SIZE - 1);
	cut_out(avail, &nr_avail, start, end);
}

void memmap_init(void)
{
	const struct boot_info *bi = &boot_info_parsed;

	nr_ram = nr_avail = 0;
	for (int i = 0; i < bi->nr_mmap; i++) {
		const struct mmap_entry *e = &bi->mmap[i];
		uint64_t s = (e->base + MM_PAGE_SIZE - 1) &
			     ~(uint64_t)(MM_PAGE_SIZE - 1);
		uint64_t end =
			(e->base + e->len) & ~(uint64_t)(MM_PAGE_SIZE - 1);

		if (e->type != MMAP_AVAILABLE)
			continue;
		push(ram, &nr_ram, e->base, e->base + e->len, 0);
		push(avail, &nr_avail, s, end, 0);
	}
	sort(ram, nr_ram);
	sort(avail, nr_avail);
	memmap_reserve(0, 1ULL << 20);
	memmap_reserve((uintptr_t)__kernel_start, (uintptr_t)__kernel_end);
	for (int i = 0; i < bi->nr_keep; i++)
		memmap_reserve(bi->keep[i].start, bi->keep[i].end);
}

/* Cuts every range of list that holds addr inside it in two there. */
static void split_at(struct mm_range *list, int *n, uint64_t addr)
{
	for (int i = 0; i < *n; i++) {
		if (list[i].start < addr && addr < list[i].end) {
			push(list, n, addr, list[i].end, list[i].nid);
			list[i].end = addr;
		}
	}
	sort(list, *n);
}

static void set_node(struct mm_range *list, int *n, uint64_t start,
		     uint64_t end, int nid)
{
	split_at(list, n, start);
	split_at(list, n, end);
	for (int i = 0; i < *n; i++)
		if (list[i].start >= start && list[i].end <= end)
			list[i].nid = nid;
}

void memmap_set_node(uint64_t start, uint64_t end, int nid)
{
	set_node(ram, &nr_ram, start, end, nid);
	set_node(avail, &nr_avail, start, end, nid);
}

uint64_t memmap_drop_from(uint64_t addr, uint64_t *lowest)
{
	uint64_t dropped = 0;

	for (int i = 0; i < nr_ram; i++) {
		uint64_t s = ram[i].start > addr ? ram[i].start : addr;

		if (s >= ram[i].end)
			continue;
		if (!dropped) /* ram[] is sorted: the first is the lowest */
			*lowest = s;
		dropped += ram[i].end - s;
	}
	cut_out(ram, &nr_ram, addr, UINT64_MAX);
	cut_out(avail, &nr_avail, addr, UINT64_MAX);
	return dropped;
}

/* The top `bytes` of the highest free range below limit on node nid
 * (any node when nid < 0), cut out of the list; 0 when none has room. */
static uint64_t take_top(uint64_t bytes, int nid, uint64_t limit)
{
	for (int i = nr_avail - 1; i >= 0; i--) {
		uint64_t top = avail[i].end < limit ? avail[i].end : limit;

		if (nid >= 0 && avail[i].nid != nid)
			continue;
		if (top < avail[i].start + bytes)
			continue;
		top -= bytes;
		cut_out(avail, &nr_avail, top, top + bytes);
		early_pages += bytes / MM_PAGE_SIZE;
		return top;
	}
	return 0;
}

uint64_t memmap_alloc_early(uint64_t limit)
{
	return take_top(MM_PAGE_SIZE, -1, limit);
}

uint64_t memmap_alloc_early_node(uint64_t bytes, int nid, uint64_t limit)
{
	uint64_t pa;

	bytes = (bytes + MM_PAGE_SIZE - 1) & ~(uint64_t)(MM_PAGE_SIZE - 1);
	pa = take_top(bytes, nid, limit);
	return pa ? pa : take_top(bytes, -1, limit);
}

unsigned long memmap_early_pages(void)
{
	return early_pages;
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

int memmap_node_of(uint64_t pa)
{
	for (int i = 0; i < nr_ram; i++)
		if (pa >= ram[i].start && pa < ram[i].end)
			return ram[i].nid;
	return -1;
}

uint64_t memmap_node_bytes(int node)
{
	uint64_t sum = 0;

	for (int i = 0; i < nr_ram; i++)
		if (node < 0 || ram[i].nid == node)
			sum += ram[i].end - ram[i].start;
	return sum;
}
