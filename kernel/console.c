/*
 * Console multiplexer and kprintf. One lock serialises whole writes; each
 * kprintf formats into a stack buffer first so a line leaves in one piece.
 * The log goes to COM1, the screen and the log ring (kernel/log_ring.h,
 * for netconsole); the serial shell's output and its
 * line in progress go to COM1 only, through COM1's line discipline
 * (console_line.c), which keeps every log line whole at column 0.
 */
#include "kernel/console.h"
#include "kernel/console_dev.h"
#include "kernel/console_line.h"
#include "kernel/log_ring.h"
#include "kernel/spinlock.h"
#include <stdio.h>
#include <stdbool.h>
#include <string.h>

static spinlock_t console_lock = SPINLOCK_INIT;
static volatile bool console_broken;
/* The clock the shell hands over when it attaches (after time_init).
 * Before that the line discipline needs no time, and the console, below
 * the timer code, does not call it by name. */
static uint64_t (*clock_fn)(void);
static int screen_kind = SCREEN_NONE;
static char screen_name[32] = "none";

void console_early_init(void)
{
	serial_init();
}

void console_screen_init(const struct screen_info *si)
{
	if (si->kind == SCREEN_VGA_TEXT) {
		vga_init((uintptr_t)si->addr, (int)si->width, (int)si->height);
		screen_kind = SCREEN_VGA_TEXT;
		snprintf(screen_name, sizeof(screen_name), "vga %ux%u",
			 si->width, si->height);
	} else if (si->kind == SCREEN_FRAMEBUFFER) {
		if (fbcon_init(si) == 0) {
			screen_kind = SCREEN_FRAMEBUFFER;
			snprintf(screen_name, sizeof(screen_name),
				 "framebuffer %ux%ux%u", si->width, si->height,
				 si->bpp);
		}
	}
}

const char *console_screen_name(void)
{
	return screen_name;
}

void console_break_lock(void)
{
	console_broken = true;
}

static uint64_t now_ms(void)
{
	return clock_fn ? clock_fn() : 0;
}

/* Takes the console lock with interrupts masked. A CPU that died holding
 * it must not silence the others' fault reports: after a fatal error,
 * give up waiting after a while (returns false: not taken). */
static bool console_lock_take(unsigned long *flags)
{
	*flags = mm_irq_save();
	for (long spins = 0;; spins++) {
		if (spin_trylock(&console_lock))
			return true;
		if (console_broken && spins > 10000000)
			return false;
		mm_cpu_relax();
	}
}

static void console_lock_give(bool locked, unsigned long flags)
{
	if (locked)
		spin_unlock(&console_lock);
	mm_irq_restore(flags);
}

void console_write(const char *s, size_t n)
{
	unsigned long flags;
	bool locked = console_lock_take(&flags);

	if (console_broken) {
		/* fatal: straight out, held text first */
		com1_flush();
		serial_write(s, n);
	} else {
		com1_log(s, n, now_ms());
		log_ring_append(s, n);
	}
	if (screen_kind == SCREEN_VGA_TEXT)
		vga_write(s, n);
	else if (screen_kind == SCREEN_FRAMEBUFFER)
		fbcon_write(s, n);
	console_lock_give(locked, flags);
}

void console_shell_attach(uint64_t (*now)(void))
{
	clock_fn = now;
}

size_t console_shell_output(const char *s, size_t n)
{
	unsigned long flags;
	bool locked = console_lock_take(&flags);
	size_t done = console_broken ? 0 : com1_output(s, n, now_ms());

	console_lock_give(locked, flags);
	return done;
}

void console_shell_output_end(void)
{
	unsigned long flags;
	bool locked = console_lock_take(&flags);

	com1_output_end(now_ms());
	console_lock_give(locked, flags);
}

void console_shell_input(const char *s, size_t n)
{
	unsigned long flags;
	bool locked = console_lock_take(&flags);

	if (!console_broken)
		com1_input_show(s, n);
	console_lock_give(locked, flags);
}

void console_shell_input_end(void)
{
	unsigned long flags;
	bool locked = console_lock_take(&flags);

	if (!console_broken)
		com1_input_end();
	console_lock_give(locked, flags);
}

void console_line_stats_read(struct com1_line_stats *out)
{
	unsigned long flags;
	bool locked = console_lock_take(&flags);

	com1_line_stats_read(out);
	console_lock_give(locked, flags);
}

int kvprintf(const char *fmt, va_list ap)
{
	char buf[1024];
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	size_t len = n < (int)sizeof(buf) ? (size_t)n : sizeof(buf) - 1;

	if (n >= (int)sizeof(buf))
		memcpy(buf + sizeof(buf) - 5, "...\n", 4);
	console_write(buf, len);
	return n;
}

int kprintf(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = kvprintf(fmt, ap);
	va_end(ap);
	return n;
}
