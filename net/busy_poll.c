/*
 * The adaptive busy-poll window (see busy_poll.h).
 */
#include "busy_poll.h"

void busy_poll_init(struct busy_poll *bp, uint64_t max_ns, bool adapt)
{
	*bp = (struct busy_poll){.max_ns = max_ns,
				 .window_ns = max_ns,
				 .adapt = adapt,
				 .credits = BUSY_POLL_CREDITS};
}

/* The queue slept from the end of its window until @now. */
static void judge_sleep(struct busy_poll *bp, uint64_t now)
{
	if (now - bp->last_rx_ns >= bp->max_ns) {
		bp->long_sleeps++;
		return;
	}
	bp->short_sleeps++;
	if (bp->adapt && !bp->window_ns) {
		bp->window_ns = bp->max_ns;
		bp->credits = BUSY_POLL_RESTART_CREDITS;
	}
}

void busy_poll_frames(struct busy_poll *bp, uint64_t now)
{
	if (bp->spinning) {
		bp->hits++;
		if (bp->credits < BUSY_POLL_CREDITS)
			bp->credits++;
	} else if (bp->slept) {
		judge_sleep(bp, now);
	}
	bp->spinning = false;
	bp->slept = false;
	bp->last_rx_ns = now;
}

/* A spin ran out with nothing: it costs a credit, the last one stops the
 * spinning. */
static void spin_missed(struct busy_poll *bp)
{
	bp->spinning = false;
	bp->misses++;
	if (bp->adapt && bp->credits && --bp->credits == 0)
		bp->window_ns = 0;
}

bool busy_poll_spin(struct busy_poll *bp, uint64_t now)
{
	if (now - bp->last_rx_ns < bp->window_ns) {
		if (!bp->spinning) {
			bp->spinning = true;
			bp->seen_ns = bp->last_rx_ns;
		}
		bp->spin_rounds++;
		bp->spin_ns += now - bp->seen_ns;
		bp->seen_ns = now;
		return true;
	}
	if (bp->spinning)
		spin_missed(bp);
	bp->slept = true;
	return false;
}
