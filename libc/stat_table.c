/*
 * stat_table (stat_table.h): the writers that walk a table of counter
 * descriptions. A value is read with memcpy at its offset, by its size,
 * so one reader serves every integer type a component keeps.
 */
#include "stat_table.h"

#include <stdint.h>
#include <string.h>

static unsigned long long read_unsigned(const char *p, size_t size)
{
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;

	switch (size) {
	case 1:
		memcpy(&u8, p, 1);
		return u8;
	case 2:
		memcpy(&u16, p, 2);
		return u16;
	case 4:
		memcpy(&u32, p, 4);
		return u32;
	default:
		memcpy(&u64, p, 8);
		return u64;
	}
}

static long long read_signed(const char *p, size_t size)
{
	int8_t s8;
	int16_t s16;
	int32_t s32;
	int64_t s64;

	switch (size) {
	case 1:
		memcpy(&s8, p, 1);
		return s8;
	case 2:
		memcpy(&s16, p, 2);
		return s16;
	case 4:
		memcpy(&s32, p, 4);
		return s32;
	default:
		memcpy(&s64, p, 8);
		return s64;
	}
}

/* Values an entry has: 1, or an array's shown length. */
static size_t values(const struct stat_desc *d, const void *src)
{
	int n;

	if (!d->len)
		return 1;
	if (!d->counted)
		return d->len;
	memcpy(&n, (const char *)src + d->len_off, sizeof(n));
	return n < 0 ? 0 : (size_t)n < d->len ? (size_t)n : d->len;
}

static const char *value_at(const struct stat_desc *d, const void *src,
			    size_t i)
{
	return (const char *)src + d->off + i * d->size;
}

static const char *string_at(const struct stat_desc *d, const void *src)
{
	const char *s;

	memcpy(&s, value_at(d, src, 0), sizeof(s));
	return s ? s : "";
}

unsigned long long stat_value(const struct stat_desc *d, const void *src,
			      size_t i)
{
	const char *p = value_at(d, src, i);

	switch (d->type) {
	case STAT_T_UNSIGNED:
		return read_unsigned(p, d->size);
	case STAT_T_SIGNED:
		return (unsigned long long)read_signed(p, d->size);
	case STAT_T_BOOL:
		return *(const bool *)p;
	default:
		return 0;
	}
}

/* One number, bool or string, as JSON (json) or as text. */
static void put_one(struct strbuf *sb, const struct stat_desc *d,
		    const void *src, size_t i, bool json)
{
	const char *p = value_at(d, src, i);

	switch (d->type) {
	case STAT_T_UNSIGNED:
		strbuf_printf(sb, "%llu", read_unsigned(p, d->size));
		break;
	case STAT_T_SIGNED:
		strbuf_printf(sb, "%lld", read_signed(p, d->size));
		break;
	case STAT_T_BOOL:
		strbuf_printf(sb, "%s", *(const bool *)p ? "true" : "false");
		break;
	case STAT_T_STRING:
		if (json)
			stat_json_string(sb, string_at(d, src));
		else
			strbuf_printf(sb, "%s", string_at(d, src));
		break;
	default:
		break;
	}
}

void stat_json_value(struct strbuf *sb, const struct stat_desc *d,
		     const void *src)
{
	if (d->type == STAT_T_FN) {
		d->put(sb, src);
		return;
	}
	if (!d->len) {
		put_one(sb, d, src, 0, true);
		return;
	}
	strbuf_printf(sb, "[");
	for (size_t i = 0, n = values(d, src); i < n; i++) {
		strbuf_printf(sb, "%s", i ? "," : "");
		put_one(sb, d, src, i, true);
	}
	strbuf_printf(sb, "]");
}

void stat_json_members(struct strbuf *sb, const struct stat_desc *t, size_t n,
		       const void *src)
{
	for (size_t i = 0; i < n; i++) {
		strbuf_printf(sb, "%s\"%s\":", i ? "," : "", t[i].name);
		stat_json_value(sb, &t[i], src);
	}
}

void stat_json_string(struct strbuf *sb, const char *s)
{
	strbuf_printf(sb, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			strbuf_printf(sb, "\\%c", c);
		else if (c < 0x20)
			strbuf_printf(sb, "\\u%04x", c);
		else
			strbuf_printf(sb, "%c", c);
	}
	strbuf_printf(sb, "\"");
}

/* The values of d, each after sep ("v0/v1" or " v0 v1"). */
static void put_text(struct strbuf *sb, const struct stat_desc *d,
		     const void *src, const char *first, const char *sep)
{
	for (size_t i = 0, n = values(d, src); i < n; i++) {
		strbuf_printf(sb, "%s", i ? sep : first);
		put_one(sb, d, src, i, false);
	}
}

void stat_text_pairs(struct strbuf *sb, const struct stat_desc *t, size_t n,
		     const void *src)
{
	for (size_t i = 0; i < n; i++) {
		if (t[i].type == STAT_T_FN)
			continue;
		strbuf_printf(sb, " %s=", t[i].name);
		put_text(sb, &t[i], src, "", "/");
	}
}

void stat_text_lines(struct strbuf *sb, const struct stat_desc *t, size_t n,
		     const void *src, int width)
{
	for (size_t i = 0; i < n; i++) {
		if (t[i].type == STAT_T_FN)
			continue;
		strbuf_printf(sb, "%-*s", width, t[i].name);
		put_text(sb, &t[i], src, " ", " ");
		strbuf_printf(sb, "\n");
	}
}

static const char *const kind_names[] = {
	[STAT_KIND_COUNTER] = "counter",
	[STAT_KIND_GAUGE] = "gauge",
	[STAT_KIND_INFO] = "info",
};

/* "a.b.c" of the non-empty parts. */
static void put_path(struct strbuf *sb, const char *const part[], int n)
{
	bool dot = false;

	strbuf_printf(sb, "\"");
	for (int i = 0; i < n; i++) {
		if (!part[i][0])
			continue;
		strbuf_printf(sb, "%s%s", dot ? "." : "", part[i]);
		dot = true;
	}
	strbuf_printf(sb, "\"");
}

void stat_schema_json(struct strbuf *sb, const char *prefix,
		      const struct stat_schema *s, bool *first)
{
	for (size_t g = 0; g < s->n; g++) {
		const struct stat_group *grp = &s->group[g];

		for (size_t i = 0; i < grp->n; i++) {
			const struct stat_desc *d = &grp->desc[i];
			const char *const path[] = {prefix, grp->at, d->name};

			strbuf_printf(sb, "%s", *first ? "" : ",");
			*first = false;
			put_path(sb, path, 3);
			strbuf_printf(sb, ":{\"unit\":");
			stat_json_string(sb, d->unit);
			strbuf_printf(sb, ",\"kind\":\"%s\",\"label\":",
				      kind_names[d->kind]);
			stat_json_string(sb, d->label);
			if (d->per)
				strbuf_printf(sb, ",\"per\":\"%s\"", d->per);
			strbuf_printf(sb, "}");
		}
	}
}
