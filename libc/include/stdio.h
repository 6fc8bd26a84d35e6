/* Freestanding C library: formatting into buffers (kprintf, mm_printf). */
#ifndef KLIBC_STDIO_H
#define KLIBC_STDIO_H

#include <stdarg.h>
#include <stddef.h>

/*
 * snprintf/vsnprintf - format into buf, C99 semantics: never writes more
 * than size bytes (terminator included), returns the length the full output
 * would have. Conversions: %d %i %u %x %X %o %p %s %c %%, flags '-' '0',
 * width (number or *), precision for %s, length modifiers h hh l ll z t.
 * Any context (no locks, no allocation).
 */
__attribute__((format(printf, 3, 4))) int snprintf(char *buf, size_t size,
						   const char *fmt, ...);
int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);

#endif
