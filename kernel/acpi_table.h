/*
 * Reading ACPI table fields: little-endian and not necessarily aligned,
 * so each is copied out rather than read through a cast pointer.
 */
#ifndef KERNEL_ACPI_TABLE_H
#define KERNEL_ACPI_TABLE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static inline uint32_t table_u32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static inline uint64_t table_u64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

/* Is there a MADT or SRAT entry at p, before end: its type and length
 * bytes, and all the length says? An entry shorter than its fields is
 * then skipped by its reader, which checks p[1] for its type. */
static inline bool table_entry_at(const uint8_t *p, const uint8_t *end)
{
	return end - p >= 2 && p[1] >= 2 && p[1] <= end - p;
}

#endif
