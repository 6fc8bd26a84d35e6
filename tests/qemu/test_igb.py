"""The igb driver under QEMU's 82576 model (-device igb, PCIe, on q35).

What only igb has: the 82576 found with its MAC from receive address 0,
advanced descriptors with the checksums offloaded both ways (the device
fills TCP/UDP sums on send and checks them on receive, so the stack's
software check stays idle), and link down and up through QEMU's monitor
(reported, counted, traffic resuming). The networking tests shared with
virtio-net, e1000 and e1000e (DHCP, curl, echo, 1 MiB echo, iperf, UDP,
ping over tap, no leak, both allocator modes) run with nic=igb through
test_net.py's parametrisation. Descriptor write-backs a broken device
could make are tested on the host (tests/host/drivers/test_igb.c), and so
is the refusal of untested variants: QEMU emulates the 82576 only.
"""
import json
import socket
import subprocess
import time

import pytest

from conftest import free_port, qemu_version
from test_e1000 import http_get, nic_counter, tcp_echo, up_line

pytestmark = pytest.mark.skipif(qemu_version() < (8, 0),
                                reason="needs QEMU 8 or later (the igb model)")


def boot_igb(qemu, mon=None, app="echo,http"):
    echo, http = free_port(), free_port()
    mac = "52:54:00:1b:%02x:%02x" % (echo % 256, http % 256)
    extra = ["-monitor", "unix:%s,server=on,wait=off" % mon] if mon else []
    vm = qemu.start(append="nic=igb app=%s" % app, nic="igb", mac=mac,
                    hostfwd=["%d:7" % echo, "%d:80" % http], extra=extra)
    return vm, mac, echo, http


def test_82576_probes_with_its_ral_mac_and_echoes_256k_byte_identical(qemu):
    vm, mac, echo, http = boot_igb(qemu)
    m = vm.wait_for(r"^igb: eth0 00:\w\w\.\d 82576 mac=([0-9a-f:]+) \((\w+)\) "
                    r"rx=256 tx=256 queues=1 link up$")
    assert m.groups() == (mac, "ral")  # QEMU loads -device mac= into RAL0
    assert up_line(vm, "eth0", "igb") == "10.0.2.15"
    vm.wait_for(r"^net: listening")
    _, before = http_get(http, "/stats.json")
    payload = bytes((i * 7 + (i >> 8)) & 0xff for i in range(256 * 1024))
    assert tcp_echo(echo, payload, timeout=60) == payload
    _, after = http_get(http, "/stats.json")

    def grew(name):
        return nic_counter(after, "eth0", name) - nic_counter(before, "eth0", name)

    assert grew("rx_packets") >= 256 * 1024 // 1460
    # Every TCP segment out had its sum filled by the device (the
    # frames it cut count as the segments it cut them into) ...
    assert (grew("tx_csum_offloaded") - grew("tx_gso_frames") + grew("tx_gso_segs")
            >= 256 * 1024 // 1460)
    # ... and every one in was checked by it: the stack checked none.
    assert grew("rx_csum_sw") == 0
    # (and counted so: a frame the device vouched for, as on every NIC)
    assert grew("rx_csum_valid") >= 256 * 1024 // 1460
    # The echo went out in segments of several MSS, for the device to
    # cut (TSO; lwIP built them so: net/tcp_seg_max.c).
    assert grew("tx_gso_frames") > 0
    assert grew("tx_gso_segs") >= 2 * grew("tx_gso_frames")
    print("TSO: %d segments in %d frames of %d sent" % (
        grew("tx_gso_segs"), grew("tx_gso_frames"), grew("tx_packets")))
    assert nic_counter(after, "eth0", "rx_bad_len") == 0
    assert nic_counter(after, "eth0", "rx_errors") == 0
    doc = json.loads(after)
    assert doc["nic"]["eth0"]["kind"] == "igb", doc["nic"]["eth0"]


def test_link_down_and_up_are_reported_counted_and_traffic_resumes(qemu, tmp_path):
    mon = str(tmp_path / "mon.sock")
    vm, _, echo, http = boot_igb(qemu, mon=mon)
    up_line(vm, "eth0", "igb")
    vm.wait_for(r"^net: listening")
    _, before = http_get(http, "/stats.json")

    def monitor(cmd):
        with socket.socket(socket.AF_UNIX) as s:
            s.connect(mon)
            s.sendall(cmd.encode() + b"\n")
            time.sleep(0.3)  # let the monitor act before we hang up

    monitor("set_link n0 off")
    vm.wait_for(r"^igb: eth0 link down\s*$")
    monitor("set_link n0 on")
    vm.wait_for(r"^igb: eth0 link up 1000 Mb/s full duplex(?:.|\n)*"
                r"^igb: eth0 link up 1000 Mb/s full duplex")
    assert tcp_echo(echo, b"after the link came back") == b"after the link came back"
    _, after = http_get(http, "/stats.json")
    assert nic_counter(after, "eth0", "link_changes") == \
        nic_counter(before, "eth0", "link_changes") + 2


def test_rss_spreads_24_flows_over_every_queue_as_the_table_says(qemu):
    """4 CPUs, 4 queue pairs: 24 TCP connections (each its own source
    port, so its own Toeplitz hash) land on every queue, each frame on the
    queue the redirection table names for the hash it came with."""
    echo, http = free_port(), free_port()
    vm = qemu.start(append="nic=igb app=echo,http", nic="igb", smp=4,
                    mac="52:54:00:1b:55:%02x" % (echo % 256),
                    hostfwd=["%d:7" % echo, "%d:80" % http])
    vm.wait_for(r"^igb: eth0 .* queues=4 link up$")
    for q in range(4):
        vm.wait_for(r"^igb: eth0 queue %d: msix vector 0x[0-9a-f]+ cpu %d$" % (q, q))
    up_line(vm, "eth0", "igb")
    vm.wait_for(r"^net: listening")
    _, body = http_get(http, "/stats.json")
    before = json.loads(body)["nic"]["eth0"]
    assert before["rss_table"] == [i % 4 for i in range(128)], before["rss_table"]
    for i in range(24):
        data = bytes([i]) * 3000
        assert tcp_echo(echo, data) == data
    _, body = http_get(http, "/stats.json")
    after = json.loads(body)["nic"]["eth0"]
    for q in range(4):
        b, a = before["queues"][q], after["queues"][q]
        assert a["cpu"] == q and a["irq"] == "msix", a
        assert a["rx_packets"] > b["rx_packets"], (q, b, a)
        assert a["rx_rss_hashed"] > b["rx_rss_hashed"], (q, b, a)
        # the frames came on the queue the table names for their hash
        assert a["rx_rss_other_queue"] == 0, (q, a)
    print("rx frames per queue: %s" % [after["queues"][q]["rx_packets"] -
                                       before["queues"][q]["rx_packets"]
                                       for q in range(4)])


def test_small_guest_gets_the_queue_pairs_its_memory_holds_and_answers_tcp(qemu):
    """-m 7M on q35 leaves 295 free pages at the probe: two pairs' full
    RX rings (530 KiB each) would take nearly all (with 233 free pages
    two pairs once took every one, and DHCP never finished). The probe
    keeps one pair and no TSO tables; the guest gets its address and
    answers a 64 KiB TCP echo byte-identical."""
    echo = free_port()
    vm = qemu.start(append="nic=igb app=echo", nic="igb", smp=2, mem="7M",
                    mac="52:54:00:1b:16:%02x" % (echo % 256), hostfwd=["%d:7" % echo])
    vm.wait_for(r"^igb: 00:\w\w\.\d: 1 of 2 queue pairs: the free memory holds "
                r"no more RX buffers$")
    vm.wait_for(r"^igb: 00:\w\w\.\d: TSO off: its tables would take more than "
                r"1/64 of the free memory$")
    vm.wait_for(r"^igb: eth0 .* queues=1 link up$")
    assert up_line(vm, "eth0", "igb") == "10.0.2.15"
    vm.wait_for(r"^net: listening")
    data = bytes((i * 13 + (i >> 9)) & 0xff for i in range(64 * 1024))
    assert tcp_echo(echo, data, timeout=60) == data


def test_software_toeplitz_hash_equals_the_devices_for_every_frame(qemu):
    """net_rss_check=on: the stack computes the RSS hash of every frame
    the 82576 model hashed again, from the key it programmed
    (net/toeplitz.c), and counts the frames where the two differ. Over
    DHCP, the stats requests and 20 TCP connections (each its own source
    port, so its own hash) on 4 queues: every hashed frame checked, none
    different."""
    echo, http = free_port(), free_port()
    vm = qemu.start(append="nic=igb app=echo,http net_rss_check=on",
                    nic="igb", smp=4, mac="52:54:00:1b:56:%02x" % (echo % 256),
                    hostfwd=["%d:7" % echo, "%d:80" % http])
    vm.wait_for(r"^igb: eth0 .* queues=4 link up$")
    up_line(vm, "eth0", "igb")
    vm.wait_for(r"^net: listening")
    for i in range(20):
        data = bytes([i]) * 2000
        assert tcp_echo(echo, data) == data
    _, body = http_get(http, "/stats.json")
    queues = json.loads(body)["nic"]["eth0"]["queues"]
    for q in range(4):
        a = queues[q]
        assert a["rx_rss_hashed"] > 0, (q, a)
        # every hashed frame was one the stack could hash too (TCP or
        # UDP without IPv6 extension headers, or addresses only) ...
        assert a["rx_rss_hash_checked"] == a["rx_rss_hashed"], (q, a)
        # ... and its hash was the device's
        assert a["rx_rss_hash_mismatch"] == 0, (q, a)
    print("checked per queue: %s" % [queues[q]["rx_rss_hash_checked"]
                                     for q in range(4)])


# The key drivers/igb_rss.c programs (Microsoft's RSS verification key).
RSS_KEY = bytes.fromhex("6d5a56da255b0ec24167253d43a38fb0d0ca2bcb"
                        "ae7b30b477cb2da38030f20c6a42b73bbeac01fa")


def toeplitz(key, data):
    """RSS's Toeplitz hash, the test's own: for each set input bit, the
    32 key bits from that bit's position on, XORed together."""
    k, nbits, h = int.from_bytes(key, "big"), len(key) * 8, 0
    for i in range(len(data) * 8):
        if data[i // 8] >> (7 - i % 8) & 1:
            h ^= (k >> (nbits - 32 - i)) & 0xffffffff
    return h


def answer_queue(src, dst, sport, dport, table):
    """The queue the table names for a TCP/IPv4 frame of that flow."""
    data = socket.inet_aton(src) + socket.inet_aton(dst) + \
        sport.to_bytes(2, "big") + dport.to_bytes(2, "big")
    return table[toeplitz(RSS_KEY, data) % len(table)]


def bound_socket(queue, table, guest_port, used):
    """A host socket bound to a source port whose frames (through QEMU's
    user net, which keeps the host's source port towards the guest) the
    guest's table puts on queue: the HTTP request it carries is served,
    and what it starts is started, on that queue's CPU. Each port once
    (used): the guest holds a closed connection's 4-tuple in TIME_WAIT."""
    for sport in range(40000, 50000):
        if sport in used or \
           answer_queue("10.0.2.2", "10.0.2.15", sport, guest_port, table) != queue:
            continue
        used.add(sport)
        s = socket.socket()
        try:
            s.bind(("127.0.0.1", sport))
            return s
        except OSError:
            s.close()
    raise AssertionError("no free host port for queue %d" % queue)


def http_from_queue(http, queue, table, request, used):
    """One HTTP/1.0 request through a host port the guest hashes to
    queue; returns the answer's body."""
    with bound_socket(queue, table, 80, used) as s:
        s.settimeout(20)
        s.connect(("127.0.0.1", http))
        s.sendall(request)
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    return data.partition(b"\r\n\r\n")[2]


def client_from_queue(vm, http, k, table, used):
    """Starts an iperf server on the host, asks the guest (a request the
    table puts on queue k) to run its iperf client against it, and
    returns the guest's done-client line (bytes sent, local port) and the
    server's port."""
    port = free_port()
    srv = subprocess.Popen(["iperf", "-s", "-p", str(port)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(0.3)
        body = http_from_queue(http, k, table,
                               b"POST /iperf-client/%d HTTP/1.0\r\n"
                               b"Content-Length: 0\r\n\r\n" % port, used)
        assert body == b"started\n", body
        return vm.wait_for(r"^iperf: done-client 10\.0\.2\.2:%d bytes=([1-9]\d*) "
                           r"ms=\d+ kbps=\d+ local_port=(\d+)$" % port, 60), port
    finally:
        srv.terminate()
        srv.wait()


def test_iperf_client_opened_on_each_cpu_gets_its_answers_on_that_cpus_queue(qemu):
    """4 CPUs, 4 queues: the iperf client started by a request that the
    table puts on queue k (so the guest opens it on CPU k) gets a local
    port whose answers the table names queue k for (the test's own
    Toeplitz hash), counted as steered on queue k alone; the device's
    hash of every answer is the software's (net_rss_check=on), every
    frame came on the queue its hash names, and queue k took the ACK
    stream of the 10-second send."""
    echo, http = free_port(), free_port()
    vm = qemu.start(append="nic=igb app=echo,http http_control=1 net_rss_check=on",
                    nic="igb", smp=4, mac="52:54:00:1b:57:%02x" % (echo % 256),
                    hostfwd=["%d:7" % echo, "%d:80" % http])
    vm.wait_for(r"^igb: eth0 .* queues=4 link up$")
    up_line(vm, "eth0", "igb")
    vm.wait_for(r"^net: listening")
    table = [i % 4 for i in range(128)]
    stats_get = b"GET /stats.json HTTP/1.0\r\nHost: x\r\n\r\n"
    used = set()
    for k in range(4):
        before = json.loads(http_from_queue(http, k, table, stats_get, used))
        assert before["nic"]["eth0"]["rss_table"] == table
        m, port = client_from_queue(vm, http, k, table, used)
        after = json.loads(http_from_queue(http, k, table, stats_get, used))
        local_port = int(m.group(2))
        assert 0xc000 <= local_port <= 0xffff
        # the answers' flow (the server's port to the guest's) hashes to k
        assert answer_queue("10.0.2.2", "10.0.2.15", port, local_port, table) == k
        b, a = before["nic"]["eth0"]["queues"], after["nic"]["eth0"]["queues"]

        def grew(q, name):
            return a[q][name] - b[q][name]

        for q in range(4):
            assert a[q]["cpu"] == q
            assert grew(q, "tcp_port_steered") == (1 if q == k else 0), (k, q, a[q])
            assert a[q]["tcp_port_unsteered"] == 0, (q, a[q])
            assert a[q]["rx_rss_other_queue"] == 0, (q, a[q])
            assert a[q]["rx_rss_hash_mismatch"] == 0, (q, a[q])
            # and each queue's frames were handled on its own CPU
            assert a[q]["rx_other_cpu"] == 0, (q, a[q])
        # the sender's ACKs (one per two full segments at least) came
        # on queue k; the other queues saw only the odd frame of no flow
        acks = int(m.group(1)) // (2 * 1460) // 4
        others = [grew(q, "rx_packets") for q in range(4) if q != k]
        assert grew(k, "rx_packets") >= acks, (k, grew(k, "rx_packets"), acks)
        assert grew(k, "rx_packets") > 10 * max(others), (k, others)
        print("cpu %d: local port %d, rx on its queue %d, elsewhere %s" % (
            k, local_port, grew(k, "rx_packets"), others))
