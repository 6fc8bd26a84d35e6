/*
 * Command line parsing, the generic validators, lookup and listing. The
 * keys are declared with CMDLINE_KEY (cmdline.h) by the parts that read
 * them; the linker gathers them into one array between
 * __cmdline_keys_start and __cmdline_keys_end (linker.ld), which is all
 * this file knows of them.
 */
#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "libc/strbuf.h"
#include <stdlib.h>
#include <string.h>

#define CMDLINE_MAX 1024

/* linker.ld: every CMDLINE_KEY of the image, one after the other */
extern const struct cmdline_key __cmdline_keys_start[], __cmdline_keys_end[];

static char raw_copy[CMDLINE_MAX];
static char words[CMDLINE_MAX];
static int errors;

/* "a|b|c" contains the n bytes at item as one of its choices. */
static bool in_choices(const char *item, size_t n, const char *allowed)
{
	const char *p = allowed;

	while (*p) {
		const char *bar = strchr(p, '|');
		size_t len = bar ? (size_t)(bar - p) : strlen(p);

		if (len == n && !strncmp(p, item, n))
			return true;
		if (!bar)
			break;
		p = bar + 1;
	}
	return false;
}

bool cmdline_valid_choice(const char *v, const char *allowed)
{
	return in_choices(v, strlen(v), allowed);
}

/* Every item counts: an empty one (",a", "a,,b", "a,") is refused like
 * any other item that is not a choice. An empty value is no item. */
bool cmdline_valid_list(const char *v, const char *allowed)
{
	if (!*v)
		return true;
	for (;;) {
		const char *comma = strchr(v, ',');
		size_t len = comma ? (size_t)(comma - v) : strlen(v);

		if (!in_choices(v, len, allowed) &&
		    !(len == 3 && !strncmp(v, "all", 3) &&
		      in_choices("all", 3, allowed)))
			return false;
		if (!comma)
			return true;
		v = comma + 1;
	}
}

/* v as the keys' numbers are written: decimal (a leading 0 does not make
 * it octal) or 0x hex, no sign, nothing after. */
static bool read_number(const char *v, unsigned long *n)
{
	int base = v[0] == '0' && (v[1] == 'x' || v[1] == 'X') ? 16 : 10;
	char *end;

	if (v[0] < '0' || v[0] > '9')
		return false; /* strtoul would skip spaces, take a sign */
	*n = strtoul(v, &end, base);
	return *end == 0;
}

bool cmdline_valid_uint(const char *v, const char *allowed)
{
	char *end;
	unsigned long lo = strtoul(allowed, &end, 10), hi, n;

	hi = strtoul(end + 1, NULL, 10);
	return read_number(v, &n) && n >= lo && n <= hi;
}

static const struct cmdline_key *find_key(const char *name)
{
	for (const struct cmdline_key *k = __cmdline_keys_start;
	     k != __cmdline_keys_end; k++)
		if (!strcmp(k->name, name))
			return k;
	return NULL;
}

static void take_word(char *w, bool first)
{
	char *eq = strchr(w, '=');
	const struct cmdline_key *k;

	if (!eq) {
		/* QEMU and GRUB put the kernel's own path first */
		if (first && strchr(w, '/'))
			return;
		kprintf("cmdline: '%s' is not key=value, ignored\n", w);
		errors++;
		return;
	}
	*eq = 0;
	k = find_key(w);
	if (!k) {
		kprintf("cmdline: unknown key '%s', ignored\n", w);
		errors++;
	} else if (!k->valid(eq + 1, k->allowed)) {
		kprintf("cmdline: bad value '%s' for %s (expected %s), "
			"using default '%s'\n",
			eq + 1, w, k->allowed, k->def);
		errors++;
	} else {
		*k->value = eq + 1;
	}
}

void cmdline_init(const char *raw)
{
	char *p = words;
	bool first = true;

	for (size_t i = 0; i < CMDLINE_MAX - 1 && raw[i]; i++)
		raw_copy[i] = raw[i];
	memcpy(words, raw_copy, CMDLINE_MAX);
	while (*p) {
		char *w;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		w = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		if (*p)
			*p++ = 0;
		take_word(w, first);
		first = false;
	}
}

const char *cmdline_raw(void)
{
	const char *p = raw_copy, *sp;

	/* skip the kernel's own path, as take_word does */
	while (*p == ' ')
		p++;
	sp = strchr(p, ' ');
	for (const char *q = p; *q && q != sp; q++) {
		if (*q == '=')
			return p;
		if (*q == '/')
			return sp ? sp + 1 : p + strlen(p);
	}
	return p;
}

const char *cmdline_get(const char *key)
{
	const struct cmdline_key *k = find_key(key);

	if (!k) {
		kprintf("cmdline: internal: key '%s' is not in the table\n",
			key);
		return NULL;
	}
	return *k->value ? *k->value : k->def;
}

long cmdline_get_long(const char *key)
{
	const char *v = cmdline_get(key);
	unsigned long n;

	return v && read_number(v, &n) ? (long)n : 0;
}

bool cmdline_get_bool(const char *key)
{
	return cmdline_get_long(key) != 0;
}

bool cmdline_given(const char *key)
{
	const struct cmdline_key *k = find_key(key);

	return k && *k->value;
}

bool cmdline_has(const char *key, const char *item)
{
	const char *v = cmdline_get(key);
	size_t n = strlen(item);

	while (v && *v) {
		const char *comma = strchr(v, ',');
		size_t len = comma ? (size_t)(comma - v) : strlen(v);

		if ((len == n && !strncmp(v, item, n)) ||
		    (len == 3 && !strncmp(v, "all", 3)))
			return true;
		v = comma ? comma + 1 : NULL;
	}
	return false;
}

int cmdline_errors(void)
{
	return errors;
}

/* The folders in layer order, which `help keys` follows. */
static const char *const owners[] = {"kernel", "mm", "drivers", "net", "apps"};
#define NR_OWNERS ((int)(sizeof(owners) / sizeof(owners[0])))

/* owner's place in owners[]; NR_OWNERS (last) for any other word. */
static int owner_rank(const char *owner)
{
	int i = 0;

	while (i < NR_OWNERS && strcmp(owners[i], owner) != 0)
		i++;
	return i;
}

/* a comes before b in the listing: by owner, then by name (unique). */
static bool listed_before(const struct cmdline_key *a,
			  const struct cmdline_key *b)
{
	int ra = owner_rank(a->owner), rb = owner_rank(b->owner), c;

	if (ra != rb)
		return ra < rb;
	c = strcmp(a->owner, b->owner);
	return c ? c < 0 : strcmp(a->name, b->name) < 0;
}

/* The key listed after prev (NULL: the first), or NULL after the last.
 * Quadratic in the number of keys, which is small, and needs no sorted
 * copy of the (read-only) section. */
static const struct cmdline_key *next_listed(const struct cmdline_key *prev)
{
	const struct cmdline_key *next = NULL;

	for (const struct cmdline_key *k = __cmdline_keys_start;
	     k != __cmdline_keys_end; k++)
		if ((!prev || listed_before(prev, k)) &&
		    (!next || listed_before(k, next)))
			next = k;
	return next;
}

int cmdline_keys_text(char *buf, size_t size)
{
	const struct cmdline_key *prev = NULL, *k;
	struct strbuf sb;

	strbuf_init(&sb, buf, size);
	while ((k = next_listed(prev))) {
		if (!prev || strcmp(prev->owner, k->owner) != 0)
			strbuf_printf(&sb, "%s:\n", k->owner);
		strbuf_printf(&sb, "  %s=%s  (%s)\n      %s\n", k->name, k->def,
			      k->allowed, k->help);
		prev = k;
	}
	return strbuf_done(&sb);
}
