/*
 * The freestanding C library, string and memory functions: used by the
 * kernel, mm/ (kernel world), the drivers, net/ and lwIP; it uses nothing
 * itself. gcc may also emit calls to memcpy/memset for struct copies, so
 * these must exist even where no source calls them. Byte loops keep them
 * obviously correct. memcpy, which lwIP's stock mode runs over every
 * received frame, and memcmp, which the TX merge runs over every sent
 * segment's headers, have files of their own (memcpy.c, memcmp.c).
 */
#include <string.h>
#include <stdint.h>

void *memmove(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if (d == s || n == 0)
		return dst;
	if (d < s) {
		/* forward: memcpy's order is safe when the source is above */
		if ((((uintptr_t)d | (uintptr_t)s) & 7) == 0) {
			for (; n >= 8; n -= 8, d += 8, s += 8)
				*(uint64_t *)(void *)d =
					*(const uint64_t *)(const void *)s;
		}
		while (n--)
			*d++ = *s++;
	} else {
		while (n--)
			d[n] = s[n];
	}
	return dst;
}

void *memset(void *dst, int c, size_t n)
{
	unsigned char *d = dst;

	if (((uintptr_t)d & 7) == 0) {
		uint64_t v = 0x0101010101010101ULL * (unsigned char)c;

		for (; n >= 8; n -= 8, d += 8)
			*(uint64_t *)(void *)d = v;
	}
	while (n--)
		*d++ = (unsigned char)c;
	return dst;
}

size_t strlen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

size_t strnlen(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

int strcmp(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return (unsigned char)*a - (unsigned char)*b;
}

int strncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++) {
		if (*a != *b || !*a)
			return (unsigned char)*a - (unsigned char)*b;
	}
	return 0;
}

/* First byte c in the n bytes at s (the HTTP server's request parser). */
void *memchr(const void *s, int c, size_t n)
{
	const unsigned char *p = s;

	for (; n; n--, p++)
		if (*p == (unsigned char)c)
			return (void *)p;
	return NULL;
}

char *strchr(const char *s, int c)
{
	for (;; s++) {
		if (*s == (char)c)
			return (char *)s;
		if (!*s)
			return NULL;
	}
}

/* First occurrence of needle in haystack; an empty needle matches at the
 * start. */
char *strstr(const char *haystack, const char *needle)
{
	size_t n = strlen(needle);

	for (; *haystack; haystack++)
		if (strncmp(haystack, needle, n) == 0)
			return (char *)haystack;
	return n ? NULL : (char *)haystack;
}
