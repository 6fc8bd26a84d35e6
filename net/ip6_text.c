/*
 * IPv6 address text to bytes. See ip6_text.h.
 *
 * One pass: groups are read left to right into head[]; after a "::" they
 * go to tail[] instead, and at the end the tail is moved to the back of
 * the address with zeros between. The checks are the ones a user's typo
 * needs: at most 4 digits a group, 8 groups in all, one "::", nothing
 * dangling ("1:", ":1", "1:::2").
 */
#include "ip6_text.h"

#include <stddef.h>
#include <string.h>

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* One group of 1-4 hex digits at *p; false if there is none or too many. */
static bool read_group(const char **p, uint16_t *out)
{
	unsigned int v = 0;
	int n = 0;

	while (hex_digit(**p) >= 0) {
		if (++n > 4)
			return false;
		v = v << 4 | (unsigned int)hex_digit(**p);
		(*p)++;
	}
	*out = (uint16_t)v;
	return n > 0;
}

/* The groups before and after the "::" (if any) in the text. */
struct ip6_groups {
	uint16_t g[2][8];
	int n[2];
	bool gap; /* a "::" was seen: later groups are in g[1] */
};

/* Reads groups and separators until a byte that cannot go on. */
static bool read_groups(const char **p, struct ip6_groups *gs)
{
	if ((*p)[0] == ':' && (*p)[1] == ':') {
		gs->gap = true;
		*p += 2;
		if (hex_digit(**p) < 0)
			return true; /* "::" alone */
	}
	for (;;) {
		int side = gs->gap;

		if (gs->n[0] + gs->n[1] == 8 ||
		    !read_group(p, &gs->g[side][gs->n[side]]))
			return false;
		gs->n[side]++;
		if (**p != ':')
			return true;
		if ((*p)[1] == ':') {
			if (gs->gap)
				return false; /* a second "::" */
			gs->gap = true;
			*p += 2;
			if (hex_digit(**p) < 0)
				return true; /* ends with "::" */
			continue;
		}
		(*p)++; /* one ':' must be followed by a group */
	}
}

bool ip6_text_parse(const char *s, uint8_t addr[16], const char **end)
{
	struct ip6_groups gs;
	uint16_t all[8] = {0};
	const char *p = s;
	int total;

	memset(&gs, 0, sizeof(gs));
	if (!s || !read_groups(&p, &gs) || *p == ':')
		return false;
	total = gs.n[0] + gs.n[1];
	/* "::" stands for at least one zero group. */
	if (gs.gap ? total > 7 : total != 8)
		return false;
	for (int i = 0; i < gs.n[0]; i++)
		all[i] = gs.g[0][i];
	for (int i = 0; i < gs.n[1]; i++)
		all[8 - gs.n[1] + i] = gs.g[1][i];
	for (int i = 0; i < 8; i++) {
		addr[2 * i] = (uint8_t)(all[i] >> 8);
		addr[2 * i + 1] = (uint8_t)all[i];
	}
	if (end)
		*end = p;
	return true;
}

bool ip6_text_parse_prefix(const char *s, uint8_t addr[16], int *prefix)
{
	uint8_t a[16];
	const char *p;
	int n = 0, digits = 0;

	if (!ip6_text_parse(s, a, &p) || *p != '/')
		return false;
	for (p++; *p >= '0' && *p <= '9' && digits < 4; p++, digits++)
		n = n * 10 + (*p - '0');
	if (*p != '\0' || digits == 0 || n < 1 || n > 128)
		return false;
	memcpy(addr, a, 16);
	*prefix = n;
	return true;
}
