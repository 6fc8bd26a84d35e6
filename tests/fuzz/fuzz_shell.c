/*
 * Fuzz harness of the serial shell as a whole: the bytes typed on COM1
 * through the shell's ring and line editor (kernel/shell_line.c), its
 * word splitter (kernel/shell_words.c), the command dispatch, output
 * queue and poll rounds (kernel/shell.c), and COM1's line discipline
 * (kernel/console_line.c) that shares the wire with log lines from
 * other CPUs. The kernel around them is this file: a UART that hands over
 * the typed bytes and takes the output (only as much as it has room
 * for), a clock that moves when the input says so, kmalloc as malloc
 * (ASan's bounds on the output queue), and a few commands of its own
 * registered as kernel/shell_cmds.c and net/ register theirs: echo
 * (0-7 arguments), big (output up to past SHELL_OUTPUT_MAX, three of
 * them an input: 1 MiB takes 16,384 rounds to leave), text (a shell_print_text writer whose text
 * grows between calls), job (a job that waits, spins and can be
 * interrupted), then (shell_after_output), fail (returns -1), besides
 * the shell's own help and help keys.
 *
 * The input: bytes typed, except 0xff, which starts an event named by the
 * next byte % 5: 0 a log line from another CPU (kprintf), 1 the clock
 * moves (next byte * 7 ms), 2 the UART's room for shell output changes
 * (next byte: 0 is full), 3 poll rounds run (next byte % 16 + 1), 4 a
 * log line written in two parts: its start, then at the next such event
 * its end (the writer's line stays open in between: console_line.c's
 * rule 3). At the end, the open log line is ended and rounds run (the
 * clock moving) until the shell is idle.
 *
 * Checked beyond ASan: every log line is on the wire once, whole, right
 * after a '\n' (console_line.c's promise; a tab in it, which the editor
 * never lets into a typed line, tells it from one typed); a log line
 * written in parts starts a line, and its end is on the wire (the shell
 * may break it after CONSOLE_LOG_LINE_WAIT_MS); every word a command receives
 * is nonempty printable ASCII without a space, and the words fit in a
 * line; the counters agree (commands = runs + unknown + refused counts);
 * the line editor's state stays within its bounds; the shell's
 * /stats.json section is as long as its length query says.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse_common.h"

#include "kernel/console_line.c"
#include "kernel/shell.c"
#include "kernel/shell_line.c"
#include "kernel/shell_words.c"

#define WIRE_MAX      (8u << 20)
#define MAX_LOGS      64
/* Output leaves SHELL_OUT_SLICE bytes a round: 16 rounds a KiB. A few
 * big outputs an input keep the runs short; a round that moves nothing
 * (no byte out, none typed taken, no job step) STALL_MAX times in a row
 * while busy is a shell that never finishes. */
#define BIG_PER_INPUT 3
#define BIG_MAX_KIB   1100 /* past SHELL_OUTPUT_MAX */
#define DRAIN_MAX     (BIG_PER_INPUT * BIG_MAX_KIB * 16 + 100000)
#define STALL_MAX     1000
#define EVENT_BYTE    0xff

/* ---- the machine ---- */

static char *wire; /* everything COM1 sent this input */
static size_t wire_len;
static size_t uart_room = (size_t)-1;
static uint64_t now_ms;
static const uint8_t *typed; /* bytes the UART holds, in order */
static size_t typed_n, typed_pos;

void serial_write(const char *s, size_t n)
{
	if (wire_len + n > WIRE_MAX)
		n = WIRE_MAX - wire_len; /* the check below sees the cut */
	memcpy(wire + wire_len, s, n);
	wire_len += n;
}

size_t serial_write_some(const char *s, size_t n)
{
	if (n > uart_room)
		n = uart_room;
	serial_write(s, n);
	return n;
}

int serial_read_byte(void)
{
	return typed_pos < typed_n ? typed[typed_pos++] : -1;
}

bool serial_present(void)
{
	return true;
}

void serial_irq_ack(void)
{
}

void serial_rx_irq_enable(void)
{
}

void serial_rx_stats_read(struct serial_rx_stats *out)
{
	memset(out, 0, sizeof(*out));
}

uint64_t clock_ms(void)
{
	return now_ms;
}

uint64_t clock_us(void)
{
	return now_ms * 1000;
}

uint64_t clock_ns(void)
{
	return now_ms * 1000000;
}

/* console.c's side of the shell calls, without its lock (one CPU). */
void console_shell_attach(uint64_t (*now)(void))
{
	(void)now;
}

size_t console_shell_output(const char *s, size_t n)
{
	return com1_output(s, n, now_ms);
}

void console_shell_output_end(void)
{
	com1_output_end(now_ms);
}

void console_shell_input(const char *s, size_t n)
{
	com1_input_show(s, n);
}

void console_shell_input_end(void)
{
	com1_input_end();
}

void console_line_stats_read(struct com1_line_stats *out)
{
	com1_line_stats_read(out);
}

/* A log line from elsewhere (the shell's own kprintf too). */
int kprintf(const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0)
		com1_log(buf, strlen(buf), now_ms);
	return n;
}

void *__kmalloc(size_t size, gfp_t gfp)
{
	(void)gfp;
	return malloc(size);
}

void kfree(const void *obj)
{
	free((void *)obj);
}

void poll_wake(int cpu)
{
	(void)cpu;
}

void poll_deadline(uint64_t ns)
{
	(void)ns;
}

int poll_register(int cpu, poll_fn fn, void *arg, const char *name)
{
	(void)cpu;
	(void)fn;
	(void)arg;
	(void)name;
	return 0;
}

int irq_alloc_vector(irq_handler_t fn, void *arg)
{
	(void)fn;
	(void)arg;
	return -1;
}

void irq_free_vector(int vector)
{
	(void)vector;
}

int irq_route_isa(int irq, int vector, int cpu)
{
	(void)irq;
	(void)vector;
	(void)cpu;
	return -1;
}

/* The shell= boot key's validator (kernel/cmdline.c, fuzzed on its own). */
bool cmdline_valid_choice(const char *value, const char *allowed)
{
	(void)value;
	(void)allowed;
	return true;
}

bool cmdline_get_bool(const char *key)
{
	(void)key;
	return true;
}

int cmdline_keys_text(char *buf, size_t size)
{
	return snprintf(buf, size, "kernel:\n  shell=1  (0|1)\n      shell\n");
}

/* ---- the commands ---- */

static uint64_t runs, fails;

static void check_words(int argc, char **argv)
{
	size_t total = 0;

	for (int i = 0; i < argc; i++) {
		size_t n = strlen(argv[i]);

		PZ_CHECK(n > 0, "word %d empty", i);
		for (size_t k = 0; k < n; k++)
			PZ_CHECK(argv[i][k] > ' ' && argv[i][k] <= '~',
				 "word %d has byte 0x%02x", i,
				 (unsigned char)argv[i][k]);
		total += n + 1;
	}
	PZ_CHECK(total <= SHELL_LINE_MAX + 1, "words of %zu bytes", total);
	runs++;
}

static int echo_run(int argc, char **argv)
{
	check_words(argc, argv);
	for (int i = 1; i < argc; i++)
		shell_printf("%s%s", argv[i], i + 1 < argc ? " " : "\n");
	return 0;
}

static int bigs;

static int big_run(int argc, char **argv)
{
	long kib = 0;

	check_words(argc, argv);
	if (!shell_parse_count(argv[1], 0, BIG_MAX_KIB, &kib)) {
		fails++;
		shell_printf("big: bad size\n");
		return -1;
	}
	if (++bigs > BIG_PER_INPUT)
		kib = 1;
	for (long i = 0; i < kib * 16; i++)
		shell_printf("%063ld\n", i);
	return 0;
}

static int text_calls;

/* A writer whose text grows by a line each call (counters moving). */
static int growing_text(char *buf, size_t size)
{
	size_t n = 0;

	text_calls++;
	for (int i = 0; i < text_calls % 200; i++)
		n += (size_t)snprintf(n < size ? buf + n : NULL,
				      n < size ? size - n : 0, "counter %d\n",
				      i);
	return (int)n;
}

static int text_run(int argc, char **argv)
{
	check_words(argc, argv);
	return shell_print_text(growing_text);
}

static int job_left;

static enum shell_job job_step(void *arg, bool interrupted)
{
	(void)arg;
	if (interrupted || --job_left <= 0)
		return SHELL_JOB_DONE;
	if (job_left % 3 == 0)
		shell_printf("job %d\n", job_left);
	return job_left % 2 ? SHELL_JOB_WAIT : SHELL_JOB_SPIN;
}

static int job_run(int argc, char **argv)
{
	long n = 5;

	check_words(argc, argv);
	if (argc == 2 && !shell_parse_count(argv[1], 1, 50, &n)) {
		fails++;
		return -1;
	}
	job_left = (int)n;
	shell_job_start(job_step, NULL);
	return 0;
}

static void then_fn_of_then(void)
{
	kprintf("shell: after output\n");
}

static int then_run(int argc, char **argv)
{
	check_words(argc, argv);
	shell_printf("then\n");
	shell_after_output(then_fn_of_then);
	return 0;
}

static int fail_run(int argc, char **argv)
{
	check_words(argc, argv);
	fails++;
	shell_printf("fail: always\n");
	return -1;
}

/* The shell's own help, counted like the others. */
static int help_counted(int argc, char **argv)
{
	int r;

	check_words(argc, argv);
	r = help_run(argc, argv);
	fails += r != 0;
	return r;
}

static const struct shell_cmd help_counted_cmd = {
	"help", "[keys]", "", 0, 1, help_counted,
};

static const struct shell_cmd commands[] = {
	{"echo", "[WORD...]", "", 0, 7, echo_run},
	{"big", "KIB", "", 1, 1, big_run},
	{"text", "", "", 0, 0, text_run},
	{"job", "[N]", "", 0, 1, job_run},
	{"then", "", "", 0, 0, then_run},
	{"fail", "[X]", "", 0, 1, fail_run},
};

/* ---- the harness ---- */

/* The shell and the line discipline as shell_start leaves them. */
static void shell_reset(void)
{
	free(out);
	out = NULL;
	out_len = out_pos = out_cap = 0;
	out_open = false;
	job_fn = NULL;
	then_fn = NULL;
	memset(&st, 0, sizeof(st));
	memset(size_hints, 0, sizeof(size_hints));
	active = prompt_shown = false;
	rx_head = rx_tail = 0;
	rx_irq = true;
	rx_next_look_ms = 0;
	shell_line_init(&ed);
	line = LINE_START;
	input_len = held_len = 0;
	input_on = false;
	memset(&stats, 0, sizeof(stats));
	runs = fails = 0;
	bigs = 0;
	text_calls = 0;
}

static void round_once(void)
{
	atomic_store(&rx_kicked, true); /* the UART's interrupt */
	(void)shell_poll(NULL);
	PZ_CHECK(ed.len <= SHELL_LINE_MAX && ed.buf[ed.len] == 0 &&
			 strlen(ed.buf) == ed.len &&
			 ed.hist_count <= SHELL_HISTORY &&
			 ed.hist_pos < ed.hist_count,
		 "line editor state: len %zu, history %d at %d", ed.len,
		 ed.hist_count, ed.hist_pos);
}

/* Each log line whole on the wire, once, right after a '\n'. */
/* The one copy of text on the wire, or NULL. */
static const char *on_wire_once(const char *text, int n)
{
	const char *p, *found = NULL;

	for (p = memmem(wire, wire_len, text, (size_t)n); p;
	     p = memmem(p + 1, wire_len - (size_t)(p + 1 - wire), text,
			(size_t)n)) {
		PZ_CHECK(!found, "'%s' twice on the wire", text);
		found = p;
	}
	return found;
}

/* The log lines written in two parts: the start at a line start, the
 * end on the wire. */
static void check_parted_logs(int nparted)
{
	for (int i = 0; i < nparted; i++) {
		char head[32], tail[32];
		int h = snprintf(head, sizeof(head), "plog %d\tbegins", i);
		int t = snprintf(tail, sizeof(tail), "plog %d\tends\n", i);
		const char *found = on_wire_once(head, h);

		PZ_CHECK(found && (found == wire || found[-1] == '\n'),
			 "parted log %d does not start a line", i);
		PZ_CHECK(on_wire_once(tail, t), "parted log %d's end lost", i);
	}
}

static void check_logs(int nlogs)
{
	for (int i = 0; i < nlogs; i++) {
		char want[32];
		const char *p, *found = NULL;
		int n = snprintf(want, sizeof(want), "log %d\tfrom cpu1\n", i);

		for (p = memmem(wire, wire_len, want, (size_t)n); p;
		     p = memmem(p + 1, wire_len - (size_t)(p + 1 - wire), want,
				(size_t)n)) {
			PZ_CHECK(!found, "log %d twice", i);
			found = p;
		}
		PZ_CHECK(found, "log %d not on the wire", i);
		PZ_CHECK(found == wire || found[-1] == '\n',
			 "log %d starts mid-line", i);
	}
}

/* /stats.json's shell section: the length it says, then that text. */
static void check_stats_json(void)
{
	int need = shell_stats_json(NULL, 0);
	char *buf = malloc((size_t)need + 1);

	PZ_CHECK(need > 0 && shell_stats_json(buf, (size_t)need + 1) == need &&
			 strlen(buf) == (size_t)need,
		 "stats of %d bytes", need);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool started;
	int nlogs = 0, nparted = 0, drained = 0, stalled = 0;
	bool parted_open = false;

	if (!started) {
		pz_init("fuzz_shell");
		wire = malloc(WIRE_MAX);
		cmds[0] = &help_counted_cmd;
		for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]);
		     i++)
			shell_register(&commands[i]);
		started = true;
	}
	pz_input();
	shell_reset();
	wire_len = 0;
	uart_room = (size_t)-1;
	now_ms = 1000;
	typed = data;
	typed_n = typed_pos = 0;
	for (size_t i = 0; i < size; i++) {
		uint8_t e;

		if (data[i] != EVENT_BYTE) {
			/* typed: the UART holds it until rx_pull takes it */
			typed = data + i;
			typed_n = 1;
			typed_pos = 0;
			round_once();
			pz_ops++;
			continue;
		}
		e = i + 1 < size ? data[++i] : 0;
		switch (e % 5) {
		case 0: /* one log writer: none while a line is open */
			if (nlogs < MAX_LOGS && !parted_open)
				kprintf("log %d\tfrom cpu1\n", nlogs++);
			break;
		case 4:
			if (parted_open)
				kprintf("plog %d\tends\n", nparted++);
			else if (nparted < MAX_LOGS)
				kprintf("plog %d\tbegins ", nparted);
			parted_open = !parted_open && nparted < MAX_LOGS;
			break;
		case 1:
			now_ms += 7u * (i + 1 < size ? data[++i] : 0);
			break;
		case 2:
			uart_room = i + 1 < size ? data[++i] : 0;
			break;
		default:
			for (int r = (i + 1 < size ? data[++i] : 0) % 16;
			     r >= 0; r--)
				round_once();
		}
	}
	if (parted_open)
		kprintf("plog %d\tends\n", nparted++);
	/* Until idle: the output all out, no job, nothing typed waiting. */
	uart_room = (size_t)-1;
	while ((busy() || rx_head != rx_tail) && drained++ < DRAIN_MAX) {
		uint64_t moved = st.output_bytes + rx_tail + (unsigned)job_left;

		now_ms += 10;
		round_once();
		if (st.output_bytes + rx_tail + (unsigned)job_left != moved)
			stalled = 0;
		PZ_CHECK(++stalled < STALL_MAX,
			 "%d rounds without progress while busy", STALL_MAX);
	}
	PZ_CHECK(!busy(), "still busy after %d rounds", DRAIN_MAX);
	com1_output_end(now_ms);
	PZ_CHECK(st.commands == runs + st.unknown + (st.bad_args - fails),
		 "%llu commands: %llu ran, %llu unknown, %llu refused",
		 (unsigned long long)st.commands, (unsigned long long)runs,
		 (unsigned long long)st.unknown,
		 (unsigned long long)(st.bad_args - fails));
	if (wire_len < WIRE_MAX) {
		check_logs(nlogs);
		check_parted_logs(nparted);
	}
	check_stats_json();
	return 0;
}
