/*
 * COM1's line discipline. The log and the serial shell share one line,
 * and tests and scripts wait for log lines ("net: listening ...") with
 * line-anchored patterns on a captured byte stream, so a log line must
 * leave whole and start right after a '\n'. Three writers:
 *
 *   log     kprintf from any CPU or context (console_write);
 *   output  the shell's command output, a slice per poll round;
 *   input   the shell's line in progress: prompt and typed text.
 *
 * The discipline remembers what the stream's current line holds:
 *   LINE_START   nothing since the last '\n'
 *   LINE_LOG     a log write that did not end its line
 *   LINE_OUTPUT  a shell output slice that did not end its line
 *   LINE_INPUT   the prompt and typed text
 * and keeps three rules:
 *
 *   1. A log write while LINE_INPUT ends the input line with '\n', writes
 *      the log text, and redraws the input line once the log text has
 *      ended its line. A newline, not a CR and an erase: in a captured
 *      file the erased bytes would stay in front of the log line, and a
 *      pattern anchored at the line start would miss it.
 *   2. A log write while LINE_OUTPUT is held (CONSOLE_HELD_MAX bytes, for
 *      CONSOLE_HELD_WAIT_MS at most) and written right after the shell
 *      ends its line. When it does not fit or waited too long, the
 *      shell's line is broken with '\n' (counted) and the log goes out: a
 *      log line is never split, a shell output line may be.
 *   3. Shell output while LINE_LOG waits (writes nothing) for the log
 *      writer to end its line, CONSOLE_LOG_LINE_WAIT_MS at most; then the
 *      line is ended for it (counted).
 *
 * The caller (console.c) holds the console lock, which also serialises
 * log writes from different CPUs.
 */
#include "kernel/console_line.h"
#include "kernel/config.h"
#include "kernel/console_dev.h"
#include <string.h>

enum com1_line { LINE_START, LINE_LOG, LINE_OUTPUT, LINE_INPUT };

static enum com1_line line = LINE_START;
static uint64_t log_open_ms; /* when the open log line began */
static char input[CONSOLE_INPUT_MAX];
static size_t input_len;
static bool input_on; /* a line in progress exists (shown or not) */
static char held[CONSOLE_HELD_MAX];
static size_t held_len;
static uint64_t held_since_ms;
static struct com1_line_stats stats;

/* The state after writing s (n > 0) as writer `open`. */
static void note_written(const char *s, size_t n, enum com1_line open,
			 uint64_t now)
{
	if (s[n - 1] == '\n') {
		line = LINE_START;
	} else {
		if (line != LINE_LOG && open == LINE_LOG)
			log_open_ms = now;
		line = open;
	}
}

static void end_line(void)
{
	serial_write("\n", 1);
	line = LINE_START;
}

/* Draws the line in progress if the stream is at a line start; true if
 * it did. */
static bool draw_input(void)
{
	if (line != LINE_START || !input_on || input_len == 0)
		return false;
	serial_write(input, input_len);
	line = LINE_INPUT;
	return true;
}

static void flush_held(uint64_t now)
{
	if (held_len == 0)
		return;
	serial_write(held, held_len);
	note_written(held, held_len, LINE_LOG, now);
	held_len = 0;
}

/* Rule 2: true if s was held behind the open output line. */
static bool hold(const char *s, size_t n, uint64_t now)
{
	if (held_len + n <= sizeof(held) &&
	    (held_len == 0 || now - held_since_ms < CONSOLE_HELD_WAIT_MS)) {
		if (held_len == 0)
			held_since_ms = now;
		memcpy(held + held_len, s, n);
		held_len += n;
		stats.held++;
		return true;
	}
	end_line();
	stats.output_breaks++;
	flush_held(now);
	return false;
}

void com1_log(const char *s, size_t n, uint64_t now_ms)
{
	if (n == 0)
		return;
	if (line == LINE_OUTPUT && hold(s, n, now_ms))
		return;
	if (line == LINE_INPUT)
		end_line(); /* rule 1 */
	serial_write(s, n);
	note_written(s, n, LINE_LOG, now_ms);
	if (draw_input())
		stats.input_redraws++;
}

size_t com1_output(const char *s, size_t n, uint64_t now_ms)
{
	size_t done;

	if (n == 0)
		return 0;
	if (line == LINE_LOG) { /* rule 3 */
		if (now_ms - log_open_ms < CONSOLE_LOG_LINE_WAIT_MS)
			return 0;
		end_line();
		stats.log_breaks++;
	}
	if (line == LINE_INPUT)
		end_line();
	done = serial_write_some(s, n);
	if (done == 0)
		return 0;
	note_written(s, done, LINE_OUTPUT, now_ms);
	if (line == LINE_START) {
		flush_held(now_ms);
		(void)draw_input();
	}
	return done;
}

void com1_output_end(uint64_t now_ms)
{
	if (line == LINE_OUTPUT)
		end_line();
	if (line == LINE_START) {
		flush_held(now_ms);
		(void)draw_input();
	}
}

/* Index of the first byte where the shown line and s differ. */
static size_t common_prefix(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && i < input_len && input[i] == s[i])
		i++;
	return i;
}

void com1_input_show(const char *s, size_t n)
{
	bool shown = input_on && line == LINE_INPUT;
	size_t keep, old = input_len;

	if (n > sizeof(input))
		n = sizeof(input);
	keep = shown ? common_prefix(s, n) : 0;
	memcpy(input, s, n);
	input_len = n;
	input_on = true;
	if (!shown) {
		(void)draw_input(); /* at a line start: all of it; else later */
		return;
	}
	/* Backspace over what changed, then type the rest: no escape
	 * sequences, so any terminal (or a file) shows it right. */
	for (size_t i = keep; i < old; i++)
		serial_write("\b \b", 3);
	serial_write(s + keep, n - keep);
	if (n == 0)
		line = LINE_START;
}

void com1_input_end(void)
{
	if (input_on && line == LINE_INPUT)
		end_line();
	input_on = false;
	input_len = 0;
}

void com1_flush(void)
{
	if (held_len == 0)
		return;
	if (line != LINE_START)
		end_line();
	serial_write(held, held_len);
	held_len = 0;
	line = LINE_START;
}

void com1_line_stats_read(struct com1_line_stats *out)
{
	*out = stats;
}
