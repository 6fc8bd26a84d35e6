/*
 * COM1's line discipline (console_line.c): how the log, the shell's
 * output and the shell's line in progress share one serial line so that
 * every log line leaves whole and starts at column 0. Called only by
 * kernel/console.c, under the console lock; nothing here takes a lock.
 * Times are clock_ms() values passed in by the caller.
 */
#ifndef KERNEL_CONSOLE_LINE_H
#define KERNEL_CONSOLE_LINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A log write (kprintf): whole, never split; ends the line in progress
 * first and redraws it after. */
void com1_log(const char *s, size_t n, uint64_t now_ms);

/* Shell output: returns how many bytes went (0 while a log line is open
 * or the UART is full). */
size_t com1_output(const char *s, size_t n, uint64_t now_ms);

/* The shell's output is complete: end its line if open and let held log
 * lines out. */
void com1_output_end(uint64_t now_ms);

/* The line in progress becomes s (prompt and typed text, at most
 * CONSOLE_INPUT_MAX bytes): drawn now when the stream is at a line start
 * or already shows it (only the difference is sent), else once the line
 * that is open ends. */
void com1_input_show(const char *s, size_t n);

/* The line in progress is done (Enter, Ctrl-C): if shown, it is ended
 * with a newline and stays in the log as typed; it is no longer redrawn. */
void com1_input_end(void);

/* After a fatal error: held log text goes out now, whatever is open. */
void com1_flush(void);

struct com1_line_stats {
	uint64_t held;		/* log writes held behind an open output line */
	uint64_t output_breaks; /* output lines broken: held text overflowed */
	uint64_t log_breaks;	/* log lines ended for a writer that went */
	uint64_t input_redraws; /* line in progress redrawn after a log line */
};
void com1_line_stats_read(struct com1_line_stats *out);

#endif
