/*
 * The adaptive busy-poll window of one NIC queue: how long its CPU keeps
 * polling after the last received frame before it sleeps on the queue's
 * interrupt. Spinning saves the wake-up when the next frame comes soon,
 * and wastes the CPU (on a shared host, the core QEMU's I/O thread or the
 * client needs) when it does not. So the window follows what spinning
 * finds, judged at each frame by how long the queue waited for it since
 * the last one:
 *
 *   - found while spinning (a hit): the window was right, it stays;
 *   - found after the spin ran out, but within the longest window
 *     (poll_us=) of the last frame (a short sleep): a longer spin would
 *     have found it, so the window doubles (from BUSY_POLL_MIN_NS);
 *   - found later than that (a long sleep): no window allowed would have
 *     found it, so the spin was wasted: the window halves, and below
 *     BUSY_POLL_MIN_NS it is 0, the queue sleeps at once.
 *
 * So frames that come further apart than poll_us= stop the spinning
 * after a few, frames that come closer bring it back, and an idle queue
 * spins once after its last frame, then not at all. KVM sizes its
 * halt-polling window the same way. Only received frames count as what
 * spinning finds: a TX completion can wait for the next round
 * (net_poll.c).
 *
 * Plain C with no machine in it (host-tested); the caller passes the
 * time. One queue's state, used by that queue's CPU only.
 */
#ifndef NET_BUSY_POLL_H
#define NET_BUSY_POLL_H

#include <stdbool.h>
#include <stdint.h>

/* The smallest window worth spinning: a poll round of an idle queue
 * under QEMU TCG takes a few microseconds. */
#define BUSY_POLL_MIN_NS 10000u

struct busy_poll {
	uint64_t max_ns;     /* poll_us=, in ns: the longest window */
	uint64_t window_ns;  /* the current one, 0 to max_ns */
	bool adapt;	     /* poll_adapt=on; off: window_ns stays max_ns */
	bool spinning;	     /* empty rounds since the last frame, in window */
	bool slept;	     /* the window ran out since the last frame */
	uint64_t last_rx_ns; /* when the last frame was taken */
	uint64_t seen_ns;    /* the spin's time is counted up to here */
	/* counters */
	uint64_t spin_rounds;  /* empty rounds spent spinning */
	uint64_t spin_ns;      /* time spent spinning */
	uint64_t hits;	       /* frames found while spinning */
	uint64_t misses;       /* spins that ran out with nothing */
	uint64_t short_sleeps; /* frames a longer window would have found */
	uint64_t long_sleeps;  /* frames no window would have found */
};

/**
 * busy_poll_init - a queue's window, starting at the longest, @max_ns
 * (0: never spin). @adapt false keeps it there (the fixed window).
 */
void busy_poll_init(struct busy_poll *bp, uint64_t max_ns, bool adapt);

/**
 * busy_poll_frames - a round at time @now took received frames: judge
 * the window by the wait for them (see above).
 */
void busy_poll_frames(struct busy_poll *bp, uint64_t now);

/**
 * busy_poll_spin - a round at time @now found nothing: spin on?
 * Return: true to poll again at once; false when the window has run
 * out (the queue should sleep on its interrupt).
 */
bool busy_poll_spin(struct busy_poll *bp, uint64_t now);

#endif /* NET_BUSY_POLL_H */
