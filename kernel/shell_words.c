/*
 * Words of a shell command line (shell_words.h). The editor only lets
 * printable ASCII into a line, so a space is the only separator there is.
 */
#include "kernel/shell_words.h"
#include <stddef.h>

int shell_split_words(char *line, char **argv, int max)
{
	int argc = 0;

	for (char *p = line; *p;) {
		while (*p == ' ')
			*p++ = '\0';
		if (!*p)
			break;
		if (argc == max)
			return -1;
		argv[argc++] = p;
		while (*p && *p != ' ')
			p++;
	}
	return argc;
}

bool shell_parse_count(const char *word, long min, long max, long *out)
{
	long v = 0;
	size_t n = 0;

	for (; word[n]; n++) {
		if (word[n] < '0' || word[n] > '9' || n == 9)
			return false; /* 9 digits cannot overflow a long */
		v = v * 10 + (word[n] - '0');
	}
	if (n == 0 || v < min || v > max)
		return false;
	*out = v;
	return true;
}
