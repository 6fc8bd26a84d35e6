/*
 * RFC 4861's validity checks for neighbour discovery messages. See
 * nd6_check.h.
 *
 * Every ND message shares four rules: it came from the link (hop limit
 * 255: a router would have decremented it), code 0, at least its fixed
 * part, and options that tile the rest exactly (none of length 0, none
 * past the end). Then each has its own, about who may send it and what
 * it may name: below, one case per message, with the RFC's section. A
 * message breaking any rule is dropped whole, before anything in it is
 * used: lwIP read options one by one and acted on those before a bad one.
 */
#include "nd6_check.h"

#include <stdbool.h>
#include <string.h>

#define OPT_SOURCE_LLADDR 1
#define NA_FLAG_SOLICITED 0x40

/* Bytes before the options: type, code, checksum, then the fields. */
static size_t fixed_len(uint8_t type)
{
	switch (type) {
	case ND6_TYPE_RS:
		return 8;
	case ND6_TYPE_RA:
		return 16;
	case ND6_TYPE_NS:
	case ND6_TYPE_NA:
		return 24;
	case ND6_TYPE_REDIRECT:
		return 40;
	default:
		return 0;
	}
}

static bool is_unspecified(const uint8_t a[16])
{
	static const uint8_t zero[16];

	return memcmp(a, zero, sizeof(zero)) == 0;
}

static bool is_multicast(const uint8_t a[16])
{
	return a[0] == 0xff;
}

static bool is_link_local(const uint8_t a[16]) /* fe80::/10 */
{
	return a[0] == 0xfe && (a[1] & 0xc0) == 0x80;
}

static bool is_solicited_node(const uint8_t a[16]) /* ff02::1:ff00:0/104 */
{
	static const uint8_t prefix[13] = {0xff, 0x02, 0, 0, 0,	   0,	0,
					   0,	 0,    0, 0, 0x01, 0xff};

	return memcmp(a, prefix, sizeof(prefix)) == 0;
}

/* The options from @off on tile the message exactly; *sllao: one of them
 * is a source link-layer address option. */
static bool options_valid(const struct nd6_msg *m, size_t off, bool *sllao)
{
	*sllao = false;
	while (off < m->len) {
		size_t olen;

		if (m->len - off < 2)
			return false; /* a byte or so that is no option */
		olen = (size_t)m->icmp[off + 1] * 8;
		if (olen == 0 || olen > m->len - off)
			return false;
		if (m->icmp[off] == OPT_SOURCE_LLADDR)
			*sllao = true;
		off += olen;
	}
	return true;
}

/* Each message's own rules (the shared ones hold). */
static enum nd6_verdict check_by_type(const struct nd6_msg *m, bool sllao)
{
	const uint8_t *target = m->icmp + 8; /* NS, NA, Redirect */
	const uint8_t *dest = m->icmp + 24;  /* Redirect */

	switch (m->icmp[0]) {
	case ND6_TYPE_RS: /* 6.1.1 */
		return is_unspecified(m->src) && sllao ? ND6_BAD_SOURCE
						       : ND6_VALID;
	case ND6_TYPE_RA: /* 6.1.2: only a router's link-local address */
		return is_link_local(m->src) ? ND6_VALID : ND6_BAD_SOURCE;
	case ND6_TYPE_NS: /* 7.1.1; from :: it is duplicate address detection */
		if (is_multicast(target))
			return ND6_BAD_TARGET;
		if (!is_unspecified(m->src))
			return ND6_VALID;
		if (sllao)
			return ND6_BAD_SOURCE;
		return is_solicited_node(m->dst) ? ND6_VALID : ND6_BAD_DEST;
	case ND6_TYPE_NA: /* 7.1.2: an answer to one node is never multicast */
		if (is_multicast(target))
			return ND6_BAD_TARGET;
		return is_multicast(m->dst) && (m->icmp[4] & NA_FLAG_SOLICITED)
			       ? ND6_BAD_DEST
			       : ND6_VALID;
	default: /* Redirect, 8.1: to a (link-local) router or on-link */
		if (!is_link_local(m->src))
			return ND6_BAD_SOURCE;
		if (is_multicast(dest))
			return ND6_BAD_TARGET;
		return is_link_local(target) || memcmp(target, dest, 16) == 0
			       ? ND6_VALID
			       : ND6_BAD_TARGET;
	}
}

enum nd6_verdict nd6_check(const struct nd6_msg *m)
{
	size_t fixed = fixed_len(m->icmp[0]);
	bool sllao;

	if (fixed == 0)
		return ND6_VALID;
	if (m->hop_limit != 255)
		return ND6_BAD_HOP_LIMIT;
	if (m->len < fixed)
		return ND6_TOO_SHORT;
	if (m->len > ND6_MAX_LEN)
		return ND6_TOO_LONG;
	if (m->icmp[1] != 0)
		return ND6_BAD_CODE;
	if (!options_valid(m, fixed, &sllao))
		return ND6_BAD_OPTION;
	return check_by_type(m, sllao);
}

const char *nd6_verdict_name(enum nd6_verdict v)
{
	static const char *const names[ND6_VERDICTS] = {
		[ND6_VALID] = "valid",
		[ND6_BAD_HOP_LIMIT] = "hop_limit",
		[ND6_BAD_CODE] = "code",
		[ND6_TOO_SHORT] = "too_short",
		[ND6_TOO_LONG] = "too_long",
		[ND6_BAD_OPTION] = "option",
		[ND6_BAD_SOURCE] = "source",
		[ND6_BAD_TARGET] = "target",
		[ND6_BAD_DEST] = "destination",
	};

	return (unsigned)v < ND6_VERDICTS ? names[v] : "?";
}
