/*
 * Host world of the mm platform seam: topology and memory are whatever
 * mm_host_boot() was told; output goes to stderr.
 * (The page-allocator work completes this file with mm_host_boot.)
 */
#include <stdio.h>

#include "platform.h"

_Thread_local int mm_host_cpu;

void mm_vprintf(const char *fmt, va_list ap)
{
	vfprintf(stderr, fmt, ap);
}

int mm_vsnprintf(char *buf, size_t len, const char *fmt, va_list ap)
{
	return vsnprintf(buf, len, fmt, ap);
}
