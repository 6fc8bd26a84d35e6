"""A TCP/IP stack per CPU (net_stack=percpu, docs/percpu-stack.md).

Each CPU that owns a NIC queue runs its own lwIP over the flows its
queue gets, with no lock shared between CPUs on the packet path. The
tests check what the guest serves to real clients (curl, the clients
script, iperf, ping, the shell) and what /stats.json counted: every
stack served, the count of shared-lock acquisitions did not grow with
the traffic, and frames that reached the wrong CPU were handed to their
owner, not dropped:

- virtio-net on a multiqueue tap, steered by the device's RSS;
- the same without device RSS (the tap picks the queue; the stack
  steers in software and hands frames over);
- igb on user networking, with its address from DHCP (instance 0's
  client publishes it to the other stack);
- IPv6, static and from a router advertisement (each stack forms the
  address itself from the advertisement every stack is given).
"""
import json
import os
import re
import subprocess
import time

import pytest

from conftest import free_port
from test_e1000 import tcp_echo, up_line
from test_igb import answer_queue, client_from_queue, http_from_queue
from netns_tap import HERE, PYTHON
from test_ipv6 import eui64_link_local
from test_net import NetVM
from test_numa import TWO_NODES, rx_refills
from test_net_multiqueue import GUEST, HOST, MqGuest, mq_netns, queues  # noqa: F401
from test_virtio_rss import client_on_queue, http_on_queue, source_port

QUEUES = 2
TABLE = [i % QUEUES for i in range(128)]
MODE_LINE = (r"^net: net_stack=percpu: 2 stacks, one per cpu 0-1, steering "
             r"(by RSS|in software)$")


def boot(qemu, ns, append="", **kw):
    g = MqGuest(qemu, ns, smp=QUEUES, queues=QUEUES,
                append="net_stack=percpu http_control=1 " + append, **kw)
    m = re.search(MODE_LINE, g.vm.log(), re.M)
    assert m, g.vm.describe()
    return g, m.group(1)


def stacks(st):
    """Per instance: its lwIP's TCP segments received, and hand-offs."""
    assert st["stacks"]["mode"] == "percpu" and st["stacks"]["count"] == QUEUES, st["stacks"]
    return st["stacks"]["instances"]


def grew(before, after, key):
    b, a = stacks(before), stacks(after)
    return [a[i][key] - b[i][key] for i in range(QUEUES)]


def shared_grew(before, after):
    return after["core_lock"]["total"]["shared"] - before["core_lock"]["total"]["shared"]


def check_no_shared_lock_per_packet(before, after):
    """Both CPUs took their own stack's lock, and a lock shared between
    CPUs was taken no more often than the shell and the /stats.json
    requests themselves explain (a handful), whatever the traffic."""
    cb, ca = before["core_lock"]["cpu"], after["core_lock"]["cpu"]
    for c in range(QUEUES):
        assert ca["cpu%d" % c]["acquired"] > cb["cpu%d" % c]["acquired"], (c, ca)
    assert after["core_lock"]["unlocked_calls"] == 0, after["core_lock"]
    assert shared_grew(before, after) <= 4, after["core_lock"]


def test_both_stacks_serve_tcp_udp_and_http_over_rss(qemu, mq_netns):
    """Many connections and datagrams spread over both queues by the
    device's RSS: every one answered (the clients script checks each
    byte), both stacks took TCP segments, no frame needed a hand-off,
    and no lock shared between CPUs was taken per packet."""
    g, steering = boot(qemu, mq_netns)
    assert steering == "by RSS"
    before = g.stats()
    g.clients(tcp=8, udp=32, http=8, nbytes=32768)
    after = g.stats()
    b, a = queues(before), queues(after)
    for q in range(QUEUES):
        assert a[q]["rx_packets"] > b[q]["rx_packets"], (q, a[q])
    tcp = grew(before, after, "tcp_recv")
    assert min(tcp) > 0, tcp
    assert min(grew(before, after, "udp_recv")) > 0, stacks(after)
    # RSS put every flow where its connection is: nothing handed over
    assert sum(grew(before, after, "sent")) == 0, stacks(after)
    # so each RX buffer was freed on the CPU that received it
    mem_b, mem_a = before["net_mem"], after["net_mem"]
    assert (mem_a["rx_frees_other_cpu"] - mem_b["rx_frees_other_cpu"]) * 100 < \
        mem_a["rx_wrap"] - mem_b["rx_wrap"], mem_a
    assert after["http"]["requests"] > before["http"]["requests"]
    # the pools' peaks are each stack's own, summed: they saw the traffic
    for pool in ("TCP_PCB", "TCP_SEG"):
        m = after["lwip"]["memp"][pool]
        assert m["max"] >= max(m["used"], 1), (pool, m)
    assert after["lwip"]["memp"]["TCP_PCB"]["max"] >= 8, after["lwip"]["memp"]
    check_no_shared_lock_per_packet(before, after)
    frames = sum(a[q]["rx_packets"] - b[q]["rx_packets"] for q in range(QUEUES))
    print("tcp segments per stack %s, %d frames, shared-lock acquisitions %d" % (
        tcp, frames, shared_grew(before, after)))


# Three requests in one write from a given source port, the last asking
# to close: prints the status lines of the answers, in order.
PIPELINED = r"""
import socket, sys
s = socket.socket()
s.bind((sys.argv[1], int(sys.argv[2])))
s.settimeout(30)
s.connect((sys.argv[3], 80))
req = b"GET /%s HTTP/1.1\r\nHost: guest\r\n%s\r\n"
s.sendall(req % (b"", b"") + req % (b"nothing-here", b"")
          + req % (b"", b"Connection: close\r\n"))
data = b""
while True:
    chunk = s.recv(65536)
    if not chunk:
        break
    data += chunk
while data:
    head, rest = data.split(b"\r\n\r\n", 1)
    length = int([l.split(b":")[1] for l in head.split(b"\r\n")
                  if l.lower().startswith(b"content-length:")][0])
    print(head.split(b"\r\n")[0].decode())
    data = rest[length:]
"""


def test_pipelined_requests_are_answered_in_order_by_each_stack(qemu, mq_netns):
    """HTTP pipelining in per-CPU mode: three requests in one segment on a
    connection the table puts on each queue, answered in order (200, 404,
    200) by that queue's stack, with no hand-off."""
    g, steering = boot(qemu, mq_netns)
    assert steering == "by RSS"
    used = set()
    for q in range(QUEUES):
        before = g.stats()
        r = g.run([PYTHON, "-c", PIPELINED, HOST, str(source_port(q, used)), GUEST])
        assert r.returncode == 0, r.stderr.decode()[-500:]
        assert r.stdout.decode().split("\n")[:3] == [
            "HTTP/1.1 200 OK", "HTTP/1.1 404 Not Found", "HTTP/1.1 200 OK"], r.stdout
        after = g.stats()
        tcp = grew(before, after, "tcp_recv")
        # the connection's segments went to queue q's stack alone (the
        # /stats.json reads may land on either)
        assert tcp[q] >= 3, (q, tcp)
        assert sum(grew(before, after, "sent")) == 0, stacks(after)


def test_software_steering_hands_frames_to_their_owner(qemu, mq_netns):
    """virtio_rss=0: the device does not steer, the tap puts each flow on
    a queue of its own choosing, and the stack computes each frame's
    owner (Toeplitz under its key, its table) and hands the others over
    a ring. Every connection and datagram is still answered byte for
    byte; frames were handed over both ways, none refused or lost."""
    g, steering = boot(qemu, mq_netns, append="virtio_rss=0")
    assert steering == "in software"
    assert re.search(r"^virtio-net: eth0 rss=off\(switch\)$", g.vm.log(), re.M)
    before = g.stats()
    g.clients(tcp=16, udp=32, http=16, nbytes=32768)
    after = g.stats()
    sent = grew(before, after, "sent")
    assert sum(sent) > 0, stacks(after)
    # at rest, every frame handed on (and every copy) has been taken by
    # its owner: nothing waits in a ring, nothing was lost
    for _ in range(20):
        t = after["stacks"]
        if t["sent"] + t["copies"] == t["taken"]:
            break
        time.sleep(0.25)
        after = g.stats()
    assert t["sent"] + t["copies"] == t["taken"] and t["ring_full"] == 0, t
    assert after["stacks"]["copy_fail"] == 0, after["stacks"]
    assert min(grew(before, after, "tcp_recv")) > 0, stacks(after)
    check_no_shared_lock_per_packet(before, after)
    print("handed over per stack %s" % sent)


def test_client_opened_on_each_cpu_is_served_by_that_cpus_stack(qemu, mq_netns):
    """The iperf client a request on queue k starts is opened in stack k
    with a port RSS steers back to k: its 10-second send completes, its
    ACKs were stack k's TCP input, and none of them needed a hand-off.
    Then iperf -P 4 from the host into the guest: every stream done."""
    g, _ = boot(qemu, mq_netns)
    used = set()
    for k in range(QUEUES):
        before = json.loads(http_on_queue(g, k, "/stats.json", used))
        port = 5201 + k
        m = client_on_queue(g, k, port, used)
        after = json.loads(http_on_queue(g, k, "/stats.json", used))
        assert answer_queue(HOST, GUEST, port, int(m.group(2)), TABLE) == k
        # the ACK stream: at least one per 64 full segments (the guest
        # sends large segments the device cuts, and the host may stretch)
        tcp = grew(before, after, "tcp_recv")
        acks = int(m.group(1)) // (64 * 1460)
        assert tcp[k] >= acks and tcp[k] > 10 * tcp[1 - k], (k, tcp, acks)
        assert sum(grew(before, after, "sent")) == 0, stacks(after)
    r = g.run(["iperf", "-c", GUEST, "-P", "4", "-t", "3", "-y", "C"], timeout=90)
    lines = [l for l in r.stdout.decode().splitlines() if l.count(",") >= 8]
    assert r.returncode == 0 and len(lines) >= 4, r.stdout.decode() + r.stderr.decode()
    assert all(int(l.split(",")[7]) > 0 for l in lines), lines


def test_shell_netstat_ping_and_static_ipv6_on_both_stacks(qemu, mq_netns):
    """The shell (CPU 0) enters each stack in turn: netstat shows each
    one's listeners; ping from the shell gets its echoes (replies belong
    to stack 0, whichever queue they reach); the host's ping and ping6
    are answered, and HTTP over the static IPv6 address from many ports
    (both queues) too."""
    guest6, host6 = "2001:db8:76::2", "2001:db8:76::1"
    subprocess.run(["ip", "netns", "exec", mq_netns, "ip", "addr", "add", host6 + "/64",
                    "dev", "tap0", "nodad"], check=True)
    g, _ = boot(qemu, mq_netns, append="ip6=%s/64" % guest6)
    g.vm.wait_for(r"^net: eth0 ip6 %s ready \(static\)" % re.escape(guest6), 30)
    con = g.vm.serial()
    out = con.command("netstat", timeout=30)
    assert "(the stack of cpu 0)" in out and "(the stack of cpu 1)" in out, out
    for part in out.split("(the stack of cpu")[1:]:
        assert re.search(r"^tcp .* \S+:80 .* LISTEN$", part, re.M), out
    out = con.command("ping %s 3" % HOST, timeout=60)
    assert re.search(r"3 packets transmitted, 3 (packets )?received", out), out
    r = g.run(["ping", "-c", "5", "-i", "0.2", "-W", "5", GUEST], timeout=30)
    assert r.returncode == 0 and b" 0% packet loss" in r.stdout, r.stdout
    r = g.run(["ping", "-6", "-c", "5", "-i", "0.2", "-W", "5", guest6], timeout=30)
    assert r.returncode == 0 and b" 0% packet loss" in r.stdout, r.stdout
    before = g.stats()
    serve_ipv6(g, (guest6,))
    assert min(grew(before, g.stats(), "tcp_recv")) > 0


def serve_ipv6(g, addrs):
    """8 HTTP requests to each address, from as many source ports (so
    over both queues), every one answered; the other stack's duplicate
    address detection for the newest address may still run: retried for
    a few seconds."""
    for addr in addrs:
        for i in range(8):
            for attempt in range(10):
                r = g.run(["curl", "-6", "-g", "-sS", "-f", "-m", "20", "--local-port",
                           str(41000 + 16 * attempt + i), "http://[%s]/" % addr])
                if r.returncode == 0:
                    break
                time.sleep(0.5)
            assert r.returncode == 0 and b"<html>" in r.stdout, (addr, i, r.stderr)


def test_ipv6_slaac_address_formed_and_served_by_both_stacks(qemu, mq_netns):
    """An address from a router advertisement: the RA reached every stack
    (a copy each), each formed the SLAAC address itself (one report, stack
    0's), and connections to it spread over both queues are all answered."""
    prefix = "2001:db8:99::"
    subprocess.run(["ip", "netns", "exec", mq_netns, "ip", "addr", "add", prefix + "1/64",
                    "dev", "tap0", "nodad"], check=True)
    g, _ = boot(qemu, mq_netns)
    ll = eui64_link_local(g.mac)
    g.vm.wait_for(r"^net: eth0 ip6 %s ready \(link-local\)" % ll, 30)
    before = g.stats()
    host_ll = re.search(r"inet6 (fe80::[0-9a-f:]+)/", g.run(
        ["ip", "-6", "-o", "addr", "show", "dev", "tap0", "scope", "link"]).stdout.decode())
    # a router that answers solicitations: each stack trusts a prefix
    # only from a router that has answered it (net/lwip-patches), and
    # asks for the advertisement again once it has
    router = subprocess.Popen(
        ["ip", "netns", "exec", mq_netns, PYTHON, os.path.join(HERE, "netns_router.py"),
         "--iface", "tap0", "--prefix", prefix, "--source", host_ll.group(1), "--secs", "120"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        slaac = "2001:db8:99:0:" + ll[len("fe80::"):]
        g.vm.wait_for(r"^net: eth0 ip6 %s ready \(SLAAC\)" % re.escape(slaac), 60)
        serve_ipv6(g, (slaac,))
    finally:
        router.terminate()
        router.wait()
    after = g.stats()
    assert min(grew(before, after, "tcp_recv")) > 0, stacks(after)
    assert after["stacks"]["copies"] > before["stacks"]["copies"], after["stacks"]
    assert len(re.findall(r"ready \(SLAAC\)", g.vm.log())) == 1, "one report, stack 0's"


def test_igb_dhcp_address_reaches_both_stacks(qemu):
    """igb on user networking, 2 CPUs, 2 queues, the address from DHCP:
    stack 0's client got it and published it, so stack 1 answers too;
    24 connections from as many ports spread over both stacks, each
    echoed byte for byte; a client opened on each CPU is served there."""
    echo, http = free_port(), free_port()
    vm = qemu.start(append="nic=igb app=echo,http http_control=1 net_stack=percpu",
                    nic="igb", smp=2, mac="52:54:00:1b:58:%02x" % (echo % 256),
                    hostfwd=["%d:7" % echo, "%d:80" % http])
    vm.wait_for(MODE_LINE)
    up_line(vm, "eth0", "igb")
    vm.wait_for(r"^net: listening")
    stats_get = b"GET /stats.json HTTP/1.0\r\nHost: x\r\n\r\n"
    used = set()
    before = json.loads(http_from_queue(http, 0, TABLE, stats_get, used))
    for i in range(24):
        data = bytes([i]) * 3000
        assert tcp_echo(echo, data) == data
    after = json.loads(http_from_queue(http, 0, TABLE, stats_get, used))
    assert min(grew(before, after, "tcp_recv")) > 0, stacks(after)
    check_no_shared_lock_per_packet(before, after)
    for k in range(QUEUES):
        m, port = client_from_queue(vm, http, k, TABLE, used)
        assert answer_queue("10.0.2.2", "10.0.2.15", port, int(m.group(2)), TABLE) == k


@pytest.mark.parametrize("policy", ["local", "device", "interleave"])
def test_each_stack_lives_on_its_cpus_node_and_allocates_by_the_policy(qemu, policy):
    """q35, two nodes of one CPU each, igb (on node 0) with its two RSS
    queues: stack 1's state is on node 1, traffic is spread over both
    stacks, and each CPU takes its RX blocks where rx_alloc= says: from
    its own node (local), from the NIC's (device), from both in turn
    (interleave). With local, the RX buffers are freed on the CPU that
    received them (below 1 % remote); with every policy, lwIP's pool
    objects (PCBs, segments, pbufs) and heap buffers are freed on the
    node they came from (below 1 % remote)."""
    vm = NetVM(qemu, "native", nic="igb", machine="q35", numa=TWO_NODES,
               append="net_stack=percpu rx_alloc=%s" % policy)
    vm.vm.wait_for(MODE_LINE)
    before = vm.stats()
    assert [i["node"] for i in stacks(before)] == [-1, 1], stacks(before)
    assert before["net_numa"]["nic_node"] == 0, before["net_numa"]
    for i in range(16):
        data = bytes([i]) * 20000
        assert tcp_echo(vm.echo, data) == data
    after = vm.stats()
    assert min(grew(before, after, "tcp_recv")) > 0, stacks(after)
    for cpu in range(QUEUES):
        d = [a - b for a, b in zip(rx_refills(after, cpu), rx_refills(before, cpu))]
        want = {"local": lambda: d[cpu] > 0 and d[1 - cpu] == 0,
                "device": lambda: d[0] > 0 and d[1] == 0,
                "interleave": lambda: d[0] > 0 and d[1] > 0}[policy]
        assert want(), (policy, cpu, d)
        assert after["page_frag"]["cpu"]["cpu%d" % cpu]["refill_policy"] == policy
    mem = after["net_mem"]
    if policy == "local":
        assert mem["rx_frees_other_cpu"] * 100 < mem["rx_wrap"], mem
    # lwIP's objects are freed on the node they came from, each stack
    # allocating and freeing its own: the pools' PCBs, segments and pbufs
    # (qmempool) and the heap's buffers (kmalloc)
    pools = {k: sum(a[k] - before["qmempool"].get(n, {}).get(k, 0)
                    for n, a in after["qmempool"].items() if isinstance(a, dict) and k in a)
             for k in ("alloc", "remote_free")}
    heap = {k: sum(a[k] - before["slabinfo"].get(n, {}).get(k, 0)
                   for n, a in after["slabinfo"].items() if n.startswith("kmalloc"))
            for k in ("frees", "remote_frees")}
    print("pools: %s; kmalloc: %s" % (pools, heap))
    assert pools["alloc"] > 0 and heap["frees"] > 0, (pools, heap)
    assert pools["remote_free"] * 100 <= pools["alloc"], pools
    assert heap["remote_frees"] * 100 <= heap["frees"], heap
