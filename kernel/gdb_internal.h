/*
 * What the GDB stub's parts share (kernel/gdb_stub.h is the outside's
 * view). Four parts, each using only those listed before it:
 *
 *   gdb_mem.c     memory the debugger reads and writes, probed in the
 *                 page tables first, and the breakpoint table;
 *   gdb_packet.c  the transport, packet framing, acknowledgements, hex;
 *   gdb_cmds.c    one session: the packets gdb sends while the machine is
 *                 stopped, answered against a struct gdb_world;
 *   gdb_stop.c    stopping and resuming the CPUs, the trap and NMI
 *                 entries; it fills the world and runs the session.
 *
 * Threads are CPUs: gdb's thread id is the CPU id + 1 (gdb reserves 0 for
 * "any" and -1 for "all").
 */
#ifndef KERNEL_GDB_INTERNAL_H
#define KERNEL_GDB_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/config.h"
#include "kernel/gdb_stub.h"

/* Payload bytes of the longest packet either side sends (qSupported's
 * PacketSize): a 'g' reply is 1072, a memory read of 2 KiB 4096. */
#define GDB_PACKET_MAX 4096

/* Software breakpoints set at once (Z0). */
#define GDB_MAX_BREAKPOINTS 64

/* Signals of the stop replies (gdb's numbering). */
#define GDB_SIGINT  2
#define GDB_SIGTRAP 5

/* What one CPU does when the machine resumes. */
enum gdb_action {
	GDB_RUN,  /* continue */
	GDB_STEP, /* one instruction, then stop the machine again */
	GDB_STAY, /* stay stopped while others step */
};

/* How a session ended. */
enum gdb_resume {
	GDB_RESUME, /* the actions in the world (continue, step) */
	GDB_DETACH, /* breakpoints cleared, every CPU continues */
};

/*
 * The stopped machine as a session sees it: kernel/gdb_stop.c fills it
 * before the session, gdb_cmds.c reads the registers and writes the
 * actions; the CPU serving the session owns it.
 */
struct gdb_world {
	int nr_cpus;
	/* Each CPU's registers, as its trap or NMI saved them; NULL for a
	 * CPU that is not stopped (the transport's CPU, or one that did not
	 * answer in time). */
	struct trap_frame *frame[MAX_CPUS];
	int io_cpu;   /* the transport's running CPU, or -1 */
	int current;  /* the CPU whose event stopped the machine */
	int signal;   /* GDB_SIGTRAP or GDB_SIGINT */
	bool swbreak; /* current stopped at one of the table's breakpoints */
	int g_cpu;    /* Hg: the CPU whose registers g, G, p, P see */
	int c_cpu;    /* Hc: the CPU s and c act on, -1 for all */
	enum gdb_action action[MAX_CPUS]; /* set by the session */
};

/* ---- gdb_mem.c ---- */

/*
 * gdb_mem_read/gdb_mem_write - copy up to n bytes at addr, stopping at
 * the first page that is not mapped (present, and writable for a write,
 * in the page tables CR3 points at) or is device memory (mapped
 * uncached: reading a device's register can change the device). Return:
 * the bytes copied (0: addr itself is not readable/writable).
 */
size_t gdb_mem_read(uint64_t addr, void *buf, size_t n);
size_t gdb_mem_write(uint64_t addr, const void *buf, size_t n);

/*
 * The breakpoint table. gdb_bp_add/remove change the table only (the
 * machine is stopped, so none is in memory); add returns 0, or -1 when
 * addr is not writable code, may not take one (gdb_no_breakpoint) or the
 * table is full. Stopped machine, serving CPU.
 */
int gdb_bp_add(uint64_t addr);
int gdb_bp_remove(uint64_t addr);
/*
 * gdb_no_breakpoint - is addr in code that runs between a trap and the
 * moment the stub takes its breakpoints out of memory, or on a parked
 * CPU's way out after they went back (the entry stubs, the dispatcher,
 * the NMI path, the stub itself: linker.ld keeps them together)? A
 * breakpoint there would trap inside its own handling: Z0 refuses it.
 */
bool gdb_no_breakpoint(uint64_t addr);
/* Is there one at addr? Any context. */
bool gdb_bp_at(uint64_t addr);
/* Write an int3 at every address of the table / put every original
 * byte back. Serving CPU, while stopping or resuming. */
void gdb_bp_insert_all(void);
void gdb_bp_remove_all(void);
/* Forget every breakpoint (detach); none may be in memory. */
void gdb_bp_clear(void);
/* One breakpoint out of memory (its CPU steps over it) and back in.
 * Trap context; back in only if still in the table and none is out
 * (the machine is not stopped). */
void gdb_bp_lift(uint64_t addr);
void gdb_bp_restore(uint64_t addr);

/* ---- gdb_packet.c ---- */

extern const struct gdb_transport *gdb_transport;

/*
 * gdb_packet_recv - the payload of the next packet from gdb (NUL-ended,
 * escapes of binary data left in, at most GDB_PACKET_MAX bytes):
 * acknowledges it ('+', or '-' for a bad checksum, which makes gdb send
 * it again) unless in no-ack mode; skips stray acknowledgements and
 * Ctrl-C. Return: its length, or GDB_CLOSED.
 */
int gdb_packet_recv(char *buf);

/*
 * gdb_packet_send - send payload s as one packet ($s#checksum) and, in
 * ack mode, wait for gdb's '+' (sending again on '-'). Return: 0, or
 * GDB_CLOSED.
 */
int gdb_packet_send(const char *s);

/* gdb_packet_push_back - byte was read from the transport already (the
 * '$' that started a break-in): the next read returns it first. */
void gdb_packet_push_back(int byte);

/* No-ack mode (QStartNoAckMode): no '+' either way. */
void gdb_packet_set_noack(bool on);

/* Hex digits: value of one (-1 if none); n bytes as 2n lowercase
 * digits at out (no NUL); a number at *s (advanced past its digits). */
int gdb_hex_digit(char c);
void gdb_hex_put(char *out, const void *bytes, size_t n);
uint64_t gdb_hex_number(const char **s);

/* ---- gdb_cmds.c ---- */

/*
 * gdb_session - serve gdb until it resumes the machine: first the stop
 * reply for w's stop when report, then packet after packet. Return:
 * GDB_RESUME with w->action[] set, or GDB_DETACH (also when the
 * transport closes). Stopped machine, serving CPU.
 */
enum gdb_resume gdb_session(struct gdb_world *w, bool report);

#endif
