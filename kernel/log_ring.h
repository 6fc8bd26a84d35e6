/*
 * The log ring: the last LOG_RING_SIZE bytes of the kernel's log (every
 * kprintf since the first line of the boot), for readers that come later
 * or run elsewhere: netconsole (apps/netconsole.c) sends it as UDP, from
 * the first line on, once the network is up.
 *
 * One writer at a time (the console's lock serialises them) that never
 * waits for a reader; any number of readers, each with its own position
 * (a count of bytes since the boot). A reader that falls more than the
 * ring behind is told how much it lost and goes on from the oldest byte
 * kept.
 */
#ifndef KERNEL_LOG_RING_H
#define KERNEL_LOG_RING_H

#include <stddef.h>
#include <stdint.h>

#define LOG_RING_SIZE (64 * 1024)

/* log_ring_append - add s[0..n) (its last LOG_RING_SIZE / 2 bytes if
 * longer) and call the notifier. Under the console's lock
 * (kernel/console.c), any context. */
void log_ring_append(const char *s, size_t n);

/*
 * log_ring_set_notifier - fn() runs after every append, under the
 * console's lock with interrupts masked, in whatever context logged: it
 * may only note that there is more (and wake a poller), never log. One
 * notifier; NULL removes it. Any context.
 */
void log_ring_set_notifier(void (*fn)(void));

/*
 * log_ring_read - copy up to n bytes from position *pos into buf and
 * advance *pos past them. *lost gets the bytes between *pos and the
 * oldest byte kept, when the ring has overwritten them (0 otherwise).
 * Returns the bytes copied (0: nothing new). Any context; one caller per
 * position.
 */
size_t log_ring_read(uint64_t *pos, char *buf, size_t n, uint64_t *lost);

/* log_ring_head - bytes appended since the boot. Any context. */
uint64_t log_ring_head(void);

#endif
