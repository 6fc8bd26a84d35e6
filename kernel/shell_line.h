/*
 * The shell's line editor: bytes from the terminal in, a line and what to
 * redraw out. No I/O of its own (kernel/shell.c shows the line through the
 * console), so it runs on the host in tests/host/kernel/test_shell_line.c.
 *
 * Keys: printable ASCII inserts at the end; backspace (0x08 or 0x7f)
 * deletes the last character; Ctrl-U clears the line; Ctrl-C abandons it;
 * ESC [ A / ESC [ B (and ESC O A / ESC O B) walk the history; CR, LF or
 * CR LF ends the line (the LF of a CR LF is swallowed, so it never runs
 * an empty extra command). Other control bytes, other escape sequences
 * and bytes above 0x7e are ignored (counted).
 */
#ifndef KERNEL_SHELL_LINE_H
#define KERNEL_SHELL_LINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "kernel/shell_tunables.h"

enum shell_line_event {
	SHELL_LINE_NONE,     /* nothing visible changed */
	SHELL_LINE_EDITED,   /* the line changed: redraw it */
	SHELL_LINE_DONE,     /* Enter: the line is in buf, NUL-terminated */
	SHELL_LINE_TOO_LONG, /* Enter on a line longer than SHELL_LINE_MAX */
	SHELL_LINE_CANCEL,   /* Ctrl-C: the line was abandoned */
};

struct shell_line {
	char buf[SHELL_LINE_MAX + 1];
	size_t len;
	size_t dropped; /* typed past SHELL_LINE_MAX: not kept, not shown */
	enum { ESC_NONE, ESC_SEEN, ESC_SEQ } esc;
	bool after_cr; /* the previous byte was a CR: a LF now is its pair */
	/* history: hist[(head - 1 - i) mod SHELL_HISTORY] is the i-th newest */
	char hist[SHELL_HISTORY][SHELL_LINE_MAX + 1];
	int hist_count, hist_head;
	int hist_pos;			/* -1: editing a new line */
	char saved[SHELL_LINE_MAX + 1]; /* that new line, while browsing */
	uint64_t ignored;		/* bytes ignored (see above) */
};

/* An empty editor with an empty history. */
void shell_line_init(struct shell_line *l);

/*
 * shell_line_feed - one received byte. Returns what happened. After
 * SHELL_LINE_DONE the caller reads l->buf and calls shell_line_clear;
 * the line is already in the history (unless empty or a repeat of the
 * newest). After TOO_LONG and CANCEL the line is already cleared.
 */
enum shell_line_event shell_line_feed(struct shell_line *l, uint8_t c);

/* Starts a new empty line (history kept). */
void shell_line_clear(struct shell_line *l);

#endif
