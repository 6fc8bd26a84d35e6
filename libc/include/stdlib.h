/* Freestanding C library: number parsing only (no heap here: use mm/). */
#ifndef KLIBC_STDLIB_H
#define KLIBC_STDLIB_H

#include <stddef.h>

int atoi(const char *s);
long strtol(const char *s, char **end, int base);
unsigned long strtoul(const char *s, char **end, int base);

#endif
