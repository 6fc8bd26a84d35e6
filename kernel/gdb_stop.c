/*
 * Stopping and resuming the machine for the GDB stub (all-stop).
 *
 * A stop begins on one CPU: a breakpoint (#BP), a step gdb asked for
 * (#DB), or the debugger asking through the transport (a break-in). That
 * CPU becomes the master (one at a time: a compare-and-swap), takes every
 * breakpoint out of memory, and sends every other online CPU an NMI.
 * Each parks in its NMI handler: it leaves its registers (the NMI's
 * frame) for gdb and spins until the master releases it. The master
 * waits for them (bounded: a CPU that does not answer is shown to gdb as
 * running), serves the session (kernel/gdb_cmds.c), then resumes:
 *
 *   - everyone goes (continue, or steps among continues, or detach): the
 *     breakpoints go back in, every parked CPU is released, and a CPU that
 *     steps has the trap flag set in its frame, so its #DB after one
 *     instruction begins the next stop;
 *   - only steps, the rest stays (how gdb steps one thread over a
 *     breakpoint): the steppers are released, the master parks itself
 *     like the others, and the stepper's #DB makes it the next master,
 *     finding the machine still stopped.
 *
 * The transport's CPU (TCP: apps/gdb_tcp.c) is never stopped: it moves
 * the bytes. A breakpoint it hits, or one hit by a CPU the transport says
 * may not stop (it holds lwIP's core lock), is stepped over without a
 * report: the int3 is lifted, the one instruction runs under the trap
 * flag, and the #DB puts the int3 back.
 *
 * A CPU that hits a breakpoint while another is master parks as if its
 * NMI had come, its instruction pointer back on the breakpoint: when
 * released it traps again, and that hit is reported then.
 */
#include <stdatomic.h>

#include "kernel/arch.h"
#include "kernel/gdb_internal.h"
#include "kernel/nmi.h"
#include "kernel/percpu.h"
#include "kernel/stall.h"
#include "kernel/time.h"

#define RFLAGS_TF    (1ULL << 8)
#define DR6_BS	     (1ULL << 14) /* the #DB is a single step */
#define INT3	     0xCC
/* How long the master waits for the others. A PC's CPU takes an NMI
 * within microseconds; a TCG vCPU on a loaded host may not be scheduled
 * for hundreds of milliseconds, and a CPU shown as "did not stop" is a
 * session with a running CPU in it. */
#define PARK_WAIT_MS 3000

/* One CPU as the stub sees it. */
struct gdb_cpu {
	struct trap_frame *frame; /* its registers while stopped */
	atomic_bool parked;	  /* spinning in park() */
	atomic_bool release;	  /* the master lets it go */
	/* in a trap handler of the stub: an NMI asking it to stop finds it
	 * on its way to park or serve, and leaves it to that */
	atomic_bool in_stub;
	bool stepping;	    /* gdb asked for a step: its #DB stops */
	uint64_t step_over; /* the breakpoint it steps over, or 0 */
} __attribute__((aligned(64)));

static struct gdb_cpu gc[MAX_CPUS];
static struct gdb_world world;
static atomic_int master = -1;
static atomic_bool stopped; /* a stop is on: parked CPUs stay parked */
/* A break-in asked of another CPU (gdb_break_in_elsewhere): the byte
 * that asked (0 none) and the CPU asked. */
static atomic_int breakin_byte;
static atomic_int breakin_cpu = -1;

static int io_cpu(void)
{
	return gdb_transport->io_cpu ? gdb_transport->io_cpu() : -1;
}

/* May CPU me stop here (or must it keep running for the transport)? */
static bool may_stop_here(int me)
{
	return me != io_cpu() &&
	       (!gdb_transport->may_stop || gdb_transport->may_stop());
}

/*
 * Spin, registers at f, until the master releases this CPU. Returns true
 * when released; false when no stop is on and nobody is starting one:
 * this CPU came as one ended and was not counted in it (it may try to be
 * the master itself).
 */
static bool park(int me, struct trap_frame *f)
{
	bool released;

	gc[me].frame = f;
	atomic_store(&gc[me].release, false);
	atomic_store(&gc[me].parked, true);
	while (!(released = atomic_load(&gc[me].release)) &&
	       (atomic_load(&stopped) || atomic_load(&master) != -1))
		cpu_relax();
	atomic_store(&gc[me].parked, false);
	return released;
}

/* Parked in this stop (not one released and on its way out). */
static bool parked_now(int c)
{
	return atomic_load(&gc[c].parked) && !atomic_load(&gc[c].release);
}

/* Every other online CPU parked, or PARK_WAIT_MS gone; the NMI is sent
 * again every millisecond to those not parked yet (one whose transport
 * said "not here" stops at a later try). Fills the world's frames. */
static void stop_others(int me)
{
	uint64_t end = clock_ms() + PARK_WAIT_MS;
	bool all;

	/* the transport's CPU runs on, but may be halted: an NMI ends a
	 * halt, and it then polls until the stop is over */
	if (world.io_cpu >= 0 && world.io_cpu != me)
		nmi_send(world.io_cpu, NMI_GDB);
	do {
		all = true;
		for (int c = 0; c < nr_cpus; c++) {
			if (c == me || c == world.io_cpu ||
			    !atomic_load(&cpus[c].online) || parked_now(c))
				continue;
			all = false;
			nmi_send(c, NMI_GDB);
		}
		if (!all)
			delay_us(1000);
	} while (!all && clock_ms() < end);
	for (int c = 0; c < nr_cpus; c++)
		world.frame[c] = c == me || parked_now(c) ? gc[c].frame : NULL;
}

/* Release the parked CPUs that leave now (all, or only those that step),
 * each with the trap flag set as its action says. */
static void release(int me, bool steppers_only)
{
	for (int c = 0; c < nr_cpus; c++) {
		struct trap_frame *f = world.frame[c];

		if (!f || (steppers_only && world.action[c] != GDB_STEP))
			continue;
		if (world.action[c] == GDB_STEP) {
			f->rflags |= RFLAGS_TF;
			gc[c].stepping = true;
		}
		if (c != me)
			atomic_store(&gc[c].release, true);
	}
}

/* Everyone goes. The CPU whose breakpoint was reported (the master)
 * steps over it when it continues; the others meet theirs again. The
 * released CPUs go first, then the stop ends: a stepper that traps at
 * once finds the master still there, waits in park() for the end and
 * then becomes the next master. */
static void resume_all(int me, struct trap_frame *f, enum gdb_resume how)
{
	if (how == GDB_DETACH) {
		gdb_bp_clear();
		for (int c = 0; c < nr_cpus; c++)
			world.action[c] = GDB_RUN;
	}
	for (int c = 0; c < nr_cpus; c++)
		if (world.action[c] == GDB_STAY)
			world.action[c] = GDB_RUN;
	stall_hold(false);
	gdb_bp_insert_all();
	if (gdb_bp_at(f->rip)) {
		gdb_bp_lift(f->rip);
		if (world.action[me] == GDB_RUN) {
			f->rflags |= RFLAGS_TF;
			gc[me].step_over = f->rip;
		}
	}
	release(me, false);
	atomic_store(&stopped, false);
	atomic_store(&master, -1);
}

/* Only steps: the steppers go, the master parks with the rest if it
 * stays; the first stepper's #DB serves gdb next. */
static void resume_steppers(int me, struct trap_frame *f)
{
	bool stays = world.action[me] == GDB_STAY;

	atomic_store(&master, -1);
	release(me, true);
	if (stays)
		(void)park(me, f); /* the stop goes on: released, not idle */
}

/* Does any stopped CPU take action a? */
static bool anyone(enum gdb_action a)
{
	for (int c = 0; c < nr_cpus; c++)
		if (world.frame[c] && world.action[c] == a)
			return true;
	return false;
}

/*
 * This CPU's event stops the machine: become the master and serve gdb,
 * or, when another CPU is master already, park until it is done.
 * report: send the stop reply at once (not for a break-in by '$': gdb
 * asks with '?' once attached).
 */
static void stop_machine(int me, struct trap_frame *f, int signal, bool swbreak,
			 bool report)
{
	int none = -1;
	enum gdb_resume how;

	atomic_store(&gc[me].in_stub, true);
	while (!atomic_compare_exchange_strong(&master, &none, me)) {
		none = -1;
		if (park(me, f)) { /* counted in another CPU's stop */
			atomic_store(&gc[me].in_stub, false);
			return;
		}
	}
	gc[me].frame = f;
	stall_hold(true); /* stopped on purpose: no CPU is stalled */
	if (!atomic_exchange(&stopped, true))
		gdb_bp_remove_all();
	atomic_store(&breakin_byte, 0); /* this stop serves it */
	world.nr_cpus = nr_cpus;
	world.io_cpu = io_cpu();
	world.current = world.g_cpu = me;
	world.c_cpu = -1;
	world.signal = signal;
	world.swbreak = swbreak;
	stop_others(me);
	how = gdb_session(&world, report);
	if (how == GDB_DETACH || anyone(GDB_RUN) || !anyone(GDB_STEP))
		resume_all(me, f, how);
	else
		resume_steppers(me, f);
	atomic_store(&gc[me].in_stub, false);
}

/* NMI_GDB: park for the master, or start the stop a break-in asked of
 * this CPU. */
static void gdb_nmi(struct trap_frame *f)
{
	int me = this_cpu_id();
	int byte = atomic_load(&breakin_byte);

	if (atomic_load(&gc[me].in_stub) || !may_stop_here(me))
		return; /* on its way already / asked again later */
	if (byte && atomic_load(&breakin_cpu) == me) {
		stop_machine(me, f, GDB_SIGINT, false, byte == 0x03);
		return;
	}
	if (!atomic_load(&stopped))
		return; /* that stop is over */
	atomic_store(&gc[me].in_stub, true);
	(void)park(me, f);
	atomic_store(&gc[me].in_stub, false);
}

void gdb_break_in_here(struct trap_frame *f, int byte)
{
	if (byte == '$')
		gdb_packet_push_back(byte);
	stop_machine(this_cpu_id(), f, GDB_SIGINT, false, byte == 0x03);
}

void gdb_break_in_elsewhere(int byte)
{
	int me = this_cpu_id(), target = -1;

	if (atomic_load(&stopped))
		return;
	for (int c = 0; c < nr_cpus && target < 0; c++)
		if (c != me && atomic_load(&cpus[c].online))
			target = c;
	if (target < 0)
		return; /* one CPU cannot stop itself and carry the transport */
	atomic_store(&breakin_cpu, target);
	atomic_store(&breakin_byte, byte);
	nmi_send(target, NMI_GDB);
}

/* Step over the breakpoint at addr without stopping (a CPU that may not
 * stop here): lift it, one instruction under the trap flag, and the #DB
 * puts it back. */
static void step_over_quietly(int me, struct trap_frame *f, uint64_t addr)
{
	gdb_bp_lift(addr);
	f->rip = addr;
	f->rflags |= RFLAGS_TF;
	gc[me].step_over = addr;
}

static bool breakpoint_trap(int me, struct trap_frame *f)
{
	uint64_t addr = f->rip - 1;
	bool ours = gdb_bp_at(addr);

	if (!ours && *(volatile uint8_t *)(uintptr_t)addr != INT3) {
		/* taken out under us (a stop began, or gdb removed it):
		 * run the instruction that is there now */
		f->rip = addr;
		return true;
	}
	if (!may_stop_here(me)) {
		if (ours)
			step_over_quietly(me, f, addr);
		return ours; /* an int3 compiled in: reported as an exception */
	}
	if (ours)
		f->rip = addr;
	stop_machine(me, f, GDB_SIGTRAP, ours, true);
	return true;
}

static bool debug_trap(int me, struct trap_frame *f)
{
	uint64_t dr6 = read_dr6();

	write_dr6(0);
	if (!(dr6 & DR6_BS))
		return false; /* not a single step: no hardware breakpoints */
	if (gc[me].step_over) {
		uint64_t addr = gc[me].step_over;

		gc[me].step_over = 0;
		f->rflags &= ~RFLAGS_TF;
		gdb_bp_restore(addr);
		return true;
	}
	if (!gc[me].stepping)
		return false;
	if (!may_stop_here(me))
		return true; /* keep stepping: it stops where it may */
	gc[me].stepping = false;
	f->rflags &= ~RFLAGS_TF;
	stop_machine(me, f, GDB_SIGTRAP, false, true);
	return true;
}

bool gdb_trap(struct trap_frame *f)
{
	if (!gdb_transport)
		return false;
	if (f->vector == 1)
		return debug_trap(this_cpu_id(), f);
	return breakpoint_trap(this_cpu_id(), f);
}

int gdb_transport_register(const struct gdb_transport *t)
{
	if (gdb_transport)
		return -1;
	gdb_transport = t;
	nmi_set_handler(NMI_GDB, gdb_nmi);
	return 0;
}

bool gdb_enabled(void)
{
	return gdb_transport != NULL;
}

bool gdb_stopped(void)
{
	return atomic_load(&stopped);
}
