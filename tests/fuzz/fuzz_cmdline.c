/*
 * Fuzz harness of the kernel command line (kernel/cmdline.c), with the
 * kernel's own number parser (libc/stdlib.c, renamed so that the host's
 * stays the host's).
 *
 * The input is the command line as GRUB or QEMU -append hands it over
 * (a NUL ends it early, as it would in memory). The keys are this file's
 * own, declared with CMDLINE_KEY exactly as their owners declare them
 * (the same names, defaults and allowed values as a sample of the real
 * ones: choices, lists, ranges); tests/fuzz/cmdline_keys.ld gathers them
 * between __cmdline_keys_start and __cmdline_keys_end, as linker.ld does
 * in the kernel.
 *
 * Each line is parsed by cmdline_init and by a reference written from
 * kernel/cmdline.h's contract (words split at spaces and tabs, the first
 * one skipped when it is a path, the value after the first '=', a choice
 * one of "a|b", a list one or more choices joined by single commas, a
 * number decimal or 0x hex within "LO-HI"). Checked: every key's value
 * (cmdline_get, cmdline_given, cmdline_get_long, cmdline_has), the errors
 * counted, the line cmdline_raw returns, and `help keys`
 * (cmdline_keys_text) at every buffer size: the length it reports, the
 * NUL, nothing written past the size.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse_common.h"

/* The kernel's strtoul/strtol/atoi, not the host's. */
#define strtoul kernel_strtoul
#define strtol	kernel_strtol
#define atoi	kernel_atoi
#include "libc/stdlib.c"
#include "kernel/cmdline.c"

/* ---- the keys: a sample of the real declarations ---- */

CMDLINE_KEY(kernel, shell, "1", cmdline_valid_choice, "0|1", "shell");
CMDLINE_KEY(kernel, smp, "", cmdline_valid_uint, "1-64", "CPUs");
CMDLINE_KEY(kernel, selftest, "", cmdline_valid_list,
	    "fault|mm|slab|frag|net|none", "self-tests");
CMDLINE_KEY(net, nic, "virtio", cmdline_valid_choice,
	    "virtio|e1000|e1000e|all|none", "NIC");
CMDLINE_KEY(net, poll_us, "200", cmdline_valid_uint, "0-1000000", "poll");
CMDLINE_KEY(apps, app, "echo,http,iperf", cmdline_valid_list,
	    "echo|http|iperf|none|all", "apps");
CMDLINE_KEY(apps, echo_hostport, "", cmdline_valid_uint, "1-65535", "port");

enum kind { CHOICE, LIST, UINT };

static const struct {
	const struct cmdline_key *key;
	enum kind kind;
} keys[] = {
	{&cmdline_key_shell, CHOICE},	    {&cmdline_key_smp, UINT},
	{&cmdline_key_selftest, LIST},	    {&cmdline_key_nic, CHOICE},
	{&cmdline_key_poll_us, UINT},	    {&cmdline_key_app, LIST},
	{&cmdline_key_echo_hostport, UINT},
};
#define NR_KEYS ((int)(sizeof(keys) / sizeof(keys[0])))

/* The kernel's messages: formatted (the arguments must be sound), kept
 * nowhere. */
int kprintf(const char *fmt, ...)
{
	char line[2 * CMDLINE_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	return n;
}

/* ---- the reference, from kernel/cmdline.h ---- */

/* The n bytes at s are one of allowed's "a|b|c" choices. */
static bool ref_choice(const char *s, size_t n, const char *allowed)
{
	for (const char *a = allowed;;) {
		size_t len = strcspn(a, "|");

		if (len == n && !memcmp(a, s, n))
			return true;
		if (!a[len])
			return false;
		a += len + 1;
	}
}

/* One or more choices joined by single commas; "" is no item at all. */
static bool ref_list(const char *v, const char *allowed)
{
	if (!*v)
		return true;
	for (;;) {
		size_t len = strcspn(v, ",");

		if (len == 0 || !ref_choice(v, len, allowed))
			return false;
		if (!v[len])
			return true;
		v += len + 1;
	}
}

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

/* Decimal, or 0x/0X and hex digits; false for anything else or a value
 * beyond 2^40 (every range here is far below). */
static bool ref_number(const char *v, unsigned long long *out)
{
	unsigned long long n = 0;
	int base = 10;

	if (v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
		base = 16;
		v += 2;
	}
	if (!*v)
		return false;
	for (; *v; v++) {
		int d = hex_digit(*v);

		if (d < 0 || d >= base)
			return false;
		n = n * (unsigned)base + (unsigned)d;
		if (n > (1ull << 40))
			return false;
	}
	*out = n;
	return true;
}

static bool ref_uint(const char *v, const char *allowed, long *out)
{
	unsigned long long lo, hi, n;

	if (sscanf(allowed, "%llu-%llu", &lo, &hi) != 2)
		return false;
	if (!ref_number(v, &n) || n < lo || n > hi)
		return false;
	*out = (long)n;
	return true;
}

/* The comma list v has item, or "all" (which has every item). */
static bool ref_has(const char *v, const char *item)
{
	size_t n = strlen(item);

	for (;;) {
		size_t len = strcspn(v, ",");

		if ((len == n && !memcmp(v, item, n)) ||
		    (len == 3 && !memcmp(v, "all", 3)))
			return true;
		if (!v[len])
			return false;
		v += len + 1;
	}
}

struct ref {
	const char *value[NR_KEYS]; /* the valid value given, or NULL */
	long number[NR_KEYS];
	int errors;
	char raw[CMDLINE_MAX]; /* what cmdline_raw should return */
};

static int ref_key(const char *name)
{
	for (int i = 0; i < NR_KEYS; i++)
		if (!strcmp(keys[i].key->name, name))
			return i;
	return -1;
}

static void ref_word(struct ref *r, char *w, bool first)
{
	char *eq = strchr(w, '=');
	int i;
	long num = 0;
	bool ok = false;

	if (!eq) {
		if (!(first && strchr(w, '/')))
			r->errors++;
		return;
	}
	*eq = 0;
	i = ref_key(w);
	if (i >= 0) {
		const char *allowed = keys[i].key->allowed, *v = eq + 1;

		if (keys[i].kind == CHOICE)
			ok = ref_choice(v, strlen(v), allowed);
		else if (keys[i].kind == LIST)
			ok = ref_list(v, allowed);
		else
			ok = ref_uint(v, allowed, &num);
	}
	if (!ok) {
		r->errors++;
		return;
	}
	r->value[i] = eq + 1;
	r->number[i] = num;
}

/* line: the first CMDLINE_MAX - 1 bytes, cut in place. */
static void ref_parse(struct ref *r, char *line)
{
	bool first = true;
	char *p = line;

	const char *raw = line + strspn(line, " ");
	size_t w = strcspn(raw, " "), e = strcspn(raw, "="),
	       s = strcspn(raw, "/");

	memset(r, 0, sizeof(*r));
	/* cmdline_raw: after a first word that is a path (a '/' before
	 * any '='), else all of it; leading spaces skipped. */
	if (s < w && s < e)
		raw += w + (raw[w] == ' ');
	snprintf(r->raw, sizeof(r->raw), "%s", raw);
	while (*p) {
		char *w;

		p += strspn(p, " \t");
		if (!*p)
			break;
		w = p;
		p += strcspn(p, " \t");
		if (*p)
			*p++ = 0;
		ref_word(r, w, first);
		first = false;
	}
}

/* ---- the harness ---- */

/* cmdline.c's state as before the first cmdline_init (it is called once
 * per boot; here once per input). */
static void cmdline_reset(void)
{
	memset(raw_copy, 0, sizeof(raw_copy));
	memset(words, 0, sizeof(words));
	errors = 0;
	for (const struct cmdline_key *k = __cmdline_keys_start;
	     k != __cmdline_keys_end; k++)
		*k->value = NULL;
}

static void check_keys(const struct ref *r)
{
	for (int i = 0; i < NR_KEYS; i++) {
		const struct cmdline_key *k = keys[i].key;
		const char *want = r->value[i] ? r->value[i] : k->def;
		const char *got = cmdline_get(k->name);

		PZ_CHECK(got && !strcmp(got, want), "%s: '%s', not '%s'",
			 k->name, got ? got : "(null)", want);
		PZ_CHECK(cmdline_given(k->name) == !!r->value[i], "%s given",
			 k->name);
		if (keys[i].kind == UINT && r->value[i])
			PZ_CHECK(cmdline_get_long(k->name) == r->number[i],
				 "%s=%s read as %ld, not %ld", k->name, want,
				 cmdline_get_long(k->name), r->number[i]);
		if (keys[i].kind == LIST)
			PZ_CHECK(cmdline_has(k->name, "http") ==
					 ref_has(want, "http"),
				 "%s=%s has http", k->name, want);
	}
}

/* `help keys` into exactly size bytes of its own (ASan's bounds). */
static void check_keys_text(size_t size)
{
	int need = cmdline_keys_text(NULL, 0);
	char *buf = malloc(size ? size : 1);
	int got = cmdline_keys_text(buf, size);

	PZ_CHECK(got == need && need > 0, "length %d, then %d", need, got);
	if (size)
		PZ_CHECK(strlen(buf) == ((size_t)need < size ? (size_t)need
							     : size - 1),
			 "text of %zu in %zu bytes", strlen(buf), size);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool started;
	char line[CMDLINE_MAX + 1], ref_line[CMDLINE_MAX];
	size_t n = size < CMDLINE_MAX ? size : CMDLINE_MAX;
	struct ref r;

	if (!started) {
		pz_init("fuzz_cmdline");
		started = true;
	}
	pz_input();
	memcpy(line, data, n);
	line[n] = 0;
	/* The reference sees what cmdline_init keeps: at most
	 * CMDLINE_MAX - 1 bytes. */
	snprintf(ref_line, sizeof(ref_line), "%s", line);
	cmdline_reset();
	cmdline_init(line);
	ref_parse(&r, ref_line);
	pz_ops++;
	PZ_CHECK(cmdline_errors() == r.errors, "%d errors, not %d",
		 cmdline_errors(), r.errors);
	PZ_CHECK(!strcmp(cmdline_raw(), r.raw), "raw '%s', not '%s'",
		 cmdline_raw(), r.raw);
	check_keys(&r);
	check_keys_text(size % 1024);
	return 0;
}
