/*
 * Console multiplexer and kprintf. One lock serialises whole writes; each
 * kprintf formats into a stack buffer first so a line leaves in one piece.
 */
#include "kernel/console.h"
#include "kernel/console_dev.h"
#include "kernel/spinlock.h"
#include <stdio.h>
#include <stdbool.h>
#include <string.h>

static spinlock_t console_lock = SPINLOCK_INIT;
static volatile bool console_broken;
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

void console_write(const char *s, size_t n)
{
	unsigned long flags = mm_irq_save();
	bool locked = false;

	/* A CPU that died holding the lock must not silence the others'
	 * fault reports: after a fatal error, give up waiting after a while. */
	for (long spins = 0; !locked; spins++) {
		locked = spin_trylock(&console_lock);
		if (!locked && console_broken && spins > 10000000)
			break;
		if (!locked)
			mm_cpu_relax();
	}
	serial_write(s, n);
	if (screen_kind == SCREEN_VGA_TEXT)
		vga_write(s, n);
	else if (screen_kind == SCREEN_FRAMEBUFFER)
		fbcon_write(s, n);
	if (locked)
		spin_unlock(&console_lock);
	mm_irq_restore(flags);
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
