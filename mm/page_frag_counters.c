/*
 * The page fragment allocator's per-CPU counters (page_frag_internal.h
 * says how they are bumped): their storage and their reset, on their own
 * so that the allocation side (page_frag.c) and the free side
 * (page_frag_free.c) both count into them and the free side needs
 * nothing of the allocation side.
 */
#include <string.h>

#include "page_frag_internal.h"

struct page_frag_cpu_stats page_frag_cpu_stats[MM_MAX_CPUS];

void page_frag_counters_forget(void)
{
	memset(page_frag_cpu_stats, 0, sizeof(page_frag_cpu_stats));
}
