/*
 * The console: every log line goes to COM1 and to the screen (VGA text
 * mode, or the linear framebuffer GRUB hands over under UEFI), whole lines
 * at a time under one lock so output from several CPUs does not
 * interleave. The serial shell (kernel/shell.c) shares COM1 through the
 * console_shell_* calls: a log line never splits and always starts at
 * column 0, whatever the shell is showing (kernel/console_line.c has the
 * rules; docs/shell.md the picture).
 */
#ifndef KERNEL_CONSOLE_H
#define KERNEL_CONSOLE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include "kernel/console_dev.h"

/* Serial only; call first thing at boot. */
void console_early_init(void);
/* Adds the screen; si->addr must be mapped already (kmain maps a
 * framebuffer before it hands it over). */
void console_screen_init(const struct screen_info *si);
/* Writes n bytes to every console. Any context; takes the console lock. */
void console_write(const char *s, size_t n);
/* After a fatal error: stop waiting for a lock another CPU may hold
 * forever; output may interleave from then on. */
void console_break_lock(void);
/* Which screen is in use: "vga", "framebuffer WxH" or "none". */
const char *console_screen_name(void);

/*
 * The serial shell's side of COM1 (not the screen). Any context; each
 * takes the console lock. The shell calls console_shell_attach once,
 * after time_init, before the others, with the clock the line discipline
 * times its waits with (clock_ms).
 *
 * console_shell_output - write up to n bytes of command output; returns
 *   how many went (0 while a log line is open or the UART is full: try
 *   again next poll round).
 * console_shell_output_end - the command's output is complete.
 * console_shell_input - the line in progress (prompt and typed text)
 *   becomes s[0..n); redrawn after every log line until
 * console_shell_input_end - ends it (it stays in the log as typed).
 */
void console_shell_attach(uint64_t (*now_ms)(void));
size_t console_shell_output(const char *s, size_t n);
void console_shell_output_end(void);
void console_shell_input(const char *s, size_t n);
void console_shell_input_end(void);
struct com1_line_stats;
void console_line_stats_read(struct com1_line_stats *out);

/*
 * kprintf/kvprintf - format (see <stdio.h> snprintf) and write to every
 * console in one piece. Output longer than 1 KiB is cut and marked "...".
 * Any context. Returns the number of characters of the full output.
 */
__attribute__((format(printf, 1, 2))) int kprintf(const char *fmt, ...);
int kvprintf(const char *fmt, va_list ap);

#endif
