/*
 * Entering another stack instance (see instance_enter.h): switch the FS
 * base, then take the lock there; on leaving, let go, then switch back.
 * The lock is taken after the switch because it is the instance's own
 * (NET_PERCPU in core_lock.c): the same call names another lock in
 * another block.
 */
#include "instance_enter.h"

#include "core_lock.h"
#include "kernel/tls.h"
#include "net_instance.h"

void net_instance_enter(int i, struct net_instance_saved *saved)
{
	saved->tp = tls_current();
	if (net_instance_tp(i) != saved->tp)
		tls_install(net_instance_tp(i));
	net_core_lock();
}

void net_instance_leave(const struct net_instance_saved *saved)
{
	net_core_unlock();
	if (tls_current() != saved->tp)
		tls_install(saved->tp);
}
