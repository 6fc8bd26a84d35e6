/*
 * The shell's line editor (shell_line.h): a byte-at-a-time state machine.
 * Only the end of the line is edited (no cursor movement), which keeps
 * the redraw a matter of backspacing over the changed tail.
 */
#include "kernel/shell_line.h"
#include <string.h>

#define CTRL_C	  0x03
#define BACKSPACE 0x08
#define CTRL_U	  0x15
#define ESC	  0x1b
#define DEL	  0x7f

void shell_line_init(struct shell_line *l)
{
	memset(l, 0, sizeof(*l));
	l->hist_pos = -1;
}

void shell_line_clear(struct shell_line *l)
{
	l->len = 0;
	l->buf[0] = '\0';
	l->dropped = 0;
	l->hist_pos = -1;
}

static void set_text(struct shell_line *l, const char *s)
{
	size_t n = strlen(s);

	memcpy(l->buf, s, n + 1);
	l->len = n;
	l->dropped = 0;
}

static const char *hist_entry(const struct shell_line *l, int i)
{
	int slot = (l->hist_head - 1 - i + 2 * SHELL_HISTORY) % SHELL_HISTORY;

	return l->hist[slot];
}

static void hist_add(struct shell_line *l)
{
	if (l->len == 0 || (l->hist_count && !strcmp(hist_entry(l, 0), l->buf)))
		return;
	memcpy(l->hist[l->hist_head], l->buf, l->len + 1);
	l->hist_head = (l->hist_head + 1) % SHELL_HISTORY;
	if (l->hist_count < SHELL_HISTORY)
		l->hist_count++;
}

/* Up (older) or down (newer) through the history. */
static enum shell_line_event hist_move(struct shell_line *l, bool up)
{
	if (up) {
		if (l->hist_pos + 1 >= l->hist_count)
			return SHELL_LINE_NONE;
		if (l->hist_pos < 0)
			memcpy(l->saved, l->buf, l->len + 1);
		l->hist_pos++;
		set_text(l, hist_entry(l, l->hist_pos));
	} else {
		if (l->hist_pos < 0)
			return SHELL_LINE_NONE;
		l->hist_pos--;
		set_text(l, l->hist_pos < 0 ? l->saved
					    : hist_entry(l, l->hist_pos));
	}
	return SHELL_LINE_EDITED;
}

/* Inside an escape sequence: ESC [ or ESC O, then parameter bytes
 * (0x20-0x3f), then one final byte (0x40-0x7e) that names the key. */
static enum shell_line_event escape(struct shell_line *l, uint8_t c)
{
	if (l->esc == ESC_SEEN) {
		l->esc = (c == '[' || c == 'O') ? ESC_SEQ : ESC_NONE;
		if (l->esc == ESC_NONE)
			l->ignored++;
		return SHELL_LINE_NONE;
	}
	if (c >= 0x20 && c <= 0x3f)
		return SHELL_LINE_NONE; /* parameters: ESC [ 1 ; 5 A */
	l->esc = ESC_NONE;
	if (c == 'A' || c == 'B')
		return hist_move(l, c == 'A');
	l->ignored++; /* other keys (arrows left/right, Delete, F-keys) */
	return SHELL_LINE_NONE;
}

static enum shell_line_event end_of_line(struct shell_line *l)
{
	if (l->dropped) {
		shell_line_clear(l);
		return SHELL_LINE_TOO_LONG;
	}
	l->buf[l->len] = '\0';
	hist_add(l);
	return SHELL_LINE_DONE;
}

static enum shell_line_event backspace(struct shell_line *l)
{
	if (l->dropped) {
		l->dropped--; /* the invisible tail goes first */
		return SHELL_LINE_NONE;
	}
	if (l->len == 0)
		return SHELL_LINE_NONE;
	l->buf[--l->len] = '\0';
	return SHELL_LINE_EDITED;
}

static enum shell_line_event insert(struct shell_line *l, uint8_t c)
{
	if (l->len == SHELL_LINE_MAX) {
		l->dropped++;
		return SHELL_LINE_NONE;
	}
	l->buf[l->len++] = (char)c;
	l->buf[l->len] = '\0';
	return SHELL_LINE_EDITED;
}

enum shell_line_event shell_line_feed(struct shell_line *l, uint8_t c)
{
	bool after_cr = l->after_cr;

	l->after_cr = false;
	if (l->esc != ESC_NONE)
		return escape(l, c);
	switch (c) {
	case '\r':
		l->after_cr = true;
		return end_of_line(l);
	case '\n':
		return after_cr ? SHELL_LINE_NONE : end_of_line(l);
	case BACKSPACE:
	case DEL:
		return backspace(l);
	case CTRL_U:
		shell_line_clear(l);
		return SHELL_LINE_EDITED;
	case CTRL_C:
		shell_line_clear(l);
		return SHELL_LINE_CANCEL;
	case ESC:
		l->esc = ESC_SEEN;
		return SHELL_LINE_NONE;
	default:
		if (c >= 0x20 && c <= 0x7e)
			return insert(l, c);
		l->ignored++;
		return SHELL_LINE_NONE;
	}
}
