/*
 * insn_profile: a QEMU TCG plugin that counts the guest instructions
 * executed at every translation-block start address, exactly (no
 * sampling), for tools/insn-profile to turn into a per-function table.
 *
 * Why: under TCG there are no hardware counters, and -icount gives one
 * total. To see where a request's 20,000 instructions go we need the
 * split by function; a TB never spans a call or a return, so the TB's
 * start address names its function, and n_insns x executions is the
 * exact count it contributes.
 *
 * How: at translation a TB gets a counter slot (one per start address,
 * shared by retranslations: a scoreboard, one 64-bit count per vCPU) and
 * an inline "add n_insns" that QEMU emits into the translated code: no
 * callback per execution, so the guest runs at nearly full TCG speed. A control thread reads commands from a FIFO
 * (plugin argument fifo=PATH): "snap FILE" writes every slot as
 * "address count" lines to FILE, then "done FILE" is written back into
 * FILE.done; tools/insn-profile diffs two snapshots, so a profile covers
 * exactly the workload between them. Counters are read (summed over the
 * vCPUs) while the vCPUs add to them: an 8-byte aligned load is atomic
 * on x86-64, and a count a few instructions stale is harmless in a
 * profile.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemu_plugin_api.h"

__attribute__((visibility("default"))) int qemu_plugin_version =
	INSN_PROFILE_PLUGIN_VERSION;

struct slot {
	uint64_t vaddr;
	qemu_plugin_u64 insns; /* added to by translated code, per vCPU */
};

/* Open addressing; slots never move once handed to translated code, so
 * the table is a fixed array of pointers to separately allocated slots. */
#define TABLE_BITS 20
#define TABLE_SIZE (1u << TABLE_BITS)
static struct slot **table;
static unsigned long nr_slots;
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

static struct slot *slot_get(uint64_t vaddr)
{
	unsigned long h = (vaddr * 0x9E3779B97F4A7C15ull) >> (64 - TABLE_BITS);
	struct slot *s = NULL;

	pthread_mutex_lock(&table_lock);
	for (unsigned long i = 0; i < TABLE_SIZE; i++) {
		struct slot **p = &table[(h + i) & (TABLE_SIZE - 1)];

		if (!*p) {
			if (nr_slots + 1 >= TABLE_SIZE / 2)
				break; /* full enough: stop counting new TBs */
			*p = calloc(1, sizeof(**p));
			if (!*p)
				break;
			(*p)->vaddr = vaddr;
			(*p)->insns.score =
				qemu_plugin_scoreboard_new(sizeof(uint64_t));
			nr_slots++;
		}
		if ((*p)->vaddr == vaddr) {
			s = *p;
			break;
		}
	}
	pthread_mutex_unlock(&table_lock);
	return s;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	struct slot *s = slot_get(qemu_plugin_tb_vaddr(tb));

	(void)id;
	if (s && s->insns.score)
		qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(
			tb, QEMU_PLUGIN_INLINE_ADD_U64, s->insns,
			qemu_plugin_tb_n_insns(tb));
}

static int snapshot(const char *path)
{
	char done[4096];
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	pthread_mutex_lock(&table_lock);
	for (unsigned long i = 0; i < TABLE_SIZE; i++) {
		uint64_t n = table[i] && table[i]->insns.score
				     ? qemu_plugin_u64_sum(table[i]->insns)
				     : 0;

		if (n)
			fprintf(f, "%llx %llu\n",
				(unsigned long long)table[i]->vaddr,
				(unsigned long long)n);
	}
	pthread_mutex_unlock(&table_lock);
	fclose(f);
	snprintf(done, sizeof(done), "%s.done", path);
	f = fopen(done, "w");
	if (f)
		fclose(f);
	return 0;
}

/* Reads "snap FILE" lines from the FIFO for as long as QEMU runs. */
static void *control(void *arg)
{
	const char *fifo = arg;
	char line[4096];

	for (;;) {
		FILE *f = fopen(fifo, "r");

		if (!f)
			return NULL;
		while (fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\n")] = 0;
			if (strncmp(line, "snap ", 5) == 0 &&
			    snapshot(line + 5) != 0)
				fprintf(stderr, "insn_profile: %s: %s\n",
					line + 5, strerror(errno));
		}
		fclose(f); /* writer closed: wait for the next one */
	}
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
	(void)id;
	if (p)
		snapshot(p);
}

__attribute__((visibility("default"))) int
qemu_plugin_install(qemu_plugin_id_t id, const struct qemu_info_t *info,
		    int argc, char **argv)
{
	static char fifo[4096], out[4096];
	pthread_t t;

	(void)info;
	for (int i = 0; i < argc; i++) {
		if (strncmp(argv[i], "fifo=", 5) == 0)
			snprintf(fifo, sizeof(fifo), "%s", argv[i] + 5);
		else if (strncmp(argv[i], "out=", 4) == 0)
			snprintf(out, sizeof(out), "%s", argv[i] + 4);
	}
	table = calloc(TABLE_SIZE, sizeof(*table));
	if (!table)
		return -1;
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, out[0] ? out : NULL);
	if (fifo[0] && pthread_create(&t, NULL, control, fifo) != 0)
		return -1;
	qemu_plugin_outs("insn_profile: counting instructions per TB\n");
	return 0;
}
