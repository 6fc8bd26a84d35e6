/*
 * The serial shell (shell.h, docs/shell.md): COM1 input -> ring -> line
 * editor -> one command -> output queue -> COM1, all from one poller on
 * CPU 0.
 *
 * Input: the UART's receive interrupt (IRQ 4 through the IOAPIC) only
 * acknowledges the UART and wakes the poller; the poller moves what the
 * UART holds into a ring and edits at most SHELL_RX_BUDGET bytes of it
 * per round, running at most one command. Without the interrupt (no
 * IOAPIC) the poller still looks every round, and the timer tick bounds
 * how long an idle CPU sleeps before the next.
 *
 * While a command is busy (output still queued, or a job such as ping
 * running) input waits in the ring (type-ahead), except Ctrl-C, which
 * interrupts it. The prompt comes back once the command is done.
 *
 * Output: commands queue text in one growing buffer; each round writes
 * at most SHELL_OUT_SLICE bytes of it through the console, which keeps
 * log lines from other CPUs whole (console_line.c).
 */
#include "kernel/shell.h"
#include "kernel/arch.h"
#include "kernel/cmdline.h"
#include "kernel/config.h"
#include "kernel/console.h"
#include "kernel/console_dev.h"
#include "kernel/console_line.h"
#include "kernel/irq.h"
#include "kernel/percpu.h"
#include "kernel/poll.h"
#include "kernel/shell_line.h"
#include "kernel/shell_tunables.h"
#include "kernel/shell_words.h"
#include "kernel/time.h"
#include "libc/stat_table.h"
#include "mm/slab.h"
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#define SHELL_PROMPT "shell> "
#define COM1_IRQ     4
#define CTRL_C	     0x03

CMDLINE_KEY(kernel, shell, "1", cmdline_valid_choice, "0|1",
	    "serial shell on COM1 (when a UART answers there)");

static int help_run(int argc, char **argv);
static const struct shell_cmd help_cmd = {
	"help", "[keys]", "this list; keys: every boot key", 0, 1, help_run,
};
/* help first; kernel/shell_cmds.c and net/ add the others at boot */
static const struct shell_cmd *cmds[SHELL_MAX_COMMANDS] = {&help_cmd};
static int nr_cmds = 1;

static struct shell_line ed;
static bool active;	  /* the user has typed: prompts are shown */
static bool prompt_shown; /* the line in progress is on the console */
static int shell_cpu;
static bool rx_irq;
static atomic_bool rx_kicked;	 /* the receive interrupt fired */
static uint64_t rx_next_look_ms; /* the next look without it */

static uint8_t rx_ring[SHELL_RX_RING];
static unsigned int rx_head, rx_tail; /* free-running; head - tail queued */

static char *out;
static size_t out_len, out_pos, out_cap;
static bool out_open; /* output written since the last output_end */

static shell_job_fn job_fn;
static void *job_arg;
static void (*then_fn)(void);

/* One command's figures: how long its run() took, how much it printed,
 * how long until its output had all left, in how many rounds, and the
 * longest of those rounds' output slices. */
struct cmd_figures {
	const char *name;
	uint64_t t0, run_us, bytes, done_us, rounds, max_slice_us;
};

static struct {
	uint64_t commands, unknown, bad_args, too_long, cancelled;
	uint64_t interrupted, output_bytes, output_refused;
	uint64_t max_round_us, max_slice_us;
	uint64_t uart_looks;	      /* line status reads (port accesses) */
	struct cmd_figures cur, last; /* running (or last started), finished */
} st;

int shell_register(const struct shell_cmd *cmd)
{
	for (int i = 0; i < nr_cmds; i++) {
		if (!strcmp(cmds[i]->name, cmd->name)) {
			kprintf("shell: command '%s' registered twice\n",
				cmd->name);
			return -1;
		}
	}
	if (nr_cmds == SHELL_MAX_COMMANDS) {
		kprintf("shell: no room for command '%s'\n", cmd->name);
		return -1;
	}
	cmds[nr_cmds++] = cmd;
	return 0;
}

/* ---- output queue ---- */

/* Room for n more bytes (and a NUL); false if refused (counted). */
static bool out_reserve(size_t n)
{
	size_t live = out_len - out_pos, cap = out_cap ? out_cap : 1024;
	char *bigger;

	if (out_len + n + 1 <= out_cap)
		return true;
	if (live + n + 1 > SHELL_OUTPUT_MAX) {
		st.output_refused++;
		return false;
	}
	while (cap < live + n + 1)
		cap *= 2;
	bigger = kmalloc(cap, GFP_KERNEL);
	if (!bigger) {
		st.output_refused++;
		return false;
	}
	if (out)
		memcpy(bigger, out + out_pos, live);
	kfree(out);
	out = bigger;
	out_cap = cap;
	out_len = live;
	out_pos = 0;
	return true;
}

static void out_refused(size_t n)
{
	/* a short line needs no new memory once the queue is drained */
	static const char msg[] = "shell: output refused (%lu bytes: over the "
				  "limit or no memory)\n";
	char line[96];
	int len = snprintf(line, sizeof(line), msg, (unsigned long)n);

	if (out_reserve((size_t)len)) {
		memcpy(out + out_len, line, (size_t)len);
		out_len += (size_t)len;
	} else {
		kprintf("%s", line); /* the log still says it */
	}
}

int shell_printf(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !out_reserve((size_t)n)) {
		out_refused(n < 0 ? 0 : (size_t)n);
		return -1;
	}
	va_start(ap, fmt);
	vsnprintf(out + out_len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	out_len += (size_t)n;
	return 0;
}

/* The size each text function needed last time, so the next call can
 * skip the sizing pass (stats: ~1 ms of formatting under TCG). */
static struct {
	int (*text)(char *, size_t);
	size_t need;
} size_hints[SHELL_MAX_COMMANDS];

static size_t *size_hint(int (*text)(char *, size_t))
{
	for (int i = 0; i < SHELL_MAX_COMMANDS; i++) {
		if (size_hints[i].text == text || !size_hints[i].text) {
			size_hints[i].text = text;
			return &size_hints[i].need;
		}
	}
	return &size_hints[0].need; /* full: share one, only a hint */
}

int shell_print_text(int (*text)(char *buf, size_t size))
{
	size_t *hint = size_hint(text);
	int n = *hint ? (int)*hint : text(NULL, 0);

	/* Counters move between calls, so the text may have grown by a few
	 * digits (or a lot, since the hint): room to spare, and once more
	 * with the size it asked for if that was not enough. A cut answer
	 * is never queued. */
	for (int tries = 0; n >= 0 && tries < 3; tries++) {
		size_t room = (size_t)n + (size_t)n / 16 + 64;
		int got;

		if (!out_reserve(room))
			break;
		got = text(out + out_len, room + 1);
		if (got >= 0 && (size_t)got <= room) {
			out_len += (size_t)got;
			*hint = (size_t)got;
			return 0;
		}
		n = got;
	}
	out_refused(n < 0 ? 0 : (size_t)n);
	return -1;
}

/* Drained: give a large buffer back (stats can need 100s of KiB). */
static void out_drained(void)
{
	out_len = out_pos = 0;
	if (out_cap > 16384) {
		kfree(out);
		out = NULL;
		out_cap = 0;
	}
}

/* One round's slice of output; returns bytes written. */
static int out_slice(void)
{
	size_t n = out_len - out_pos, done;
	uint64_t t0, took;

	if (n == 0)
		return 0;
	if (n > SHELL_OUT_SLICE)
		n = SHELL_OUT_SLICE;
	t0 = clock_us();
	done = console_shell_output(out + out_pos, n);
	took = clock_us() - t0;
	out_pos += done;
	out_open = true;
	st.output_bytes += done;
	st.cur.rounds++;
	if (took > st.cur.max_slice_us)
		st.cur.max_slice_us = took;
	if (took > st.max_slice_us)
		st.max_slice_us = took;
	if (out_pos == out_len)
		out_drained();
	return (int)done;
}

void shell_job_start(shell_job_fn fn, void *arg)
{
	job_fn = fn;
	job_arg = arg;
}

void shell_after_output(void (*fn)(void))
{
	then_fn = fn;
}

static bool busy(void)
{
	return job_fn || out_len > out_pos || then_fn;
}

/* ---- commands ---- */

static const struct shell_cmd *find_cmd(const char *name)
{
	for (int i = 0; i < nr_cmds; i++)
		if (!strcmp(cmds[i]->name, name))
			return cmds[i];
	return NULL;
}

static void run_line(char *line)
{
	char *argv[SHELL_MAX_ARGS];
	int argc = shell_split_words(line, argv, SHELL_MAX_ARGS);
	const struct shell_cmd *c;

	if (argc == 0)
		return; /* an empty line: just a new prompt */
	st.commands++;
	if (argc < 0) {
		st.bad_args++;
		shell_printf("shell: too many words (at most %d)\n",
			     SHELL_MAX_ARGS);
		return;
	}
	c = find_cmd(argv[0]);
	if (!c) {
		st.unknown++;
		shell_printf("shell: unknown command '%s' (help lists the "
			     "commands)\n",
			     argv[0]);
		return;
	}
	if (argc - 1 < c->min_args || argc - 1 > c->max_args) {
		st.bad_args++;
		shell_printf("shell: %s: wrong number of arguments (usage: "
			     "%s%s%s)\n",
			     c->name, c->name, c->usage[0] ? " " : "",
			     c->usage);
		return;
	}
	st.cur = (struct cmd_figures){.name = c->name, .t0 = clock_us()};
	if (c->run(argc, argv) != 0)
		st.bad_args++;
	st.cur.run_us = clock_us() - st.cur.t0;
	st.cur.bytes = out_len - out_pos;
}

/* `help keys`: the boot keys, their defaults, values and owners. */
static int help_keys(void)
{
	shell_printf("boot keys by owner: key=default  (allowed values), "
		     "then what the key does\n");
	return shell_print_text(cmdline_keys_text);
}

static int help_run(int argc, char **argv)
{
	if (argc == 2) {
		if (!strcmp(argv[1], "keys"))
			return help_keys();
		shell_printf("help: no help on '%s' (help keys: the boot "
			     "keys)\n",
			     argv[1]);
		return -1;
	}
	shell_printf("commands:\n");
	for (int i = 0; i < nr_cmds; i++) {
		char use[40];

		snprintf(use, sizeof(use), "%s %s", cmds[i]->name,
			 cmds[i]->usage);
		shell_printf("  %-22s %s\n", use, cmds[i]->help);
	}
	shell_printf("editing: backspace, Ctrl-U clears the line, Ctrl-C "
		     "abandons it or stops a command, up/down: history\n");
	return 0;
}

/* ---- input ---- */

static void rx_irq_handler(void *arg)
{
	(void)arg;
	atomic_store_explicit(&rx_kicked, true, memory_order_release);
	serial_irq_ack();
	poll_wake(shell_cpu);
}

/* UART -> ring, as much as the ring takes, but only when the interrupt
 * said bytes came or the slow look is due: an idle shell costs its CPU's
 * poll loop no port access (shell_tunables.h). */
static int rx_pull(void)
{
	bool kicked = atomic_exchange_explicit(&rx_kicked, false,
					       memory_order_acquire);
	uint64_t now = clock_ms();
	int n = 0, c;

	if (!kicked && now < rx_next_look_ms)
		return 0;
	rx_next_look_ms =
		now + (rx_irq ? SHELL_RX_LOOK_IRQ_MS : SHELL_RX_LOOK_MS);
	st.uart_looks++;
	while (rx_head - rx_tail < SHELL_RX_RING &&
	       (c = serial_read_byte()) >= 0) {
		rx_ring[rx_head++ % SHELL_RX_RING] = (uint8_t)c;
		n++;
	}
	/* The ring is full and the UART may hold more: its interrupt will
	 * not fire again for bytes it already reported, so look again as
	 * soon as the editor has made room. */
	if (rx_head - rx_tail == SHELL_RX_RING)
		atomic_store_explicit(&rx_kicked, true, memory_order_relaxed);
	return n;
}

static void show_prompt(void)
{
	char line[sizeof(SHELL_PROMPT) + SHELL_LINE_MAX + 3];
	int n = snprintf(line, sizeof(line), "%s%s", SHELL_PROMPT, ed.buf);

	console_shell_input(line, (size_t)n);
	prompt_shown = true;
}

/* The line is over (Enter, Ctrl-C, too long): it stays as typed, ended
 * with a newline; tail is added first ("^C"). */
static void end_input(const char *tail)
{
	if (tail) {
		char line[sizeof(SHELL_PROMPT) + SHELL_LINE_MAX + 3];
		int n = snprintf(line, sizeof(line), "%s%s%s", SHELL_PROMPT,
				 ed.buf, tail);

		console_shell_input(line, (size_t)n);
	}
	console_shell_input_end();
	prompt_shown = false;
}

static void take_event(enum shell_line_event ev)
{
	switch (ev) {
	case SHELL_LINE_EDITED:
		show_prompt();
		break;
	case SHELL_LINE_DONE:
		end_input(NULL);
		run_line(ed.buf);
		shell_line_clear(&ed);
		break;
	case SHELL_LINE_TOO_LONG:
		end_input(NULL);
		st.too_long++;
		shell_printf("shell: line too long (more than %d characters), "
			     "ignored\n",
			     SHELL_LINE_MAX);
		break;
	case SHELL_LINE_CANCEL:
		st.cancelled++; /* "^C" was shown before the editor cleared */
		show_prompt();
		break;
	case SHELL_LINE_NONE:
		break;
	}
}

/* Ring -> editor: at most SHELL_RX_BUDGET bytes and one finished line. */
static int edit_input(void)
{
	int n = 0;

	while (rx_head != rx_tail && n < SHELL_RX_BUDGET && !busy()) {
		uint8_t c = rx_ring[rx_tail++ % SHELL_RX_RING];
		enum shell_line_event ev;

		n++;
		if (!active) {
			/* the first key wakes the shell; Enter only that */
			active = true;
			if (c == '\r' || c == '\n') {
				(void)shell_line_feed(&ed, c);
				shell_line_clear(&ed);
				continue;
			}
			show_prompt();
		}
		if (c == CTRL_C)
			end_input("^C"); /* shown before the editor clears it */
		ev = shell_line_feed(&ed, c);
		take_event(ev);
		if (ev == SHELL_LINE_DONE || ev == SHELL_LINE_TOO_LONG)
			break;
	}
	return n;
}

/* While busy: Ctrl-C in the ring interrupts the command (what was typed
 * before it goes too); everything else waits. */
static int watch_for_ctrl_c(void)
{
	for (unsigned int i = rx_tail; i != rx_head; i++) {
		if (rx_ring[i % SHELL_RX_RING] != CTRL_C)
			continue;
		rx_tail = i + 1;
		st.interrupted++;
		out_len = out_pos; /* drop what was not sent yet */
		shell_printf("^C\n");
		then_fn = NULL;
		if (job_fn)
			(void)job_fn(job_arg, true);
		job_fn = NULL;
		return 1;
	}
	return 0;
}

/* ---- the poller ---- */

static int run_job(void)
{
	enum shell_job j;

	if (!job_fn)
		return 0;
	j = job_fn(job_arg, false);
	if (j == SHELL_JOB_DONE)
		job_fn = NULL;
	return j == SHELL_JOB_SPIN;
}

/* The command's output has all left: finish the line, run then_fn. */
static void command_done(void)
{
	if (out_open) {
		console_shell_output_end();
		out_open = false;
	}
	if (st.cur.name) {
		st.cur.done_us = clock_us() - st.cur.t0;
		st.last = st.cur;
		st.cur.name = NULL;
	}
	if (then_fn) {
		void (*fn)(void) = then_fn;

		then_fn = NULL;
		fn();
	}
}

static int shell_poll(void *arg)
{
	uint64_t t0 = clock_us(), took;
	int work;

	(void)arg;
	work = rx_pull();
	work += run_job();
	work += out_slice();
	if (!job_fn && out_len == out_pos)
		command_done();
	if (busy())
		work += watch_for_ctrl_c();
	else
		work += edit_input();
	if (!busy() && active && !prompt_shown)
		show_prompt();
	took = clock_us() - t0;
	if (took > st.max_round_us)
		st.max_round_us = took;
	/* A job that waits (SHELL_JOB_WAIT) or output the console did not
	 * take yet: look again a tick from now, the CPU is tickless idle. */
	if (!work && busy())
		poll_deadline(clock_ns() + 1000000000u / TIMER_HZ);
	return work;
}

static void route_rx_irq(void)
{
	int vec = irq_alloc_vector(rx_irq_handler, NULL);

	if (vec >= 0 && irq_route_isa(COM1_IRQ, vec, shell_cpu) == 0) {
		serial_rx_irq_enable();
		rx_irq = true;
		return;
	}
	if (vec >= 0)
		irq_free_vector(vec);
}

void shell_start(void)
{
	if (!cmdline_get_bool("shell")) {
		kprintf("shell: off (shell=0)\n");
		return;
	}
	if (!serial_present()) {
		kprintf("shell: off (no UART answers at COM1)\n");
		return;
	}
	shell_line_init(&ed);
	shell_cpu = this_cpu_id();
	console_shell_attach(clock_ms);
	route_rx_irq();
	if (poll_register(shell_cpu, shell_poll, NULL, "shell") != 0) {
		kprintf("shell: cannot register its poller\n");
		return;
	}
	kprintf("shell: on COM1 (%s), press Enter for a prompt; help lists "
		"the commands\n",
		rx_irq ? "receive interrupt on IRQ 4" : "polled, no interrupt");
}

/*
 * The "shell" object of /stats.json: the shell's own counters and
 * COM1's input (shell_stats), the last finished command ("last":
 * last_cmd_stats over struct cmd_figures), and the console's line
 * discipline ("console": console_stats over struct com1_line_stats).
 */
struct shell_snap {
	uint64_t commands, unknown, bad_args, too_long, cancelled;
	uint64_t interrupted, ignored_bytes, rx_bytes, rx_errors;
	uint64_t rx_overruns;
	bool rx_irq;
	uint64_t uart_looks, output_bytes, output_refused;
	uint64_t max_round_us, max_slice_us;
};
#define SHELL_COUNTER(f, u, l) STAT_COUNTER_AT(struct shell_snap, f, u, l)
static const struct stat_desc shell_stats[] = {
	SHELL_COUNTER(commands, "events", "command lines run"),
	SHELL_COUNTER(unknown, "events", "lines naming no command"),
	SHELL_COUNTER(bad_args, "events", "commands refused their arguments"),
	SHELL_COUNTER(too_long, "events", "lines longer than the editor"),
	SHELL_COUNTER(cancelled, "events", "lines cancelled with Ctrl-C"),
	SHELL_COUNTER(interrupted, "events",
		      "running commands stopped with Ctrl-C"),
	SHELL_COUNTER(ignored_bytes, "bytes", "input bytes the editor ignored"),
	SHELL_COUNTER(rx_bytes, "bytes", "bytes read from COM1"),
	SHELL_COUNTER(rx_errors, "events", "COM1 line status errors"),
	SHELL_COUNTER(rx_overruns, "bytes", "bytes COM1 lost: read too late"),
	STAT_INFO_AT(struct shell_snap, rx_irq, "",
		     "input comes by interrupt (else polled)"),
	SHELL_COUNTER(uart_looks, "events", "COM1 line status reads"),
	SHELL_COUNTER(output_bytes, "bytes", "bytes the commands printed"),
	SHELL_COUNTER(output_refused, "events",
		      "outputs refused: over the limit or no memory"),
	STAT_GAUGE_AT(struct shell_snap, max_round_us, "us",
		      "longest poll round of the shell"),
	STAT_GAUGE_AT(struct shell_snap, max_slice_us, "us",
		      "longest output slice of one round"),
};
static const struct stat_desc last_cmd_stats[] = {
	STAT_INFO_AT(struct cmd_figures, name, "", "the command"),
	STAT_GAUGE_AT(struct cmd_figures, run_us, "us", "time in its run()"),
	STAT_NAMED("output_bytes", struct cmd_figures, bytes, STAT_KIND_GAUGE,
		   "bytes", "bytes it printed"),
	STAT_GAUGE_AT(struct cmd_figures, done_us, "us",
		      "time until its output had all left"),
	STAT_GAUGE_AT(struct cmd_figures, rounds, "events",
		      "poll rounds its output took"),
	STAT_GAUGE_AT(struct cmd_figures, max_slice_us, "us",
		      "longest of those rounds' output slices"),
};
#define CONSOLE_COUNTER(f, l) \
	STAT_COUNTER_AT(struct com1_line_stats, f, "events", l)
static const struct stat_desc console_stats[] = {
	CONSOLE_COUNTER(held, "log writes held behind an open output line"),
	CONSOLE_COUNTER(output_breaks, "output lines broken: held text "
				       "overflowed"),
	CONSOLE_COUNTER(log_breaks, "log lines ended for a writer that went"),
	CONSOLE_COUNTER(input_redraws, "line being typed redrawn after a log "
				       "line"),
};
static const struct stat_group shell_groups[] = {
	STAT_GROUP("", shell_stats),
	STAT_GROUP("last", last_cmd_stats),
	STAT_GROUP("console", console_stats),
};
const struct stat_schema shell_stats_schema = STAT_SCHEMA(shell_groups);

int shell_stats_json(char *buf, size_t size)
{
	struct serial_rx_stats rx;
	struct com1_line_stats cl;
	struct shell_snap o;
	struct strbuf sb;

	serial_rx_stats_read(&rx);
	console_line_stats_read(&cl);
	o = (struct shell_snap){
		.commands = st.commands,
		.unknown = st.unknown,
		.bad_args = st.bad_args,
		.too_long = st.too_long,
		.cancelled = st.cancelled,
		.interrupted = st.interrupted,
		.ignored_bytes = ed.ignored,
		.rx_bytes = rx.bytes,
		.rx_errors = rx.errors,
		.rx_overruns = rx.overruns,
		.rx_irq = rx_irq,
		.uart_looks = st.uart_looks,
		.output_bytes = st.output_bytes,
		.output_refused = st.output_refused,
		.max_round_us = st.max_round_us,
		.max_slice_us = st.max_slice_us,
	};
	strbuf_init(&sb, buf, size);
	strbuf_printf(&sb, "{");
	stat_json_members(&sb, shell_stats, STAT_TABLE_LEN(shell_stats), &o);
	strbuf_printf(&sb, ",\"last\":{");
	stat_json_members(&sb, last_cmd_stats, STAT_TABLE_LEN(last_cmd_stats),
			  &st.last);
	strbuf_printf(&sb, "},\"console\":{");
	stat_json_members(&sb, console_stats, STAT_TABLE_LEN(console_stats),
			  &cl);
	strbuf_printf(&sb, "}}");
	return strbuf_done(&sb);
}
