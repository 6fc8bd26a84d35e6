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
    # Every TCP segment out had its sum filled by the device ...
    assert grew("tx_csum_offloaded") >= 256 * 1024 // 1460
    # ... and every one in was checked by it: the stack checked none.
    assert grew("rx_csum_sw") == 0
    # Consecutive segments went out merged, for the device to cut (TSO).
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
