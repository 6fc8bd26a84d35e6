/*
 * A shell command line cut into words, and a word read as a bounded
 * decimal count. No I/O and no machine: kernel/shell.c and net/'s
 * commands use them, tests/host/kernel/test_shell_words.c runs them on
 * the host.
 */
#ifndef KERNEL_SHELL_WORDS_H
#define KERNEL_SHELL_WORDS_H

#include <stdbool.h>

/*
 * shell_split_words - cuts line in place at spaces (any run of them, at
 * either end too) and points argv[0..] at the words, at most max of them.
 * Returns the number of words (0 for an empty or all-space line), or -1
 * when there are more than max (argv then holds the first max, and the
 * line is cut only up to the word that did not fit).
 */
int shell_split_words(char *line, char **argv, int max);

/*
 * shell_parse_count - reads word as a decimal number in [min, max]:
 * digits only (no sign, no spaces, no suffix), at most 9 of them.
 * Returns true and sets *out, or false (and leaves *out) for anything
 * else.
 */
bool shell_parse_count(const char *word, long min, long max, long *out);

#endif
