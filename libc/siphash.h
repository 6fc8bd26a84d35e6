/*
 * SipHash-2-4 (Aumasson and Bernstein, 2012): a keyed hash of a short
 * message into 64 bits, fast on short inputs and unpredictable to anyone
 * without the 128-bit key. The tree uses it where an outsider must not
 * guess an output from others (TCP initial sequence numbers:
 * net/tcp_isn.c). Pure arithmetic: any context, both worlds.
 */
#ifndef LIBC_SIPHASH_H
#define LIBC_SIPHASH_H

#include <stddef.h>
#include <stdint.h>

/**
 * siphash24 - SipHash-2-4 of @len bytes at @msg under @key (16 bytes,
 * read as two little-endian 64-bit words, as the reference does).
 * Returns the 64-bit hash (the reference's 8 output bytes, read
 * little-endian).
 */
uint64_t siphash24(const uint8_t key[16], const void *msg, size_t len);

#endif /* LIBC_SIPHASH_H */
