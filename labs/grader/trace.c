/*
 * Reading a trace file (format: labs/traces/README.md) into struct trace.
 * A .gz file is read through gzip -dc, so the driver needs no library
 * beyond libc.
 */
#define _POSIX_C_SOURCE 200809L /* fdopen, getline under -std=c11 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "trace.h"

/* Open path for reading, through gzip -dc when it ends in .gz; *pid is
 * gzip's (0 for a plain file). NULL, with a message, if it cannot. */
static FILE *trace_open(const char *path, pid_t *pid)
{
	size_t len = strlen(path);
	int fd[2];

	*pid = 0;
	if (len < 3 || strcmp(path + len - 3, ".gz") != 0) {
		FILE *f = fopen(path, "r");
		if (!f)
			perror(path);
		return f;
	}
	if (access(path, R_OK) || pipe(fd)) {
		perror(path);
		return NULL;
	}
	*pid = fork();
	if (*pid == 0) {
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		execlp("gzip", "gzip", "-dc", "--", path, (char *)NULL);
		perror("gzip");
		_exit(127);
	}
	close(fd[1]);
	return fdopen(fd[0], "r");
}

static int trace_close(FILE *f, pid_t pid, const char *path)
{
	int status = 0;

	fclose(f);
	if (pid > 0 && (waitpid(pid, &status, 0) < 0 || status != 0)) {
		fprintf(stderr, "%s: gzip -dc failed\n", path);
		return -1;
	}
	return 0;
}

/* What reading a file keeps beside the trace: the ops array's room and
 * which objects are live, so that a free of anything else is refused. */
struct trace_reader {
	struct trace *t;
	size_t cap;
	uint8_t *live;
	size_t live_cap;
};

static int trace_push(struct trace_reader *r, unsigned int kind, uint32_t arg)
{
	struct trace *t = r->t;

	if (t->nr_ops == r->cap) {
		size_t n = r->cap ? 2 * r->cap : 4096;
		struct trace_op *ops = realloc(t->ops, n * sizeof(*ops));
		if (!ops)
			return -1;
		t->ops = ops;
		r->cap = n;
	}
	t->ops[t->nr_ops++] = (struct trace_op){(uint8_t)kind, arg};
	return 0;
}

/* One more object, live. */
static int trace_new_object(struct trace_reader *r)
{
	struct trace *t = r->t;

	if (t->nr_objects == r->live_cap) {
		size_t n = r->live_cap ? 2 * r->live_cap : 4096;
		uint8_t *live = realloc(r->live, n);
		if (!live)
			return -1;
		r->live = live;
		r->live_cap = n;
	}
	r->live[t->nr_objects++] = 1;
	return 0;
}

/* "machine NODES MIB CPUS N0,N1,...": the machine the trace ran on. */
static int parse_machine(struct trace *t, const char *rest)
{
	int used = 0;

	if (sscanf(rest, "%d %d %d %n", &t->nr_nodes, &t->mib_per_node,
		   &t->nr_cpus, &used) != 3 ||
	    t->nr_nodes < 1 || t->nr_nodes > TRACE_MAX_NODES ||
	    t->mib_per_node < 4 || t->nr_cpus < 1 ||
	    t->nr_cpus > TRACE_MAX_CPUS)
		return -1;
	rest += used;
	for (int cpu = 0; cpu < t->nr_cpus; cpu++) {
		char *end;
		long nid = strtol(rest, &end, 10);
		if (end == rest || nid < 0 || nid >= t->nr_nodes)
			return -1;
		t->cpu_node[cpu] = (int)nid;
		rest = *end == ',' ? end + 1 : end;
	}
	return 0;
}

/* The argument of operation op (the rest of its line) into *arg, a free's
 * age turned into the object's number. 0, or -1 if malformed. */
static int parse_op(struct trace_reader *r, char op, const char *rest,
		    unsigned long *arg)
{
	struct trace *t = r->t;
	char *end;

	if (op == 'D')
		return *rest ? -1 : 0;
	if (op == 'm') {
		if (!*rest || t->nr_marks == TRACE_MAX_MARKS)
			return -1;
		t->marks[t->nr_marks] = strdup(rest);
		*arg = (unsigned long)t->nr_marks++;
		return 0;
	}
	*arg = strtoul(rest, &end, 10);
	if (end == rest || *end)
		return -1;
	switch (op) {
	case 'c':
	case 'd':
		return *arg < (unsigned long)t->nr_cpus ? 0 : -1;
	case 'p':
		return *arg <= 10 ? 0 : -1; /* MAX_ORDER */
	case 'f':
	case 'k':
		return *arg >= 1 && *arg <= (1u << 20) ? 0 : -1;
	case 'x':
		if (*arg < 1 || *arg > t->nr_objects ||
		    !r->live[t->nr_objects - *arg])
			return -1;
		*arg = t->nr_objects - *arg;
		r->live[*arg] = 0;
		return 0;
	}
	return -1;
}

static int trace_line(struct trace_reader *r, char *line)
{
	static const char ops[] = "cpfkxDdm";
	static const unsigned int kinds[] = {
		TRACE_CPU,  TRACE_PAGES, TRACE_FRAG,	   TRACE_KMALLOC,
		TRACE_FREE, TRACE_DRAIN, TRACE_FRAG_DRAIN, TRACE_MARK};
	unsigned long arg = 0;

	line[strcspn(line, "\n")] = 0;
	if (!line[0] || line[0] == '#')
		return 0;
	if (!strncmp(line, "machine ", 8))
		return parse_machine(r->t, line + 8);
	const char *kind = strchr(ops, line[0]);
	if (!kind || !r->t->nr_cpus || (line[1] && line[1] != ' '))
		return -1;
	if (parse_op(r, line[0], line[1] ? line + 2 : line + 1, &arg))
		return -1;
	if (strchr("pfk", line[0]) && trace_new_object(r))
		return -1;
	return trace_push(r, kinds[kind - ops], (uint32_t)arg);
}

int trace_load(const char *path, size_t max_ops, struct trace *t)
{
	struct trace_reader r = {.t = t};
	char *line = NULL;
	size_t len = 0, lineno = 0;
	pid_t pid;
	int ret = 0;
	FILE *f;

	memset(t, 0, sizeof(*t));
	f = trace_open(path, &pid);
	if (!f)
		return -1;
	while (getline(&line, &len, f) > 0) {
		lineno++;
		if (max_ops && t->nr_ops == max_ops)
			continue; /* read on: gzip must not die of SIGPIPE */
		if (trace_line(&r, line)) {
			fprintf(stderr, "%s:%zu: not a trace line: %s\n", path,
				lineno, line);
			ret = -1;
			break;
		}
	}
	free(line);
	free(r.live);
	if (trace_close(f, pid, path) || ret)
		return -1;
	if (!t->nr_cpus) {
		fprintf(stderr, "%s: no machine line\n", path);
		return -1;
	}
	return 0;
}

void trace_free(struct trace *t)
{
	for (int i = 0; i < t->nr_marks; i++)
		free(t->marks[i]);
	free(t->ops);
	memset(t, 0, sizeof(*t));
}
