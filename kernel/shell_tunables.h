/*
 * Tunables of the serial shell (kernel/shell.c, kernel/shell_line.c), each
 * with its default and the reason for it.
 */
#ifndef KERNEL_SHELL_TUNABLES_H
#define KERNEL_SHELL_TUNABLES_H

/* Characters in one command line. 72 plus the 7-character prompt fit an
 * 80-column terminal, so the editor's backspace-and-retype redraw never
 * has to cross a wrapped line (a backspace does not go up a row). Longer
 * lines are refused with one line naming the limit. */
#define SHELL_LINE_MAX 72

/* Lines kept for the up/down arrows, oldest dropped first. */
#define SHELL_HISTORY 16

/* Received bytes buffered between the UART and the line editor. The
 * UART's FIFO holds 16; the ring lets a pasted line (or type-ahead during
 * a long command) wait without overrunning it. */
#define SHELL_RX_RING 256

/* How often the poller reads the UART's line status when nothing told it
 * to. Each read is a port access, which under a hypervisor is an exit to
 * the device model (microseconds): reading it every poll round would tax
 * every packet the CPU's network poller handles. With the receive
 * interrupt the poller reads only when the interrupt fired, and this
 * slow look is a safety net (an edge-triggered ISA line can be missed
 * while the FIFO stays full); without it, every 10 ms (one timer tick:
 * a typed key waits at most that) is the only way bytes come in. */
#define SHELL_RX_LOOK_IRQ_MS 100
#define SHELL_RX_LOOK_MS     10

/* Input bytes edited per poll round, and at most one command run: the
 * shell shares its CPU's poll loop with the network, which must not wait
 * behind a paste. */
#define SHELL_RX_BUDGET 64

/* Output bytes written per poll round. Each byte is a port write that the
 * hypervisor hands to its serial device: under QEMU's TCG on a loaded
 * 2-core host, the 10.6 KB of `stats` left in 169 rounds over 134 ms,
 * about 0.8 ms per 64-byte slice, time the network's poller on the same
 * CPU waits; 512 would make it ~6 ms. A real UART takes only its 16-byte
 * FIFO per round anyway (serial_write_some never waits). */
#define SHELL_OUT_SLICE 64

/* The largest answer a command may queue (stats is ~40 KiB on 2 CPUs;
 * 64 CPUs make it a few hundred). Past this the command is refused. */
#define SHELL_OUTPUT_MAX (1024 * 1024)

/* Commands in the table (kernel ones and those net/ registers). */
#define SHELL_MAX_COMMANDS 32

/* Words in one command line, the command's name included. */
#define SHELL_MAX_ARGS 8

#endif
