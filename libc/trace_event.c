/* The class switches and names of trace_event.h. */
#include "libc/trace_event.h"

#include <string.h>

atomic_uchar trace_class_on[TRACE_NR_CLASSES];

const char *const trace_class_names[TRACE_NR_CLASSES] = {
	[TRACE_MM] = "mm",   [TRACE_NET] = "net",   [TRACE_APP] = "app",
	[TRACE_IRQ] = "irq", [TRACE_POLL] = "poll", [TRACE_LOCK] = "lock",
};

/* The class named by the len bytes at word, or -1. */
static int class_of(const char *word, size_t len)
{
	for (int c = 0; c < TRACE_NR_CLASSES; c++)
		if (strlen(trace_class_names[c]) == len &&
		    !strncmp(word, trace_class_names[c], len))
			return c;
	return -1;
}

int trace_classes_parse(const char *list)
{
	int mask = 0;

	if (!strcmp(list, "none") || !*list)
		return 0;
	while (*list) {
		const char *end = strchr(list, ',');
		size_t len = end ? (size_t)(end - list) : strlen(list);
		int c = class_of(list, len);

		if (len == 3 && !strncmp(list, "all", 3))
			mask |= (1 << TRACE_NR_CLASSES) - 1;
		else if (c >= 0)
			mask |= 1 << c;
		else
			return -1;
		list += len;
		if (*list == ',' && *++list == 0)
			return -1; /* a trailing comma */
	}
	return mask;
}
