/*
 * The shell's `capture` (net/capture.h, docs/observe.md):
 *
 *   capture                          the capture's counters
 *   capture start [COUNT [SNAPLEN [FILTER]]]
 *                                    a new capture (default: the
 *                                    capture_* boot keys' values)
 *   capture stop                     stop; the frames stay
 *   capture show [N]                 one line per frame, the first N
 *                                    (default CAPTURE_SHOW_LINES)
 *
 * The serial line is the machine's owner: no boot key guards it.
 */
#include <stdlib.h>
#include <string.h>

#include "kernel/cmdline.h"
#include "kernel/shell.h"
#include "net/capture.h"
#include "shell_capture.h"

/* Lines `capture show` prints by default: a screenful. */
#define CAPTURE_SHOW_LINES 40

static unsigned long show_lines;

static int show_text(char *buf, size_t size)
{
	return net_capture_text(buf, size, show_lines);
}

/* argv[i] as a number in lo..hi into *v; false (said) if it is not. */
static bool number_arg(char **argv, int i, unsigned long lo, unsigned long hi,
		       unsigned long *v)
{
	char *end;

	*v = strtoul(argv[i], &end, 10);
	if (*end || *v < lo || *v > hi) {
		shell_printf("capture: '%s' is not in %lu-%lu\n", argv[i], lo,
			     hi);
		return false;
	}
	return true;
}

static int run_start(int argc, char **argv)
{
	unsigned long count = (unsigned long)cmdline_get_long("capture_count");
	unsigned long snap = (unsigned long)cmdline_get_long("capture_snaplen");
	const char *filter = argc > 4 ? argv[4] : cmdline_get("capture_filter");
	int err;

	if ((argc > 2 && !number_arg(argv, 2, 1, 1000000, &count)) ||
	    (argc > 3 && !number_arg(argv, 3, 64, 65535, &snap)))
		return -1;
	if (!net_capture_filter_ok(filter)) {
		shell_printf("capture: bad filter '%s' (all, arp, icmp, ip, "
			     "ip6, tcp, udp, PROTO:PORT or port:PORT)\n",
			     filter);
		return -1;
	}
	err = net_capture_start(count, (unsigned int)snap, filter);
	if (err) {
		shell_printf("capture: no memory for the buffer\n");
		return -1;
	}
	shell_printf("capture: %lu frames of %lu bytes, filter %s\n", count,
		     snap, filter);
	return 0;
}

static int run_capture(int argc, char **argv)
{
	if (argc == 1) {
		(void)shell_print_text(net_capture_stats_json);
		shell_printf("\n");
		return 0;
	}
	if (!strcmp(argv[1], "start"))
		return run_start(argc, argv);
	if (!strcmp(argv[1], "stop") && argc == 2) {
		net_capture_stop();
		shell_printf("capture: stopped\n");
		return 0;
	}
	if (!strcmp(argv[1], "show") && argc <= 3) {
		show_lines = CAPTURE_SHOW_LINES;
		if (argc == 3 && !number_arg(argv, 2, 1, 1000000, &show_lines))
			return -1;
		(void)shell_print_text(show_text);
		return 0;
	}
	shell_printf("capture: usage: capture [start [COUNT [SNAPLEN "
		     "[FILTER]]] | stop | show [N]]\n");
	return -1;
}

static const struct shell_cmd cmd_capture = {
	.name = "capture",
	.usage = "[start [COUNT [SNAPLEN [FILTER]]]|stop|show [N]]",
	.help = "packet capture: status, start, stop, the frames",
	.min_args = 0,
	.max_args = 4,
	.run = run_capture,
};

void shell_capture_register(void)
{
	shell_register(&cmd_capture);
}
