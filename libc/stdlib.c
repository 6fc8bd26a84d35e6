/* Freestanding C library: number parsing (command line values, lwIP's atoi). */
#include <stdlib.h>
#include <limits.h>

static int digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'Z')
		return c - 'A' + 10;
	return 99;
}

/*
 * strtoul - parse an unsigned number: optional spaces, '+', "0x" prefix for
 * base 16 or 0; base 0 also takes a leading 0 as octal. Saturates at
 * ULONG_MAX. *end (if not NULL) points after the last digit used, or at s
 * when there was none.
 */
unsigned long strtoul(const char *s, char **end, int base)
{
	const char *p = s;
	unsigned long v = 0;
	int any = 0, over = 0, d;

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '+')
		p++;
	if ((base == 0 || base == 16) && p[0] == '0' &&
	    (p[1] == 'x' || p[1] == 'X') && digit_value(p[2]) < 16) {
		p += 2;
		base = 16;
	} else if (base == 0) {
		base = (p[0] == '0') ? 8 : 10;
	}
	for (; (d = digit_value(*p)) < base; p++) {
		any = 1;
		if (v > (ULONG_MAX - (unsigned long)d) / (unsigned long)base)
			over = 1;
		v = v * (unsigned long)base + (unsigned long)d;
	}
	if (end)
		*end = (char *)(any ? p : s);
	return over ? ULONG_MAX : v;
}

long strtol(const char *s, char **end, int base)
{
	const char *p = s;
	int neg = 0;
	unsigned long v;
	char *e;

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '-' || *p == '+')
		neg = (*p++ == '-');
	v = strtoul(p, &e, base);
	if (end)
		*end = (e == p) ? (char *)s : e;
	if (neg)
		return v >= (unsigned long)LONG_MAX + 1 ? LONG_MIN : -(long)v;
	return v > (unsigned long)LONG_MAX ? LONG_MAX : (long)v;
}

int atoi(const char *s)
{
	return (int)strtol(s, NULL, 10);
}
