/*
 * lwIP's compiler/platform header for this kernel (freestanding x86_64).
 *
 * lwIP includes this first, before anything else of its own. It says which
 * C library pieces we lack (no <inttypes.h>, no <ctype.h>), how to print
 * lwIP's integer types, the byte order, where diagnostics and failed
 * assertions go, and where random numbers come from.
 */
#ifndef NET_ARCH_CC_H
#define NET_ARCH_CC_H

#include <stddef.h>
#include <stdint.h>

/* Our libc (libc/) has no <inttypes.h>; lwIP then wants these formats. */
#define LWIP_NO_INTTYPES_H 1
#define X8_F		   "02x"
#define U16_F		   "u"
#define S16_F		   "d"
#define X16_F		   "x"
#define U32_F		   "u"
#define S32_F		   "d"
#define X32_F		   "x"
#define SZT_F		   "lu"

/* No <ctype.h> either: lwIP brings its own isdigit() and friends. */
#define LWIP_NO_CTYPE_H 1

/* lwIP's global state is thread-local (net/lwip-patches/0016): each CPU
 * reaches its copy through its FS base (kernel/tls.h). */
#define LWIP_PERCPU __thread

/* Do NOT define SSIZE_MAX: lwIP's arch.h would then include <unistd.h>. */

#define BYTE_ORDER LITTLE_ENDIAN

/* One instruction instead of lwIP's generic shifting code. */
#define lwip_htons(x) ((u16_t)__builtin_bswap16((u16_t)(x)))
#define lwip_htonl(x) ((u32_t)__builtin_bswap32((u32_t)(x)))

void net_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void net_assert_fail(const char *msg, const char *file, int line);
uint32_t net_rand(void);

/* lwIP passes a parenthesised printf argument list: LWIP_PLATFORM_DIAG(("x%d", 1)). */
#define LWIP_PLATFORM_DIAG(x) \
	do {                  \
		net_diag x;   \
	} while (0)
#define LWIP_PLATFORM_ASSERT(x) net_assert_fail((x), __FILE__, __LINE__)
#define LWIP_RAND()		((u32_t)net_rand())

#endif /* NET_ARCH_CC_H */
