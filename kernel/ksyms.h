/* Kernel symbol table for readable backtraces (built by tools/gen-ksyms). */
#ifndef KERNEL_KSYMS_H
#define KERNEL_KSYMS_H

#include <stdint.h>

/*
 * ksym_lookup - the name of the kernel function containing addr, and
 * addr's offset in it. Returns NULL when addr is outside every known
 * function. Any context (read-only table, no locks).
 */
const char *ksym_lookup(uintptr_t addr, uintptr_t *offset);

#endif
