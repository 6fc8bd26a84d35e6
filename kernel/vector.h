/*
 * The interrupt vector registry: the fixed vectors' numbers, and which
 * handler runs for each vector. The dispatcher (kernel/trap.c) runs the
 * handler and then sends the LAPIC EOI; device vectors are handed out by
 * irq_alloc_vector (kernel/irq.h).
 */
#ifndef KERNEL_VECTOR_H
#define KERNEL_VECTOR_H

/* Fixed vectors. Device vectors come from irq_alloc_vector (kernel/irq.h). */
#define VEC_TIMER	 0x20
#define VEC_WAKE	 0x21 /* IPI: leave hlt and poll again */
#define VEC_CALL	 0x22 /* IPI: run the queued smp_call function */
#define VEC_STOP	 0x23 /* IPI: another CPU panicked; stop here */
#define VEC_DEVICE_FIRST 0x30
#define VEC_DEVICE_LAST	 0xDF
#define VEC_PIC_BASE	 0xE0 /* the masked 8259s, remapped out of the way */
#define VEC_SPURIOUS	 0xFF

typedef void (*irq_handler_t)(void *arg);

/* Installs fn(arg) for vector (NULL: none). Boot code only (no lock):
 * drivers use irq_alloc_vector. */
void vector_set_handler(int vector, irq_handler_t fn, void *arg);

/* Runs the handler installed for vector, if any. Interrupt context: the
 * dispatcher, with interrupts masked. */
void vector_call(int vector);

#endif
