/*
 * One GDB session: the packets gdb sends while the machine is stopped,
 * each answered against the world kernel/gdb_stop.c filled in, until one
 * resumes the machine (c, s, vCont, D, k). What is answered:
 *
 *   ?            why the machine stopped (T05thread:N;swbreak:; ...)
 *   g G p P      registers of the Hg thread, in gdb's default amd64 layout
 *                (no target description: rax..r15, rip, eflags, the six
 *                segment selectors, then x87 and SSE, which the kernel
 *                never uses: -mgeneral-regs-only, so they read as
 *                unavailable)
 *   m M X        memory, probed first (kernel/gdb_mem.c): an unmapped
 *                address answers E14, never a fault
 *   Z0 z0        software breakpoints
 *   H T qC qfThreadInfo qsThreadInfo qThreadExtraInfo   CPUs as threads
 *   c s vCont    resume: continue, step (one CPU steps, the others
 *                continue or stay stopped, as vCont says)
 *   D k          detach: breakpoints cleared, the machine runs on (k
 *                too: a kernel is not killed by its debugger)
 *   qSupported QStartNoAckMode qAttached   the session's terms
 * Anything else gets the empty reply, which tells gdb "not supported".
 */
#include <stddef.h>
#include <string.h>

#include "kernel/gdb_internal.h"
#include "kernel/gdt.h"
#include "kernel/percpu.h"
#include "kernel/trap_frame.h"
#include "libc/strbuf.h"

#define NR_REGS 57 /* gdb's amd64 registers without a description */
#define NR_GPRS 20 /* rax..r15, rip, eflags, cs, ss: in the frame */
#define NR_CORE 24 /* ...ds es fs gs: constant selectors */

/* Where the frame keeps registers 0-19 (rax, rbx, rcx, rdx, rsi, rdi,
 * rbp, rsp, r8-r15, rip, eflags, cs, ss). */
static const unsigned char reg_off[NR_GPRS] = {
	offsetof(struct trap_frame, rax), offsetof(struct trap_frame, rbx),
	offsetof(struct trap_frame, rcx), offsetof(struct trap_frame, rdx),
	offsetof(struct trap_frame, rsi), offsetof(struct trap_frame, rdi),
	offsetof(struct trap_frame, rbp), offsetof(struct trap_frame, rsp),
	offsetof(struct trap_frame, r8),  offsetof(struct trap_frame, r9),
	offsetof(struct trap_frame, r10), offsetof(struct trap_frame, r11),
	offsetof(struct trap_frame, r12), offsetof(struct trap_frame, r13),
	offsetof(struct trap_frame, r14), offsetof(struct trap_frame, r15),
	offsetof(struct trap_frame, rip), offsetof(struct trap_frame, rflags),
	offsetof(struct trap_frame, cs),  offsetof(struct trap_frame, ss),
};

static char pkt[GDB_PACKET_MAX + 1];
static char reply[GDB_PACKET_MAX + 1];
static uint8_t bytes[GDB_PACKET_MAX / 2];

/* Bytes of register n in gdb's layout. */
static size_t reg_size(int n)
{
	if (n < 17)
		return 8; /* the general registers and rip */
	if (n < NR_CORE)
		return 4; /* eflags and the selectors */
	if (n < 32)
		return 10; /* st0-st7 */
	if (n < 40)
		return 4;	/* the x87 control registers */
	return n < 56 ? 16 : 4; /* xmm0-15, mxcsr */
}

/* Register n of the CPU: false when it is not known (a CPU that is not
 * stopped; the x87 and SSE registers). */
static bool reg_get(const struct gdb_world *w, int cpu, int n, uint64_t *v)
{
	const struct trap_frame *f = w->frame[cpu];

	if (!f || n >= NR_CORE)
		return false;
	if (n < NR_GPRS)
		*v = *(const uint64_t *)((const char *)f + reg_off[n]);
	else
		*v = n < 22 ? KERNEL_DS : 0; /* ds es; fs gs */
	return true;
}

/* Register n as hex at o (2 * reg_size(n) characters: 'x' for each byte
 * not known). */
static char *reg_put(char *o, const struct gdb_world *w, int cpu, int n)
{
	size_t size = reg_size(n);
	uint64_t v;

	if (!reg_get(w, cpu, n, &v)) {
		memset(o, 'x', 2 * size);
		return o + 2 * size;
	}
	gdb_hex_put(o, &v, size); /* little-endian, as gdb wants */
	return o + 2 * size;
}

/* Writes register n from its hex at *s; only the frame's registers other
 * than cs and ss can change (the rest are constants or unknown). Returns
 * false for one that cannot. */
static bool reg_set(struct trap_frame *f, int n, const char *s)
{
	uint64_t v = 0;
	size_t size = reg_size(n);

	if (!f || n >= 18)
		return false;
	for (size_t i = 0; i < size; i++) {
		int hi = gdb_hex_digit(s[2 * i]),
		    lo = gdb_hex_digit(s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return false;
		v |= (uint64_t)(hi << 4 | lo) << (8 * i);
	}
	*(uint64_t *)((char *)f + reg_off[n]) = v;
	return true;
}

static const char *ok_or(bool ok, const char *err)
{
	return ok ? "OK" : err;
}

/* ---- threads: thread id = CPU id + 1 ---- */

#define THREAD_ALL (-1) /* "-1" */
#define THREAD_ANY (-2) /* "0" */
#define THREAD_BAD (-3)

static int thread_parse(const struct gdb_world *w, const char **s)
{
	uint64_t tid;

	if ((*s)[0] == '-' && (*s)[1] == '1') {
		*s += 2;
		return THREAD_ALL;
	}
	if (gdb_hex_digit(**s) < 0)
		return THREAD_BAD;
	tid = gdb_hex_number(s);
	if (tid == 0)
		return THREAD_ANY;
	return tid <= (uint64_t)w->nr_cpus ? (int)tid - 1 : THREAD_BAD;
}

static const char *cmd_thread_select(struct gdb_world *w, const char *p)
{
	char which = *p++;
	int cpu = thread_parse(w, &p);

	if (cpu == THREAD_BAD || (which != 'g' && which != 'c'))
		return "E01";
	if (which == 'g')
		w->g_cpu = cpu >= 0 ? cpu : w->current;
	else
		w->c_cpu = cpu >= 0 ? cpu : -1;
	return "OK";
}

static void thread_list(const struct gdb_world *w, struct strbuf *sb)
{
	for (int c = 0; c < w->nr_cpus; c++)
		strbuf_printf(sb, "%s%x", c ? "," : "m", c + 1);
}

/* qThreadExtraInfo: what `info threads` shows beside each thread. */
static void thread_extra(const struct gdb_world *w, int cpu, struct strbuf *sb)
{
	char text[96];
	struct strbuf t;

	strbuf_init(&t, text, sizeof(text));
	strbuf_printf(&t, "cpu %d apic %u node %d", cpu, cpus[cpu].apic_id,
		      cpus[cpu].node);
	if (cpu == w->io_cpu)
		strbuf_printf(&t, ", running: it carries the debugger");
	else if (!w->frame[cpu])
		strbuf_printf(&t, ", running: did not stop");
	strbuf_done(&t);
	gdb_hex_put(strbuf_tail(sb), text, t.len);
	strbuf_skip(sb, 2 * t.len);
}

/* ---- registers and memory ---- */

static const char *cmd_read_regs(struct gdb_world *w)
{
	char *o = reply;

	for (int n = 0; n < NR_REGS; n++)
		o = reg_put(o, w, w->g_cpu, n);
	*o = '\0';
	return reply;
}

static const char *cmd_write_regs(struct gdb_world *w, const char *p)
{
	struct trap_frame *f = w->frame[w->g_cpu];
	size_t len = strlen(p);

	if (!f)
		return "E01";
	for (int n = 0; n < 18 && len >= 2 * reg_size(n); n++) {
		(void)reg_set(f, n, p); /* 'x' (unknown) leaves it */
		len -= 2 * reg_size(n);
		p += 2 * reg_size(n);
	}
	return "OK";
}

static const char *cmd_read_reg(struct gdb_world *w, const char *p)
{
	uint64_t n = gdb_hex_number(&p);

	if (n >= NR_REGS)
		return ""; /* what gdb's OS ABI adds (orig_rax, fs_base...):
			    * unknown, as the g reply leaves them */
	*reg_put(reply, w, w->g_cpu, (int)n) = '\0';
	return reply;
}

static const char *cmd_write_reg(struct gdb_world *w, const char *p)
{
	uint64_t n = gdb_hex_number(&p);

	if (*p++ != '=' || n >= NR_REGS || strlen(p) < 2 * reg_size((int)n))
		return "E01";
	return ok_or(reg_set(w->frame[w->g_cpu], (int)n, p), "E01");
}

/* "ADDR,LEN" then sep; false when malformed. */
static bool addr_len(const char **p, uint64_t *addr, uint64_t *len, char sep)
{
	*addr = gdb_hex_number(p);
	if (*(*p)++ != ',')
		return false;
	*len = gdb_hex_number(p);
	return !sep || *(*p)++ == sep;
}

static const char *cmd_read_mem(const char *p)
{
	uint64_t addr, len;
	size_t got;

	if (!addr_len(&p, &addr, &len, 0))
		return "E01";
	if (len > sizeof(bytes))
		len = sizeof(bytes); /* gdb takes a short read and asks on */
	got = gdb_mem_read(addr, bytes, (size_t)len);
	if (!got && len)
		return "E14";
	gdb_hex_put(reply, bytes, got);
	reply[2 * got] = '\0';
	return reply;
}

/* M: the data in hex; X: binary, with '}' escapes (and NULs: end is
 * the packet's end). */
static const char *cmd_write_mem(const char *p, const char *end, bool binary)
{
	uint64_t addr, len;
	size_t n = 0;

	if (!addr_len(&p, &addr, &len, ':') || len > sizeof(bytes))
		return "E01";
	while (n < len && p < end) {
		if (binary) {
			char c = *p++;

			if (c == '}' && p < end)
				c = (char)(*p++ ^ 0x20);
			bytes[n++] = (uint8_t)c;
		} else {
			int hi = gdb_hex_digit(p[0]), lo;

			if (hi < 0 || (lo = gdb_hex_digit(p[1])) < 0)
				return "E01";
			bytes[n++] = (uint8_t)(hi << 4 | lo);
			p += 2;
		}
	}
	if (n != len)
		return "E01";
	return ok_or(gdb_mem_write(addr, bytes, n) == n, "E14");
}

/* Z0,ADDR,KIND / z0,ADDR,KIND; other kinds (hardware breakpoints,
 * watchpoints) are not supported: the empty reply. */
static const char *cmd_breakpoint(const char *p, bool set)
{
	uint64_t addr, kind;

	if (*p++ != '0')
		return "";
	if (*p++ != ',' || !addr_len(&p, &addr, &kind, 0))
		return "E01";
	return ok_or((set ? gdb_bp_add(addr) : gdb_bp_remove(addr)) == 0,
		     "E01");
}

/* ---- resuming ---- */

/* The stop reply for w's stop. */
static const char *stop_reply(const struct gdb_world *w)
{
	struct strbuf sb;

	strbuf_init(&sb, reply, sizeof(reply));
	strbuf_printf(&sb, "T%02xthread:%x;%s", w->signal, w->current + 1,
		      w->swbreak ? "swbreak:;" : "");
	strbuf_done(&sb);
	return reply;
}

/* c/s [ADDR]: the Hc CPU (or the one that stopped) steps or continues
 * (from ADDR if given); every other CPU continues. */
static void resume_simple(struct gdb_world *w, const char *p, bool step)
{
	int cpu = w->c_cpu >= 0 ? w->c_cpu : w->current;

	for (int c = 0; c < w->nr_cpus; c++)
		w->action[c] = GDB_RUN;
	if (step)
		w->action[cpu] = GDB_STEP;
	if (*p && w->frame[cpu])
		w->frame[cpu]->rip = gdb_hex_number(&p);
}

/*
 * vCont;ACTION[:TID];...: each CPU takes the first action that names it
 * or names none. c and C continue, s and S step (the signal is not
 * delivered: the kernel has none). A CPU no action names stays stopped
 * (gdb steps one thread over a breakpoint that way). Returns false for a
 * malformed packet.
 */
static bool resume_vcont(struct gdb_world *w, const char *p)
{
	static bool named[MAX_CPUS];

	for (int c = 0; c < w->nr_cpus; c++) {
		w->action[c] = GDB_STAY;
		named[c] = false;
	}
	while (*p == ';') {
		char a = *++p;
		int cpu = THREAD_ALL;

		if (a != 'c' && a != 'C' && a != 's' && a != 'S')
			return false;
		p++;
		if (a == 'C' || a == 'S')
			(void)gdb_hex_number(&p);
		if (*p == ':' && (p++, cpu = thread_parse(w, &p)) == THREAD_BAD)
			return false;
		for (int c = 0; c < w->nr_cpus; c++) {
			if (named[c] || (cpu >= 0 && cpu != c))
				continue;
			named[c] = true;
			w->action[c] =
				(a == 's' || a == 'S') ? GDB_STEP : GDB_RUN;
		}
	}
	return *p == '\0';
}

/* ---- queries ---- */

static const char *cmd_query(struct gdb_world *w, const char *p)
{
	struct strbuf sb;

	strbuf_init(&sb, reply, sizeof(reply));
	if (!strncmp(p, "qSupported", 10)) {
		/* a new gdb: whatever the last one chose is over */
		gdb_packet_set_noack(false);
		strbuf_printf(&sb, "PacketSize=%x;swbreak+;QStartNoAckMode+",
			      GDB_PACKET_MAX);
	} else if (!strcmp(p, "qAttached")) {
		strbuf_printf(&sb, "1"); /* quit detaches, never kills */
	} else if (!strcmp(p, "qC")) {
		strbuf_printf(&sb, "QC%x", w->current + 1);
	} else if (!strcmp(p, "qfThreadInfo")) {
		thread_list(w, &sb);
	} else if (!strcmp(p, "qsThreadInfo")) {
		strbuf_printf(&sb, "l");
	} else if (!strncmp(p, "qThreadExtraInfo,", 17)) {
		const char *t = p + 17;
		int cpu = thread_parse(w, &t);

		if (cpu < 0)
			return "E01";
		thread_extra(w, cpu, &sb);
	} else if (!strncmp(p, "qSymbol", 7)) {
		strbuf_printf(&sb, "OK"); /* no symbols wanted */
	}
	strbuf_done(&sb);
	return reply;
}

/* One packet: *how is set when it resumes the machine. Returns the reply
 * (NULL: none, as after k). */
static const char *dispatch(struct gdb_world *w, char *p, int len, int *how)
{
	switch (p[0]) {
	case '?':
		return stop_reply(w);
	case 'g':
		return cmd_read_regs(w);
	case 'G':
		return cmd_write_regs(w, p + 1);
	case 'p':
		return cmd_read_reg(w, p + 1);
	case 'P':
		return cmd_write_reg(w, p + 1);
	case 'm':
		return cmd_read_mem(p + 1);
	case 'M':
		return cmd_write_mem(p + 1, p + len, false);
	case 'X':
		return cmd_write_mem(p + 1, p + len, true);
	case 'Z':
	case 'z':
		return cmd_breakpoint(p + 1, p[0] == 'Z');
	case 'H':
		return cmd_thread_select(w, p + 1);
	case 'T': {
		const char *t = p + 1;

		return ok_or(thread_parse(w, &t) >= 0, "E01");
	}
	case 'c':
	case 's':
		resume_simple(w, p + 1, p[0] == 's');
		*how = GDB_RESUME;
		return NULL; /* the next stop answers */
	case 'D':
		*how = GDB_DETACH;
		return "OK";
	case 'k':
		*how = GDB_DETACH;
		return NULL;
	case 'q':
		return cmd_query(w, p);
	case 'Q':
		if (strcmp(p, "QStartNoAckMode"))
			return "";
		gdb_packet_send("OK"); /* acknowledged, then no more */
		gdb_packet_set_noack(true);
		return NULL;
	case 'v':
		if (!strcmp(p, "vCont?"))
			return "vCont;c;C;s;S";
		if (!strncmp(p, "vCont;", 6)) {
			if (!resume_vcont(w, p + 5))
				return "E01";
			*how = GDB_RESUME;
			return NULL;
		}
		return "";
	default:
		return "";
	}
}

enum gdb_resume gdb_session(struct gdb_world *w, bool report)
{
	if (report && gdb_packet_send(stop_reply(w)) == GDB_CLOSED)
		return GDB_DETACH;
	for (;;) {
		int how = -1, n = gdb_packet_recv(pkt);
		const char *r;

		if (n == GDB_CLOSED)
			return GDB_DETACH;
		r = dispatch(w, pkt, n, &how);
		if (r && gdb_packet_send(r) == GDB_CLOSED)
			return GDB_DETACH;
		if (how >= 0) {
			if (how == GDB_DETACH)
				gdb_packet_set_noack(false);
			return (enum gdb_resume)how;
		}
	}
}
