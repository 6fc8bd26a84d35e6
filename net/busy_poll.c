/*
 * The adaptive busy-poll window (see busy_poll.h).
 */
#include "busy_poll.h"

void busy_poll_init(struct busy_poll *bp, uint64_t max_ns, bool adapt)
{
	*bp = (struct busy_poll){
		.max_ns = max_ns, .window_ns = max_ns, .adapt = adapt};
}

static void window_grow(struct busy_poll *bp)
{
	uint64_t w = bp->window_ns ? 2 * bp->window_ns : BUSY_POLL_MIN_NS;

	bp->window_ns = w < bp->max_ns ? w : bp->max_ns;
}

static void window_shrink(struct busy_poll *bp)
{
	bp->window_ns /= 2;
	if (bp->window_ns < BUSY_POLL_MIN_NS)
		bp->window_ns = 0;
}

/* The queue slept from the end of its window until @now. */
static void judge_sleep(struct busy_poll *bp, uint64_t now)
{
	if (now - bp->last_rx_ns < bp->max_ns) {
		bp->short_sleeps++;
		if (bp->adapt)
			window_grow(bp);
	} else {
		bp->long_sleeps++;
		if (bp->adapt)
			window_shrink(bp);
	}
}

void busy_poll_frames(struct busy_poll *bp, uint64_t now)
{
	if (bp->spinning)
		bp->hits++;
	else if (bp->slept)
		judge_sleep(bp, now);
	bp->spinning = false;
	bp->slept = false;
	bp->last_rx_ns = now;
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
	if (bp->spinning) {
		bp->spinning = false;
		bp->misses++;
	}
	bp->slept = true;
	return false;
}
