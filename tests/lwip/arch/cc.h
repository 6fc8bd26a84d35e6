/*
 * lwIP's platform header for its unit tests on the host (tests/lwip/):
 * the C library is there, so only the diagnostics need saying. A failed
 * lwIP assertion aborts: the test runner (Check, fork mode) reports the
 * test that hit it as failed.
 */
#ifndef TESTS_LWIP_ARCH_CC_H
#define TESTS_LWIP_ARCH_CC_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>

/* The host's struct timeval and errno, not lwIP's private copies. */
#define LWIP_TIMEVAL_PRIVATE	     0
#define LWIP_ERRNO_STDINCLUDE	     1
#define LWIP_SOCKET_EXTERNAL_HEADERS 0

#define LWIP_PLATFORM_DIAG(x) \
	do {                  \
		printf x;     \
	} while (0)
#define LWIP_PLATFORM_ASSERT(x)                                            \
	do {                                                               \
		fprintf(stderr, "lwIP assertion \"%s\" failed at %s:%d\n", \
			(x), __FILE__, __LINE__);                          \
		abort();                                                   \
	} while (0)

#endif /* TESTS_LWIP_ARCH_CC_H */
