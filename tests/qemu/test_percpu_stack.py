"""A TCP/IP stack per CPU (net_stack=percpu, docs/percpu-stack.md).

Two CPUs, two virtio-net queue pairs on a multiqueue tap in a private
namespace: each CPU runs its own lwIP over the flows its queue gets, with
no lock shared between CPUs on the packet path. The tests check what the
guest serves to real clients (curl, the clients script, iperf) and what
its /stats.json counted: both stacks served, the shared-lock count did
not grow with the traffic, and frames that arrived on the wrong CPU were
handed over, not dropped.
"""
import json
import re
import subprocess

from test_net_multiqueue import GUEST, HOST, MqGuest, mq_netns, queues  # noqa: F401

QUEUES = 2


def boot(qemu, ns, append="", **kw):
    g = MqGuest(qemu, ns, smp=QUEUES, queues=QUEUES,
                append="net_stack=percpu " + append, **kw)
    assert re.search(r"^net: net_stack=percpu: 2 stacks, one per cpu 0-1, steering "
                     r"(by RSS|in software)$", g.vm.log(), re.M), g.vm.describe()
    return g


def shared_lock(stats):
    return stats["core_lock"]["total"]["shared"]


def test_both_stacks_serve_http_and_echo_without_a_shared_lock(qemu, mq_netns):
    """Many connections spread over both queues by RSS: every one is
    answered, each CPU's stack took its own (the per-CPU lock counts
    grow on both CPUs), and no acquisition of a lock shared between CPUs
    happened per packet: the shared count grows by at most the few the
    /stats.json requests themselves cost, whatever the traffic."""
    g = boot(qemu, mq_netns)
    before = g.stats()
    g.clients(tcp=8, udp=32, http=8, nbytes=32768)
    after = g.stats()
    b, a = queues(before), queues(after)
    for q in range(QUEUES):
        assert a[q]["rx_packets"] > b[q]["rx_packets"], (q, a[q])
    cpu_b, cpu_a = before["core_lock"]["cpu"], after["core_lock"]["cpu"]
    for c in range(QUEUES):
        assert cpu_a["cpu%d" % c]["acquired"] > cpu_b["cpu%d" % c]["acquired"], c
    frames = sum(a[q]["rx_packets"] - b[q]["rx_packets"] for q in range(QUEUES))
    grown = shared_lock(after) - shared_lock(before)
    assert grown <= 4, (grown, frames, after["core_lock"])
    assert after["http"]["requests"] > before["http"]["requests"]
