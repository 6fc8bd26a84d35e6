/*
 * Freestanding C library: vsnprintf, the one formatter behind snprintf, kprintf and
 * mm_printf. It writes through a small cursor that counts every byte the
 * full output needs but stores only what fits, which gives C99's return
 * value for free.
 */
#include <stdio.h>
#include <stdint.h>
#include <stdbool.h>
#include <string.h>

struct out {
	char *buf;
	size_t size;
	size_t len; /* bytes the complete output needs so far */
};

static void put(struct out *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static void pad(struct out *o, char c, int n)
{
	while (n-- > 0)
		put(o, c);
}

struct spec {
	bool left;  /* '-' */
	bool zero;  /* '0' */
	bool plus;  /* '+' */
	bool space; /* ' ' */
	bool alt;   /* '#' */
	int width;
	int prec; /* -1: none */
};

/* One number: digits into a scratch buffer backwards, then sign/prefix,
 * padding and digits in the order the flags ask for. */
static void put_num(struct out *o, const struct spec *sp, unsigned long long v,
		    bool neg, unsigned base, bool upper, const char *prefix)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24];
	int n = 0, plen = (int)strlen(prefix), zeros = 0, total;
	char sign = neg ? '-' : sp->plus ? '+' : sp->space ? ' ' : 0;

	do {
		tmp[n++] = digits[v % base];
		v /= base;
	} while (v);
	if (sp->prec > n)
		zeros = sp->prec - n;
	total = n + zeros + plen + (sign ? 1 : 0);
	if (sp->zero && !sp->left && sp->prec < 0 && sp->width > total) {
		zeros += sp->width - total;
		total = sp->width;
	}
	if (!sp->left)
		pad(o, ' ', sp->width - total);
	if (sign)
		put(o, sign);
	while (*prefix)
		put(o, *prefix++);
	pad(o, '0', zeros);
	while (n)
		put(o, tmp[--n]);
	if (sp->left)
		pad(o, ' ', sp->width - total);
}

static void put_str(struct out *o, const struct spec *sp, const char *s)
{
	int n;

	if (!s)
		s = "(null)";
	n = (int)(sp->prec >= 0 ? strnlen(s, (size_t)sp->prec) : strlen(s));
	if (!sp->left)
		pad(o, ' ', sp->width - n);
	for (int i = 0; i < n; i++)
		put(o, s[i]);
	if (sp->left)
		pad(o, ' ', sp->width - n);
}

/* Reads flags, width and precision at *fmt; returns the first byte after. */
static const char *parse_spec(const char *f, struct spec *sp, va_list *ap)
{
	memset(sp, 0, sizeof(*sp));
	sp->prec = -1;
	for (;; f++) {
		if (*f == '-')
			sp->left = true;
		else if (*f == '0')
			sp->zero = true;
		else if (*f == '+')
			sp->plus = true;
		else if (*f == ' ')
			sp->space = true;
		else if (*f == '#')
			sp->alt = true;
		else
			break;
	}
	if (*f == '*') {
		sp->width = va_arg(*ap, int);
		if (sp->width < 0) {
			sp->left = true;
			sp->width = -sp->width;
		}
		f++;
	}
	while (*f >= '0' && *f <= '9')
		sp->width = sp->width * 10 + (*f++ - '0');
	if (*f == '.') {
		f++;
		sp->prec = 0;
		if (*f == '*') {
			sp->prec = va_arg(*ap, int);
			f++;
		}
		while (*f >= '0' && *f <= '9')
			sp->prec = sp->prec * 10 + (*f++ - '0');
	}
	return f;
}

/* Length modifier: returns the size class (0 int, 1 long, 2 long long,
 * -1 short, -2 char) and advances *fmt past it. */
static int parse_length(const char **fmt)
{
	const char *f = *fmt;
	int len = 0;

	if (f[0] == 'l' && f[1] == 'l') {
		len = 2;
		f += 2;
	} else if (f[0] == 'h' && f[1] == 'h') {
		len = -2;
		f += 2;
	} else if (*f == 'l' || *f == 'z' || *f == 't' || *f == 'j') {
		len = (*f == 'j') ? 2 : 1;
		f++;
	} else if (*f == 'h') {
		len = -1;
		f++;
	}
	*fmt = f;
	return len;
}

static long long get_signed(va_list *ap, int len)
{
	switch (len) {
	case 2:
		return va_arg(*ap, long long);
	case 1:
		return va_arg(*ap, long);
	case -1:
		return (short)va_arg(*ap, int);
	case -2:
		return (signed char)va_arg(*ap, int);
	default:
		return va_arg(*ap, int);
	}
}

static unsigned long long get_unsigned(va_list *ap, int len)
{
	switch (len) {
	case 2:
		return va_arg(*ap, unsigned long long);
	case 1:
		return va_arg(*ap, unsigned long);
	case -1:
		return (unsigned short)va_arg(*ap, unsigned int);
	case -2:
		return (unsigned char)va_arg(*ap, unsigned int);
	default:
		return va_arg(*ap, unsigned int);
	}
}

/* One conversion after its spec and length; returns false for an unknown
 * conversion character (printed literally so the mistake shows). */
static bool convert(struct out *o, struct spec *sp, int len, char c,
		    va_list *ap)
{
	long long s;
	unsigned long long u;
	char ch[2] = {0, 0};

	switch (c) {
	case 'd':
	case 'i':
		s = get_signed(ap, len);
		u = s < 0 ? 0ULL - (unsigned long long)s
			  : (unsigned long long)s;
		put_num(o, sp, u, s < 0, 10, false, "");
		return true;
	case 'u':
		put_num(o, sp, get_unsigned(ap, len), false, 10, false, "");
		return true;
	case 'x':
	case 'X':
		u = get_unsigned(ap, len);
		put_num(o, sp, u, false, 16, c == 'X',
			sp->alt && u ? (c == 'X' ? "0X" : "0x") : "");
		return true;
	case 'o':
		put_num(o, sp, get_unsigned(ap, len), false, 8, false,
			sp->alt ? "0" : "");
		return true;
	case 'p':
		u = (uintptr_t)va_arg(*ap, void *);
		put_num(o, sp, u, false, 16, false, "0x");
		return true;
	case 's':
		put_str(o, sp, va_arg(*ap, const char *));
		return true;
	case 'c':
		ch[0] = (char)va_arg(*ap, int);
		sp->prec = -1;
		put_str(o, sp, ch);
		return true;
	case '%':
		put(o, '%');
		return true;
	default:
		return false;
	}
}

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct out o = {buf, size, 0};
	struct spec sp;
	va_list ap2;
	const char *start;
	int len;

	va_copy(ap2, ap);
	while (*fmt) {
		if (*fmt != '%') {
			put(&o, *fmt++);
			continue;
		}
		start = fmt++;
		fmt = parse_spec(fmt, &sp, &ap2);
		len = parse_length(&fmt);
		if (*fmt && convert(&o, &sp, len, *fmt, &ap2)) {
			fmt++;
			continue;
		}
		while (start < fmt)
			put(&o, *start++);
	}
	va_end(ap2);
	if (size)
		buf[o.len < size ? o.len : size - 1] = '\0';
	return (int)o.len;
}

int snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}
