/*
 * The RSS hash of a received frame, computed in software the way the
 * device computes it (Toeplitz, net/toeplitz.h), so the stack can check
 * the hash the device reports (boot key net_rss_check=on; counted per
 * queue as rx_rss_hash_checked and rx_rss_hash_mismatch).
 */
#ifndef NET_RSS_CHECK_H
#define NET_RSS_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "toeplitz.h"

/**
 * rss_frame_hash - the RSS hash of an Ethernet frame under @key.
 * @frame: from its (untagged) Ethernet header, @len bytes in one buffer.
 * @ports: the device hashed TCP or UDP ports too (its 4-tuple kind);
 *	   false: the addresses only.
 * @hash: set when the function returns true.
 *
 * True for IPv4 (any header length) or IPv6 with the fields present;
 * with @ports, only for a TCP or UDP packet that is not an IPv4
 * fragment, and in IPv6 only when TCP or UDP follows the fixed header
 * (a frame with extension headers is not hashed here: false). Reads
 * nothing outside [@frame, @frame + @len). Context: any.
 */
bool rss_frame_hash(const uint8_t key[TOEPLITZ_KEY_LEN], const void *frame,
		    uint32_t len, bool ports, uint32_t *hash);

#endif /* NET_RSS_CHECK_H */
