/*
 * Starting the other CPUs. Each AP is started alone: the boot CPU writes
 * its stack into the trampoline's parameter block, sends INIT, waits
 * 10 ms, sends STARTUP (twice if needed, as the MP specification asks),
 * and waits for the AP to say it is online before starting the next.
 * CPU ids are dense: 0 is the boot CPU, the rest in the firmware's order
 * (MADT, or the MP table). When the firmware lists more CPUs than may
 * start (smp=, MAX_CPUS), kernel/cpu_pick.c chooses them node by node.
 *
 * An AP can miss its window (under TCG a vCPU thread can go unscheduled
 * for seconds) and wake after the boot CPU has moved on and reused the
 * slot, the parameter block and the stack for the next CPU. Two
 * handshakes keep such a late AP out:
 *  - in the trampoline, before it takes a stack, the AP claims its start
 *    by ticket and APIC id (boot/trampoline.S); the boot CPU closes a
 *    start it gives up on, so a late AP finds no start for it and halts;
 *  - in ap_main, an AP that claimed its start but was too slow to reach C
 *    moves its slot from STARTING to RUNNING; the boot CPU, giving up,
 *    moves it from STARTING to ABANDONED. Whoever moves first decides: an
 *    AP that finds its slot abandoned halts on its own stack, and the boot
 *    CPU starts no more CPUs (that stack is taken).
 * Every AP that halts this way is counted (smp_check_late_cpus).
 */
#include "kernel/smp.h"
#include "kernel/acpi.h"
#include "kernel/apic.h"
#include "kernel/arch.h"
#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/cpu_pick.h"
#include "kernel/gdt.h"
#include "kernel/memmap.h"
#include "kernel/paging.h"
#include "kernel/percpu.h"
#include "kernel/tls.h"
#include "kernel/poll.h"
#include "kernel/time.h"
#include "kernel/trampoline.h"
#include "kernel/trap.h"
#include "libc/strbuf.h"
#include <string.h>

/* Each AP's stacks, one block from its own node: its three IST stacks
 * (double fault, NMI, machine check), then its kernel stack. A slot gets
 * its block when first used, from memmap's early allocator (the page
 * allocator does not exist yet), so the image carries no stacks for CPUs
 * the machine does not have: 256 slots of static stacks made the image
 * ~14 MiB and a machine of 8 MiB could not boot. */
#define AP_STACKS_SIZE (3 * IST_STACK_SIZE + KSTACK_SIZE)
static uintptr_t slot_stacks[MAX_CPUS];
static uint64_t window_us; /* how long to wait for each AP to come online */
static uint64_t last_ticket;

CMDLINE_KEY(kernel, smp_wait_ms, "10000", cmdline_valid_uint, "0-60000",
	    "how long the boot CPU waits for each other CPU to start "
	    "(0: no time at all, every CPU is late; for tests)");

/* A slot's start, as the boot CPU and its AP see it (see the top). */
enum ap_state { AP_STARTING, AP_RUNNING, AP_ABANDONED };
static atomic_int ap_state[MAX_CPUS];

/* What became of one start. */
enum ap_start { AP_ONLINE, AP_LATE, AP_LOST };

/* Which of the firmware's CPUs can start at all: one with an APIC id above
 * 254 only in x2APIC mode (an xAPIC destination is 8 bits, and 255 means
 * every CPU). Fills node[] and index[] (into acpi.apic_ids) of those that
 * can; *boot is the boot CPU's place among them, or -1. */
static int startable_cpus(int *node, int *index, int *boot)
{
	uint32_t me = lapic_id();
	int n = 0, need_x2apic = 0;

	*boot = -1;
	for (int i = 0; i < acpi.nr_cpus; i++) {
		if (acpi.apic_ids[i] == me) {
			*boot = n;
		} else if (acpi.apic_ids[i] > 254 && !lapic_x2apic()) {
			need_x2apic++;
			continue;
		}
		node[n] = acpi.cpu_node[i];
		index[n++] = i;
	}
	if (need_x2apic)
		kprintf("smp: %d cpus have apic ids above 254 and need x2APIC, "
			"which this machine does not offer: not started\n",
			need_x2apic);
	return n;
}

/* One line for the CPUs a cap left out, and from which nodes. */
static void report_left_out(int n, int max_cpus,
			    const struct cpu_pick_left *left)
{
	char text[160];
	struct strbuf sb;

	if (!left->total)
		return;
	strbuf_init(&sb, text, sizeof(text));
	for (int nd = 0; nd < acpi.nr_nodes && nd < MAX_NODES; nd++)
		if (left->node[nd])
			strbuf_printf(&sb, "%s%d on node %d",
				      sb.len ? ", " : "", left->node[nd], nd);
	strbuf_done(&sb);
	kprintf("smp: %d of %d cpus left out by %s=%d: %s\n", left->total, n,
		max_cpus < MAX_CPUS ? "smp" : "MAX_CPUS", max_cpus, text);
}

void smp_prepare(int max_cpus)
{
	static int node[MAX_FW_CPUS], index[MAX_FW_CPUS];
	static bool chosen[MAX_FW_CPUS];
	struct cpu_pick_left left;
	int boot, n = startable_cpus(node, index, &boot), id = 1;

	if (max_cpus > MAX_CPUS)
		max_cpus = MAX_CPUS;
	cpu_pick(node, n, boot, max_cpus, acpi.nr_nodes, chosen, &left);
	report_left_out(n + (boot < 0), max_cpus, &left);
	cpus[0].apic_id = lapic_id();
	cpus[0].node = boot >= 0 ? node[boot] : 0;
	for (int i = 0; i < n; i++) {
		if (!chosen[i] || i == boot)
			continue;
		cpus[id].id = id;
		cpus[id].apic_id = acpi.apic_ids[index[i]];
		cpus[id].node = node[i];
		id++;
	}
	nr_cpus = id;
	atomic_store(&cpus[0].online, true);
}

/* APs the boot CPU gave up on, and those that halted in ap_main. */
static int aps_late;
static atomic_int aps_parked;

static struct trampoline_params *trampoline_params_low(void)
{
	return phys_ptr(TRAMPOLINE_PHYS + ((uintptr_t)trampoline_params -
					   (uintptr_t)trampoline_start));
}

static __attribute__((noreturn)) void ap_park(void)
{
	atomic_fetch_add(&aps_parked, 1);
	for (;;)
		__asm__ volatile("cli; hlt");
}

/* The C entry of an AP that claimed its start (trampoline.S), on the
 * slot's stack. */
static void ap_main(uint64_t id)
{
	int expect = AP_STARTING;

	if (!atomic_compare_exchange_strong(&ap_state[id], &expect, AP_RUNNING))
		ap_park(); /* the boot CPU gave up on this slot */
	percpu_init((int)id);
	tls_init_cpu((int)id);
	gdt_init_cpu((int)id, slot_stacks[id]);
	idt_load();
	lapic_init_ap();
	timer_start_cpu();
	atomic_store(&cpus[id].online, true);
	poll_loop();
}

static bool wait_online(int id, uint64_t us)
{
	uint64_t end = clock_us() + us;

	while (clock_us() < end) {
		if (atomic_load(&cpus[id].online))
			return true;
		cpu_relax();
	}
	return atomic_load(&cpus[id].online);
}

/* An AP's stacks belong on its node's memory when the node has any. */
static bool stacks_on_own_node(const struct cpu *c)
{
	return !c->stack_top || memmap_node_bytes(c->node) == 0 ||
	       memmap_node_of(c->stack_top - 1) == c->node;
}

int smp_check_this_cpu(void)
{
	const struct cpu *c = this_cpu();
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
	uint32_t apic = lapic_id();
	/* the boot CPU runs on the boot stack, not a slot's */
	bool stack_ok = !c->stack_top ||
			(sp < c->stack_top && sp >= c->stack_top - KSTACK_SIZE);

	if (apic == c->apic_id && stack_ok && stacks_on_own_node(c))
		return 0;
	kprintf("smp: cpu %d runs as apic %u on stack %p (node %d), but its "
		"slot is apic %u on node %d with stack below %p\n",
		c->id, apic, (void *)sp, memmap_node_of(sp), c->apic_id,
		c->node, (void *)c->stack_top);
	return -1;
}

/* Halted late APs: those that found no start in the trampoline, plus
 * those that found their slot abandoned in ap_main. */
static int aps_parked_now(void)
{
	return (int)__atomic_load_n(&trampoline_params_low()->parked,
				    __ATOMIC_ACQUIRE) +
	       atomic_load(&aps_parked);
}

int smp_check_late_cpus(uint64_t wait_ms)
{
	uint64_t end = clock_ms() + wait_ms;
	int bad = 0;

	while (aps_parked_now() < aps_late && clock_ms() < end)
		cpu_relax();
	kprintf("smp: late=%d parked=%d\n", aps_late, aps_parked_now());
	if (aps_parked_now() != aps_late)
		bad++;
	for (int i = nr_cpus; i < MAX_CPUS; i++) {
		if (atomic_load(&cpus[i].online)) {
			kprintf("smp: cpu slot %d is online, but the boot cpu "
				"gave up on it\n",
				i);
			bad++;
		}
	}
	return bad;
}

/* Open a start of slot id for apic_id: fill the block, then publish the
 * ticket (release: the AP reads the ticket first, the values after). */
static uint64_t open_start(struct trampoline_params *tp, int id,
			   uint32_t apic_id)
{
	cpus[id].stack_top = slot_stacks[id] + AP_STACKS_SIZE;
	atomic_store(&ap_state[id], AP_STARTING);
	tp->cr3 = read_cr3();
	tp->stack = cpus[id].stack_top;
	tp->entry = (uintptr_t)ap_main;
	tp->cpu_id = (uint64_t)id;
	tp->apic_id = apic_id;
	__atomic_store_n(&tp->ticket, ++last_ticket, __ATOMIC_RELEASE);
	return last_ticket;
}

/* The AP did not come online in time: close its start. */
static enum ap_start give_up(struct trampoline_params *tp, int id,
			     uint64_t ticket)
{
	int expect = AP_STARTING;

	if (__atomic_exchange_n(&tp->ticket, 0, __ATOMIC_SEQ_CST) == ticket)
		return AP_LATE; /* never claimed: the slot is free again */
	/* It claimed the start and runs on the slot's stack: it is
	 * moments from ap_main unless its vCPU is descheduled. */
	if (wait_online(id, 10000000))
		return AP_ONLINE;
	if (atomic_compare_exchange_strong(&ap_state[id], &expect,
					   AP_ABANDONED))
		return AP_LOST; /* it will halt in ap_main */
	/* It reached ap_main first and owns the slot. */
	return wait_online(id, 10000000) ? AP_ONLINE : AP_LOST;
}

static enum ap_start start_ap(int id, uint32_t apic_id)
{
	struct trampoline_params *tp = trampoline_params_low();
	uint64_t ticket = open_start(tp, id, apic_id);
	enum ap_start r;

	lapic_send_init(apic_id);
	delay_us(10000);
	if (window_us == 0) {
		/* smp_wait_ms=0: no time at all. The start is closed before
		 * STARTUP, so the AP wakes late for certain: the path of a
		 * vCPU descheduled past its window, made deterministic. */
		r = give_up(tp, id, ticket);
		lapic_send_sipi(apic_id, TRAMPOLINE_PHYS >> 12);
		return r;
	}
	lapic_send_sipi(apic_id, TRAMPOLINE_PHYS >> 12);
	if (wait_online(id, window_us < 2000 ? window_us : 2000))
		return AP_ONLINE;
	lapic_send_sipi(apic_id, TRAMPOLINE_PHYS >> 12);
	if (wait_online(id, window_us))
		return AP_ONLINE;
	return give_up(tp, id, ticket);
}

/* Slot id's stacks, on node nid (any node when nid has no room); a slot
 * reused after a late start keeps the block it has. False, said in one
 * line, when memory has no room for them. */
static bool slot_stacks_ready(int id, int nid)
{
	if (!slot_stacks[id])
		slot_stacks[id] = memmap_alloc_early_node(AP_STACKS_SIZE, nid,
							  UINT64_MAX);
	if (slot_stacks[id])
		return true;
	kprintf("smp: no memory for cpu %d's stacks (%d KiB): no more cpus "
		"started\n",
		id, AP_STACKS_SIZE / 1024);
	return false;
}

void smp_boot_aps(void)
{
	int online = 1, total = nr_cpus;
	enum ap_start result;
	static uint32_t apic_ids[MAX_CPUS];
	static int nodes[MAX_CPUS];

	/* The default (10 s) is generous: under TCG on a loaded host a vCPU
	 * thread can go unscheduled for seconds; real CPUs answer in
	 * microseconds. smp_wait_ms=0 makes every AP late (how the late-AP
	 * path is tested). */
	window_us = (uint64_t)cmdline_get_long("smp_wait_ms") * 1000;

	for (int i = 0; i < total; i++) {
		apic_ids[i] = cpus[i].apic_id;
		nodes[i] = cpus[i].node;
	}
	memcpy(phys_ptr(TRAMPOLINE_PHYS), trampoline_start,
	       (size_t)((uintptr_t)trampoline_end -
			(uintptr_t)trampoline_start));
	for (int i = 1; i < total; i++) {
		if (!slot_stacks_ready(online, nodes[i]))
			break;
		/* dense ids: a CPU that fails does not leave a hole */
		cpus[online].id = online;
		cpus[online].apic_id = apic_ids[i];
		cpus[online].node = nodes[i];
		atomic_store(&cpus[online].online, false);
		nr_cpus = online + 1;
		result = start_ap(online, apic_ids[i]);
		if (result == AP_ONLINE) {
			online++;
			continue;
		}
		aps_late++;
		kprintf("smp: cpu with apic id %u did not start\n",
			apic_ids[i]);
		if (result == AP_LOST) {
			kprintf("smp: it holds cpu slot %d's stack: no more "
				"cpus started\n",
				online);
			break;
		}
	}
	nr_cpus = online;
}
