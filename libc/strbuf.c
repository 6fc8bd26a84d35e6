/*
 * strbuf (strbuf.h): an append cursor over a caller's buffer. len counts
 * every byte the text needs; only bytes below size - 1 are stored, so the
 * terminator always has its place and a cut text is still a string.
 */
#include "strbuf.h"

#include <stdio.h>

void strbuf_init(struct strbuf *sb, char *buf, size_t size)
{
	*sb = (struct strbuf){buf, size, 0};
	if (size)
		buf[0] = '\0';
}

char *strbuf_tail(const struct strbuf *sb)
{
	return sb->len < sb->size ? sb->buf + sb->len : NULL;
}

size_t strbuf_room(const struct strbuf *sb)
{
	return sb->len < sb->size ? sb->size - sb->len : 0;
}

void strbuf_skip(struct strbuf *sb, size_t n)
{
	sb->len += n;
}

void strbuf_vprintf(struct strbuf *sb, const char *fmt, va_list ap)
{
	/* vsnprintf stores at most room - 1 bytes and the terminator; with
	 * no room it only counts (NULL + 0 is never formed). */
	int n = vsnprintf(strbuf_tail(sb), strbuf_room(sb), fmt, ap);

	if (n > 0)
		sb->len += (size_t)n;
}

void strbuf_printf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vprintf(sb, fmt, ap);
	va_end(ap);
}

int strbuf_done(struct strbuf *sb)
{
	if (sb->size)
		sb->buf[sb->len < sb->size ? sb->len : sb->size - 1] = '\0';
	return (int)sb->len;
}
