/*
 * Kernel command line: `key=value` words from GRUB or QEMU -append.
 * Every key the kernel knows is listed, with its default and a validator,
 * in ONE table in kernel/cmdline.c — add new keys there. An unknown key or
 * a value its validator rejects is reported on the console (one line each)
 * and the default is used; the boot goes on.
 */
#ifndef KERNEL_CMDLINE_H
#define KERNEL_CMDLINE_H

#include <stdbool.h>

/* Parses and checks raw (copied; raw may go away). Boot CPU, once. */
void cmdline_init(const char *raw);

/* The command line as given (after the kernel's own path, if any). */
const char *cmdline_raw(void);

/*
 * cmdline_get - the value for a known key: the validated value given, or
 * the key's default. Returns NULL for a key that is not in the table (a
 * programming error, reported). Any context after cmdline_init.
 */
const char *cmdline_get(const char *key);

/* cmdline_get as a number (decimal or 0x hex) / as 0-or-1. */
long cmdline_get_long(const char *key);
bool cmdline_get_bool(const char *key);

/* True if the key was given (and valid) on the command line. */
bool cmdline_given(const char *key);

/* True if the comma-separated list value of key contains item
 * (e.g. cmdline_has("app", "http")). */
bool cmdline_has(const char *key, const char *item);

/* Number of problems reported (unknown keys, bad values). */
int cmdline_errors(void);

#endif
