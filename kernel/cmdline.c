/*
 * Command line parsing, the generic validators and lookup. The
 * keys are declared with CMDLINE_KEY (cmdline.h) by the parts that read
 * them; the linker gathers them into one array between
 * __cmdline_keys_start and __cmdline_keys_end (linker.ld), which is all
 * this file knows of them.
 */
#include "kernel/cmdline.h"
#include "kernel/config.h"
#include "kernel/console.h"
#include "kernel/ip6_text.h"
#include <stdlib.h>
#include <string.h>

#define CMDLINE_MAX 1024

/*
 * The keys of the layers above the kernel, declared here until each moves
 * beside the code that reads it.
 */
static bool v_ip_cidr(const char *v, const char *allowed);
static bool v_ip(const char *v, const char *allowed);
static bool v_ip6_cidr(const char *v, const char *allowed);
static bool v_ip6(const char *v, const char *allowed);
static bool v_name(const char *v, const char *allowed);
static bool v_node_policy(const char *v, const char *allowed);

CMDLINE_KEY(net, nic, "virtio", cmdline_valid_choice,
	    "virtio|e1000|e1000e|all|none",
	    "network card driver (all: every supported NIC found)");
CMDLINE_KEY(net, ip, "dhcp", v_ip_cidr, "dhcp|A.B.C.D/N, N=1-32",
	    "IPv4 address");
CMDLINE_KEY(net, gw, "", v_ip, "A.B.C.D", "IPv4 gateway (with a static ip=)");
CMDLINE_KEY(net, ip6, "auto", v_ip6_cidr,
	    "auto|ADDR/64, ADDR a unicast IPv6 address",
	    "IPv6 global address: from router advertisements (SLAAC) or this "
	    "one; the link-local fe80:: address is always there");
CMDLINE_KEY(net, gw6, "", v_ip6, "a unicast IPv6 address",
	    "IPv6 gateway (with a static ip6=)");
CMDLINE_KEY(net, rx_alloc, "local", v_node_policy,
	    "local|device|interleave|node:N",
	    "NUMA node of RX buffers: the polling CPU's, the NIC's, every node "
	    "in turn, or node N");
CMDLINE_KEY(
	net, tx_alloc, "local", v_node_policy, "local|device|interleave|node:N",
	"NUMA node of TX buffers (lwIP's heap: PBUF_RAM pbufs), as rx_alloc");
CMDLINE_KEY(net, nic_node, "", cmdline_valid_uint, "0-7",
	    "the NICs' NUMA node, for firmware that does not report it (_PXM)");
CMDLINE_KEY(net, net_alloc, "native", cmdline_valid_choice, "stock|native",
	    "lwIP memory: its own pools or our allocators");
CMDLINE_KEY(net, net_queues, "", cmdline_valid_uint, "1-16",
	    "most RX/TX queue pairs per NIC (default: one per CPU)");
CMDLINE_KEY(net, virtio_csum, "1", cmdline_valid_choice, "0|1",
	    "virtio-net checksum offload both ways (CSUM, GUEST_CSUM), when "
	    "the device offers it");
CMDLINE_KEY(net, virtio_tso, "1", cmdline_valid_choice, "0|1",
	    "virtio-net receive of coalesced TCP segments (GUEST_TSO4; needs "
	    "virtio_csum=1 and virtio_mrg=1)");
CMDLINE_KEY(net, virtio_host_tso, "1", cmdline_valid_choice, "0|1",
	    "virtio-net transmit of merged TCP segments (HOST_TSO4; needs "
	    "virtio_csum=1)");
CMDLINE_KEY(net, virtio_mrg, "1", cmdline_valid_choice, "0|1",
	    "virtio-net mergeable RX buffers (MRG_RXBUF)");
CMDLINE_KEY(
	net, virtio_event_idx, "1", cmdline_valid_choice, "0|1",
	"virtio interrupt and notify suppression by index "
	"(VIRTIO_F_EVENT_IDX: "
	"used_event/avail_event) when the device offers it; 0: by ring flags");
CMDLINE_KEY(net, net_irq, "on", cmdline_valid_choice, "on|off",
	    "NIC interrupts wake the queue pollers (off: pure polling)");
CMDLINE_KEY(net, net_gro, "on", cmdline_valid_choice, "on|off",
	    "join consecutive TCP segments of one connection into one packet "
	    "before lwIP (receive coalescing, as Linux's GRO)");
CMDLINE_KEY(net, poll_us, "200", cmdline_valid_uint, "0-1000000",
	    "busy-poll a NIC queue this long after its last work before "
	    "sleeping on its interrupt (0: sleep at once)");
CMDLINE_KEY(apps, app, "echo,http,iperf", cmdline_valid_list,
	    "echo|http|iperf|none", "network services to start");
CMDLINE_KEY(
	apps, http_hostport, "", cmdline_valid_uint, "1-65535",
	"host port forwarded to HTTP (printed as the curl command to type)");
CMDLINE_KEY(apps, echo_hostport, "", cmdline_valid_uint, "1-65535",
	    "host port forwarded to echo (printed as the nc command to type)");
CMDLINE_KEY(
	apps, iperf_hostport, "", cmdline_valid_uint, "1-65535",
	"host port forwarded to iperf (printed as the iperf command to type)");
CMDLINE_KEY(net, hostname, "unikernel", v_name, "letters, digits, '-' (1-63)",
	    "DHCP host name");
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

bool cmdline_valid_list(const char *v, const char *allowed)
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

bool cmdline_valid_uint(const char *v, const char *allowed)
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
	if (cmdline_valid_choice(v, "local|device|interleave"))
		return true;
	if (strncmp(v, "node:", 5) != 0 || v[5] < '0' || v[5] > '9')
		return false;
	n = strtoul(v + 5, &end, 10);
	return *end == 0 && n < MAX_NODES;
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

	return v ? strtol(v, NULL, 0) : 0;
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
