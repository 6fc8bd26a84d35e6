/*
 * struct page initialisation: at boot for the first part of each node,
 * the rest deferred (Linux's deferred struct page init).
 *
 * A node's mem_map holds a 64-byte struct page per 4 KiB frame of its
 * span: 4 GiB of stores for 256 GiB of RAM, which took most of a big
 * machine's boot (docs/page_alloc.md has the figures). So mm_init() has
 * page_init_boot() initialise only the struct pages up to where the
 * node's first mm_boot_init_pages usable frames end, rounded up to a
 * MAX_ORDER block, and hand those frames to the buddy lists. The rest of
 * the span follows a chunk at a time: mm_deferred_init_work() from the
 * node's own CPUs in the background, or zone_grow() from an allocation
 * that found its zone empty and initialises the next chunk itself.
 *
 * A chunk is claimed under the zone's deferred_lock (deferred_next moves
 * past it), initialised with no lock held, and its frames go onto the
 * buddy lists under the zone lock. Nothing else touches its struct pages
 * meanwhile: none of its frames has been handed out, and the debug
 * lookups ask zone_pfn_initialised() first. Chunks start on MAX_ORDER
 * boundaries and buddies never merge past MAX_ORDER, so a merge never
 * reads a struct page outside its own chunk. The free lists therefore
 * hold only initialised pages: the allocator never hands out another.
 */
#include <string.h>

#include "zone.h"

/* The machine's usable ranges, as pfns, sorted by start (mm_init sets). */
static struct pfn_range {
	unsigned long s, e;
	int nid;
} ranges[MM_MAX_RANGES];
static int nr_ranges;
static unsigned long boot_init_pages = MM_BOOT_INIT_PAGES;

void mm_set_boot_init_pages(unsigned long pages)
{
	boot_init_pages = pages;
}

void page_init_ranges(const struct mm_range *r, int nr)
{
	nr_ranges = 0;
	for (int i = 0; i < nr && i < MM_MAX_RANGES; i++) {
		unsigned long s =
			(r[i].start + MM_PAGE_SIZE - 1) >> MM_PAGE_SHIFT;
		unsigned long e = r[i].end >> MM_PAGE_SHIFT;
		int j = nr_ranges;

		if (e <= s)
			continue;
		for (; j > 0 && ranges[j - 1].s > s; j--)
			ranges[j] = ranges[j - 1];
		ranges[j] = (struct pfn_range){s, e, r[i].nid};
		nr_ranges++;
	}
}

/* The usable frames of zone z in [lo, hi), in address order: its ranges
 * less the pages holding its mem_map. Fills out[] (room for two pieces
 * per range); returns how many pieces. */
static int usable_pieces(const struct zone *z, unsigned long lo,
			 unsigned long hi, struct pfn_range *out)
{
	int n = 0;

	for (int i = 0; i < nr_ranges; i++) {
		unsigned long s = ranges[i].s > lo ? ranges[i].s : lo;
		unsigned long e = ranges[i].e < hi ? ranges[i].e : hi;
		unsigned long cut_s = e < z->carve_start ? e : z->carve_start;
		unsigned long cut_e = s > z->carve_end ? s : z->carve_end;

		if (ranges[i].nid != z->nid || s >= e)
			continue;
		if (s < cut_s)
			out[n++] = (struct pfn_range){s, cut_s, z->nid};
		if (cut_e < e)
			out[n++] = (struct pfn_range){cut_e, e, z->nid};
	}
	return n;
}

/* [s, e)'s struct pages as they start out: on z's node, all fields zero
 * but the flags (PG_reserved, or 0 for a frame going to a free list). */
static void init_struct_pages(struct zone *z, unsigned long s, unsigned long e,
			      uint16_t flags)
{
	struct page *p = zone_pfn_page(z, s);

	for (unsigned long i = 0; i < e - s; i++)
		p[i] = (struct page){.flags = flags, .nid = (uint8_t)z->nid};
}

/* [s, e) onto the buddy lists in the largest aligned blocks; zone lock
 * held. */
static void free_frames(struct zone *z, unsigned long s, unsigned long e)
{
	while (s < e) {
		unsigned int order =
			s ? (unsigned int)__builtin_ctzl(s) : MAX_ORDER;

		if (order > MAX_ORDER)
			order = MAX_ORDER;
		while (s + (1UL << order) > e)
			order--;
		__free_one_page(z, zone_pfn_page(z, s), order);
		s += 1UL << order;
	}
}

/* Initialises the struct pages of [s, e) and puts its usable frames on
 * the buddy lists. Returns how many frames that was. */
static unsigned long init_window(struct zone *z, unsigned long s,
				 unsigned long e)
{
	struct pfn_range piece[2 * MM_MAX_RANGES];
	int n = usable_pieces(z, s, e, piece);
	unsigned long at = s, freed = 0, flags;

	for (int i = 0; i < n; i++) {
		init_struct_pages(z, at, piece[i].s, PG_reserved);
		init_struct_pages(z, piece[i].s, piece[i].e, 0);
		at = piece[i].e;
	}
	init_struct_pages(z, at, e, PG_reserved);
	flags = mm_spin_lock_irqsave(&z->lock);
	for (int i = 0; i < n; i++) {
		free_frames(z, piece[i].s, piece[i].e);
		freed += piece[i].e - piece[i].s;
	}
	mm_spin_unlock_irqrestore(&z->lock, flags);
	atomic_fetch_sub_explicit(&z->deferred_pages, freed,
				  memory_order_release);
	return freed;
}

/* The end of the boot part of zone z: the MAX_ORDER block in which its
 * boot_init_pages-th usable frame lies ends there (the span's end if the
 * zone has no more). */
static unsigned long boot_part_end(const struct zone *z)
{
	struct pfn_range piece[2 * MM_MAX_RANGES];
	unsigned long end = z->start_pfn + z->spanned_pages;
	int n = usable_pieces(z, z->start_pfn, end, piece);
	unsigned long left = boot_init_pages;

	for (int i = 0; i < n; i++) {
		unsigned long len = piece[i].e - piece[i].s;

		if (len >= left) {
			unsigned long b = piece[i].s + left;
			unsigned long block = 1UL << MAX_ORDER;

			b = (b + block - 1) & ~(block - 1);
			return b < end ? b : end;
		}
		left -= len;
	}
	return end;
}

void page_init_boot(struct zone *z)
{
	struct pfn_range piece[2 * MM_MAX_RANGES];
	unsigned long end = z->start_pfn + z->spanned_pages;
	int n = usable_pieces(z, z->start_pfn, end, piece);
	unsigned long boot_end = boot_part_end(z);

	z->managed_pages = 0;
	for (int i = 0; i < n; i++)
		z->managed_pages += piece[i].e - piece[i].s;
	mm_spin_init(&z->deferred_lock);
	atomic_store(&z->deferred_pages, z->managed_pages);
	atomic_store(&z->deferred_next, boot_end);
	init_window(z, z->start_pfn, boot_end);
}

/* Claims the zone's next chunk: [*s, *e). False when none is left. */
static bool claim_chunk(struct zone *z, unsigned long *s, unsigned long *e)
{
	unsigned long end = z->start_pfn + z->spanned_pages;
	unsigned long flags = mm_spin_lock_irqsave(&z->deferred_lock);

	*s = atomic_load_explicit(&z->deferred_next, memory_order_relaxed);
	*e = *s + MM_DEFERRED_CHUNK_PAGES < end ? *s + MM_DEFERRED_CHUNK_PAGES
						: end;
	if (*s < end)
		atomic_store_explicit(&z->deferred_next, *e,
				      memory_order_relaxed);
	mm_spin_unlock_irqrestore(&z->deferred_lock, flags);
	return *s < end;
}

bool zone_grow(struct zone *z)
{
	unsigned long s, e;

	while (zone_has_deferred(z) && claim_chunk(z, &s, &e))
		if (init_window(z, s, e))
			return true;
	return false;
}

bool zone_pfn_initialised(struct zone *z, unsigned long pfn)
{
	return pfn <
	       atomic_load_explicit(&z->deferred_next, memory_order_acquire);
}

unsigned long mm_deferred_init_work(int nid, unsigned long max_pages)
{
	unsigned long done = 0, s, e;

	if (nid < 0 || nid >= mm_nr_zones)
		return 0;
	while (done < max_pages && claim_chunk(&mm_zones[nid], &s, &e)) {
		init_window(&mm_zones[nid], s, e);
		done += e - s;
	}
	return done;
}

unsigned long mm_deferred_pages(int nid)
{
	unsigned long n = 0;

	for (int i = 0; i < mm_nr_zones; i++)
		if (nid < 0 || nid == i)
			n += atomic_load_explicit(&mm_zones[i].deferred_pages,
						  memory_order_acquire);
	return n;
}

void mm_deferred_init_all(void)
{
	for (int nid = 0; nid < mm_nr_zones; nid++)
		while (mm_deferred_init_work(nid, ~0UL))
			;
	/* Chunks other CPUs claimed finish without waiting for anything. */
	while (mm_deferred_pages(-1))
		mm_cpu_relax();
}
