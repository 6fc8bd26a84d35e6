/*
 * stat_table: one description of a component's counters, from which its
 * /stats.json members, its counter lines in the shell and the schema of
 * /stats.json (/stats-schema.json) are all written, so a counter is named,
 * measured and explained in one place.
 *
 * A table is an array of struct stat_desc, one entry per value: its JSON
 * key, its unit, its kind, a short label, and where the value is. The
 * value lives in a plain struct the component fills first (a snapshot:
 * relaxed loads of its atomics, sums over CPUs, derived figures), at an
 * offset the STAT_* macros take with offsetof, with its C type read by
 * the compiler (_Generic) so no entry repeats it. A value the table cannot
 * point at (a list of names) is written by a function of the component
 * (STAT_FN). Arrays (one value per order, node or CPU) say what indexes
 * them.
 *
 * What a table does not cover is the document's shape: the objects per
 * node, per CPU or per device, and the lists of queues. The component
 * writes those braces itself around each table walk and publishes a
 * struct stat_schema: each table with the place its members sit, as a
 * path from the component's own value ("*" a key that varies: node0,
 * cpu1, eth0, a cache's name; "queues[]" each object of the list
 * "queues", "*[]" of a list under a key that varies).
 *
 * Kinds: a counter only grows (the dashboard draws it as a rate); a gauge
 * goes up and down (pages free, objects cached, the longest wait so
 * far); info is set once or configured (a size, an identity, a policy).
 * A string is a const char * (point a snapshot at a char array: the
 * array itself would be read as a pointer). Units name what one counts:
 * pages, blocks, slabs, objects, bytes, packets, buffers, fragments, ns,
 * us, ms, calls, events (occurrences of what the label says); "" for a
 * name or a bare number.
 */
#ifndef LIBC_STAT_TABLE_H
#define LIBC_STAT_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "libc/strbuf.h"

/* (Not STAT_COUNTER: lwIP's stats.h defines that as its counter type.) */
enum stat_kind { STAT_KIND_COUNTER, STAT_KIND_GAUGE, STAT_KIND_INFO };

/* How a value is stored (found by STAT_TYPE_OF). */
enum stat_type {
	STAT_T_UNSIGNED, /* any unsigned integer, 1 to 8 bytes */
	STAT_T_SIGNED,	 /* any signed integer */
	STAT_T_BOOL,
	STAT_T_STRING, /* a const char * (NULL is written as "") */
	STAT_T_FN,     /* written by desc->put */
};

struct stat_desc {
	const char *name;  /* JSON key; "" for a component whose value is
			      this one leaf */
	const char *unit;  /* what one counts */
	const char *label; /* a short help line */
	const char *per;   /* an array's index ("order", "node"...), or NULL */
	unsigned char kind;
	unsigned char type;
	unsigned char size; /* bytes of one value */
	bool counted;	    /* array: an int at len_off says how many */
	unsigned short len; /* array: its capacity; 0 for one value */
	size_t off;	    /* the value (or the array's first) in the source */
	size_t len_off;	    /* see counted */
	void (*put)(struct strbuf *sb, const void *src); /* STAT_T_FN */
};

/* clang-format off */
#define STAT_TYPE_OF(x) _Generic((x),					\
	_Bool: STAT_T_BOOL,						\
	char *: STAT_T_STRING, const char *: STAT_T_STRING,		\
	signed char: STAT_T_SIGNED, short: STAT_T_SIGNED,		\
	int: STAT_T_SIGNED, long: STAT_T_SIGNED,			\
	long long: STAT_T_SIGNED,					\
	unsigned char: STAT_T_UNSIGNED, unsigned short: STAT_T_UNSIGNED, \
	unsigned int: STAT_T_UNSIGNED, unsigned long: STAT_T_UNSIGNED,	\
	unsigned long long: STAT_T_UNSIGNED)
#define STAT_FIELD_(T, f) (((T *)0)->f)

/* One value: field f of struct T, named n. */
#define STAT_NAMED(n, T, f, k, u, l)					\
	{ .name = n, .unit = u, .label = l, .kind = k,			\
	  .type = STAT_TYPE_OF(STAT_FIELD_(T, f)),			\
	  .size = sizeof(STAT_FIELD_(T, f)), .off = offsetof(T, f) }
#define STAT_COUNTER_AT(T, f, u, l)					\
	STAT_NAMED(#f, T, f, STAT_KIND_COUNTER, u, l)
#define STAT_GAUGE_AT(T, f, u, l)					\
	STAT_NAMED(#f, T, f, STAT_KIND_GAUGE, u, l)
#define STAT_INFO_AT(T, f, u, l) STAT_NAMED(#f, T, f, STAT_KIND_INFO, u, l)

/* The whole array f of struct T, one value per p ("order", "node"). */
#define STAT_NAMED_ARRAY(n, T, f, k, p, u, l)				\
	{ .name = n, .unit = u, .label = l, .per = p, .kind = k,	\
	  .type = STAT_TYPE_OF(STAT_FIELD_(T, f)[0]),			\
	  .size = sizeof(STAT_FIELD_(T, f)[0]),				\
	  .len = sizeof(STAT_FIELD_(T, f)) /				\
		 sizeof(STAT_FIELD_(T, f)[0]),				\
	  .off = offsetof(T, f) }
/* The first T.nf values of array f (nf an int field of T). */
#define STAT_NAMED_ARRAY_N(n, T, f, nf, k, p, u, l)			\
	{ .name = n, .unit = u, .label = l, .per = p, .kind = k,	\
	  .type = STAT_TYPE_OF(STAT_FIELD_(T, f)[0]),			\
	  .size = sizeof(STAT_FIELD_(T, f)[0]), .counted = true,	\
	  .len = sizeof(STAT_FIELD_(T, f)) /				\
		 sizeof(STAT_FIELD_(T, f)[0]),				\
	  .off = offsetof(T, f), .len_off = offsetof(T, nf) }
#define STAT_ARRAY(T, f, k, p, u, l)					\
	STAT_NAMED_ARRAY(#f, T, f, k, p, u, l)
#define STAT_ARRAY_N(T, f, nf, k, p, u, l)				\
	STAT_NAMED_ARRAY_N(#f, T, f, nf, k, p, u, l)
/* A value fn writes from the source (a list of names): JSON only. */
#define STAT_FN(n, fn, k, p, u, l)					\
	{ .name = n, .unit = u, .label = l, .per = p, .kind = k,	\
	  .type = STAT_T_FN, .put = fn }
/* clang-format on */

#define STAT_TABLE_LEN(t) (sizeof(t) / sizeof((t)[0]))

/* Where one table's members sit, from the component's value. */
struct stat_group {
	const char *at; /* "" the value itself, "*" every key of it... */
	const struct stat_desc *desc;
	size_t n;
};
/* clang-format off */
#define STAT_GROUP(at, t) { at, t, STAT_TABLE_LEN(t) }
/* clang-format on */

/* A component's whole description: its groups, in document order. */
struct stat_schema {
	const struct stat_group *group;
	size_t n;
};
/* clang-format off */
#define STAT_SCHEMA(groups) { groups, STAT_TABLE_LEN(groups) }
/* clang-format on */

/*
 * stat_json_members - t's values in src as JSON members, "key":value
 * separated by commas, with no braces and no comma before or after (the
 * caller writes the object around them). Any context.
 */
void stat_json_members(struct strbuf *sb, const struct stat_desc *t, size_t n,
		       const void *src);

/* stat_json_value - entry d's value alone (no key): for a component
 * whose whole value is one leaf (its entry named ""). */
void stat_json_value(struct strbuf *sb, const struct stat_desc *d,
		     const void *src);

/* stat_json_string - s as a JSON string, quoted and escaped. */
void stat_json_string(struct strbuf *sb, const char *s);

/*
 * stat_text_pairs - " key=value" for each of t's values (arrays as
 * v0/v1/...): the shell's one-line views (qmempool, fault injection).
 * stat_text_lines - one "key value" line each, the key left-aligned in
 * width columns (arrays as "key v0 v1 ..."): the shell's list views
 * (frag). STAT_FN entries are left out of both.
 */
void stat_text_pairs(struct strbuf *sb, const struct stat_desc *t, size_t n,
		     const void *src);
void stat_text_lines(struct strbuf *sb, const struct stat_desc *t, size_t n,
		     const void *src, int width);

/*
 * stat_value - value i of entry d in src as an unsigned number (a signed
 * one converted, a bool 0 or 1; 0 for a string or STAT_FN), for views
 * that lay numbers out in their own columns (numastat).
 */
unsigned long long stat_value(const struct stat_desc *d, const void *src,
			      size_t i);

/*
 * stat_schema_json - the description of every value of schema s, whose
 * component sits at path prefix in the document: members
 * "prefix.at.key":{"unit":..,"kind":..,"label":..[,"per":..]}, separated
 * by commas, with a comma before the first unless *first (then cleared).
 */
void stat_schema_json(struct strbuf *sb, const char *prefix,
		      const struct stat_schema *s, bool *first);

#endif /* LIBC_STAT_TABLE_H */
