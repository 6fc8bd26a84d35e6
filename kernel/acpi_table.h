/*
 * Reading ACPI table fields: little-endian and not necessarily aligned,
 * so each is copied out rather than read through a cast pointer.
 */
#ifndef KERNEL_ACPI_TABLE_H
#define KERNEL_ACPI_TABLE_H

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

#endif
