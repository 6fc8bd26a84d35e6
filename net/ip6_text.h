/*
 * IPv6 addresses as text (RFC 4291 section 2.2), for the command line's
 * ip6= and gw6=: eight groups of up to four hex digits separated by ':',
 * one "::" standing for one or more zero groups. No embedded IPv4 form
 * (::ffff:a.b.c.d) and no zone (%eth0): neither names an address a host
 * would be given here. Plain C with no machine in it (host-tested).
 */
#ifndef NET_IP6_TEXT_H
#define NET_IP6_TEXT_H

#include <stdbool.h>
#include <stdint.h>

/**
 * ip6_text_parse - read one IPv6 address from the start of @s.
 * @s:    text; parsing stops at the first byte that cannot continue the
 *        address ('\0', '/', ' ', ...)
 * @addr: the address, network byte order (addr[0] is the first byte);
 *        written only on success
 * @end:  if not NULL, set past the address on success
 * Return: true on success; false for a malformed address (a group of five
 * or more digits, two "::", too many or too few groups, a lone ':').
 */
bool ip6_text_parse(const char *s, uint8_t addr[16], const char **end);

/**
 * ip6_text_parse_prefix - read "ADDR/N" (N 1-128, the whole string).
 * Return: true on success, with @addr and @prefix set; false otherwise.
 */
bool ip6_text_parse_prefix(const char *s, uint8_t addr[16], int *prefix);

#endif /* NET_IP6_TEXT_H */
