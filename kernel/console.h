/*
 * The console: every line goes to COM1 and to the screen (VGA text mode,
 * or the linear framebuffer GRUB hands over under UEFI), whole lines at a
 * time under one lock so output from several CPUs does not interleave.
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
 * kprintf/kvprintf - format (see <stdio.h> snprintf) and write to every
 * console in one piece. Output longer than 1 KiB is cut and marked "...".
 * Any context. Returns the number of characters of the full output.
 */
__attribute__((format(printf, 1, 2))) int kprintf(const char *fmt, ...);
int kvprintf(const char *fmt, va_list ap);

#endif
