/*
 * The tracer in the shell (kernel/trace.h, docs/observe.md):
 *
 *   trace                 the session: its classes, events held, dropped
 *   trace on CLASSES      a new session of a comma list (mm,net,...|all)
 *   trace off             every class off; the events stay
 *   trace json [N]        the last session as Chrome trace-event JSON,
 *                         its first N events (default TRACE_SHELL_EVENTS)
 *
 * Typed at the console, so no boot key guards it: whoever has the serial
 * line has the machine.
 */
#include <stdlib.h>
#include <string.h>

#include "kernel/shell.h"
#include "kernel/shell_tunables.h"
#include "kernel/trace.h"
#include "kernel/trace_shell.h"

/* Events `trace json` prints by default: a screenful of a terminal is a
 * few dozen, and a serial line takes ~15 ms a line. */
#define TRACE_SHELL_EVENTS 200

static unsigned long json_events;

static int json_text(char *buf, size_t size)
{
	/* Room under the shell's output bound for its own line ends. */
	return trace_json(buf, size, SHELL_OUTPUT_MAX / 2, json_events);
}

static int show_status(void)
{
	(void)shell_print_text(trace_stats_json);
	shell_printf("\n");
	return 0;
}

static int run_on(const char *list)
{
	int mask = trace_classes_parse(list);

	if (mask <= 0) {
		shell_printf("trace: no class in '%s' (mm,net,app,irq,poll,"
			     "lock or all)\n",
			     list);
		return -1;
	}
	if (trace_start((unsigned int)mask) != 0) {
		shell_printf("trace: no memory for the buffers\n");
		return -1;
	}
	shell_printf("trace: recording %s\n", list);
	return 0;
}

static int run_json(int argc, char **argv)
{
	char *end = NULL;

	json_events = TRACE_SHELL_EVENTS;
	if (argc == 3) {
		json_events = strtoul(argv[2], &end, 10);
		if (*end || !json_events) {
			shell_printf("trace: '%s' is no event count\n",
				     argv[2]);
			return -1;
		}
	}
	(void)shell_print_text(json_text); /* a refusal is printed */
	return 0;
}

static int run_trace(int argc, char **argv)
{
	if (argc == 1)
		return show_status();
	if (!strcmp(argv[1], "on") && argc == 3)
		return run_on(argv[2]);
	if (!strcmp(argv[1], "off") && argc == 2) {
		trace_stop();
		shell_printf("trace: off\n");
		return 0;
	}
	if (!strcmp(argv[1], "json"))
		return run_json(argc, argv);
	shell_printf("trace: usage: trace [on CLASSES | off | json [N]]\n");
	return -1;
}

static const struct shell_cmd cmd_trace = {
	"trace",
	"[on CLASSES|off|json [N]]",
	"event trace: status, start, stop, the events as JSON",
	0,
	2,
	run_trace};

void trace_shell_register(void)
{
	shell_register(&cmd_trace);
}
