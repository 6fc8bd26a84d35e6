"""netconsole (apps/netconsole.c): the kernel's log as UDP datagrams to
the host and port netconsole= names, in Linux netconsole's basic format
(the log's text, a line a datagram), received here by a plain UDP
socket as `nc -u -l` would.

The guest is on QEMU's user network, where 10.0.2.2 is the host: a
datagram to 10.0.2.2:PORT reaches the host's 127.0.0.1:PORT.
"""
import re
import socket
import time

from conftest import free_udp_port

READY = r"^net: listening "


def listener():
    """(socket, port): a UDP socket on the host's loopback."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    port = free_udp_port()
    s.bind(("127.0.0.1", port))
    s.settimeout(0.5)
    return s, port


def receive_until(vm, s, pattern, timeout=60):
    """The datagrams received up to and including the first whose text
    matches pattern."""
    got, rx, end = [], re.compile(pattern), time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            data = s.recv(65536)
        except socket.timeout:
            continue
        got.append(data.decode(errors="replace"))
        if rx.search(got[-1]):
            return got
    vm.fail("no datagram matching %r within %ss; got %d:\n%s"
            % (pattern, timeout, len(got), "".join(got[-20:])))


def log_lines(vm):
    return [l.rstrip("\r") for l in vm.log().split("\n") if l.strip("\r")]


def test_the_log_arrives_a_line_a_datagram_from_the_first_boot_line(qemu):
    s, port = listener()
    vm = qemu.start(append="netconsole=10.0.2.2:%d" % port, nic="virtio", smp=2,
                    serial_socket=True)
    vm.wait_for(READY)
    got = receive_until(vm, s, READY)
    # each datagram is one whole line, as Linux's netconsole sends them
    for d in got:
        assert d.endswith("\n") and d.count("\n") == 1, repr(d)
    lines = [d[:-1] for d in got]
    # the whole boot, the lines before the network came up included, in
    # the order the serial console has them
    serial = log_lines(vm)
    assert lines[0].startswith("boot: x86_64 unikernel starting"), lines[:3]
    assert lines == serial[:len(lines)], (lines, serial)
    assert any(l.startswith("netconsole: the log goes to 10.0.2.2:%d" % port) for l in lines)
    # and what is logged later, as it happens
    con = vm.serial()
    con.send(b"\r")
    con.expect(rb"shell> ")
    con.command("selftest printf")
    got = receive_until(vm, s, r"^selftest: printf PASS", timeout=30)
    s.close()


def test_a_target_without_a_port_is_refused_and_nothing_starts(qemu):
    log = qemu.boot(append="exit_after_boot=1 nic=none netconsole=10.0.2.2")
    assert re.search(r"^cmdline: bad value '10\.0\.2\.2' for netconsole", log, re.M), log
    assert "netconsole:" not in log
