/*
 * strbuf: printf into a caller's buffer, piece after piece, with
 * snprintf's contract for the whole: what fits is stored (always
 * NUL-terminated when the buffer has a byte), everything is counted, so
 * a writer returns the length its complete text needs and a caller that
 * passed too small a buffer (or NULL and 0, to size one) learns how much
 * to give. Every text and JSON writer of the tree appends through it.
 *
 * The same source serves both worlds: in the kernel it formats with
 * libc/vsnprintf.c, in the host build of mm/ with the host's vsnprintf
 * (same C99 contract). No locks, no allocation: any context.
 */
#ifndef LIBC_STRBUF_H
#define LIBC_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

struct strbuf {
	char *buf;   /* the caller's buffer; NULL only when size is 0 */
	size_t size; /* its bytes, terminator included */
	size_t len;  /* bytes the text needs so far (may exceed size) */
};

/* strbuf_init - start an empty text in buf[size] (buf may be NULL when
 * size is 0: a sizing pass). Writes the terminator when size > 0. */
void strbuf_init(struct strbuf *sb, char *buf, size_t size);

/* strbuf_printf / strbuf_vprintf - append fmt's output: the bytes that
 * fit before the terminator are stored, all of them are counted. */
__attribute__((format(printf, 2, 3))) void strbuf_printf(struct strbuf *sb,
							 const char *fmt, ...);
void strbuf_vprintf(struct strbuf *sb, const char *fmt, va_list ap);

/*
 * strbuf_tail / strbuf_room / strbuf_skip - for a nested writer with
 * snprintf semantics of its own (fn(char *buf, size_t size)): call it as
 * fn(strbuf_tail(sb), strbuf_room(sb)) and count what it returned with
 * strbuf_skip(sb, n). The tail is NULL when no byte is left.
 */
char *strbuf_tail(const struct strbuf *sb);
size_t strbuf_room(const struct strbuf *sb);
void strbuf_skip(struct strbuf *sb, size_t n);

/* strbuf_done - terminate what was stored and return the length of the
 * whole text: the value snprintf would have returned. */
int strbuf_done(struct strbuf *sb);

#endif /* LIBC_STRBUF_H */
