/*
 * Failure injection: the sites' specs, the decision for each call of an
 * armed site, and the statistics. The design and the spec syntax are in
 * fault_inject.h.
 *
 * Why a shared counter per site and not a per-CPU one: "every:N" and the
 * random sequence are then one sequence over the whole machine, so
 * fail_page_alloc=every:100 fails one allocation in a hundred whatever
 * the CPUs do, and a one-CPU run (the host tests) is exactly repeatable.
 * The atomic add this costs is paid only while the site is armed.
 */
#include <string.h>

#include "fault_inject.h"
#include "libc/stat_table.h"

atomic_uint mm_fault_armed;

#define FAULT_SPEC_MAX 48

struct fault_site {
	atomic_uint every;   /* fail every Nth call; 0 in random mode */
	atomic_uint percent; /* random mode: share of calls, 1..100 */
	atomic_ullong seed;
	atomic_ulong times; /* stop after this many failures; 0 no limit */
	atomic_ulong calls, injected;
	char spec[FAULT_SPEC_MAX]; /* as given, for the statistics */
};

static struct fault_site sites[MM_FAULT_NR_SITES];

static const char *const site_names[MM_FAULT_NR_SITES] = {
	[MM_FAULT_PAGE] = "fail_page_alloc",
	[MM_FAULT_SLAB] = "failslab",
	[MM_FAULT_QMEMPOOL] = "fail_qmempool",
	[MM_FAULT_FRAG] = "fail_page_frag",
};

const char *mm_fault_site_name(enum mm_fault_site site)
{
	return (unsigned int)site < MM_FAULT_NR_SITES ? site_names[site] : "?";
}

int mm_fault_site_by_name(const char *name, size_t n)
{
	for (int s = 0; s < MM_FAULT_NR_SITES; s++)
		if (strlen(site_names[s]) == n &&
		    !memcmp(site_names[s], name, n))
			return s;
	return -1;
}

/* splitmix64: a well-mixed 64-bit value from a counter, so the n-th
 * decision of a seed is the same however the calls are spread. */
static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

bool __mm_fault_should_fail(enum mm_fault_site site)
{
	struct fault_site *f = &sites[site];
	unsigned long n, times;
	unsigned int every;
	bool fail;

	if (!(atomic_load_explicit(&mm_fault_armed, memory_order_relaxed) &
	      (1u << site)))
		return false;
	n = atomic_fetch_add_explicit(&f->calls, 1, memory_order_relaxed) + 1;
	every = atomic_load_explicit(&f->every, memory_order_relaxed);
	if (every)
		fail = n % every == 0;
	else
		fail = mix64(atomic_load_explicit(&f->seed,
						  memory_order_relaxed) ^
			     mix64(n)) %
			       100 <
		       atomic_load_explicit(&f->percent, memory_order_relaxed);
	if (!fail)
		return false;
	times = atomic_load_explicit(&f->times, memory_order_relaxed);
	if (times &&
	    atomic_load_explicit(&f->injected, memory_order_relaxed) >= times)
		return false;
	atomic_fetch_add_explicit(&f->injected, 1, memory_order_relaxed);
	return true;
}

/* ---- the spec -------------------------------------------------------- */

struct fault_spec {
	bool off;
	unsigned int every, percent;
	uint64_t seed;
	unsigned long times;
};

/* A decimal number of n bytes into *v; false if not one (or too big). */
static bool parse_u64(const char *s, size_t n, uint64_t *v)
{
	uint64_t x = 0;

	if (n == 0 || n > 19)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		x = x * 10 + (uint64_t)(s[i] - '0');
	}
	*v = x;
	return true;
}

void mm_fault_reset(void)
{
	atomic_store(&mm_fault_armed, 0);
	for (int s = 0; s < MM_FAULT_NR_SITES; s++) {
		atomic_store(&sites[s].calls, 0);
		atomic_store(&sites[s].injected, 0);
		sites[s].spec[0] = '\0';
	}
}

/* Index of the first c in s[0..n), or n. (The kernel's C library has no
 * memchr.) */
static size_t find_byte(const char *s, size_t n, char c)
{
	size_t i = 0;

	while (i < n && s[i] != c)
		i++;
	return i;
}

static bool is_key(const char *s, size_t klen, const char *key)
{
	return klen == strlen(key) && !memcmp(s, key, klen);
}

/* One "key:value" item of n bytes; first says whether it is the mode. */
static bool parse_item(const char *s, size_t n, bool first,
		       struct fault_spec *out)
{
	size_t klen = find_byte(s, n, ':');
	uint64_t v;

	if (first && klen == n && is_key(s, klen, "off")) {
		out->off = true;
		return true;
	}
	if (klen == n || !parse_u64(s + klen + 1, n - klen - 1, &v))
		return false;
	if (first && is_key(s, klen, "every") && v >= 1 && v <= 0xffffffffu) {
		out->every = (unsigned int)v;
		return true;
	}
	if (first && is_key(s, klen, "random") && v >= 1 && v <= 100) {
		out->percent = (unsigned int)v;
		return true;
	}
	if (!first && is_key(s, klen, "seed")) {
		out->seed = v;
		return true;
	}
	if (!first && is_key(s, klen, "times")) {
		out->times = (unsigned long)v;
		return true;
	}
	return false;
}

static bool parse_spec(const char *spec, struct fault_spec *out)
{
	const char *p = spec;
	bool first = true;

	*out = (struct fault_spec){.seed = 1};
	if (!spec || !*spec || strlen(spec) >= FAULT_SPEC_MAX)
		return false;
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);

		if (!parse_item(p, n, first, out) || (out->off && comma))
			return false;
		first = false;
		if (!comma)
			return true;
		p = comma + 1;
	}
}

bool mm_fault_spec_ok(const char *spec)
{
	struct fault_spec s;

	return parse_spec(spec, &s);
}

/* Copy the n bytes at s into buf (size bytes), NUL-terminated. */
static bool copy_word(char *buf, size_t size, const char *s, size_t n)
{
	if (n >= size)
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return true;
}

int mm_fault_set(enum mm_fault_site site, const char *spec)
{
	struct fault_spec s;
	struct fault_site *f;

	if ((unsigned int)site >= MM_FAULT_NR_SITES) {
		mm_printf("fault_inject: no site %d\n", (int)site);
		return -1;
	}
	if (!parse_spec(spec, &s)) {
		mm_printf("fault_inject: %s: bad spec '%s' (expected "
			  "every:N or random:1-100, then ,seed:S ,times:T; "
			  "or off)\n",
			  site_names[site], spec ? spec : "");
		return -1;
	}
	f = &sites[site];
	atomic_fetch_and(&mm_fault_armed, ~(1u << site));
	atomic_store(&f->every, s.every);
	atomic_store(&f->percent, s.percent);
	atomic_store(&f->seed, s.seed);
	atomic_store(&f->times, s.times);
	atomic_store(&f->calls, 0);
	atomic_store(&f->injected, 0);
	copy_word(f->spec, sizeof(f->spec), s.off ? "off" : spec,
		  strlen(s.off ? "off" : spec));
	if (!s.off)
		atomic_fetch_or(&mm_fault_armed, 1u << site);
	return 0;
}

/* One "NAME=SPEC" word of n bytes; false (reported) if refused. */
static bool set_word(const char *w, size_t n)
{
	size_t name_len = find_byte(w, n, '=');
	char spec[FAULT_SPEC_MAX];
	int site;

	site = name_len < n ? mm_fault_site_by_name(w, name_len) : -1;
	if (site < 0) {
		mm_printf("fault_inject: '%.*s': expected NAME=SPEC with NAME "
			  "fail_page_alloc, failslab, fail_qmempool or "
			  "fail_page_frag\n",
			  (int)n, w);
		return false;
	}
	if (!copy_word(spec, sizeof(spec), w + name_len + 1,
		       n - name_len - 1)) {
		mm_printf("fault_inject: '%.*s': spec too long\n", (int)n, w);
		return false;
	}
	return mm_fault_set(site, spec) == 0;
}

static bool is_separator(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == ';';
}

int mm_fault_set_from(const char *list)
{
	int refused = 0;

	if (!list)
		return 0;
	while (*list) {
		size_t n = 0;

		while (list[n] && !is_separator(list[n]))
			n++;
		if (n && !set_word(list, n))
			refused++;
		list += n;
		while (*list && is_separator(*list))
			list++;
	}
	return refused;
}

unsigned long mm_fault_calls(enum mm_fault_site site)
{
	return (unsigned int)site < MM_FAULT_NR_SITES
		       ? atomic_load_explicit(&sites[site].calls,
					      memory_order_relaxed)
		       : 0;
}

unsigned long mm_fault_injected(enum mm_fault_site site)
{
	return (unsigned int)site < MM_FAULT_NR_SITES
		       ? atomic_load_explicit(&sites[site].injected,
					      memory_order_relaxed)
		       : 0;
}

/* ---- statistics ------------------------------------------------------ */

static bool site_armed(int s)
{
	return atomic_load_explicit(&mm_fault_armed, memory_order_relaxed) &
	       (1u << s);
}

static const char *site_spec(int s)
{
	return site_armed(s) ? sites[s].spec : "off";
}

/* One site's figures: its setting (site_info), what it did
 * (site_counts); the text prints the second table after the spec. */
struct site_snap {
	const char *spec;
	bool armed;
	unsigned long calls, injected;
};
static const struct stat_desc site_info[] = {
	STAT_INFO_AT(struct site_snap, spec, "",
		     "the site's setting as given (off when not armed)"),
	STAT_INFO_AT(struct site_snap, armed, "",
		     "failures are being injected"),
};
static const struct stat_desc site_counts[] = {
	STAT_COUNTER_AT(struct site_snap, calls, "calls",
			"calls through the site while armed"),
	STAT_COUNTER_AT(struct site_snap, injected, "calls",
			"calls made to fail"),
};
static const struct stat_group fault_groups[] = {
	STAT_GROUP("*", site_info),
	STAT_GROUP("*", site_counts),
};
const struct stat_schema mm_fault_schema = STAT_SCHEMA(fault_groups);

static void site_snapshot(int s, struct site_snap *o)
{
	*o = (struct site_snap){
		.spec = site_spec(s),
		.armed = site_armed(s),
		.calls = mm_fault_calls(s),
		.injected = mm_fault_injected(s),
	};
}

int mm_fault_text(char *buf, size_t size)
{
	struct site_snap o;
	struct strbuf sb;

	strbuf_init(&sb, buf, size);
	for (int s = 0; s < MM_FAULT_NR_SITES; s++) {
		site_snapshot(s, &o);
		strbuf_printf(&sb, "%s %s", site_names[s], o.spec);
		stat_text_pairs(&sb, site_counts, STAT_TABLE_LEN(site_counts),
				&o);
		strbuf_printf(&sb, "\n");
	}
	return strbuf_done(&sb);
}

int mm_fault_json(char *buf, size_t size)
{
	struct site_snap o;
	struct strbuf sb;

	strbuf_init(&sb, buf, size);
	strbuf_printf(&sb, "{");
	for (int s = 0; s < MM_FAULT_NR_SITES; s++) {
		site_snapshot(s, &o);
		strbuf_printf(&sb, "%s\"%s\":{", s ? "," : "", site_names[s]);
		stat_json_members(&sb, site_info, STAT_TABLE_LEN(site_info),
				  &o);
		strbuf_printf(&sb, ",");
		stat_json_members(&sb, site_counts, STAT_TABLE_LEN(site_counts),
				  &o);
		strbuf_printf(&sb, "}");
	}
	strbuf_printf(&sb, "}");
	return strbuf_done(&sb);
}
