/*
 * Command line parsing and THE table of known keys. To add a key, add one
 * line to keys[] with its default, a validator and its allowed values.
 */
#include "kernel/cmdline.h"
#include "kernel/config.h"
#include "kernel/console.h"
#include "kernel/ip6_text.h"
#include "mm/fault_inject.h"
#include <stdlib.h>
#include <string.h>

#define CMDLINE_MAX 1024

typedef bool (*validator)(const char *value, const char *allowed);

struct key {
	const char *name;
	const char *def;
	validator valid;
	const char *allowed; /* for the validator and the error message */
	const char *help;
};

static bool v_choice(const char *v, const char *allowed);
static bool v_list(const char *v, const char *allowed);
static bool v_uint(const char *v, const char *allowed);
static bool v_ip_cidr(const char *v, const char *allowed);
static bool v_ip(const char *v, const char *allowed);
static bool v_ip6_cidr(const char *v, const char *allowed);
static bool v_ip6(const char *v, const char *allowed);
static bool v_name(const char *v, const char *allowed);
static bool v_node_policy(const char *v, const char *allowed);
static bool v_fault(const char *v, const char *allowed);

#define FAULT_ALLOWED "off|every:N|random:1-100[,seed:S][,times:T]"

static const struct key keys[] = {
	{"nic", "virtio", v_choice, "virtio|e1000|e1000e|all|none",
	 "network card driver (all: every supported NIC found)"},
	{"ip", "dhcp", v_ip_cidr, "dhcp|A.B.C.D/N, N=1-32", "IPv4 address"},
	{"gw", "", v_ip, "A.B.C.D", "IPv4 gateway (with a static ip=)"},
	{"ip6", "auto", v_ip6_cidr, "auto|ADDR/64, ADDR a unicast IPv6 address",
	 "IPv6 global address: from router advertisements (SLAAC) or this "
	 "one; the link-local fe80:: address is always there"},
	{"gw6", "", v_ip6, "a unicast IPv6 address",
	 "IPv6 gateway (with a static ip6=)"},
	{"rx_alloc", "local", v_node_policy, "local|device|interleave|node:N",
	 "NUMA node of RX buffers: the polling CPU's, the NIC's, every node "
	 "in turn, or node N"},
	{"tx_alloc", "local", v_node_policy, "local|device|interleave|node:N",
	 "NUMA node of TX buffers (lwIP's heap: PBUF_RAM pbufs), as rx_alloc"},
	{"nic_node", "", v_uint, "0-7",
	 "the NICs' NUMA node, for firmware that does not report it (_PXM)"},
	{"net_alloc", "native", v_choice, "stock|native",
	 "lwIP memory: its own pools or our allocators"},
	{"net_queues", "", v_uint, "1-16",
	 "most RX/TX queue pairs per NIC (default: one per CPU)"},
	{"virtio_csum", "1", v_choice, "0|1",
	 "virtio-net checksum offload both ways (CSUM, GUEST_CSUM), when "
	 "the device offers it"},
	{"virtio_tso", "1", v_choice, "0|1",
	 "virtio-net receive of coalesced TCP segments (GUEST_TSO4; needs "
	 "virtio_csum=1 and virtio_mrg=1)"},
	{"virtio_host_tso", "1", v_choice, "0|1",
	 "virtio-net transmit of merged TCP segments (HOST_TSO4; needs "
	 "virtio_csum=1)"},
	{"virtio_mrg", "1", v_choice, "0|1",
	 "virtio-net mergeable RX buffers (MRG_RXBUF)"},
	{"virtio_event_idx", "1", v_choice, "0|1",
	 "virtio interrupt and notify suppression by index "
	 "(VIRTIO_F_EVENT_IDX: "
	 "used_event/avail_event) when the device offers it; 0: by ring flags"},
	{"net_irq", "on", v_choice, "on|off",
	 "NIC interrupts wake the queue pollers (off: pure polling)"},
	{"net_gro", "on", v_choice, "on|off",
	 "join consecutive TCP segments of one connection into one packet "
	 "before lwIP (receive coalescing, as Linux's GRO)"},
	{"poll_us", "200", v_uint, "0-1000000",
	 "busy-poll a NIC queue this long after its last work before "
	 "sleeping on its interrupt (0: sleep at once)"},
	{"app", "echo,http,iperf", v_list, "echo|http|iperf|none",
	 "network services to start"},
	{"http_hostport", "", v_uint, "1-65535",
	 "host port forwarded to HTTP (printed as the curl command to type)"},
	{"echo_hostport", "", v_uint, "1-65535",
	 "host port forwarded to echo (printed as the nc command to type)"},
	{"iperf_hostport", "", v_uint, "1-65535",
	 "host port forwarded to iperf (printed as the iperf command to type)"},
	{"http_control", "0", v_choice, "0|1",
	 "HTTP actions that start work on the guest (POST /iperf-client/PORT, "
	 "/profile/start, /profile/stop; README.md, Safety): off unless 1"},
	{"hostname", "unikernel", v_name, "letters, digits, '-' (1-63)",
	 "DHCP host name"},
	{"mm_debug", "0", v_choice, "0|1", "allocator debug checks"},
	{"fail_page_alloc", "off", v_fault, FAULT_ALLOWED,
	 "failure injection into the page allocator, armed after boot"},
	{"failslab", "off", v_fault, FAULT_ALLOWED,
	 "failure injection into slab caches and kmalloc, armed after boot"},
	{"fail_qmempool", "off", v_fault, FAULT_ALLOWED,
	 "failure injection into qmempool, armed after boot"},
	{"fail_page_frag", "off", v_fault, FAULT_ALLOWED,
	 "failure injection into page_frag (RX buffers), armed after boot"},
	{"bench", "", v_list, "pages|slab|frag|qmempool|alfq|xcpu|net|all",
	 "in-kernel benchmarks to run"},
	{"selftest", "", v_list,
	 "fault|fault_ap|panic|mm|slab|frag|qmempool|misuse|smp|irq|printf|"
	 "net|none",
	 "boot self-tests"},
	{"exit_after_boot", "0", v_choice, "0|1",
	 "leave QEMU (isa-debug-exit) after the boot report"},
	{"shell", "1", v_choice, "0|1",
	 "serial shell on COM1 (when a UART answers there)"},
	{"smp", "", v_uint, "1-64", "start at most this many CPUs"},
	{"profile", "0", v_choice, "0|1",
	 "sample every CPU from its timer from the end of the boot "
	 "(docs/profiling.md)"},
	{"profile_hz", "997", v_uint, "10-5000",
	 "profiler samples per second per CPU (prime: no lockstep with "
	 "periodic work)"},
	/* 32768 samples of 128 bytes: 4 MiB, one buddy block of the largest
	 * order (MAX_ORDER) */
	{"profile_samples", "8192", v_uint, "64-32768",
	 "profiler buffer per CPU, in samples of 128 bytes"},
	{"smp_wait_ms", "10000", v_uint, "0-60000",
	 "how long the boot CPU waits for each other CPU to start "
	 "(0: no time at all, every CPU is late; for tests)"},
};
#define NR_KEYS ((int)(sizeof(keys) / sizeof(keys[0])))

static char raw_copy[CMDLINE_MAX];
static char words[CMDLINE_MAX];
static const char *values[NR_KEYS];
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

static bool v_choice(const char *v, const char *allowed)
{
	return in_choices(v, strlen(v), allowed);
}

static bool v_list(const char *v, const char *allowed)
{
	while (*v) {
		const char *comma = strchr(v, ',');
		size_t len = comma ? (size_t)(comma - v) : strlen(v);

		if (!in_choices(v, len, allowed) &&
		    !(len == 3 && !strncmp(v, "all", 3) &&
		      in_choices("all", 3, allowed)))
			return false;
		if (!comma)
			break;
		v = comma + 1;
	}
	return true;
}

static bool v_uint(const char *v, const char *allowed)
{
	char *end;
	unsigned long lo = strtoul(allowed, &end, 10), hi;

	hi = strtoul(end + 1, NULL, 10);
	unsigned long n = strtoul(v, &end, 0);

	return end != v && *end == 0 && n >= lo && n <= hi;
}

/* Dotted quad; *p is left after it. */
static bool parse_ip(const char **p)
{
	for (int i = 0; i < 4; i++) {
		char *end;
		unsigned long n = strtoul(*p, &end, 10);

		if (end == *p || n > 255 || end - *p > 3)
			return false;
		*p = end;
		if (i < 3) {
			if (**p != '.')
				return false;
			(*p)++;
		}
	}
	return true;
}

static bool v_ip(const char *v, const char *allowed)
{
	(void)allowed;
	return parse_ip(&v) && *v == 0;
}

static bool v_ip_cidr(const char *v, const char *allowed)
{
	char *end;
	unsigned long n;

	(void)allowed;
	if (!strcmp(v, "dhcp"))
		return true;
	if (!parse_ip(&v) || *v != '/')
		return false;
	/* /0 would make every address on-link: not a host's network. */
	n = strtoul(v + 1, &end, 10);
	return end != v + 1 && *end == 0 && n >= 1 && n <= 32;
}

/* A unicast address a host may be given: not ::, not ::1, not ff00::/8. */
static bool ip6_is_host_unicast(const uint8_t a[16])
{
	uint8_t zero[16] = {0};

	if (a[0] == 0xff || !memcmp(a, zero, 16))
		return false;
	return memcmp(a, zero, 15) != 0 || a[15] != 1;
}

static bool v_ip6(const char *v, const char *allowed)
{
	uint8_t a[16];
	const char *end;

	(void)allowed;
	return ip6_text_parse(v, a, &end) && *end == 0 &&
	       ip6_is_host_unicast(a);
}

/*
 * ip6=ADDR/64 (or ADDR alone: /64). Only /64: lwIP 2.1.3 treats a
 * static address as on-link for its first 64 bits whatever was asked
 * (nd6_is_prefix_in_netif), so any other length would be a lie.
 */
static bool v_ip6_cidr(const char *v, const char *allowed)
{
	uint8_t a[16];
	int prefix = 64;

	(void)allowed;
	if (!strcmp(v, "auto"))
		return true;
	if (!strchr(v, '/'))
		return v_ip6(v, NULL);
	return ip6_text_parse_prefix(v, a, &prefix) && prefix == 64 &&
	       ip6_is_host_unicast(a);
}

static bool v_name(const char *v, const char *allowed)
{
	size_t n = strlen(v);

	(void)allowed;
	if (n == 0 || n > 63 || v[0] == '-')
		return false;
	for (; *v; v++) {
		char c = *v;

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '-'))
			return false;
	}
	return true;
}

/* local|device|interleave, or node:N with N a node id (0..7; whether the
 * machine has that node is checked when the policy is applied). */
static bool v_node_policy(const char *v, const char *allowed)
{
	char *end;
	unsigned long n;

	(void)allowed;
	if (in_choices(v, strlen(v), "local|device|interleave"))
		return true;
	if (strncmp(v, "node:", 5) != 0 || v[5] < '0' || v[5] > '9')
		return false;
	n = strtoul(v + 5, &end, 10);
	return *end == 0 && n < MAX_NODES;
}

/* A failure-injection spec (mm/fault_inject.h has the syntax). */
static bool v_fault(const char *v, const char *allowed)
{
	(void)allowed;
	return mm_fault_spec_ok(v);
}

static int key_index(const char *name)
{
	for (int i = 0; i < NR_KEYS; i++)
		if (!strcmp(keys[i].name, name))
			return i;
	return -1;
}

static void take_word(char *w, bool first)
{
	char *eq = strchr(w, '=');
	int k;

	if (!eq) {
		/* QEMU and GRUB put the kernel's own path first */
		if (first && strchr(w, '/'))
			return;
		kprintf("cmdline: '%s' is not key=value, ignored\n", w);
		errors++;
		return;
	}
	*eq = 0;
	k = key_index(w);
	if (k < 0) {
		kprintf("cmdline: unknown key '%s', ignored\n", w);
		errors++;
	} else if (!keys[k].valid(eq + 1, keys[k].allowed)) {
		kprintf("cmdline: bad value '%s' for %s (expected %s), "
			"using default '%s'\n",
			eq + 1, w, keys[k].allowed, keys[k].def);
		errors++;
	} else {
		values[k] = eq + 1;
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
	int k = key_index(key);

	if (k < 0) {
		kprintf("cmdline: internal: key '%s' is not in the table\n",
			key);
		return NULL;
	}
	return values[k] ? values[k] : keys[k].def;
}

long cmdline_get_long(const char *key)
{
	const char *v = cmdline_get(key);

	return v ? strtol(v, NULL, 0) : 0;
}

bool cmdline_get_bool(const char *key)
{
	return cmdline_get_long(key) != 0;
}

bool cmdline_given(const char *key)
{
	int k = key_index(key);

	return k >= 0 && values[k];
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
