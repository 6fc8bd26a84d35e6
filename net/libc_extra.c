/*
 * C library functions lwIP needs that the kernel libc (kernel/libc) does
 * not provide. Weak, so a kernel libc that gains one wins the link.
 */
#include <string.h>

/* First occurrence of needle in haystack (httpd's error-page lookup). */
__attribute__((weak)) char *strstr(const char *haystack, const char *needle)
{
	size_t n = strlen(needle);

	for (; *haystack; haystack++)
		if (strncmp(haystack, needle, n) == 0)
			return (char *)haystack;
	return n ? NULL : (char *)haystack;
}
