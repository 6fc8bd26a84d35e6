/*
 * The adaptive busy-poll window of one NIC queue: whether its CPU keeps
 * polling for poll_us= after the last received frame before it sleeps on
 * the queue's interrupt. Spinning saves the wake-up when the next frame
 * comes soon, and wastes the CPU (on a shared host, the core QEMU's I/O
 * thread or the client needs) when it does not. So a queue spins only
 * while spinning finds frames, kept by credits:
 *
 *   - a spin that finds a frame (a hit) earns a credit (at most
 *     BUSY_POLL_CREDITS); one that runs out with nothing (a miss) costs
 *     one, and with none left the queue stops spinning (window 0): it
 *     sleeps on its interrupt at once after each frame;
 *   - a stopped queue woken by a frame that came within poll_us= of the
 *     last one (a short sleep: a spin would have found it) spins again,
 *     with BUSY_POLL_RESTART_CREDITS.
 *
 * So frames further apart than poll_us= stop the spinning after a few
 * misses, frames closer together bring it back, and an idle queue spins
 * once after its last frame, then not at all. Shrinking the window by
 * halves instead (KVM sizes its halt-polling window so) failed here: a
 * sleeping queue's wait includes its own wake-up, hundreds of us on a
 * loaded host under TCG, so windows between 0 and poll_us= found almost
 * nothing (2 hits in 2000 back-to-back UDP echoes) and the median round
 * trip doubled. Only received frames count as what spinning finds: a TX
 * completion can wait for the next round (net_poll.c).
 *
 * Plain C with no machine in it (host-tested); the caller passes the
 * time. One queue's state, used by that queue's CPU only.
 */
#ifndef NET_BUSY_POLL_H
#define NET_BUSY_POLL_H

#include <stdbool.h>
#include <stdint.h>

/* Misses forgiven for the hits before them: enough to ride out a run of
 * host hiccups (on a loaded host 30 % of the gaps between back-to-back
 * UDP echoes were over 200 us), few enough that a queue gone quiet stops
 * spinning after a handful of frames. */
#define BUSY_POLL_CREDITS	  8u
/* A queue that starts spinning again must find a frame within this many
 * spins or stop again. */
#define BUSY_POLL_RESTART_CREDITS 2u

struct busy_poll {
	uint64_t max_ns;     /* poll_us=, in ns: the longest window */
	uint64_t window_ns;  /* now: max_ns (spinning) or 0 (stopped) */
	bool adapt;	     /* poll_adapt=on; off: window_ns stays max_ns */
	bool spinning;	     /* empty rounds since the last frame, in window */
	bool slept;	     /* the window ran out since the last frame */
	uint32_t credits;    /* misses still allowed before it stops */
	uint64_t last_rx_ns; /* when the last frame was taken */
	uint64_t seen_ns;    /* the spin's time is counted up to here */
	/* counters */
	uint64_t spin_rounds;  /* empty rounds spent spinning */
	uint64_t spin_ns;      /* time spent spinning */
	uint64_t hits;	       /* frames found while spinning */
	uint64_t misses;       /* spins that ran out with nothing */
	uint64_t short_sleeps; /* frames a spin would have found */
	uint64_t long_sleeps;  /* frames later than max_ns after the last */
};

/**
 * busy_poll_init - a queue's window, @max_ns (0: never spin), spinning
 * with full credits. @adapt false keeps it spinning (the fixed window).
 */
void busy_poll_init(struct busy_poll *bp, uint64_t max_ns, bool adapt);

/**
 * busy_poll_frames - a round at time @now took received frames: a hit,
 * a short or a long sleep, or neither (frames round after round).
 */
void busy_poll_frames(struct busy_poll *bp, uint64_t now);

/**
 * busy_poll_spin - a round at time @now found nothing: spin on?
 * Return: true to poll again at once; false when the window has run
 * out (the queue should sleep on its interrupt).
 */
bool busy_poll_spin(struct busy_poll *bp, uint64_t now);

#endif /* NET_BUSY_POLL_H */
