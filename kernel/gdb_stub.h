/*
 * The GDB stub: GDB's remote serial protocol, so that gdb on another
 * machine can stop this one, read and write its memory and registers,
 * set breakpoints and single-step, each CPU a thread (docs/observe.md:
 * how to use it on a PC). Off unless the boot line says gdb=
 * (README.md, "Safety").
 *
 * The protocol engine lives in kernel/ and talks through a transport:
 * COM2 (kernel/gdb_com2.c) needs nothing but the UART; TCP
 * (apps/gdb_tcp.c) goes through lwIP, on a CPU that must keep moving its
 * bytes while the others are stopped (the io_cpu and may_stop hooks).
 *
 * All-stop: when one CPU stops (a breakpoint, a step, the debugger
 * asking), it becomes the master, stops every other CPU with an NMI,
 * takes the breakpoints out of memory and serves gdb until it says
 * continue, step or detach; then the breakpoints go back and every CPU
 * resumes at once (kernel/gdb_stop.c).
 */
#ifndef KERNEL_GDB_STUB_H
#define KERNEL_GDB_STUB_H

#include <stdbool.h>
#include <stddef.h>

#include "kernel/trap_frame.h"

/*
 * gdb_com2_start - the COM2 transport, when the boot line says gdb=com2:
 * the UART, its receive interrupt (IRQ 3) on CPU 0, one line saying so.
 * Boot CPU, after the interrupts are set up (irq_delivery_init).
 */
void gdb_com2_start(void);

/* read_byte: the debugger went away (the stub detaches). */
#define GDB_CLOSED (-2)

/*
 * How the stub reaches gdb. The stub calls read_byte and write only while
 * the machine is stopped, from the CPU serving the session (interrupts
 * masked, the other CPUs parked); neither may log.
 */
struct gdb_transport {
	const char *name; /* "com2", "tcp" */
	/* A received byte (0-255), -1 when none is waiting, or GDB_CLOSED. */
	int (*read_byte)(void);
	/* Sends n bytes, waiting for room as long as it takes. */
	void (*write)(const char *s, size_t n);
	/* The CPU that carries the transport and so keeps running while the
	 * machine is stopped, or -1 when none must (a UART: the serving CPU
	 * drives it itself). Any context. */
	int (*io_cpu)(void);
	/* May the calling CPU stop at this point? A CPU that holds what
	 * the transport's CPU needs to move bytes (a network stack's lock)
	 * may not: it steps over its breakpoint and an NMI asking it to
	 * stop is sent again. NULL: always. Trap and NMI context. */
	bool (*may_stop)(void);
};

/*
 * gdb_transport_register - the stub speaks through t from now on (the
 * boot key chose it). Boot, once. Returns 0, or -1 when one is already
 * registered.
 */
int gdb_transport_register(const struct gdb_transport *t);

/* gdb_enabled - is a transport registered? Any context. */
bool gdb_enabled(void);

/* gdb_stopped - is the machine stopped for gdb now? A transport's CPU
 * keeps polling instead of halting while it is. Any context. */
bool gdb_stopped(void);

/*
 * gdb_break_in_here - the transport saw, while the machine runs, the
 * debugger ask for it: Ctrl-C (0x03) or the first byte of a packet ('$',
 * gdb attaching). This CPU stops the machine and serves gdb, with f (the
 * interrupt it is handling) as its registers; returns when gdb lets the
 * machine go. byte: the byte read ('$' is handed to the packet reader).
 * Interrupt context (kernel/gdb_com2.c's receive interrupt).
 */
void gdb_break_in_here(struct trap_frame *f, int byte);

/*
 * gdb_break_in_elsewhere - the same, seen by the transport's CPU, which
 * must keep running: it asks another CPU to stop the machine (by NMI),
 * and asks again on each call until one has. byte: 0x03 or '$', left in
 * the transport (the reader finds it there). Poll context of the
 * transport's CPU (apps/gdb_tcp.c).
 */
void gdb_break_in_elsewhere(int byte);

/*
 * gdb_trap - the debug exception (#DB, vector 1: a single step) and the
 * breakpoint exception (#BP, vector 3: an int3). Returns true when the
 * stub handled it; false leaves it to the exception report (the stub is
 * off, or it is not one of the stub's). kernel/trap.c, exception context.
 */
bool gdb_trap(struct trap_frame *f);

#endif
