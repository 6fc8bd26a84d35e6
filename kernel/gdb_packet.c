/*
 * GDB remote protocol framing: a packet is $payload#cc, cc the payload's
 * byte sum mod 256 in two hex digits. In ack mode each side answers a
 * packet with '+' (taken) or '-' (bad checksum: send it again); after
 * QStartNoAckMode neither does, which is how gdb runs on reliable links
 * (TCP). Binary data (X packets) escapes '#', '$', '}' and '*' as '}'
 * and the byte xor 0x20; the escapes are left for the command to undo.
 * Only the serving CPU of a stopped machine calls these.
 */
#include "kernel/arch.h"
#include "kernel/gdb_internal.h"

const struct gdb_transport *gdb_transport;
static int pushed = -1; /* a byte read before the packet reader ran */
static bool noack;
static char out[GDB_PACKET_MAX + 4]; /* $, payload, #, two digits */

static const char hexchars[] = "0123456789abcdef";

void gdb_packet_push_back(int byte)
{
	pushed = byte;
}

void gdb_packet_set_noack(bool on)
{
	noack = on;
}

/* The next byte from gdb, waiting for it; or GDB_CLOSED. */
static int next_byte(void)
{
	int c = pushed;

	if (c >= 0) {
		pushed = -1;
		return c;
	}
	while ((c = gdb_transport->read_byte()) == -1)
		cpu_relax();
	return c;
}

int gdb_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

void gdb_hex_put(char *o, const void *bytes, size_t n)
{
	const uint8_t *b = bytes;

	for (size_t i = 0; i < n; i++) {
		o[2 * i] = hexchars[b[i] >> 4];
		o[2 * i + 1] = hexchars[b[i] & 15];
	}
}

uint64_t gdb_hex_number(const char **s)
{
	uint64_t v = 0;
	int d;

	while ((d = gdb_hex_digit(**s)) >= 0) {
		v = v << 4 | (uint64_t)d;
		(*s)++;
	}
	return v;
}

/* The payload up to '#' and its checksum's agreement; -1 on overflow or
 * a bad checksum, GDB_CLOSED. A '$' inside restarts: gdb gave up on the
 * packet and sent it anew. */
static int read_payload(char *buf)
{
	int c, n = 0, hi, lo;
	unsigned int sum = 0;
	bool overflow = false;

	while ((c = next_byte()) != '#') {
		if (c == GDB_CLOSED)
			return c;
		if (c == '$') {
			n = 0;
			sum = 0;
			overflow = false;
			continue;
		}
		if (n == GDB_PACKET_MAX)
			overflow = true;
		else
			buf[n++] = (char)c;
		sum += (unsigned int)c;
	}
	if ((hi = next_byte()) == GDB_CLOSED ||
	    (lo = next_byte()) == GDB_CLOSED)
		return GDB_CLOSED;
	buf[n] = '\0';
	if (overflow || gdb_hex_digit((char)hi) < 0 ||
	    gdb_hex_digit((char)lo) < 0 ||
	    (unsigned int)(gdb_hex_digit((char)hi) << 4 |
			   gdb_hex_digit((char)lo)) != (sum & 0xFF))
		return -1;
	return n;
}

int gdb_packet_recv(char *buf)
{
	for (;;) {
		int c, n;

		while ((c = next_byte()) != '$')
			if (c == GDB_CLOSED)
				return c;
		n = read_payload(buf);
		if (n == GDB_CLOSED)
			return n;
		if (!noack)
			gdb_transport->write(n >= 0 ? "+" : "-", 1);
		if (n >= 0)
			return n;
	}
}

int gdb_packet_send(const char *s)
{
	size_t n = 0;
	unsigned int sum = 0;
	int c;

	out[n++] = '$';
	for (; *s && n < GDB_PACKET_MAX + 1; s++) {
		out[n++] = *s;
		sum += (unsigned char)*s;
	}
	out[n++] = '#';
	out[n++] = hexchars[(sum >> 4) & 15];
	out[n++] = hexchars[sum & 15];
	for (;;) {
		gdb_transport->write(out, n);
		if (noack)
			return 0;
		do {
			c = next_byte();
			if (c == GDB_CLOSED)
				return c;
			if (c == '$') { /* its next packet: ours arrived */
				pushed = c;
				return 0;
			}
		} while (c != '+' && c != '-');
		if (c == '+')
			return 0;
	}
}
