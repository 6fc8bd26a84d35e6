/*
 * Kernel symbol lookup. The build links the kernel twice: the first image
 * has an empty table; `nm -n` of it becomes the table of the second
 * (tools/gen-ksyms, mk/kernel.mk). The table lives in .rodata after all
 * code, so adding it moves no function (the build checks that).
 */
#include "kernel/ksyms.h"
#include <stddef.h>

extern const uint64_t ksyms_count;
extern const uint64_t ksyms_addrs[];
extern const uint32_t ksyms_offsets[];
extern const char ksyms_names[];
extern char __text_end[];

const char *ksym_lookup(uintptr_t addr, uintptr_t *offset)
{
	uint64_t lo = 0, hi = ksyms_count;

	if (hi == 0 || addr < ksyms_addrs[0] || addr >= (uintptr_t)__text_end)
		return NULL;
	/* the last symbol at or below addr */
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (ksyms_addrs[mid] <= addr)
			lo = mid;
		else
			hi = mid;
	}
	*offset = addr - ksyms_addrs[lo];
	return ksyms_names + ksyms_offsets[lo];
}
