"""virtio-net receive-side scaling (VIRTIO_NET_F_RSS, QEMU's rss=on).

The guest on a multiqueue tap in a private namespace (tools/qemu-run
--queues, which offers rss=on) programs the device's key and redirection
table as igb's driver does, so a connection the guest opens gets a local
port whose answers the table sends back to the opening CPU's queue
(net/rss_steer.c). The test computes the Toeplitz hash itself
(test_igb.answer_queue) to choose which queue each request arrives on, and
checks where the answers to what the request started arrived.
"""
import json
import re
import subprocess

from test_igb import answer_queue
from test_net_multiqueue import GUEST, HOST, MqGuest, mq_netns, queues  # noqa: F401

QUEUES = 2
TABLE = [i % QUEUES for i in range(128)]

def tcp4_queue(src, dst, sport, dport):
    """The queue TABLE names for a TCP/IPv4 frame of that flow."""
    return answer_queue(src, dst, sport, dport, TABLE)


def source_port(queue, used):
    """A host source port whose requests to the guest's port 80 the
    table puts on queue; each once (the guest keeps TIME_WAIT)."""
    for sport in range(40000, 50000):
        if sport not in used and tcp4_queue(HOST, GUEST, sport, 80) == queue:
            used.add(sport)
            return sport
    raise AssertionError("no source port hashes to queue %d" % queue)


def http_on_queue(g, queue, path, used, post=False):
    """The body of an HTTP/1.0 request for path, sent from a source port
    the table puts on queue (curl --local-port, in the namespace)."""
    r = g.run(["curl", "-sS", "-f", "-m", "30", "--http1.0", "--local-port",
               str(source_port(queue, used))] + (["-d", ""] if post else [])
              + ["http://%s%s" % (GUEST, path)])
    if r.returncode != 0:
        g.fail("request on queue %d failed: %s" % (queue, r.stderr.decode()[-500:]))
    return r.stdout.decode()


def client_on_queue(g, k, port, used):
    """Starts an iperf server on port in the namespace, asks the guest (a
    request the table puts on queue k) to run its iperf client against
    it, and returns the guest's done-client line: bytes sent, local port."""
    srv = subprocess.Popen(["ip", "netns", "exec", g.ns, "iperf", "-s", "-p", str(port)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        g.run(["sh", "-c", "for i in $(seq 50); do ss -ltn | grep -q :%d && exit 0;"
               " sleep 0.1; done; exit 1" % port])
        body = http_on_queue(g, k, "/iperf-client/%d" % port, used, post=True)
        assert body == "started\n", body
        return g.vm.wait_for(r"^iperf: done-client %s:%d bytes=([1-9]\d*) ms=\d+ "
                             r"kbps=\d+ local_port=(\d+)$" % (re.escape(HOST), port), 90)
    finally:
        srv.terminate()
        srv.wait()


def test_client_opened_on_each_cpu_gets_its_answers_on_that_cpus_queue(qemu, mq_netns):
    """2 CPUs, 2 pairs, RSS on: the report says so, /stats.json shows the
    table; a request hashed to queue k starts the guest's iperf client
    on CPU k, which takes a local port the table maps back to k (counted
    as steered on k alone), and the sender's ACK stream arrives on k."""
    g = MqGuest(qemu, mq_netns, smp=QUEUES, queues=QUEUES, append="http_control=1")
    assert re.search(r"^virtio-net: eth0 rss=on table=128 key=40$", g.vm.log(), re.M), \
        g.vm.describe()
    used = set()
    for k in range(QUEUES):
        before = json.loads(http_on_queue(g, k, "/stats.json", used))
        assert before["nic"]["eth0"]["rss_table"] == TABLE, before["nic"]["eth0"]
        port = 5201 + k  # each its own: wait_for finds the first line that matches
        m = client_on_queue(g, k, port, used)
        after = json.loads(http_on_queue(g, k, "/stats.json", used))
        local_port = int(m.group(2))
        # the answers' flow (the server's port to the guest's) hashes to k
        assert tcp4_queue(HOST, GUEST, port, local_port) == k, local_port
        b, a = queues(before), queues(after)

        def grew(q, name):
            return a[q][name] - b[q][name]

        for q in range(QUEUES):
            assert grew(q, "tcp_port_steered") == (1 if q == k else 0), (k, q, a[q])
            assert a[q]["tcp_port_unsteered"] == 0, (q, a[q])
            assert a[q]["rx_other_cpu"] == 0, (q, a[q])
        # the ACKs came on queue k: the host's stack merges what the tap
        # gives it (GRO) and acknowledges at least every second merged
        # segment of up to 64 KiB
        acks = int(m.group(1)) // (2 * 65536)
        others = [grew(q, "rx_packets") for q in range(QUEUES) if q != k]
        assert grew(k, "rx_packets") >= acks, (k, grew(k, "rx_packets"), acks)
        assert grew(k, "rx_packets") > 10 * max(others), (k, others)
        print("cpu %d: local port %d, rx on its queue %d, elsewhere %s" % (
            k, local_port, grew(k, "rx_packets"), others))


def test_rss_switched_off_leaves_the_tap_to_choose(qemu, mq_netns):
    """virtio_rss=0: not negotiated, said so, no table to steer by (the
    guest's ports are not chosen, and /stats.json shows no table)."""
    g = MqGuest(qemu, mq_netns, smp=QUEUES, queues=QUEUES, append="virtio_rss=0")
    assert re.search(r"^virtio-net: eth0 rss=off\(switch\)$", g.vm.log(), re.M), \
        g.vm.describe()
    assert "pairs=2 of 2" in g.vm.log(), g.vm.describe()
    eth0 = g.stats()["nic"]["eth0"]
    assert not eth0.get("rss_table"), eth0
    g.clients(tcp=4, udp=8, http=2)
