/*
 * Kernel command line: `key=value` words from GRUB or QEMU -append.
 *
 * Each part of the tree declares its own keys, beside the code that reads
 * them, with CMDLINE_KEY: name, default, validator, allowed values, help
 * and owner (the folder, for listings). The declarations go to one linker
 * section (linker.ld: .cmdline_keys), so the image carries the whole set
 * from the link on, and cmdline_init(), early in kmain, checks every word
 * of the line at once. An unknown key or a value its validator rejects is
 * reported on the console (one line each) and the default is used; the
 * boot goes on. A name declared twice does not link (each key is a global
 * symbol named after it). `help keys` in the shell lists them all.
 */
#ifndef KERNEL_CMDLINE_H
#define KERNEL_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>

/* True if value is one the key accepts; allowed is the key's own text. */
typedef bool (*cmdline_validator)(const char *value, const char *allowed);

struct cmdline_key {
	const char *name;
	const char *def;	 /* the value when not given ("": none) */
	cmdline_validator valid; /* checks a given value */
	const char *allowed;	 /* for the validator and the messages */
	const char *help;	 /* one line for `help keys` */
	const char *owner;	 /* the declaring folder: kernel, mm, net... */
	const char **value;	 /* the valid value given, or NULL */
};

/*
 * CMDLINE_KEY - declare the boot key `name` (a C identifier) of folder
 * `owner` (a word: kernel, mm, drivers, net, apps). At file scope, once in
 * the whole image: the global cmdline_key_NAME makes a second declaration
 * of the name fail to link. aligned(8): the section is read as an array,
 * and without it GCC may align each entry (a struct over 32 bytes) to 32
 * bytes, leaving holes between them.
 */
#define CMDLINE_KEY_ENTRY \
	__attribute__((used, section(".cmdline_keys"), aligned(8)))
#define CMDLINE_KEY(owner_, name_, def_, valid_, allowed_, help_)          \
	static const char *cmdline_value_##name_;                          \
	extern const struct cmdline_key cmdline_key_##name_;               \
	const struct cmdline_key cmdline_key_##name_ CMDLINE_KEY_ENTRY = { \
		.name = #name_,                                            \
		.def = def_,                                               \
		.valid = valid_,                                           \
		.allowed = allowed_,                                       \
		.help = help_,                                             \
		.owner = #owner_,                                          \
		.value = &cmdline_value_##name_,                           \
	}

/*
 * The generic validators, for any part's CMDLINE_KEY (a part with a
 * special syntax writes its own beside its key). Each says what it wants
 * as `allowed`:
 *   cmdline_valid_choice - value is one of "a|b|c";
 *   cmdline_valid_list   - a comma list of "a|b|c" choices ("all" counts
 *                          as one when allowed);
 *   cmdline_valid_uint   - a number (decimal or 0x hex) in "LO-HI".
 */
bool cmdline_valid_choice(const char *value, const char *allowed);
bool cmdline_valid_list(const char *value, const char *allowed);
bool cmdline_valid_uint(const char *value, const char *allowed);

/* Parses and checks raw (copied; raw may go away). Boot CPU, once. */
void cmdline_init(const char *raw);

/* The command line as given (after the kernel's own path, if any). */
const char *cmdline_raw(void);

/*
 * cmdline_get - the value for a known key: the validated value given, or
 * the key's default. Returns NULL for a key that no part declares (a
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

/*
 * cmdline_keys_text - every key of the image, for `help keys`: grouped by
 * owner in layer order (kernel, mm, drivers, net, apps), by name within
 * one, two lines each under an "OWNER:" line:
 *   "  NAME=DEFAULT  (ALLOWED)"
 *   "      HELP"
 * snprintf semantics (shell_print_text). Any context.
 */
int cmdline_keys_text(char *buf, size_t size);

#endif
