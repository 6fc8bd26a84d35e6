"""The e1000e (Intel 82574L, QEMU's -device e1000e on q35) under QEMU.

What only the e1000e has here: the 82574L found on the PCIe bus with its
MAC read from the NVM, link down and up through QEMU's monitor (reported,
counted in /stats.json, traffic resuming), an e1000e next to a
virtio-net in one VM, each reachable, and its receive checksum offload
on and switched off (e1000e_rx_csum=0; IPv6 in tests/qemu/test_ipv6.py). The networking tests shared with
virtio-net and e1000 (DHCP, curl, echo, 1 MiB echo, iperf, ping over tap,
no leak, both allocator modes) run with nic=e1000e through test_net.py's
parametrisation. The refusal of other e1000e-family ids (I217/I218/I219...)
is tested on the host (tests/host/drivers/test_e1000e.c): QEMU 7.2 emulates
no other id of the family, and its e1000e has no property to change the id.
"""
import os
import re
import socket
import time

import pytest

from conftest import free_port
from test_e1000 import http_get, nic_counter, tcp_echo, up_line


def test_link_down_and_up_are_reported_counted_and_traffic_resumes(qemu, tmp_path):
    echo, http = free_port(), free_port()
    mac = "52:54:00:e1:0e:%02x" % (echo % 256)
    mon = str(tmp_path / "mon.sock")
    vm = qemu.start(append="nic=e1000e app=echo,http", nic="e1000e", mac=mac,
                    hostfwd=["%d:7" % echo, "%d:80" % http],
                    extra=["-monitor", "unix:%s,server=on,wait=off" % mon])
    m = vm.wait_for(r"^e1000e: eth0 00:\w\w\.\d 82574L mac=([0-9a-f:]+) \((\w+)\)")
    assert m.groups() == (mac, "eeprom")  # QEMU puts -device mac= in the NVM
    up_line(vm, "eth0", "e1000e")
    vm.wait_for(r"^net: listening")
    _, before = http_get(http, "/stats.json")

    def monitor(cmd):
        with socket.socket(socket.AF_UNIX) as s:
            s.connect(mon)
            s.sendall(cmd.encode() + b"\n")
            time.sleep(0.3)  # let the monitor act before we hang up

    monitor("set_link n0 off")
    vm.wait_for(r"^e1000e: eth0 link down\s*$")
    monitor("set_link n0 on")
    vm.wait_for(r"^e1000e: eth0 link up 1000 Mb/s full duplex(?:.|\n)*"
                r"^e1000e: eth0 link up 1000 Mb/s full duplex")
    assert tcp_echo(echo, b"after the link came back") == b"after the link came back"
    _, after = http_get(http, "/stats.json")
    # Down, then up again: two more changes than before.
    assert nic_counter(after, "eth0", "link_changes") == \
        nic_counter(before, "eth0", "link_changes") + 2


def test_virtio_and_e1000e_in_one_vm_are_both_reachable(qemu):
    """nic=all on q35: virtio-net as eth0 on 10.0.2.0/24, the 82574L as
    eth1 on a second user-net, 10.0.3.0/24, each with its own forward to
    the guest's HTTP server, each carrying its own requests."""
    p0, p1 = free_port(), free_port()
    vm = qemu.start(append="nic=all app=http", nic="virtio", machine="q35",
                    mac="52:54:00:e1:0f:%02x" % (p0 % 256),
                    hostfwd=["%d:80" % p0], extra=[
        "-netdev", "user,id=n1,net=10.0.3.0/24,"
                   "hostfwd=tcp:127.0.0.1:%d-:80" % p1,
        "-device", "e1000e,netdev=n1,mac=52:54:00:e1:10:%02x" % (p1 % 256)])
    vm.wait_for(r"^virtio-net: eth0 ")
    vm.wait_for(r"^e1000e: eth1 ")
    assert up_line(vm, "eth0", "virtio") == "10.0.2.15"
    assert up_line(vm, "eth1", "e1000e") == "10.0.3.15"
    vm.wait_for(r"^net: listening")
    for port in (p0, p1):
        status, body = http_get(port, "/")
        assert status == 200 and body
    status, stats = http_get(p1, "/stats.json")
    assert status == 200
    for dev in ("eth0", "eth1"):
        assert nic_counter(stats, dev, "rx_packets") > 0
        assert nic_counter(stats, dev, "tx_completed") > 0


@pytest.mark.parametrize("switch", ["", "e1000e_rx_csum=0"])
def test_rx_checksum_offload_vouches_or_is_switched_off(qemu, switch):
    """RXCSUM.TUOFL on (the default): the device checks the TCP sums of a
    byte-identical 1 MiB echo and the frames go up vouched for (counted in
    rx_csum_valid, so the stack's software check sees none of them);
    switched off, RXCSUM stays 0 and the stack checks every frame."""
    from test_net import NetVM

    vm = NetVM(qemu, "native", nic="e1000e", append=switch, machine="q35")
    word = "off(switch)" if switch else "on"
    assert re.search(r"^e1000e: eth0 offloads rx_csum=%s$" % re.escape(word),
                     vm.vm.log(), re.M), vm.vm.describe()
    before = vm.stats()["nic"]["eth0"]
    data = os.urandom(1 << 20)
    assert vm.tcp_echo(data) == data
    nic = vm.stats()["nic"]["eth0"]
    valid = nic["rx_csum_valid"] - before["rx_csum_valid"]
    checked = nic["rx_csum_sw"] - before["rx_csum_sw"]
    frames = nic["rx_packets"] - before["rx_packets"]
    if switch:
        assert nic["offloads"] == [] and nic["rx_csum_valid"] == 0, nic
        assert checked > frames // 2, (checked, frames)
    else:
        assert nic["offloads"] == ["rx_csum"], nic
        # 1 MiB in MSS frames, nearly each vouched for by the device and
        # none left to the software check.
        assert valid > frames // 2 and valid > 700, (valid, frames)
        assert checked == 0, (checked, frames)
