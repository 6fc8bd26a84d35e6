"""The e1000 (Intel 8254x) driver under QEMU.

What only the e1000 has: the 8254x models QEMU emulates (each reads its MAC
its own way), link changes reported from STATUS.LU, and a VM with a
virtio-net and an e1000 NIC side by side, each reachable. The networking
tests shared with virtio-net (DHCP, curl, echo, iperf, ping, no leak) run
with nic=e1000 through their own parametrisation, not copied here.

Readiness always comes from the guest's serial log ("net: ... up", "net:
listening"), never from a port being open: QEMU's user-net forward accepts
connections before the guest listens (or while it is paused).
"""
import os
import re
import socket
import time

import pytest

from conftest import free_port

NET_TIMEOUT = 60  # boot + DHCP under TCG on a loaded machine


def up_line(vm, dev, kind):
    """Waits for the guest's 'net: DEV up ip=... nic=KIND' line; returns
    the IPv4 address it got."""
    m = vm.wait_for(r"^net: %s up ip=(\d+\.\d+\.\d+\.\d+)/\d+ "
                    r"mac=[0-9a-f:]+ nic=%s\s*$" % (dev, kind),
                    timeout=NET_TIMEOUT)
    return m.group(1)


def tcp_echo(port, payload, timeout=20):
    """Sends payload to the guest's TCP echo through a host forward and
    returns what came back (as many bytes as were sent)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(payload)
        got = b""
        while len(got) < len(payload):
            chunk = s.recv(65536)
            if not chunk:
                break
            got += chunk
    return got


def http_get(port, path, timeout=20):
    """A plain HTTP/1.0 GET; returns (status code, body)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(b"GET %s HTTP/1.0\r\nHost: localhost\r\n\r\n" % path.encode())
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status = int(head.split(b" ")[1]) if head.startswith(b"HTTP/") else 0
    return status, body


def nic_counter(stats_body, dev, name):
    """One counter of one NIC from /stats.json, read with a regex so the
    check does not depend on the rest of the document."""
    m = re.search(rb'"%s":\{"kind":"[a-z0-9-]+"[^}]*"%s":(\d+)'
                  % (dev.encode(), name.encode()), stats_body)
    assert m, "no %s.%s in %r" % (dev, name, stats_body[:400])
    return int(m.group(1))


# QEMU's 8254x models: the 82540EM and 82545EM read their MAC from the
# EEPROM through EERD; the 82544GC has no EERD and takes it from RAL0/RAH0.
@pytest.mark.parametrize("model,name,source", [
    ("e1000", "82540EM", "eeprom"),
    ("e1000-82545em", "82545EM", "eeprom"),
    ("e1000-82544gc", "82544GC", "ral"),
])
def test_each_8254x_model_probes_and_echoes(qemu, model, name, source):
    port = free_port()
    mac = "52:54:00:e1:00:%02x" % (port % 256)
    vm = qemu.start(append="nic=e1000 app=echo", nic="none", extra=[
        "-netdev", "user,id=n0,hostfwd=tcp:127.0.0.1:%d-:7" % port,
        "-device", "%s,netdev=n0,mac=%s" % (model, mac)])
    m = vm.wait_for(r"^e1000: eth0 \S+ (\S+) mac=([0-9a-f:]+) \((\w+)\)")
    assert m.groups() == (name, mac, source)
    up_line(vm, "eth0", "e1000")
    vm.wait_for(r"^net: listening")
    payload = os.urandom(64 * 1024)
    assert tcp_echo(port, payload) == payload


def test_link_down_and_up_are_reported_and_traffic_resumes(qemu, tmp_path):
    port = free_port()
    mon = str(tmp_path / "mon.sock")
    vm = qemu.start(append="nic=e1000 app=echo", nic="e1000",
                    mac="52:54:00:e1:01:%02x" % (port % 256),
                    hostfwd=["%d:7" % port],
                    extra=["-monitor", "unix:%s,server=on,wait=off" % mon])
    up_line(vm, "eth0", "e1000")
    vm.wait_for(r"^net: listening")

    def monitor(cmd):
        with socket.socket(socket.AF_UNIX) as s:
            s.connect(mon)
            s.sendall(cmd.encode() + b"\n")
            time.sleep(0.3)  # let the monitor act before we hang up

    monitor("set_link n0 off")
    vm.wait_for(r"^e1000: eth0 link down\s*$")
    monitor("set_link n0 on")
    vm.wait_for(r"^e1000: eth0 link up 1000 Mb/s full duplex(?:.|\n)*"
                r"^e1000: eth0 link up 1000 Mb/s full duplex")
    assert tcp_echo(port, b"after the link came back") == \
        b"after the link came back"


DRIVER_LINE = {"virtio": "virtio-net", "e1000": "e1000"}


@pytest.mark.parametrize("first,cmdline", [("virtio", "nic=all"),
                                           ("e1000", "nic=e1000")])
def test_two_nics_in_one_vm_are_both_reachable(qemu, first, cmdline):
    """Two NICs, two netifs: the first (virtio-net or a first e1000) on
    10.0.2.0/24 as eth0, an e1000 on a second user-net, 10.0.3.0/24, as
    eth1, each with its own forward to the guest's HTTP server. Distinct
    subnets so each reply leaves by the NIC its request came in on."""
    p0, p1 = free_port(), free_port()
    vm = qemu.start(append="%s app=http" % cmdline, nic=first,
                    mac="52:54:00:e1:02:%02x" % (p0 % 256),
                    hostfwd=["%d:80" % p0], extra=[
        "-netdev", "user,id=n1,net=10.0.3.0/24,"
                   "hostfwd=tcp:127.0.0.1:%d-:80" % p1,
        "-device", "e1000,netdev=n1,mac=52:54:00:e1:03:%02x" % (p1 % 256)])
    vm.wait_for(r"^%s: eth0 " % DRIVER_LINE[first])
    vm.wait_for(r"^e1000: eth1 ")
    assert up_line(vm, "eth0", first) == "10.0.2.15"
    assert up_line(vm, "eth1", "e1000") == "10.0.3.15"
    vm.wait_for(r"^net: listening")
    for port in (p0, p1):
        status, body = http_get(port, "/")
        assert status == 200 and body
    status, stats = http_get(p1, "/stats.json")
    assert status == 200
    # Each NIC carried its own request (and DHCP) in both directions.
    for dev in ("eth0", "eth1"):
        assert nic_counter(stats, dev, "rx_packets") > 0
        assert nic_counter(stats, dev, "tx_completed") > 0
