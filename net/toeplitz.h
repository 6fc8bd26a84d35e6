/*
 * The Toeplitz hash of receive-side scaling, in software: the function a
 * NIC with RSS computes over a frame's flow to choose its queue. The
 * stack computes the same value to check the device (net/rss_check.c)
 * and to choose, for a connection it opens, a source port whose answers
 * the device steers back to the opening CPU.
 *
 * The input is the flow as the receiver sees it, every field in network
 * byte order, in this order: source address, destination address, then
 * for TCP and UDP (the 4-tuple hash) source port and destination port.
 * Only the addresses: the 2-tuple hash, for other IP packets and for
 * fragments.
 */
#ifndef NET_TOEPLITZ_H
#define NET_TOEPLITZ_H

#include <stddef.h>
#include <stdint.h>

/* The RSS key: 320 bits, enough for the longest input (IPv6 4-tuple,
 * 36 bytes = 288 bits) plus the 32-bit window. */
#define TOEPLITZ_KEY_LEN   40
#define TOEPLITZ_INPUT_MAX 36

/**
 * toeplitz_hash - the Toeplitz hash of @len input bytes under @key.
 * For every input bit that is set, from the first byte's most
 * significant bit on, the 32 key bits starting at that bit's position
 * are XORed into the result. @len is at most TOEPLITZ_INPUT_MAX.
 * Context: any; pure.
 */
uint32_t toeplitz_hash(const uint8_t key[TOEPLITZ_KEY_LEN], const uint8_t *in,
		       size_t len);

/**
 * toeplitz_key_window - the 32 key bits from bit @bit on (bit 0: the
 * first byte's most significant), zeros past the key's end: what input
 * bit @bit XORs into the hash when set. As the hash is linear over XOR,
 * a caller that varies one field only (a port) can hash the rest once
 * and add the field's bits window by window. Context: any; pure.
 */
uint32_t toeplitz_key_window(const uint8_t key[TOEPLITZ_KEY_LEN],
			     unsigned int bit);

/* The IPv4 hashes: addresses as 4 bytes in network order (as on the
 * wire), ports in host order. */
uint32_t toeplitz_ipv4(const uint8_t key[TOEPLITZ_KEY_LEN],
		       const uint8_t src[4], const uint8_t dst[4]);
uint32_t toeplitz_ipv4_ports(const uint8_t key[TOEPLITZ_KEY_LEN],
			     const uint8_t src[4], const uint8_t dst[4],
			     uint16_t sport, uint16_t dport);

/* The IPv6 hashes: addresses as 16 bytes in network order. */
uint32_t toeplitz_ipv6(const uint8_t key[TOEPLITZ_KEY_LEN],
		       const uint8_t src[16], const uint8_t dst[16]);
uint32_t toeplitz_ipv6_ports(const uint8_t key[TOEPLITZ_KEY_LEN],
			     const uint8_t src[16], const uint8_t dst[16],
			     uint16_t sport, uint16_t dport);

#endif /* NET_TOEPLITZ_H */
