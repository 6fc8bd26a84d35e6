/*
 * NMIs one CPU sends another, with the reason said first. An NMI reaches
 * a CPU whatever it does, interrupts masked or not, which is what the GDB
 * stub needs to stop every CPU and the stall detector to see where a CPU
 * that masked interrupts is stuck. An NMI carries no vector, so the
 * sender sets a bit in the target's reason word before sending, and the
 * target's handler runs the handler of each bit it finds.
 */
#ifndef KERNEL_NMI_H
#define KERNEL_NMI_H

#include <stdbool.h>

#include "kernel/trap_frame.h"

/* The reasons (bits of a CPU's word). */
#define NMI_GDB	    (1u << 0) /* the GDB stub stops the machine */
#define NMI_STALL   (1u << 1) /* the stall detector looks at a CPU */
#define NMI_REASONS 2

typedef void (*nmi_handler_t)(struct trap_frame *f);

/* nmi_set_handler - fn handles reason from now on. Boot. */
void nmi_set_handler(unsigned int reason, nmi_handler_t fn);

/*
 * nmi_send - set reason in cpu's word and send it an NMI. Any context,
 * also an NMI handler (kernel/apic.c's NMI send keeps an interrupted
 * IPI send whole). Nothing happens for a CPU that is not online.
 */
void nmi_send(int cpu, unsigned int reason);

/*
 * nmi_dispatch - the NMI entry (kernel/trap.c): runs the handler of each
 * reason posted for this CPU. Returns false when none was ever posted
 * for it: an NMI from elsewhere (the board, a watchdog), which the
 * exception report then describes. Two NMIs sent while one is handled
 * arrive as one with both reasons, and the second finds none: it is
 * ignored. NMI context.
 */
bool nmi_dispatch(struct trap_frame *f);

#endif
