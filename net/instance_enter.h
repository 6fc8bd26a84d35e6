/*
 * Entering another stack instance (net_stack=percpu; net_instance.h has
 * the design): the caller's FS base points at the instance's TLS block
 * and the caller holds that instance's core lock. Apart from
 * net_instance.c because it takes the core lock, which itself reads
 * which instance it is in.
 */
#ifndef NET_INSTANCE_ENTER_H
#define NET_INSTANCE_ENTER_H

#include <stdint.h>

/* What net_instance_enter() changed, for net_instance_leave(). */
struct net_instance_saved {
	uintptr_t tp;
};

/**
 * net_instance_enter - run in instance @i: the caller's FS base points at
 * its block and the caller holds its core lock. Not with any core lock
 * held. Pair with net_instance_leave().
 */
void net_instance_enter(int i, struct net_instance_saved *saved);
void net_instance_leave(const struct net_instance_saved *saved);

#endif /* NET_INSTANCE_ENTER_H */
